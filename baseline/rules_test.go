package baseline

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// caseOf is a comparable case: one cassette file, one run, one per-case
// assertion and one floor, all passing unless changed.
func caseOf(change func(c *report.CaseResult)) *report.CaseResult {
	c := &report.CaseResult{Name: "c", Kind: report.KindAgent, Verdict: report.Pass, DefinitionSHA256: "d1", Runs: 1,
		Cassettes:  &report.CassetteSet{Files: 1, SHA256: "s1"},
		Assertions: []report.AssertionResult{{Block: "expect", Index: 0, Target: "tool_names", Passed: true}},
		Floors:     []report.Floor{{Name: "f", Passed: true}}, Labels: map[string]string{}}
	if change != nil {
		change(c)
	}
	return c
}

// TestNotComparableReasons: each difference that makes two cases of one
// name not comparable, alone, gives that one reason; a cassette set of as
// many files with other contents is comparable, marked changed.
func TestNotComparableReasons(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, cur func(c *report.CaseResult)
		reason    string
	}{
		{"kind", nil, func(c *report.CaseResult) { c.Kind = report.KindScenario }, "kind is agent in the baseline and scenario now"},
		{"no definition in the baseline", func(c *report.CaseResult) { c.DefinitionSHA256 = "" }, nil, "definition_sha256 is missing"},
		{"no definition now", nil, func(c *report.CaseResult) { c.DefinitionSHA256 = "" }, "definition_sha256 is missing"},
		{"definition", nil, func(c *report.CaseResult) { c.DefinitionSHA256 = "d2" }, "definition in the suite changed"},
		{"runs", nil, func(c *report.CaseResult) { c.Runs = 2 }, "1 in the baseline, 2 now"},
		{"no cassettes now", nil, func(c *report.CaseResult) { c.Cassettes = nil }, "1 cassette file in the baseline, no cassettes now"},
		{"no cassettes in the baseline", func(c *report.CaseResult) { c.Cassettes = nil }, nil, "no cassettes in the baseline, 1 cassette file now"},
		{"cassette files", nil, func(c *report.CaseResult) { c.Cassettes = &report.CassetteSet{Files: 2, SHA256: "s1"} }, "1 cassette file in the baseline, 2 cassette files now"},
		{"assertions", nil, func(c *report.CaseResult) { c.Assertions[0].Index = 1 }, "the assertions (block, index, target) differ"},
		{"an assertion more", nil, func(c *report.CaseResult) { c.Assertions = append(c.Assertions, c.Assertions[0]) }, "the assertions"},
		{"floors", nil, func(c *report.CaseResult) { c.Floors[0].Name = "g" }, "the floors differ"},
	} {
		d := compareCase(caseOf(tc.base), caseOf(tc.cur))
		if d.Status != NotComparable || len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], tc.reason) || len(d.Flips) != 0 {
			t.Errorf("%s: status %s, reasons %q, %d flips; want not comparable for %q alone", tc.name, d.Status, d.Reasons, len(d.Flips), tc.reason)
		}
	}
	d := compareCase(caseOf(nil), caseOf(func(c *report.CaseResult) { c.Cassettes = &report.CassetteSet{Files: 1, SHA256: "s2"} }))
	if d.Status != Same || !d.CassettesChanged {
		t.Errorf("other cassette contents: status %s, changed %v; want comparable, cassettes changed", d.Status, d.CassettesChanged)
	}
	if d := compareCase(caseOf(nil), caseOf(nil)); d.Status != Same || d.CassettesChanged || len(d.Reasons) != 0 || d.Changed() {
		t.Errorf("the same case: %+v; want comparable and unchanged", d)
	}
}

// TestFlakyNoise: in a case flaky and failing in both runs, a per-run
// assertion (failed runs counted, in either run) that flips is noise,
// neither regression nor fix; a per-case assertion is not, nor is a
// per-run one when the case passed or was stable in either run.
func TestFlakyNoise(t *testing.T) {
	failing := func(class string, failedRuns int, passed bool) func(c *report.CaseResult) {
		return func(c *report.CaseResult) {
			c.Verdict, c.Labels["reliability.class"] = report.Fail, class
			c.Assertions[0].Passed, c.Assertions[0].FailedRuns = passed, failedRuns
		}
	}
	for _, tc := range []struct {
		name      string
		base, cur func(c *report.CaseResult)
		change    Change
		outcome   Change
	}{
		{"per-run, failed runs now", failing("flaky", 0, true), failing("flaky", 2, false), Noise, ""},
		{"per-run, failed runs in the baseline", failing("flaky", 2, false), failing("flaky", 0, true), Noise, ""},
		{"per-case assertion", failing("flaky", 0, true), failing("flaky", 0, false), Regression, Regression},
		{"passed in the baseline", func(c *report.CaseResult) { c.Labels["reliability.class"] = "flaky" }, failing("flaky", 2, false), Regression, Regression},
		{"stable in the baseline", failing("stable_fail", 0, true), failing("flaky", 2, false), Regression, Regression},
		{"stable now", failing("flaky", 0, true), failing("stable_fail", 2, false), Regression, Regression},
	} {
		d := compareCase(caseOf(tc.base), caseOf(tc.cur))
		var got Change
		for _, f := range d.Flips {
			if f.Subject == SubjectAssertion {
				got = f.Change
			}
		}
		if got != tc.change || d.Outcome() != tc.outcome {
			t.Errorf("%s: the assertion's flip is %q, the case's outcome %q; want %q and %q (flips %+v)", tc.name, got, d.Outcome(), tc.change, tc.outcome, d.Flips)
		}
	}
}

// TestClassFlips: a move down stable_pass, flaky, stable_fail is a
// regression, a move up a fix; the same class or one outside the order is
// no flip.
func TestClassFlips(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		change   Change
	}{
		{"stable_pass", "flaky", Regression},
		{"flaky", "stable_fail", Regression},
		{"stable_pass", "stable_fail", Regression},
		{"stable_fail", "flaky", Fix},
		{"flaky", "stable_pass", Fix},
		{"flaky", "flaky", ""},
		{"", "flaky", ""},
		{"flaky", "shaky", ""},
	} {
		f, ok := classFlip(caseOf(func(c *report.CaseResult) { c.Labels["reliability.class"] = tc.from }),
			caseOf(func(c *report.CaseResult) { c.Labels["reliability.class"] = tc.to }))
		if ok != (tc.change != "") || f.Change != tc.change {
			t.Errorf("%q -> %q: %+v, %v; want %q", tc.from, tc.to, f, ok, tc.change)
		}
	}
}

// TestEvaluatePolicies: each --fail-on policy against each count it reads,
// at 0 and 1.
func TestEvaluatePolicies(t *testing.T) {
	counts := map[string]Summary{"regressions": {Regressions: 1}, "unvouched": {Unvouched: 1, Failing: 1}, "floor regressions": {FloorRegressions: 1},
		"unvouched floors": {UnvouchedFloors: 1, FailingFloors: 1}, "failing": {Failing: 1}, "failing floors": {FailingFloors: 1}, "none": {}}
	fails := map[Policy][]string{
		FailOnRegressions: {"regressions", "unvouched", "floor regressions", "unvouched floors"},
		"":                {"regressions", "unvouched", "floor regressions", "unvouched floors"},
		FailOnFlips:       {"regressions", "floor regressions"},
		FailOnFailures:    {"unvouched", "unvouched floors", "failing", "failing floors"},
		FailOnNone:        {},
	}
	for p, list := range fails {
		for name, s := range counts {
			want := false
			for _, n := range list {
				want = want || n == name
			}
			if g := Evaluate(s, p); g.Failed != want || g.Failed != (len(g.Reasons) > 0) {
				t.Errorf("fail-on %q with %s: failed %v, reasons %q; want failed %v", p, name, g.Failed, g.Reasons, want)
			}
		}
	}
}

// TestUnvouched: a failing case counts against the baseline unless the
// baseline has it comparable and not inconclusive; a passing case never.
func TestUnvouched(t *testing.T) {
	fail := func(c *report.CaseResult) { c.Verdict = report.Fail; c.Assertions[0].Passed = false }
	for _, tc := range []struct {
		name      string
		base, cur *report.CaseResult
		unvouched int
	}{
		{"failing in both", caseOf(fail), caseOf(fail), 0},
		{"inconclusive in the baseline", caseOf(func(c *report.CaseResult) { c.Verdict = report.Inconclusive }), caseOf(fail), 1},
		{"not comparable", caseOf(fail), caseOf(func(c *report.CaseResult) { fail(c); c.Runs = 3 }), 1},
		{"new", nil, caseOf(fail), 1},
		{"passing, new", nil, caseOf(nil), 0},
	} {
		base := &report.Envelope{SchemaVersion: 1, Verdict: report.Pass, Cases: []*report.CaseResult{}}
		if tc.base != nil {
			base.Cases = append(base.Cases, tc.base)
		}
		cur := &report.Envelope{SchemaVersion: 1, Verdict: tc.cur.Verdict, Cases: []*report.CaseResult{tc.cur}}
		c := Compare(base, cur, Options{})
		if c.Summary.Unvouched != tc.unvouched || c.Summary.Failing != map[bool]int{true: 1}[tc.cur.Verdict == report.Fail] {
			t.Errorf("%s: unvouched %d, failing %d; want %d unvouched", tc.name, c.Summary.Unvouched, c.Summary.Failing, tc.unvouched)
		}
	}
}
