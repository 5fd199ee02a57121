package annotate

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// multiRun prints a case's per-run rows of a tool_selection: floor
// ("weather selection #3  pass  selected `get_weather`, 1520 tokens") and
// its floor lines: the verdict line of each floor, then on a breach the
// FLOOR lines naming the failed condition and the runs that missed.
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
	}
	listed := runsListed(c)
	for _, f := range shownFloors(c) {
		verdict := p.paint(green, "[PASS]")
		if !f.Passed {
			verdict = p.paint(red, "[FAIL]")
		}
		fmt.Fprintf(b, "      %s %s %s\n", f.Name, verdict, Clean(f.Message))
		for _, l := range f.Lines {
			if listed && repeatsRun(l) {
				continue // the failing runs are listed above, each once
			}
			line := Clean(l)
			if strings.HasPrefix(l, "FLOOR ") {
				line = p.paint(red, "FLOOR") + line[len("FLOOR"):]
			}
			fmt.Fprintf(b, "      %s\n", line)
		}
	}
}

// runsListed reports whether the reliability lines list the case's runs
// one by one (Pretty.reliability), so a floor's own run lines would say
// the same failed checks a second time.
func runsListed(c *report.CaseResult) bool {
	if c.ToolSelection != nil && len(c.ToolSelection.Runs) > 0 {
		return true // one row per run above (multiRun)
	}
	r := c.Reliability
	return r != nil && r.PassedRuns != r.Runs
}

// repeatsRun reports whether a floor's line names a failing run's checks
// ("  run 4: assertion #0 ...") or counts those left out ("  and 3 more
// failing runs"), which the listed runs already say.
func repeatsRun(l string) bool {
	rest, ok := strings.CutPrefix(l, "  run ")
	if ok {
		n, _, found := strings.Cut(rest, ":")
		return found && n != "" && strings.Trim(n, "0123456789") == ""
	}
	return strings.HasPrefix(l, "  and ") && strings.HasSuffix(l, " more failing runs")
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
