package annotate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// failedAssertion is a failed assertion of block at index i, its message
// as the engine words a budget: floor's.
func failedAssertion(block string, i int, floor string) report.AssertionResult {
	msg := fmt.Sprintf("assertion #%d (`%s`) failed", i, block)
	if floor != "" {
		msg = fmt.Sprintf("`%s:` floor %s (`steps.calls` <= 4) failed: 5 is greater than the maximum 4", block, floor)
	}
	return report.AssertionResult{Block: block, Index: i, Target: "steps.calls", Message: msg,
		Position: diag.Pos{File: "suite.yml", Line: 10 + i, Col: 7}}
}

// shape is caseFailures' result in a line a problem: its kind, message
// and evidence lines.
func shape(ps []problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s %s|%s\n", p.Kind, p.Message, strings.Join(p.Lines, "|"))
	}
	return b.String()
}

// TestCaseFailuresEvidenceRules: the rules by which caseFailures places a
// finding, each held by a row whose mutant reads otherwise. An error
// finding of a run goes under the one failed assertion of its gate (the
// first of the case's included), written with its position when it has
// one; of several assertions of its gate, under the one whose floor it
// names, word for word; else, a finding without a gate, and an
// inconclusive case's warning are problems of their own.
func TestCaseFailuresEvidenceRules(t *testing.T) {
	pos := &diag.Pos{File: "suite.yml", Line: 3, Col: 5}
	for _, tt := range []struct {
		name string
		c    report.CaseResult
		want string
	}{
		{"under the first failed assertion, with its position", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("budget", 0, "")},
			Findings:   []report.Finding{{Level: "error", Gate: "budget", Message: "run 2: 5 calls", Position: pos}}},
			"assertion assertion #0 (`budget`) failed|suite.yml:3:5: run 2: 5 calls\n"},
		{"a position without a file is not written", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("budget", 0, "")},
			Findings:   []report.Finding{{Level: "error", Gate: "budget", Message: "run 2: 5 calls", Position: &diag.Pos{Line: 3, Col: 5}}}},
			"assertion assertion #0 (`budget`) failed|run 2: 5 calls\n"},
		{"under the second failed assertion, its gate's", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("calls", 0, ""), failedAssertion("budget", 1, "")},
			Findings:   []report.Finding{{Level: "error", Gate: "budget", Message: "run 1: 5 calls"}}},
			"assertion assertion #0 (`calls`) failed|\nassertion assertion #1 (`budget`) failed|run 1: 5 calls\n"},
		{"a finding without a gate is its own", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("", 0, "")},
			Findings:   []report.Finding{{Level: "error", Message: "the server did not start"}}},
			"assertion assertion #0 (``) failed|\nfinding the server did not start|\n"},
		{"an inconclusive case's warning is its own", report.CaseResult{Verdict: report.Inconclusive,
			Assertions: []report.AssertionResult{failedAssertion("calls", 0, "")},
			Findings:   []report.Finding{{Level: "warning", Gate: "calls", Message: "no run called a tool"}}},
			"assertion assertion #0 (`calls`) failed|\ninconclusive no run called a tool|\n"},
		{"of several floors, the one it names", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("budget", 0, "max_run_ms"), failedAssertion("budget", 1, "max_calls")},
			Findings: []report.Finding{{Level: "error", Gate: "budget", Message: "run 3: 5 calls, over max_calls 4: call 5"},
				{Level: "error", Gate: "budget", Message: "run 3: 1110 ms, over max_run_ms 1000"}}},
			"assertion `budget:` floor max_run_ms (`steps.calls` <= 4) failed: 5 is greater than the maximum 4|run 3: 1110 ms, over max_run_ms 1000\n" +
				"assertion `budget:` floor max_calls (`steps.calls` <= 4) failed: 5 is greater than the maximum 4|run 3: 5 calls, over max_calls 4: call 5\n"},
		{"a floor's name as a word only", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("budget", 0, "max_calls"), failedAssertion("budget", 1, "max_run_ms")},
			Findings:   []report.Finding{{Level: "error", Gate: "budget", Message: "run 3: over max_callsX 4"}}},
			"assertion `budget:` floor max_calls (`steps.calls` <= 4) failed: 5 is greater than the maximum 4|\n" +
				"assertion `budget:` floor max_run_ms (`steps.calls` <= 4) failed: 5 is greater than the maximum 4|\n" +
				"finding run 3: over max_callsX 4|\n"},
		{"of several assertions with no floor, none", report.CaseResult{Verdict: report.Fail,
			Assertions: []report.AssertionResult{failedAssertion("budget", 0, ""), failedAssertion("budget", 1, "")},
			Findings:   []report.Finding{{Level: "error", Gate: "budget", Message: "run 3: over (`budget`) 4"}}},
			"assertion assertion #0 (`budget`) failed|\nassertion assertion #1 (`budget`) failed|\nfinding run 3: over (`budget`) 4|\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := shape(caseFailures(&tt.c)); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

// TestCheckOfLabels: a run's failed-check label names an assertion the
// gate's default (or a budget: floor) stands for only with its own block
// and target, and one the suite wrote only with its index and target;
// a case of one run names no runs under its checks.
func TestCheckOfLabels(t *testing.T) {
	calls := report.AssertionResult{Default: true, Block: "calls", Target: "tool_selection.f1"}
	budget := report.AssertionResult{Default: true, Block: "budget", Target: "steps.calls"}
	written := report.AssertionResult{Index: 1, Block: "budget", Target: "steps.calls"}
	for _, tt := range []struct {
		label string
		a     report.AssertionResult
		want  bool
	}{
		{"default gate of `calls:` (`tool_selection.f1` >= 1)", calls, true},
		{"default gate of `calls:` (`tool_selection.recall` >= 1)", calls, false},
		{"default gate of `budget:` (`tool_selection.f1` >= 1)", calls, false},
		{"`budget:` floor max_calls (`steps.calls` <= 4)", budget, true},
		{"`budget:` floor max_run_ms (`latency.run_ms` <= 1000)", budget, false},
		{"`other:` floor max_calls (`steps.calls` <= 4)", budget, false},
		{"assertion #1 (`steps.calls`) in budget", written, true},
		{"assertion #1 (`steps.calls`) in budget: 5 calls", written, true},
		{"assertion #1 (`steps.calls`) in budgets", written, false},
		{"assertion #2 (`steps.calls`) in budget", written, false},
	} {
		if got := checkOf(tt.label, tt.a); got != tt.want {
			t.Errorf("checkOf(%q, %+v) = %v, want %v", tt.label, tt.a, got, tt.want)
		}
	}
	for _, tt := range []struct {
		runs  []int
		total int
		want  string
	}{
		{[]int{1}, 1, ""},
		{nil, 3, ""},
		{[]int{2}, 2, "failed in run 2 of 2"},
		{[]int{1, 3}, 3, "failed in runs 1 and 3 of 3"},
	} {
		if got := runsLine(tt.runs, tt.total); got != tt.want {
			t.Errorf("runsLine(%v, %d) = %q, want %q", tt.runs, tt.total, got, tt.want)
		}
	}
}

// TestFloorEvidenceDropsOnlyRepeats: a missed floor's evidence leaves out
// a run's line only when it repeats, word for word, the checks that run
// failed (each check's own runs line says them), and the count of runs
// left out only when the runs are listed; every other line stays.
func TestFloorEvidenceDropsOnlyRepeats(t *testing.T) {
	rel := &report.ReliabilityDetail{Rows: []report.RunVerdict{
		{Run: 1, Passed: true},
		{Run: 2, Failed: []string{"assertion #0 (`x`)", "assertion #1 (`y`)"}},
		{Run: 4, Failed: []string{"assertion #0 (`x`)"}},
	}}
	lines := []string{
		"FLOOR pass_rate >= 90: 1/3 runs passed",
		"  run 2: assertion #0 (`x`); assertion #1 (`y`)",
		"  run 4: assertion #0 (`x`)",
		"  run 4: assertion #1 (`y`)",
		"  run 3",
		"  run x: assertion #0 (`x`)",
		"  and 7 more failing runs",
		"  and 7 more",
		"x and 7 more failing runs",
	}
	for _, tt := range []struct {
		name string
		rel  *report.ReliabilityDetail
		want []string
	}{
		{"with its runs", rel, []string{lines[0], lines[3], lines[4], lines[5], lines[7], lines[8]}},
		{"without", nil, lines},
	} {
		c := &report.CaseResult{Reliability: tt.rel}
		got := floorEvidence(c, report.Floor{Name: "pass_rate", Lines: lines})
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestProvenanceAndRunWords: the audit block names the shard only of a
// sharded run, the CI and its runner only when recorded (else "local"),
// "not recorded" for an empty value; a tool_selection run's words say
// what it called instead, and "over budget" only past the budget.
func TestProvenanceAndRunWords(t *testing.T) {
	row := func(env *report.Envelope, label string) (string, bool) {
		for _, p := range provenance(env) {
			if p[0] == label {
				return p[1], true
			}
		}
		return "", false
	}
	if v, ok := row(&report.Envelope{Run: report.RunInfo{Shard: "2/3"}}, "shard"); v != "2/3" || !ok {
		t.Errorf("a sharded run's shard: %q %v", v, ok)
	}
	if _, ok := row(&report.Envelope{}, "shard"); ok {
		t.Error("an unsharded run names a shard")
	}
	for _, tt := range []struct {
		env  report.Environment
		want string
	}{
		{report.Environment{}, "local"},
		{report.Environment{Runner: "Linux/X64"}, "local"},
		{report.Environment{CI: "github-actions"}, "github-actions"},
		{report.Environment{CI: "github-actions", Runner: "Linux/X64"}, "github-actions, runner Linux/X64"},
	} {
		if v, _ := row(&report.Envelope{Environment: &tt.env}, "environment"); v != tt.want {
			t.Errorf("environment %+v: %q, want %q", tt.env, v, tt.want)
		}
	}
	if v, _ := row(&report.Envelope{Run: report.RunInfo{ID: "01ABC"}}, "run id"); v != "01ABC" {
		t.Errorf("run id: %q", v)
	}
	if v, _ := row(&report.Envelope{}, "run id"); v != "not recorded" {
		t.Errorf("no run id: %q", v)
	}
	ts := &report.ToolSelectionDetail{ExpectedTool: "get_weather"}
	tokens := int64(1500)
	for _, tt := range []struct {
		r    report.PassKRun
		with []string
		want string
	}{
		{report.PassKRun{Selected: true, Tokens: &tokens, WithinBudget: true}, nil, "selected `get_weather`, 1500 tokens"},
		{report.PassKRun{Selected: true, Tokens: &tokens}, nil, "selected `get_weather`, 1500 tokens, over budget"},
		{report.PassKRun{WithinBudget: true}, nil, "did not select `get_weather`, called no tool, tokens not recorded"},
		{report.PassKRun{WithinBudget: true}, []string{"search", "fetch"}, "did not select `get_weather`, called search, fetch, tokens not recorded"},
	} {
		r := report.SelectionRow{PassKRun: tt.r}
		r.Called = tt.with
		if got := runRowWords(ts, r); got != tt.want {
			t.Errorf("runRowWords(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}
