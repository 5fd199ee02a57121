package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/gate/quality"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/report"
)

// QualityBlock is a tool_quality: entry: the catalog it scores, read from a
// declared server or a saved catalog file.
type QualityBlock struct {
	Server string
	// Catalog is the catalog file as written, relative to the suite.
	Catalog string
}

// qualityDefaults is the gate a tool_quality: check applies when its
// expect: list is omitted or empty.
var qualityDefaults = []struct {
	target, op string
	value      float64
}{
	{"min_score", ">=", 0.50},
	{"mean_score", ">=", 0.70},
	{"critical_count", "<=", 0},
}

// qualityTargets are the fixed targets of a tool_quality: check; smells.*
// and tool["<name>"].score complete them.
var qualityTargets = []string{"min_score", "mean_score", "critical_count", "warning_count", "schema_criticals", "schema_warnings", "smell_total"}

func qualityTargetOK(name string) bool {
	if contains(qualityTargets, name) {
		return true
	}
	if s, ok := strings.CutPrefix(name, "smells."); ok {
		return contains(quality.Smells, s)
	}
	return strings.HasPrefix(name, `tool["`) && strings.HasSuffix(name, `"].score`)
}

func (b *builder) toolQuality(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, report.KindToolQuality)
	q := &QualityBlock{}
	q.Server, _ = m["server"].(string)
	q.Catalog, _ = m["catalog"].(string)
	c.Quality = q
	switch {
	case q.Server == "" && q.Catalog == "":
		b.errorf(ptr, c.Pos, "tool_quality check %q needs a `server:` (a declared server to connect to) or a `catalog:` (a saved tools/list file)", c.Name)
	case q.Server != "" && q.Catalog != "":
		b.errorf(ptr+"/catalog", b.doc.KeyAt(ptr+"/catalog"), "tool_quality check %q has both `server:` and `catalog:`: it scores one catalog", c.Name)
	case q.Server != "" && !b.hasServer(q.Server):
		p := ptr + "/server"
		e := &diag.Error{Pos: b.doc.At(p), Pointer: p, Kind: "suite", Message: fmt.Sprintf("tool_quality check %q names server %q, which `servers:` does not declare", c.Name, q.Server)}
		if sug := diag.Suggest(q.Server, b.serverNames()); sug != "" {
			e.Hint = "did you mean `" + sug + "`?"
		}
		b.errs = append(b.errs, e)
	case q.Catalog != "":
		if _, err := os.Stat(filepath.Join(b.suite.Dir, filepath.FromSlash(q.Catalog))); err != nil {
			b.errorf(ptr+"/catalog", b.doc.At(ptr+"/catalog"), "catalog %q not found: expected a tools/list file relative to the suite's directory %q", q.Catalog, filepath.ToSlash(b.suite.Dir))
		}
	}
	items := list(m["expect"])
	b.expect(c, expectList{ptr: ptr + "/expect", items: items, grammarOnly: true})
	kept := c.Expect[:0]
	for _, a := range c.Expect {
		name := a.Target.String()
		if qualityTargetOK(name) {
			kept = append(kept, a)
			continue
		}
		known := append(append([]string(nil), qualityTargets...), `tool["<name>"].score`)
		for _, s := range quality.Smells {
			known = append(known, "smells."+s)
		}
		e := &diag.Error{Pos: a.Pos, Pointer: ptr + "/expect/" + strconv.Itoa(a.Index), Kind: "expect",
			Message: fmt.Sprintf("unknown tool_quality target `%s`: expected one of %s", name, strings.Join(known, ", "))}
		if s := diag.Suggest(name, known); s != "" {
			e.Hint = "did you mean `" + s + "`?"
		}
		b.errs = append(b.errs, e)
	}
	c.Expect = kept
	if len(items) == 0 {
		for _, d := range qualityDefaults {
			c.Expect = append(c.Expect, defaultAssertion("tool_quality", d.target, d.op, d.value, c.Pos))
		}
	}
}

// runToolQuality scores the check's catalog and evaluates its assertions.
// A catalog that cannot be read fails the case with an error finding.
func runToolQuality(s *Suite, p casePlan, res *report.CaseResult) (*report.CaseResult, diag.List) {
	c := p.c
	q := c.Quality
	t := live.Target{Catalog: q.Catalog}
	if q.Catalog != "" {
		t.Catalog = filepath.Join(s.Dir, filepath.FromSlash(q.Catalog))
	} else {
		t, _ = s.Target(q.Server)
	}
	cat, err := live.LoadLists(context.Background(), t, os.Getenv, live.ListTools)
	if err != nil {
		res.Verdict = report.Fail
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "tool_quality", Message: "could not read the catalog: " + err.Error()})
		return res, nil
	}
	var tools []quality.Tool
	for _, raw := range cat.RawTools() {
		tools = append(tools, quality.FromRaw(raw))
	}
	rep := quality.Assess(tools)
	for k, v := range rep.Targets() {
		res.Targets[k] = v
	}
	res.Counts["tool_quality.tools"] = int64(len(tools))
	res.Runs = 1
	for _, tr := range rep.Tools {
		for _, f := range append(append([]quality.Finding(nil), tr.Findings...), tr.Schema...) {
			if f.Severity == quality.Pass {
				continue
			}
			level := "warning"
			if f.Severity == quality.Critical {
				level = "error"
			}
			res.Findings = append(res.Findings, report.Finding{Level: level, Gate: "tool_quality",
				Message: fmt.Sprintf("%s `%s`: %s", f.Rule, f.Tool, f.Message)})
		}
	}
	failed := false
	for _, a := range c.Expect {
		v, ok := res.Targets[a.Target.String()]
		var actual any
		if ok {
			actual = v
		}
		r := evaluate(a, actual, ok)
		failed = failed || !r.Passed
		res.Assertions = append(res.Assertions, r)
	}
	res.Verdict = report.Pass
	if failed {
		res.Verdict = report.Fail
	}
	return res, nil
}
