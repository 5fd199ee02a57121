package baseline_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// agentCase is a passing agent case with one F1 assertion and one floor.
func agentCase(name string) *report.CaseResult {
	return &report.CaseResult{
		Name: name, Kind: report.KindAgent, Verdict: report.Pass, DefinitionSHA256: "def",
		Runs: 2, Cassettes: &report.CassetteSet{Files: 1, SHA256: "cas"},
		Targets: map[string]float64{"tool_selection.f1": 92},
		Counts:  map[string]int64{"tool_selection.tp": 11},
		Assertions: []report.AssertionResult{
			{Index: 0, Block: "equal_function_sets", Target: "tool_selection.f1", Passed: true, Message: "ok"},
			{Index: 0, Target: "final_response", Passed: true, Message: "ok"},
		},
		Floors: []report.Floor{{Name: "pass_k", Passed: true}},
	}
}

func envelope(cases ...*report.CaseResult) *report.Envelope {
	e := &report.Envelope{SchemaVersion: report.SchemaVersion, Tool: report.ToolInfo{Name: "mcptest", Version: "1"},
		Run: report.RunInfo{Mode: "replay"}, Cases: cases}
	e.Tally()
	return e
}

func TestNotComparable(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(c *report.CaseResult)
		reasons []string
	}{
		{"unchanged", func(c *report.CaseResult) {}, nil},
		{"re-recorded cassettes are comparable", func(c *report.CaseResult) { c.Cassettes.SHA256 = "other" }, nil},
		{"definition", func(c *report.CaseResult) { c.DefinitionSHA256 = "def2" },
			[]string{"the case's definition in the suite changed"}},
		{"no definition digest", func(c *report.CaseResult) { c.DefinitionSHA256 = "" },
			[]string{"a definition_sha256 is missing, so it cannot be told whether the case's definition changed"}},
		{"runs", func(c *report.CaseResult) { c.Runs = 3 },
			[]string{"a different number of recorded runs: 2 in the baseline, 3 now"}},
		{"cassette files", func(c *report.CaseResult) { c.Cassettes = &report.CassetteSet{Files: 2, SHA256: "x"} },
			[]string{"a different cassette set: 1 cassette file in the baseline, 2 cassette files now"}},
		{"no cassettes", func(c *report.CaseResult) { c.Cassettes = nil },
			[]string{"a different cassette set: 1 cassette file in the baseline, no cassettes now"}},
		{"kind", func(c *report.CaseResult) { c.Kind = report.KindScenario },
			[]string{"the case's kind is agent in the baseline and scenario now"}},
		{"assertions", func(c *report.CaseResult) { c.Assertions[1].Target = "calls[0]" },
			[]string{"the assertions (block, index, target) differ although the definition does not"}},
		{"floors", func(c *report.CaseResult) { c.Floors = nil }, []string{"the floors differ"}},
		{"everything at once", func(c *report.CaseResult) { c.DefinitionSHA256, c.Runs = "def2", 5 },
			[]string{"the case's definition in the suite changed", "a different number of recorded runs: 2 in the baseline, 5 now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := agentCase("a")
			tt.edit(cur)
			// Fail everything now: a not-comparable case must not flip.
			cur.Verdict = report.Fail
			for i := range cur.Assertions {
				cur.Assertions[i].Passed = false
			}
			c := baseline.Compare(envelope(agentCase("a")), envelope(cur), baseline.Options{})
			d := c.Cases[0]
			if !reflect.DeepEqual(d.Reasons, tt.reasons) {
				t.Errorf("reasons = %q, want %q", d.Reasons, tt.reasons)
			}
			if tt.reasons == nil {
				if d.Status != baseline.Same || len(d.Flips) != 4-len(cur.Floors) || c.Summary.Regressions != 1 {
					t.Errorf("comparable case: status %s, %d flips, summary %+v", d.Status, len(d.Flips), c.Summary)
				}
				return
			}
			if d.Status != baseline.NotComparable || len(d.Flips) != 0 || c.Summary.Regressions != 0 || c.Summary.Unvouched != 1 {
				t.Errorf("not comparable: status %s, flips %v, summary %+v", d.Status, d.Flips, c.Summary)
			}
			for _, td := range d.Targets {
				if td.Delta != nil {
					t.Errorf("a not-comparable case has a delta: %+v", td)
				}
			}
		})
	}
}

func TestFlips(t *testing.T) {
	base := agentCase("a")
	cur := agentCase("a")
	cur.Verdict = report.Fail
	cur.Assertions[0].Passed, cur.Assertions[0].Message = false, "assertion #0 (`tool_selection.f1`) failed: 75 is less than the minimum 80"
	cur.Targets["tool_selection.f1"] = 75
	cur.Counts["tool_selection.tp"] = 9
	base.Floors[0].Passed = false // the floor is fixed
	c := baseline.Compare(envelope(base), envelope(cur), baseline.Options{})
	d := c.Cases[0]
	var got []string
	for _, f := range d.Flips {
		got = append(got, string(f.Change)+" "+f.Label()+" "+string(f.From)+"->"+string(f.To))
	}
	want := []string{
		"regression case pass->fail",
		"regression assertion #0 (`tool_selection.f1`) in equal_function_sets pass->fail",
		"fix floor `pass_k` fail->pass",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flips:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d.Outcome() != baseline.Regression || c.Summary.Regressions != 1 || c.Summary.Fixes != 0 || c.Summary.Flips != 3 {
		t.Errorf("outcome %s, summary %+v", d.Outcome(), c.Summary)
	}
	td := d.Targets[0]
	if td.Name != "tool_selection.f1" || *td.Baseline != 92 || *td.Current != 75 || *td.Delta != -17 {
		t.Errorf("target delta = %+v", td)
	}
	if cd := d.Counts[0]; *cd.Delta != -2 {
		t.Errorf("count delta = %+v", cd)
	}

	// Changes to and from inconclusive are not flips, but a case that
	// fails now and was inconclusive is not vouched for.
	b2, c2 := agentCase("b"), agentCase("b")
	c2.Verdict = report.Inconclusive
	c = baseline.Compare(envelope(b2), envelope(c2), baseline.Options{})
	if len(c.Cases[0].Flips) != 0 || !c.Cases[0].Changed() || c.Gate.Failed {
		t.Errorf("pass -> inconclusive: flips %v, changed %v, gate %+v", c.Cases[0].Flips, c.Cases[0].Changed(), c.Gate)
	}
	c2.Verdict, b2.Verdict = report.Fail, report.Inconclusive
	c = baseline.Compare(envelope(b2), envelope(c2), baseline.Options{})
	if len(c.Cases[0].Flips) != 0 || c.Summary.Unvouched != 1 || !c.Gate.Failed {
		t.Errorf("inconclusive -> fail: flips %v, summary %+v, gate %+v", c.Cases[0].Flips, c.Summary, c.Gate)
	}
	// A case failing in both runs is vouched for: it does not block.
	b2.Verdict = report.Fail
	c = baseline.Compare(envelope(b2), envelope(c2), baseline.Options{})
	if c.Summary.Unvouched != 0 || c.Summary.Failing != 1 || c.Gate.Failed {
		t.Errorf("fail -> fail: summary %+v, gate %+v", c.Summary, c.Gate)
	}
}

func TestCompareOrderAndWarnings(t *testing.T) {
	base := envelope(agentCase("gone 1"), agentCase("kept"), agentCase("gone 2"), agentCase("kept"))
	base.Tool.Version = "0.9"
	cur := envelope(agentCase("new"), agentCase("kept"))
	cur.Run.Shard = "1/2"
	c := baseline.Compare(base, cur, baseline.Options{})
	var got []string
	for _, d := range c.Cases {
		got = append(got, d.Name+":"+string(d.Status))
	}
	if want := []string{"new:new", "kept:same", "gone 1:removed", "gone 2:removed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cases = %q, want %q", got, want)
	}
	want := []string{
		"the baseline was written by mcptest 0.9 and the current run by mcptest 1: a change may come from mcptest itself",
		"the current run is shard 1/2 only: cases of the other shards show as new or removed; merge the shards first (mcptest report merge)",
		`the baseline holds case "kept" twice: the first is compared`,
	}
	if !reflect.DeepEqual(c.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", c.Warnings, want)
	}
}

func TestCompareOtherSchemaVersion(t *testing.T) {
	failing := agentCase("b")
	failing.Verdict = report.Fail
	c := baseline.Compare(&report.Envelope{SchemaVersion: 2}, envelope(agentCase("a"), failing), baseline.Options{})
	if c.NotComparable == "" || c.Summary.NotComparable != 2 || c.Summary.Unvouched != 1 || !c.Gate.Failed {
		t.Errorf("comparison = %+v", c)
	}
	for _, d := range c.Cases {
		if d.Status != baseline.NotComparable || len(d.Reasons) != 1 || !strings.Contains(d.Reasons[0], "schema_version 2") {
			t.Errorf("case %+v", d)
		}
	}
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		s      baseline.Summary
		policy baseline.Policy
		failed bool
	}{
		{baseline.Summary{}, "", false},
		{baseline.Summary{Regressions: 1, Failing: 1}, "", true},
		{baseline.Summary{Regressions: 1, Failing: 1}, baseline.FailOnRegressions, true},
		{baseline.Summary{Unvouched: 1, Failing: 1}, baseline.FailOnRegressions, true},
		{baseline.Summary{Failing: 3}, baseline.FailOnRegressions, false}, // failures the baseline already had
		{baseline.Summary{Fixes: 2}, baseline.FailOnRegressions, false},
		{baseline.Summary{Regressions: 1, Failing: 1}, baseline.FailOnFlips, true},
		{baseline.Summary{Unvouched: 1, Failing: 1}, baseline.FailOnFlips, false},
		{baseline.Summary{Fixes: 1}, baseline.FailOnFlips, false},
		{baseline.Summary{Failing: 1}, baseline.FailOnFailures, true},
		{baseline.Summary{Regressions: 1}, baseline.FailOnFailures, false}, // a failed assertion always fails its case; kept for the table
		{baseline.Summary{}, baseline.FailOnFailures, false},
		{baseline.Summary{Regressions: 5, Unvouched: 5, Failing: 9}, baseline.FailOnNone, false},
	}
	for _, tt := range tests {
		g := baseline.Evaluate(tt.s, tt.policy)
		if g.Failed != tt.failed || g.Failed != (len(g.Reasons) > 0) {
			t.Errorf("Evaluate(%+v, %q) = %+v, want failed=%v", tt.s, tt.policy, g, tt.failed)
		}
	}
	for _, p := range []string{"regressions", "flips", "failures", "none"} {
		if got, err := baseline.ParsePolicy(p); err != nil || string(got) != p {
			t.Errorf("ParsePolicy(%q) = %q, %v", p, got, err)
		}
	}
	if _, err := baseline.ParsePolicy("Regressions"); err == nil {
		t.Error("ParsePolicy accepts a wrong case")
	}
}

func TestReadBaseline(t *testing.T) {
	tests := []struct {
		doc     string
		version int
		err     string
	}{
		{`{"schema_version": 1, "cases": []}`, 1, ""},
		{`{"schema_version": 7, "tool": {"name": "mcptest", "version": "9"}, "cases": {"a": "b"}}`, 7, ""},
		{`{"schema_version": 7, "tool": "weird"}`, 7, ""},
		{`{"cases": []}`, 0, "no schema_version"},
		{`[1, 2]`, 0, "not a run envelope"},
		{`{"schema_version": 1, "cases": [null]}`, 0, "cases[0] is null"},
		{`{"schema_version": 1, "cases": 3}`, 0, "not a run envelope"},
		{`{"schema_version": 1, "verdict": "pass\nFAIL x", "cases": []}`, 0, `verdict: "pass\nFAIL x" is not one of pass, fail, inconclusive`},
		{`{"schema_version": 1, "cases": [{"name": "a", "kind": "agent\u001b[2J"}]}`, 0, `cases[0].kind: "agent\x1b[2J" is not one of`},
		{`{"schema_version": 7, "tool": {"name": "mcptest", "version": "9\n::error::x"}}`, 0, `tool.version: "9\n::error::x" holds a control character`},
	}
	for _, tt := range tests {
		env, err := baseline.ReadBaseline(strings.NewReader(tt.doc), "b.json")
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: err = %v, want %q", tt.doc, err, tt.err)
		case tt.err == "" && (err != nil || env.SchemaVersion != tt.version):
			t.Errorf("%s: %v, %v", tt.doc, env, err)
		}
	}
}

// reliableCase is agentCase with c of n runs passed: its class, counts and
// a per-run assertion that failed in the runs that failed.
func reliableCase(name string, c, n int64) *report.CaseResult {
	cr := agentCase(name)
	cr.Runs = int(n)
	class := "flaky"
	switch c {
	case n:
		class = "stable_pass"
	case 0:
		class = "stable_fail"
	}
	cr.Labels = map[string]string{"reliability.class": class}
	cr.Counts["reliability.runs"], cr.Counts["reliability.passed_runs"] = n, c
	cr.Reliability = &report.ReliabilityDetail{Runs: n, PassedRuns: c, Class: class}
	if c < n {
		cr.Verdict = report.Fail
		cr.Assertions[1].Passed, cr.Assertions[1].FailedRuns, cr.Assertions[1].Run = false, int(n-c), 1
	}
	return cr
}

// TestClassFlips: stable_pass -> flaky and flaky -> stable_fail are
// regressions, the way back fixes; each is a flip of its own, with the
// classes as from and to.
func TestClassFlips(t *testing.T) {
	for _, tc := range []struct {
		name       string
		bc, cc     int64
		change     baseline.Change
		from, to   string
		regression bool
	}{
		{"stable_pass to flaky", 4, 3, baseline.Regression, "stable_pass", "flaky", true},
		{"flaky to stable_fail", 3, 0, baseline.Regression, "flaky", "stable_fail", true},
		{"stable_fail to flaky", 0, 2, baseline.Fix, "stable_fail", "flaky", false},
		{"flaky to stable_pass", 1, 4, baseline.Fix, "flaky", "stable_pass", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := baseline.Compare(envelope(reliableCase("a", tc.bc, 4)), envelope(reliableCase("a", tc.cc, 4)), baseline.Options{})
			var got *baseline.Flip
			for _, f := range c.Cases[0].Flips {
				if f.Subject == baseline.SubjectClass {
					got = &f
				}
			}
			if got == nil || got.Change != tc.change || string(got.From) != tc.from || string(got.To) != tc.to || got.Label() != "reliability class" {
				t.Fatalf("class flip = %+v in %+v", got, c.Cases[0].Flips)
			}
			if (c.Summary.Regressions == 1) != tc.regression {
				t.Errorf("summary %+v", c.Summary)
			}
		})
	}
}

// TestFlakyFailingInBothIsNotARegression: a case flaky and failing in the
// baseline and in the PR is not a regression, even when the per-run
// assertion that failed is another one now: that is noise.
func TestFlakyFailingInBothIsNotARegression(t *testing.T) {
	base, cur := reliableCase("a", 2, 4), reliableCase("a", 3, 4)
	// In the baseline the final_response check failed; now the F1 check
	// fails in one run and final_response passes everywhere.
	cur.Assertions[1].Passed, cur.Assertions[1].FailedRuns = true, 0
	cur.Assertions[0].Passed, cur.Assertions[0].FailedRuns, cur.Assertions[0].Run = false, 1, 2
	c := baseline.Compare(envelope(base), envelope(cur), baseline.Options{})
	d := c.Cases[0]
	if d.Outcome() != "" || c.Summary.Regressions != 0 || c.Summary.Fixes != 0 || c.Gate.Failed {
		t.Fatalf("outcome %q summary %+v gate %+v flips %+v", d.Outcome(), c.Summary, c.Gate, d.Flips)
	}
	if len(d.Flips) != 2 || d.Flips[0].Change != baseline.Noise || d.Flips[1].Change != baseline.Noise {
		t.Errorf("flips = %+v, want two noise flips", d.Flips)
	}
	// A case that was stable_pass and is now flaky is a regression.
	c = baseline.Compare(envelope(reliableCase("a", 4, 4)), envelope(cur), baseline.Options{})
	if c.Summary.Regressions != 1 || !c.Gate.Failed {
		t.Errorf("stable_pass -> flaky: %+v", c.Summary)
	}
}

// TestSummaryDeltasAndSuiteFloors: the comparison shows the change of each
// summary figure, and a suite floor going pass -> fail is a regression the
// gate fails on.
func TestSummaryDeltasAndSuiteFloors(t *testing.T) {
	floor := func(passed bool) []report.SuiteFloor {
		return []report.SuiteFloor{{Index: 0, Target: "summary.pass_hat_1", Matcher: map[string]any{">=": 70.0}, Passed: passed}}
	}
	base, cur := envelope(reliableCase("a", 4, 4), reliableCase("b", 2, 4)), envelope(reliableCase("a", 3, 4), reliableCase("b", 2, 4))
	base.Floors, cur.Floors = floor(true), floor(true)
	base.Summarize(expr.JudgeFloor)
	cur.Summarize(expr.JudgeFloor)
	if !base.Floors[0].Passed || cur.Floors[0].Passed {
		t.Fatalf("floors: base %+v cur %+v", base.Floors, cur.Floors)
	}
	c := baseline.Compare(base, cur, baseline.Options{})
	if c.Reliability == nil || c.Reliability.Figures[0].Name != "summary.pass_hat_1" || *c.Reliability.Figures[0].Delta != -12.5 {
		t.Fatalf("reliability = %+v", c.Reliability)
	}
	if len(c.Floors) != 1 || c.Floors[0].Change != baseline.Regression || c.Summary.FloorRegressions != 1 {
		t.Errorf("floors %+v summary %+v", c.Floors, c.Summary)
	}
	if !c.Gate.Failed || !strings.Contains(strings.Join(c.Gate.Reasons, "; "), "1 suite floor regression (pass -> fail)") {
		t.Errorf("gate %+v", c.Gate)
	}
	// A floor failing in both runs is vouched for by the baseline.
	c = baseline.Compare(cur, cur, baseline.Options{})
	if c.Summary.FailingFloors != 1 || c.Summary.UnvouchedFloors != 0 || c.Gate.Failed {
		t.Errorf("floor failing in both: %+v %+v", c.Summary, c.Gate)
	}
}
