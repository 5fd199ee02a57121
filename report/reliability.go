package report

import "strconv"

// ReliabilityDetail is the envelope's record of a case's runs as a
// reliability measure: how many passed, the class, and the verdict of each
// run.
type ReliabilityDetail struct {
	Runs       int64   `json:"runs"`
	PassedRuns int64   `json:"passed_runs"`
	Class      string  `json:"class"`
	Confidence float64 `json:"confidence"`
	// Judged is true when a reliability: block (the case's or the suite's)
	// decided the case by these runs.
	Judged bool `json:"judged,omitempty"`
	// Rows are the runs in order, named in reports "<case> #<run>".
	Rows []RunVerdict `json:"rows"`
}

// RunVerdict is one recorded run's verdict: it passed when every per-run
// check held on it (the test's expect: list, each gate's assertions on the
// run's own figures, a scenario's oracles).
type RunVerdict struct {
	Run    int  `json:"run"`
	Passed bool `json:"passed"`
	// Failed names the checks the run failed, in declaration order.
	Failed []string `json:"failed,omitempty"`
}

// RunName names a run of a case as reports show it: "weather #3".
func RunName(caseName string, run int) string {
	return caseName + " #" + strconv.Itoa(run)
}

// MaxPassHatTargets bounds the pass_hat_<k> targets written for a case with
// many runs: k = 1..20, plus any k a floor or an assertion names.
const MaxPassHatTargets = 20
