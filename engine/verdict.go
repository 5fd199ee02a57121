package engine

import "github.com/mcptest/mcptest/report"

// caseVerdict decides the verdict of a replayed case (an agent test or a
// scenario) from its own results: fail when one of its assertions or floors
// failed or one of its findings fails the case by itself (see failsCase),
// else pass. runAgent and runScenario decide with it, and Run
// checks a cached result with it, so a cache entry cannot carry a verdict
// that its own results do not give.
//
// judged is true when a reliability: block judges the case by its runs:
// an assertion checked on every run (FailedRuns > 0) and a scenario oracle
// then count against the runs that failed them, and the block's floor
// (one of Floors) decides.
func caseVerdict(res *report.CaseResult, judged bool) report.Verdict {
	for _, a := range res.Assertions {
		if !a.Passed && !(judged && a.FailedRuns > 0) {
			return report.Fail
		}
	}
	for _, f := range res.Floors {
		if !f.Passed {
			return report.Fail
		}
	}
	for _, f := range res.Findings {
		if failsCase(f) && !(judged && f.Gate != "") {
			return report.Fail
		}
	}
	for _, f := range res.Findings {
		if f.Gate == noCallsGate && f.Level == "warning" {
			return report.Inconclusive
		}
	}
	return report.Pass
}

// failsCase reports whether a finding fails its case without an assertion:
// an error of the case itself (no recorded runs), of the scenario replay (an
// invalid action, a forbidden transition) or of expect_state (a final state
// that is not the expected one). The error findings of the metric gates (a
// missed class, a restricted call) fail a case through the assertion on
// their target instead, so a suite can gate them with its own threshold.
func failsCase(f report.Finding) bool {
	if f.Level != "error" {
		return false
	}
	switch f.Gate {
	case "", "scenario", "expect_state", noCallsGate:
		return true
	}
	return false
}
