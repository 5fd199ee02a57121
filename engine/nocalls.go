package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

// noCallsGate is the Gate of the findings about a test's runs holding no
// call: a warning that makes a case inconclusive (caseVerdict) and its run
// fail (report.NoCallsGate), or, under no_calls: true, an error for a run
// that called a tool.
const noCallsGate = report.NoCallsGate

// callTally counts the calls of a test's runs as they stream by, and the
// first run that made one.
type callTally struct {
	calls     int
	firstRun  int
	firstTool string
}

func (t *callTally) add(run int, r *cassette.Run) {
	for _, turn := range r.Turns {
		if len(turn.Calls) == 0 {
			continue
		}
		if t.calls == 0 {
			t.firstRun, t.firstTool = run, turn.Calls[0].ID()
		}
		t.calls += len(turn.Calls)
	}
}

// findings are what the tally says of a test of runs recorded runs: none
// when a run called a tool and calls were expected; a warning that makes
// the case inconclusive when no run called one and the test does not say
// no_calls: true (a recording read without its calls, or an agent that
// never reached its tools, would otherwise pass every gate); an error when
// the test says no_calls: true and a run called one.
func (t *callTally) findings(c *Case, runs int) []report.Finding {
	switch {
	case runs == 0:
		return nil
	case c.NoCalls && t.calls > 0:
		return []report.Finding{{Level: "error", Gate: noCallsGate, Run: t.firstRun, Message: fmt.Sprintf(
			"the test says no_calls: true, but run %d calls %q (%s in all the runs)", t.firstRun, t.firstTool, plural(t.calls, "call"))}}
	case !c.NoCalls && t.calls == 0:
		return []report.Finding{{Level: "warning", Gate: noCallsGate, Message: fmt.Sprintf(
			"inconclusive: none of the %s holds a tool call, so no gate saw a call to judge; "+
				"if the agent is not expected to call a tool here, say `no_calls: true` on the test", plural(runs, "recorded run"))}}
	}
	return nil
}
