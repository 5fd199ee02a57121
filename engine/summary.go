package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/report"
)

// suiteFloors reads the suite's floors: list, an expect: list whose
// targets are summary figures.
func (b *builder) suiteFloors(root map[string]any) {
	items := list(root["floors"])
	if len(items) == 0 {
		return
	}
	tmp := &Case{}
	b.expect(tmp, expectList{ptr: "/floors", items: items, grammarOnly: true})
	for _, a := range tmp.Expect {
		name := a.Target.String()
		k, isHat := report.SummaryPassHat(name)
		if !isHat {
			k, isHat = report.SummaryPassAt(name)
		}
		if isHat && k <= report.MaxSummaryK || slices.Contains(report.SummaryTargets, name) {
			b.suite.Floors = append(b.suite.Floors, a)
			continue
		}
		item, _ := items[a.Index].(map[string]any)
		tptr := "/floors/" + strconv.Itoa(a.Index) + "/target"
		pos := b.doc.At(tptr)
		if _, long := item["target"]; !long {
			for k := range item {
				tptr = "/floors/" + strconv.Itoa(a.Index) + "/" + yamlpos.EscapePointer(k)
			}
			pos = b.doc.KeyAt(tptr)
		}
		e := &diag.Error{Pos: pos, Pointer: tptr, Kind: "floors",
			Message: fmt.Sprintf("unknown summary target `%s`: a floor reads the suite summary: summary.pass_hat_<k>, summary.pass_at_<k> (k = 1 .. %d), %s", name, report.MaxSummaryK, strings.Join(report.SummaryTargets[2:], ", "))}
		if isHat {
			e.Message = fmt.Sprintf("`%s`: the summary's pass^k and pass@k go up to k = %d; a larger k needs a per-case floor (reliability: {min_pass_hat: {k, min}} or {min_pass_at: {k, min}})", name, report.MaxSummaryK)
		}
		if s := diag.Suggest(name, report.SummaryTargets); s != "" {
			e.Hint = "did you mean `" + s + "`?"
		}
		b.errs = append(b.errs, e)
	}
}

// suiteFloorsOf starts the envelope's floors from the suite's.
func suiteFloorsOf(s *Suite) []report.SuiteFloor {
	var out []report.SuiteFloor
	for _, a := range s.Floors {
		out = append(out, report.SuiteFloor{Index: a.Index, Target: a.Target.String(), Matcher: a.Matcher.Value(), Position: a.Pos})
	}
	return out
}
