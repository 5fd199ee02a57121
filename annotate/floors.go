package annotate

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// multiRun prints a case's per-run rows of a tool_selection: floor
// ("weather selection #3  pass  selected `get_weather`, 1520 tokens") and
// the verdict line of each floor it met; a missed floor is a check the
// case failed, printed with its FLOOR lines by Pretty.failures.
func (p Pretty) multiRun(b *strings.Builder, c *report.CaseResult) {
	if ts := c.ToolSelection; ts != nil {
		for _, r := range ts.Runs {
			mark := p.paint(green, "pass")
			if !r.PassK {
				mark = p.paint(red, "miss")
			}
			what := fmt.Sprintf("selected `%s`", ts.ExpectedTool)
			if !r.Selected {
				what = "did not select `" + ts.ExpectedTool + "`"
				if len(r.Called) > 0 {
					what += ", called " + strings.Join(r.Called, ", ")
				} else {
					what += ", called no tool"
				}
			}
			tokens := "tokens not recorded"
			if r.Tokens != nil {
				tokens = fmt.Sprintf("%d tokens", *r.Tokens)
			}
			if !r.WithinBudget {
				tokens += ", over budget"
			}
			fmt.Fprintf(b, "      %s  %s  %s, %s\n", Clean(r.Name), mark, Clean(what), tokens)
		}
		if ts.OmittedRuns > 0 {
			fmt.Fprintf(b, "      and %d more runs, not listed (the floors count them)\n", ts.OmittedRuns)
		}
	}
	for _, f := range shownFloors(c) {
		if !f.Passed {
			continue // a check the case failed, printed with its evidence (Pretty.failures)
		}
		fmt.Fprintf(b, "      %s %s %s\n", f.Name, p.paint(green, "[PASS]"), Clean(f.Message))
	}
}

// shownFloors are the floors of a case a reader is shown, in the text and
// the HTML report alike: one verdict per case, so a failing case shows its
// failed floors only, never a [PASS] beside its FAIL; a passing case shows
// every floor.
func shownFloors(c *report.CaseResult) []report.Floor {
	if c.Verdict != report.Fail {
		return c.Floors
	}
	var out []report.Floor
	for _, f := range c.Floors {
		if !f.Passed {
			out = append(out, f)
		}
	}
	return out
}
