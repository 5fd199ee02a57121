package engine

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/gate/distractor"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// DistractorsBlock is a distractors: block.
type DistractorsBlock struct {
	Pos diag.Pos
	// Generate is the generation request; Count is the block's count: or
	// distractor.DefaultCount.
	Generate   distractor.Config
	Correct    []string
	Complexity string
}

// Key returns "distractors".
func (*DistractorsBlock) Key() string { return "distractors" }

// Tools returns the distractors the block injects, deterministically.
func (d *DistractorsBlock) Tools() []distractor.Tool {
	return distractor.Generate(d.Generate)
}

func readDistractors(b *builder, raw rawBlock) Block {
	d := &DistractorsBlock{Pos: raw.pos, Correct: strings_(raw.m["correct"])}
	d.Complexity, _ = raw.m["complexity"].(string)
	src, _ := raw.m["source"].(map[string]any)
	from, _ := src["from"].(string)
	d.Generate = distractor.Config{From: distractor.Source(from), Of: strings_(src["of"]), Count: distractor.DefaultCount, Correct: d.Correct}
	if v, ok := raw.m["count"]; ok {
		if n, ok := b.integer(raw.ptr+"/count", v, 0, maxDistractors); ok {
			d.Generate.Count = int(n)
		}
	}
	if from == string(distractor.FromNearDuplicate) && len(d.Generate.Of) == 0 && !b.broken(raw.ptr+"/source") {
		b.errorf(raw.ptr+"/source", b.doc.KeyAt(raw.ptr+"/source"), "`from: near_duplicate` needs `of:`, the names of the real tools to derive look-alikes from")
	}
	return d
}

// toolRefs names the correct tools.
func (d *DistractorsBlock) toolRefs() []toolRef {
	var refs []toolRef
	for _, id := range d.Correct {
		refs = append(refs, toolRef{d.Key(), "correct", id, ""})
	}
	return refs
}

func (d *DistractorsBlock) newGate(c *Case) caseGate {
	g := &distractorsGate{blk: d, name: c.Name, injected: d.Tools()}
	names := make([]string, len(g.injected))
	for i, t := range g.injected {
		names[i] = t.Name
	}
	g.distr = gate.NewDistractors(d.Correct, names)
	for _, a := range c.Expect {
		if a.Target.String() == "distractors.certified_lower" {
			g.success = checkLabel(a) + ": the run did not select only correct tools"
		}
	}
	return g
}

// distractorsGate scores selection under injected look-alike tools
// (gate.Distractors).
type distractorsGate struct {
	blk      *DistractorsBlock
	name     string
	injected []distractor.Tool
	distr    *gate.Distractors
	last     gate.DistractorRun
	// success labels a run's check that it selected only correct tools,
	// "" unless distractors.certified_lower is asserted.
	success string
}

func (g *distractorsGate) addCassette(cas *cassette.Cassette) { g.distr.AddCatalog(cas.Catalog) }

func (g *distractorsGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

// score is the run's choices of correct tools and distractors (runScorer).
func (g *distractorsGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.distr.Score(r) }

func (g *distractorsGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	g.last = g.distr.Fold(s.(gate.DistractorRun))
}

func (g *distractorsGate) runValue(target string) (any, bool) {
	if target == "distractors.chose_distractor" {
		return float64(g.last.ChoseDistractor), true
	}
	return float64(gate.DistractorAccuracy(len(g.blk.Correct), g.last.ChoseCorrect, g.last.ChoseDistractor)), true
}

// runFailed fails a run that did not select only correct tools, when the
// certified floor is asserted.
func (g *distractorsGate) runFailed(failed []string) []string {
	if g.success != "" && !g.last.Success {
		failed = append(failed, g.success)
	}
	return failed
}

func (g *distractorsGate) result(res *report.CaseResult) {
	addGate(res, g.distr.Result())
	d := g.blk
	res.Distractors = &report.DistractorsDetail{Source: string(d.Generate.From), Count: d.Generate.Count, Complexity: d.Complexity,
		Correct: orEmptyStrings(d.Correct), Injected: []string{}}
	for _, t := range g.injected {
		res.Distractors.Injected = append(res.Distractors.Injected, t.Name)
	}
	if len(g.injected) < d.Generate.Count {
		res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "distractors",
			Message: fmt.Sprintf("`count: %d` asks for more distractors than the %s source makes here: %d injected", d.Generate.Count, d.Generate.From, len(g.injected))})
	}
}

// floors adds the certified floor, once the assertions are evaluated: it
// holds when every assertion on distractors.certified_lower passed.
func (g *distractorsGate) floors(res *report.CaseResult) {
	asserted, passed := 0, true
	for _, a := range res.Assertions {
		if a.Target == "distractors.certified_lower" {
			asserted++
			passed = passed && a.Passed
		}
	}
	if asserted == 0 {
		return
	}
	runs, ok := res.Counts["distractors.runs"], res.Counts["distractors.successful_runs"]
	msg := fmt.Sprintf("%s: %d/%d runs selected only correct tools, certified lower bound %s%% at 95%% confidence (accuracy %s%%)",
		g.name, ok, runs, formatNumber(res.Targets["distractors.certified_lower"]), formatNumber(res.Targets["distractors.accuracy"]))
	f := report.Floor{Name: "certified floor", Passed: passed, Message: msg}
	if !passed {
		f.Lines = g.breaches(res, runs, ok)
	}
	res.Floors = append(res.Floors, f)
}

// breaches explains a certified floor that does not hold.
func (g *distractorsGate) breaches(res *report.CaseResult, runs, ok int64) []string {
	var lines []string
	bound := formatNumber(res.Targets["distractors.certified_lower"])
	for _, a := range res.Assertions {
		if a.Target == "distractors.certified_lower" && !a.Passed {
			why := a.Message
			if _, after, cut := strings.Cut(why, " failed: "); cut {
				why = after
			}
			lines = append(lines, fmt.Sprintf("FLOOR %s: certified lower bound %s%% misses the floor (%s)", g.name, bound, why))
		}
	}
	if ok == runs {
		return append(lines, fmt.Sprintf("  all %d runs succeeded, and %d perfect runs certify only %s%% at 95%% confidence: a higher floor needs more runs", runs, runs, bound))
	}
	return append(lines, fmt.Sprintf("  %d of %d runs chose a distractor, another tool outside the correct set, or no correct tool", runs-ok, runs))
}

func orEmptyStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
