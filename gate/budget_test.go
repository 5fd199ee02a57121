package gate

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

func timedRun(turns ...[]float64) *cassette.Run {
	r := &cassette.Run{}
	for _, ms := range turns {
		var t cassette.Turn
		for _, d := range ms {
			c := cassette.Call{Server: "kb", Tool: "search"}
			if d >= 0 {
				c.DurationMS = &d
			}
			t.Calls = append(t.Calls, c)
		}
		r.Turns = append(r.Turns, t)
	}
	return r
}

// TestNearestRank: the value at rank ceil(p/100 × n) of the sorted values.
func TestNearestRank(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{400, 250, 1110}, 50, 400},  // rank ceil(1.5) = 2
		{[]float64{400, 250, 1110}, 95, 1110}, // rank ceil(2.85) = 3
		{[]float64{15, 20, 35, 40, 50}, 30, 20},
		{[]float64{15, 20, 35, 40, 50}, 40, 20}, // rank 2 exactly
		{[]float64{15, 20, 35, 40, 50}, 50, 35},
		{[]float64{15, 20, 35, 40, 50}, 100, 50},
		{[]float64{7}, 95, 7},
		{[]float64{3, 1}, 0, 1},
		{[]float64{3, 1}, 50, 1},
	} {
		if got := NearestRank(tc.xs, tc.p); got != tc.want {
			t.Errorf("p%v of %v = %v, want %v", tc.p, tc.xs, got, tc.want)
		}
	}
}

// TestRunFigures: the sum of the call durations, rounded half up, only
// when every call records one; calls and turns always.
func TestRunFigures(t *testing.T) {
	for _, tc := range []struct {
		name         string
		run          *cassette.Run
		ms           float64 // -1: no value
		calls, turns int64
	}{
		{"one turn", timedRun([]float64{120, 80, 200}), 400, 3, 1},
		{"two turns", timedRun([]float64{300, 250, 90}, []float64{410, 60}), 1110, 5, 2},
		{"halves round up", timedRun([]float64{0.25, 0.25}), 1, 2, 1},
		{"a call without duration", timedRun([]float64{120, -1}), -1, 2, 1},
		{"no call", timedRun([]float64{}), -1, 0, 1},
		{"no turn", &cassette.Run{}, -1, 0, 0},
	} {
		r := RunFigures(tc.run)
		if (r.RunMS == nil) != (tc.ms < 0) || r.RunMS != nil && *r.RunMS != tc.ms {
			t.Errorf("%s: run_ms %v, want %v", tc.name, r.RunMS, tc.ms)
		}
		if r.Calls != tc.calls || r.Turns != tc.turns {
			t.Errorf("%s: %d calls %d turns, want %d, %d", tc.name, r.Calls, r.Turns, tc.calls, tc.turns)
		}
	}
}

// TestBudgetResult is the worked example of docs/gates.md: three timed
// runs of 400, 250 and 1110 ms and one without timings.
func TestBudgetResult(t *testing.T) {
	ms, calls := int64(1000), int64(4)
	b := NewBudget(Budget{MaxRunMS: &ms, MaxCalls: &calls})
	b.Add(timedRun([]float64{-1, -1}))
	b.Add(timedRun([]float64{120, 80, 200}))
	b.Add(timedRun([]float64{100, 150}))
	b.Add(timedRun([]float64{300, 250, 90}, []float64{410, 60}))
	res := b.Result()
	want := map[string]float64{"latency.run_ms": 1110, "latency.run_ms_p50": 400, "latency.run_ms_p95": 1110, "steps.calls": 5, "steps.turns": 2}
	for k, v := range want {
		if res.Targets[k] != v {
			t.Errorf("%s = %v, want %v", k, res.Targets[k], v)
		}
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Level+": "+f.Message)
	}
	got := strings.Join(msgs, "\n")
	for _, w := range []string{
		"error: run 4: 5 calls, over max_calls 4: call 5 is `kb.search` (turn 2 call 2)",
		"error: run 4: 1110 ms, over max_run_ms 1000: the slowest call is `kb.search` (turn 2 call 1, 410 ms)",
		"warning: 1 of 4 runs record no timings (a call without duration_ms, or no call): latency.run_ms has no value for run 1",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no finding %q in\n%s", w, got)
		}
	}
	// No timed run: no latency target at all, never 0.
	none := NewBudget(Budget{})
	none.Add(timedRun([]float64{-1}))
	for _, k := range []string{"latency.run_ms", "latency.run_ms_p50", "latency.run_ms_p95"} {
		if v, ok := none.Result().Targets[k]; ok {
			t.Errorf("%s = %v without timings, want absent", k, v)
		}
	}
}

// TestBudgetBounds: a run exactly at max_calls, max_turns or max_run_ms
// is within budget, one over is not; the slowest call named is the first
// of equal ones; at most maxBudgetFindings runs are named; a run without
// timings is a notice without max_run_ms, a warning with it, and a run
// with timings gives no such finding.
func TestBudgetBounds(t *testing.T) {
	calls, turns, ms := int64(2), int64(2), int64(300)
	findings := func(cfg Budget, runs ...*cassette.Run) []string {
		b := NewBudget(cfg)
		for _, r := range runs {
			b.Add(r)
		}
		var out []string
		for _, f := range b.Result().Findings {
			out = append(out, f.Level+": "+f.Message)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		cfg  Budget
		run  *cassette.Run
		want string // "" for no finding
	}{
		{"calls at the floor", Budget{MaxCalls: &calls}, timedRun([]float64{1, 1}), ""},
		{"calls over", Budget{MaxCalls: &calls}, timedRun([]float64{1, 1, 1}), "error: run 1: 3 calls, over max_calls 2: call 3 is `kb.search` (turn 1 call 3)"},
		{"turns at the floor", Budget{MaxTurns: &turns}, timedRun([]float64{1}, []float64{1}), ""},
		{"turns over", Budget{MaxTurns: &turns}, timedRun([]float64{1}, []float64{1}, []float64{1}), "error: run 1: 3 turns, over max_turns 2"},
		{"run_ms at the floor", Budget{MaxRunMS: &ms}, timedRun([]float64{100, 200}), ""},
		{"run_ms over, slowest tied", Budget{MaxRunMS: &ms}, timedRun([]float64{150, 150, 1}), "error: run 1: 301 ms, over max_run_ms 300: the slowest call is `kb.search` (turn 1 call 1, 150 ms)"},
		{"untimed, no run_ms floor", Budget{}, timedRun([]float64{-1}), "notice: 1 of 1 runs record no timings"},
		{"untimed, a run_ms floor", Budget{MaxRunMS: &ms}, timedRun([]float64{-1}), "warning: 1 of 1 runs record no timings"},
	} {
		got := findings(tc.cfg, tc.run)
		if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var over []*cassette.Run
	for range maxBudgetFindings + 3 {
		over = append(over, timedRun([]float64{1, 1, 1}))
	}
	if got := findings(Budget{MaxCalls: &calls}, over...); len(got) != maxBudgetFindings {
		t.Errorf("%d runs over budget: %d findings, want %d", len(over), len(got), maxBudgetFindings)
	}
}

// TestRunList: one run, several, and more than ten.
func TestRunList(t *testing.T) {
	for _, tc := range []struct {
		runs []int
		want string
	}{
		{[]int{2}, "run 2"},
		{[]int{1, 3, 4}, "runs 1, 3, 4"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "runs 1, 2, 3, 4, 5, 6, 7, 8, 9, 10"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "runs 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more"},
	} {
		if got := RunList(tc.runs); got != tc.want {
			t.Errorf("RunList(%v) = %q, want %q", tc.runs, got, tc.want)
		}
	}
}
