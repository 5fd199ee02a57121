package report

import "testing"

// TestNoCallsFailsTheRun holds the rule that a run may not pass on
// nothing: a case inconclusive because none of its runs holds a call makes
// the run's verdict fail, whatever else it holds; a case inconclusive for
// another reason (a probe that needs a live model) does not.
func TestNoCallsFailsTheRun(t *testing.T) {
	pass := CaseResult{Verdict: Pass}
	noCalls := CaseResult{Verdict: Inconclusive, Findings: []Finding{{Level: "warning", Gate: NoCallsGate, Message: "inconclusive"}}}
	other := CaseResult{Verdict: Inconclusive, Findings: []Finding{{Level: "warning", Gate: "judge", Message: "needs a model"}}}
	expectedNone := CaseResult{Verdict: Pass, Findings: []Finding{{Level: "info", Gate: NoCallsGate}}}
	for _, tc := range []struct {
		name  string
		cases []CaseResult
		want  Verdict
	}{
		{"all passed", []CaseResult{pass, expectedNone}, Pass},
		{"a probe inconclusive", []CaseResult{pass, other}, Pass},
		{"no calls alone", []CaseResult{noCalls}, Fail},
		{"no calls beside passes", []CaseResult{pass, noCalls, other}, Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var k Counter
			for i := range tc.cases {
				k.Add(&tc.cases[i])
			}
			var e Envelope
			e.Finish(&k, nil)
			if e.Verdict != tc.want {
				t.Errorf("verdict %s, want %s (totals %+v)", e.Verdict, tc.want, e.Totals)
			}
			if e.Totals.Passed+e.Totals.Failed+e.Totals.Inconclusive != len(tc.cases) {
				t.Errorf("totals %+v do not count %d cases", e.Totals, len(tc.cases))
			}
		})
	}
}
