package engine

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// TestReadsRunAloneRules: a check reads a run's document alone (its
// outcome computed before the fold knows the run's number) exactly when
// its target names a key other than run; the whole document and run
// itself are read in the fold.
func TestReadsRunAloneRules(t *testing.T) {
	for target, alone := range map[string]bool{
		"": false, "run": false, "tokens.total": true, "final_response": true, "calls[0].tool": true, "tool_names": true,
	} {
		var p expr.Path
		if target != "" {
			var err error
			if p, err = expr.ParsePath(target); err != nil {
				t.Fatal(err)
			}
		}
		if got := newRunCheck(&Assertion{Target: p}).readsRunAlone(); got != alone {
			t.Errorf("target %q: reads the run alone %v, want %v", target, got, alone)
		}
	}
}

// TestRunTargetIsTheRunsNumber: an assertion on run reads each run's own
// number (1 to 3 here), in the fold, beside one read ahead: the first run
// over the bound is the one named, with its number as the value.
func TestRunTargetIsTheRunsNumber(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: numbered
    cassette: c.json
    expect:
      - target: run
        matcher: { "<=": 2 }
      - target: final_response
        matcher: { contains: a }
`, map[string]string{"c.json": cassetteJSON(runJSON("a"), runJSON("a"), runJSON("a"))})
	c := run(t, s, Options{}).Cases[0]
	a := c.Assertions[0]
	if c.Verdict != report.Fail || a.Run != 3 || a.Actual != float64(3) || a.FailedRuns != 1 || !strings.Contains(a.Message, "failed in run 3 of 3") || !c.Assertions[1].Passed {
		t.Errorf("verdict %s, %+v", c.Verdict, c.Assertions)
	}
}
