package annotate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// reliabilitySample is a run of three multi-run cases (a flaky one judged
// by a reliability: block, a flaky one judged the old way, one that failed
// every run), with the summary and two suite floors, one failed. A run
// name and a failed check carry terminal escapes and markup.
func reliabilitySample() *report.Envelope {
	pos := func(line, col int) diag.Pos { return diag.Pos{File: "suite.yml", Line: line, Col: col} }
	rows := func(failed ...int) []report.RunVerdict {
		var out []report.RunVerdict
		for run := 1; run <= 4; run++ {
			v := report.RunVerdict{Run: run, Passed: true}
			for _, f := range failed {
				if f == run {
					v = report.RunVerdict{Run: run, Failed: []string{"assertion #0 (`final_response`)", "default gate of `tool_edges:` (`edges.restricted_attempts` <= 0)"}}
				}
			}
			out = append(out, v)
		}
		return out
	}
	targets := func(rate, h2, h3, h4, lower float64) map[string]float64 {
		return map[string]float64{"reliability.pass_rate": rate, "reliability.pass_hat_1": rate, "reliability.pass_hat_2": h2,
			"reliability.pass_hat_3": h3, "reliability.pass_hat_4": h4, "reliability.certified_lower": lower}
	}
	env := &report.Envelope{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.ToolInfo{Name: "mcptest", Version: "0.1.0"},
		Run:           report.RunInfo{ID: "01JCQQYV4S3H6KX7M8RN2T5XZC", Mode: "replay", StartedAt: "2026-11-22T10:00:00Z", DurationMS: 12},
		Suite:         report.SuiteInfo{Path: "suite.yml", SHA256: "ab12"},
		Cases: []*report.CaseResult{
			{
				Name: "books the flight", Kind: report.KindAgent, Verdict: report.Pass, Position: pos(8, 5), Runs: 4,
				Targets: targets(75, 50, 25, 0, 24), Labels: map[string]string{"reliability.class": "flaky"},
				Counts: map[string]int64{"reliability.runs": 4, "reliability.passed_runs": 3},
				Assertions: []report.AssertionResult{{Target: "final_response", Matcher: map[string]any{"exact": "reward=1"}, Actual: "reward=0", Run: 2, FailedRuns: 1,
					Message: "assertion #0 (`final_response`) failed in run 2 of 4: got \"reward=0\", expected exactly \"reward=1\" (1 of 4 runs failed); `reliability:` judges the case by its runs, so this counts against the runs that failed it", Position: pos(14, 9)}},
				Floors:      []report.Floor{{Name: "reliability floor", Passed: true, Message: "books the flight: 3/4 runs passed (75%), certified lower bound 24% at 95% confidence: flaky"}},
				Findings:    []report.Finding{},
				Reliability: &report.ReliabilityDetail{Runs: 4, PassedRuns: 3, Class: "flaky", Confidence: 95, Judged: true, Rows: rows(2)},
			},
			{
				Name: "cancels \x1b[31mthe\x1b[0m <b>trip</b>", Kind: report.KindAgent, Verdict: report.Fail, Position: pos(16, 5), Runs: 4,
				Targets: targets(50, 17, 0, 0, 6), Labels: map[string]string{"reliability.class": "flaky"},
				Counts: map[string]int64{"reliability.runs": 4, "reliability.passed_runs": 2},
				Assertions: []report.AssertionResult{{Target: "final_response", Matcher: map[string]any{"exact": "reward=1"}, Actual: "reward=0", Run: 1, FailedRuns: 2,
					Message: "assertion #0 (`final_response`) failed in run 1 of 4: got \"reward=0\", expected exactly \"reward=1\" (2 of 4 runs failed)", Position: pos(20, 9)}},
				Floors: []report.Floor{}, Findings: []report.Finding{},
				Reliability: &report.ReliabilityDetail{Runs: 4, PassedRuns: 2, Class: "flaky", Confidence: 95, Rows: rows(1, 3)},
			},
			{
				Name: "changes the seat", Kind: report.KindScenario, Verdict: report.Fail, Position: pos(24, 5), Runs: 4,
				Targets: targets(0, 0, 0, 0, 0), Labels: map[string]string{"reliability.class": "stable_fail"},
				Counts:     map[string]int64{"reliability.runs": 4, "reliability.passed_runs": 0},
				Assertions: []report.AssertionResult{}, Floors: []report.Floor{},
				Findings:    []report.Finding{{Level: "error", Gate: "expect_state", Message: "expect_state `seat`: expected \"12A\", actual \"14C\""}},
				Reliability: &report.ReliabilityDetail{Runs: 4, PassedRuns: 0, Class: "stable_fail", Confidence: 95, Rows: rows(1, 2, 3, 4)},
				Scenario: &report.ScenarioDetail{Runs: []report.ScenarioRun{
					{Run: 1, FinalState: map[string]any{"seat": "14C", "note": "<script>\x1b[2J"}, ToolNames: []string{"change_seat"},
						Diff:           []report.StateChange{{Path: "seat", Op: "replace", Before: "12A", After: "14C"}, {Path: "note", Op: "add", After: "<script>\x1b[2J"}},
						InvalidActions: []report.WorldEvent{}, ForbiddenTransitions: []report.WorldEvent{}},
					{Run: 2, FinalState: map[string]any{"seat": "12A"}, ToolNames: []string{"drop_booking"}, Diff: []report.StateChange{},
						InvalidActions: []report.WorldEvent{}, ForbiddenTransitions: []report.WorldEvent{{Turn: 1, Call: 1, Tool: "drop_booking", Reason: "never <b>drop</b>"}}},
				}, OmittedRuns: 2},
			},
		},
		Floors: []report.SuiteFloor{
			{Index: 0, Target: "summary.pass_hat_1", Matcher: map[string]any{">=": 40.0}, Position: pos(3, 5)},
			{Index: 1, Target: "summary.pass_hat_4", Matcher: map[string]any{">=": 10.0}, Position: pos(4, 5)},
		},
	}
	for _, c := range env.Cases {
		c.DefinitionSHA256 = "def"
	}
	env.Summarize(expr.JudgeFloor)
	env.Tally()
	return env
}

// TestReliabilitySummaryFigures: the sample's summary is the mean of each
// case's pass^k, exact, and the second floor fails the run although no
// case it covers is new.
func TestReliabilitySummaryFigures(t *testing.T) {
	env := reliabilitySample()
	s := env.Summary
	if s == nil || s.Cases != 3 || s.Runs != 12 || s.PassedRuns != 5 || s.Classes != (report.ClassCounts{Flaky: 2, StableFail: 1}) {
		t.Fatalf("summary = %+v", s)
	}
	// pass^1 = (3/4 + 2/4 + 0)/3 = 5/12; pass^2 = (1/2 + 1/6 + 0)/3 = 2/9.
	if p := s.PassHat[0]; p.Exact != "5/12" || p.Value != 41.7 || p.Cases != 3 {
		t.Errorf("pass^1 = %+v", p)
	}
	if p := s.PassHat[1]; p.Exact != "2/9" || p.Value != 22.2 {
		t.Errorf("pass^2 = %+v", p)
	}
	if !env.Floors[0].Passed || env.Floors[1].Passed || env.Verdict != report.Fail {
		t.Errorf("floors %+v verdict %s", env.Floors, env.Verdict)
	}
}

func TestReliabilityReportersGolden(t *testing.T) {
	env := reliabilitySample()
	for _, tt := range []struct {
		name, golden string
		r            Reporter
	}{
		{"pretty", "reliability.pretty", Pretty{}},
		{"junit", "reliability.junit", JUnit{}},
		{"agent", "reliability.agent", Agent{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.r.Report(&buf, env); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "\x1b") {
				t.Errorf("a terminal escape reached the %s output", tt.name)
			}
			golden(t, tt.golden, buf.Bytes())
		})
	}
	t.Run("summary", func(t *testing.T) {
		r := ActionReport{Env: env, Gate: baseline.Gate{FailOn: baseline.FailOnRegressions}, Suite: "suite.yml", Missing: "no baseline run"}
		golden(t, "reliability.summary.md", []byte(Summary(r, "https://github.com", "o/r", SummaryLimit)))
	})
}

// TestRestrictedCallAlwaysShown: a restricted call is shown whatever the
// verdict, by the agent reporter too (an agent reading only the digest
// would otherwise take the pass at its word); here the edge gate's expect: reads allowed_pct only, so the case
// passes although a run called delete_repo.
func TestRestrictedCallAlwaysShown(t *testing.T) {
	env := &report.Envelope{
		SchemaVersion: report.SchemaVersion, Suite: report.SuiteInfo{Path: "suite.yml"}, Verdict: report.Pass,
		Totals: report.Totals{Total: 1, Passed: 1},
		Cases: []*report.CaseResult{{
			Name: "triage", Kind: report.KindAgent, Verdict: report.Pass, Runs: 1,
			Targets: map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 1}, Counts: map[string]int64{},
			Assertions: []report.AssertionResult{{Target: "edges.allowed_pct", Passed: true, Message: "assertion #0 (`edges.allowed_pct`) passed"}},
			Floors:     []report.Floor{},
			Findings: []report.Finding{
				{Level: "error", Gate: "tool_edges", Message: "run 1: turn 1 call 2 called restricted tool `github.delete_repo`", Run: 1},
				{Level: "notice", Gate: "tool_edges", Message: "calls outside the declared edges: `x`"},
			},
		}},
	}
	for _, r := range []Reporter{Pretty{}, JUnit{}, Agent{}, SARIF{}} {
		var buf bytes.Buffer
		if err := r.Report(&buf, env); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "called restricted tool `github.delete_repo`") {
			t.Errorf("%T hides the restricted call of a passing case:\n%s", r, out)
		}
		if strings.Contains(out, "calls outside the declared edges") {
			t.Errorf("%T shows a notice of a passing case:\n%s", r, out)
		}
	}
}

// TestReliabilityComparisonGolden compares the sample with a baseline in
// which the first case passed every run and the first floor failed: the
// class flip, the floor fix and the summary deltas in every format.
func TestReliabilityComparisonGolden(t *testing.T) {
	base, cur := reliabilitySample(), reliabilitySample()
	b := base.Cases[0]
	b.Labels["reliability.class"], b.Counts["reliability.passed_runs"] = "stable_pass", 4
	b.Reliability = &report.ReliabilityDetail{Runs: 4, PassedRuns: 4, Class: "stable_pass", Confidence: 95, Judged: true, Rows: nil}
	base.Cases[1].Counts["reliability.passed_runs"] = 1
	base.Floors[0].Matcher = map[string]any{">=": 45.0}
	base.Summarize(expr.JudgeFloor)
	base.Floors[0].Matcher = map[string]any{">=": 40.0}
	base.Tally()
	c := baseline.Compare(base, cur, baseline.Options{})
	for _, format := range CompareFormats[:2] {
		var buf bytes.Buffer
		if err := RenderComparison(&buf, format, c, Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "reliability-compare."+format, buf.Bytes())
	}
	r := ActionReport{Env: cur, Cmp: c, Gate: c.Gate, Suite: "suite.yml", BaselineFile: "base.json"}
	golden(t, "reliability-compare.summary.md", []byte(Summary(r, "https://github.com", "o/r", SummaryLimit)))
}
