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
		// As many assertions on each side, but one of the baseline's twice
		// now and the other gone: the keys are compared as a multiset.
		{"an assertion twice, another gone", func(c *report.CaseResult) {
			c.Assertions = append(c.Assertions, report.AssertionResult{Block: "expect", Index: 1, Target: "calls", Passed: true})
		}, func(c *report.CaseResult) { c.Assertions = append(c.Assertions, c.Assertions[0]) }, "the assertions"},
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

// TestClassFlipMessage: a class flip says the runs passed now, and in the
// baseline too when the baseline has them.
func TestClassFlipMessage(t *testing.T) {
	class := func(name string, passed int64, withRuns bool) *report.CaseResult {
		return caseOf(func(c *report.CaseResult) {
			c.Labels["reliability.class"] = name
			if withRuns {
				c.Reliability = &report.ReliabilityDetail{Runs: 4, PassedRuns: passed, Class: name}
			}
		})
	}
	for _, tc := range []struct {
		name      string
		base, cur *report.CaseResult
		message   string
	}{
		{"both runs", class("stable_pass", 4, true), class("flaky", 3, true), "4 of 4 runs passed in the baseline, 3 of 4 now"},
		{"no runs in the baseline", class("stable_pass", 4, false), class("flaky", 3, true), "3 of 4 runs passed now"},
		{"no runs now", class("stable_pass", 4, true), class("flaky", 3, false), ""},
	} {
		f, ok := classFlip(tc.base, tc.cur)
		if !ok || f.Message != tc.message {
			t.Errorf("%s: %+v, %v; want message %q", tc.name, f, ok, tc.message)
		}
	}
}

// TestCountDeltas: a raw count gets a delta only when the case is
// comparable and both sides have it.
func TestCountDeltas(t *testing.T) {
	count := func(runs int, n int64) *report.CaseResult {
		return caseOf(func(c *report.CaseResult) { c.Runs, c.Counts = runs, map[string]int64{"calls": n} })
	}
	if d := compareCase(count(1, 2), count(1, 5)); len(d.Counts) != 1 || d.Counts[0].Delta == nil || *d.Counts[0].Delta != 3 {
		t.Errorf("comparable: %+v; want a delta of 3", d.Counts)
	}
	if d := compareCase(count(1, 2), count(2, 5)); d.Status != NotComparable || len(d.Counts) != 1 || d.Counts[0].Delta != nil || *d.Counts[0].Current != 5 {
		t.Errorf("not comparable: %s %+v; want both values, no delta", d.Status, d.Counts)
	}
}

// TestChangedRules: a comparable case is changed by a flip, a verdict
// change, a target that moved or that one side lacks, and a label that
// differs or that one side lacks; nothing else.
func TestChangedRules(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	w := func(v string) *string { return &v }
	for _, tc := range []struct {
		name    string
		targets []TargetDelta
		labels  []LabelDelta
		changed bool
	}{
		{"nothing moved", []TargetDelta{{Name: "t", Baseline: f(1), Current: f(1), Delta: f(0)}}, []LabelDelta{{Name: "l", Baseline: w("a"), Current: w("a")}}, false},
		{"a target moved", []TargetDelta{{Name: "t", Baseline: f(1), Current: f(2), Delta: f(1)}}, nil, true},
		{"a target only now", []TargetDelta{{Name: "t", Current: f(1)}}, nil, true},
		{"a label changed", nil, []LabelDelta{{Name: "l", Baseline: w("a"), Current: w("b")}}, true},
		{"a label only now", nil, []LabelDelta{{Name: "l", Current: w("a")}}, true},
		{"a label only in the baseline", nil, []LabelDelta{{Name: "l", Baseline: w("a")}}, true},
	} {
		d := CaseDelta{Status: Same, Baseline: &CaseSide{Verdict: report.Pass}, Current: &CaseSide{Verdict: report.Pass}, Targets: tc.targets, Labels: tc.labels}
		if d.Changed() != tc.changed {
			t.Errorf("%s: changed %v, want %v", tc.name, d.Changed(), tc.changed)
		}
	}
}

// TestSummaryCounts: the summary counts each case once by status, and
// the fixes.
func TestSummaryCounts(t *testing.T) {
	named := func(name string, verdict report.Verdict) *report.CaseResult {
		return caseOf(func(c *report.CaseResult) {
			c.Name, c.Verdict, c.Assertions[0].Passed = name, verdict, verdict == report.Pass
		})
	}
	base := &report.Envelope{SchemaVersion: 1, Cases: []*report.CaseResult{named("same", report.Pass), named("fixed", report.Fail), named("removed", report.Pass),
		caseOf(func(c *report.CaseResult) { c.Name = "other" })}}
	cur := &report.Envelope{SchemaVersion: 1, Cases: []*report.CaseResult{named("same", report.Pass), named("fixed", report.Pass), named("new", report.Pass),
		caseOf(func(c *report.CaseResult) { c.Name, c.Runs = "other", 2 })}}
	s := Compare(base, cur, Options{}).Summary
	if s.Cases != 5 || s.Same != 2 || s.New != 1 || s.Removed != 1 || s.NotComparable != 1 || s.Fixes != 1 || s.Regressions != 0 {
		t.Errorf("summary %+v; want 5 cases: 2 same, 1 new, 1 removed, 1 not comparable; 1 fix", s)
	}
}

// TestReliabilityFigures: the summaries are compared when either run has
// one; a figure one side lacks has no delta.
func TestReliabilityFigures(t *testing.T) {
	sum := func(ks ...int64) *report.Summary {
		s := &report.Summary{Cases: 1}
		for _, k := range ks {
			s.PassHat = append(s.PassHat, report.PassHatFigure{K: k})
			s.PassAt = append(s.PassAt, report.PassHatFigure{K: k})
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		b, c    *report.Summary
		figures int
		deltas  int
	}{
		{"neither", nil, nil, -1, 0},
		{"only now", nil, sum(1), 7, 0},
		{"only in the baseline", sum(1), nil, 7, 0},
		{"a k only now", sum(1), sum(1, 2), 9, 7},
	} {
		c := Compare(&report.Envelope{SchemaVersion: 1, Summary: tc.b}, &report.Envelope{SchemaVersion: 1, Summary: tc.c}, Options{})
		if tc.figures < 0 {
			if c.Reliability != nil {
				t.Errorf("%s: %+v; want no reliability", tc.name, c.Reliability)
			}
			continue
		}
		if c.Reliability == nil {
			t.Errorf("%s: no reliability; want %d figures", tc.name, tc.figures)
			continue
		}
		deltas := 0
		for _, d := range c.Reliability.Figures {
			if d.Delta != nil {
				deltas++
			}
		}
		if len(c.Reliability.Figures) != tc.figures || deltas != tc.deltas {
			t.Errorf("%s: %d figures, %d deltas; want %d and %d", tc.name, len(c.Reliability.Figures), deltas, tc.figures, tc.deltas)
		}
	}
}

// TestUnvouchedFloors: a suite floor failing now is vouched for only by
// the same floor, not deferred, in the baseline.
func TestUnvouchedFloors(t *testing.T) {
	floor := func(index int, passed, deferred bool) report.SuiteFloor {
		return report.SuiteFloor{Index: index, Target: "summary.pass_rate", Passed: passed, Deferred: deferred}
	}
	for _, tc := range []struct {
		name      string
		base      []report.SuiteFloor
		unvouched int
	}{
		{"failing in the baseline", []report.SuiteFloor{floor(0, false, false)}, 0},
		{"not in the baseline", nil, 1},
		{"another floor in the baseline", []report.SuiteFloor{floor(1, false, false)}, 1},
		{"deferred in the baseline", []report.SuiteFloor{floor(0, false, true)}, 1},
	} {
		c := Compare(&report.Envelope{SchemaVersion: 1, Floors: tc.base}, &report.Envelope{SchemaVersion: 1, Floors: []report.SuiteFloor{floor(0, false, false)}}, Options{})
		if c.Summary.FailingFloors != 1 || c.Summary.UnvouchedFloors != tc.unvouched || c.Summary.FloorRegressions != 0 {
			t.Errorf("%s: %+v; want 1 failing floor, %d unvouched", tc.name, c.Summary, tc.unvouched)
		}
	}
}
