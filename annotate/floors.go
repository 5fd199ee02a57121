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
	for _, f := range c.Floors {
		verdict := p.paint(green, "[PASS]")
		if !f.Passed {
			verdict = p.paint(red, "[FAIL]")
		}
		fmt.Fprintf(b, "      %s %s %s\n", f.Name, verdict, Clean(f.Message))
		for _, l := range f.Lines {
			line := Clean(l)
			if strings.HasPrefix(l, "FLOOR ") {
				line = p.paint(red, "FLOOR") + line[len("FLOOR"):]
			}
			fmt.Fprintf(b, "      %s\n", line)
		}
	}
}
