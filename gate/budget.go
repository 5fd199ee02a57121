package gate

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mcptest/mcptest/cassette"
)

// Budget is a budget: block's floors; nil is no floor.
type Budget struct {
	MaxRunMS, MaxCalls, MaxTurns *int64
}

// BudgetRun is one run's own figures. RunMS is nil when the run records
// no timings: a run with no call, or with a call without a duration.
type BudgetRun struct {
	RunMS        *float64
	Calls, Turns int64
}

// RunFigures measures one run: its calls, its turns and, when every call
// records its duration, latency.run_ms, the sum of the call durations
// rounded half up to a whole millisecond.
func RunFigures(run *cassette.Run) BudgetRun {
	out := BudgetRun{Turns: int64(len(run.Turns))}
	sum, timed := 0.0, true
	for _, t := range run.Turns {
		for _, c := range t.Calls {
			out.Calls++
			if c.DurationMS == nil {
				timed = false
				continue
			}
			sum += *c.DurationMS
		}
	}
	if timed && out.Calls > 0 {
		ms := math.Floor(sum + 0.5)
		out.RunMS = &ms
	}
	return out
}

// BudgetUse folds the runs of a test: each run's figures, kept for the
// percentiles (one number a run).
type BudgetUse struct {
	cfg          Budget
	runs         int64
	findings     []Finding
	ms           []float64
	untimed      []int
	calls, turns int64
}

// NewBudget returns an empty accumulator for the floors.
func NewBudget(cfg Budget) *BudgetUse { return &BudgetUse{cfg: cfg} }

// Add folds one run and returns its figures.
func (b *BudgetUse) Add(run *cassette.Run) BudgetRun {
	s := b.Score(run)
	b.Fold(s)
	return s.Run
}

// BudgetScore is one run measured against the floors by Score, for Fold.
type BudgetScore struct {
	Run BudgetRun
	// over says how the run exceeds each floor (overBudget).
	over []string
}

// Score measures one run against the floors without folding it: it reads
// only the floors, so runs are measured on any goroutine and Fold folds
// them in order.
func (b *BudgetUse) Score(run *cassette.Run) BudgetScore {
	r := RunFigures(run)
	return BudgetScore{Run: r, over: overBudget(b.cfg, run, r)}
}

// Fold folds one run Score measured.
func (b *BudgetUse) Fold(s BudgetScore) {
	r := s.Run
	b.runs++
	if r.RunMS != nil {
		b.ms = append(b.ms, *r.RunMS)
	} else {
		b.untimed = append(b.untimed, int(b.runs))
	}
	b.calls, b.turns = max(b.calls, r.Calls), max(b.turns, r.Turns)
	for _, msg := range s.over {
		if len(b.findings) < maxBudgetFindings {
			b.findings = append(b.findings, Finding{Level: "error", Gate: "budget", Run: int(b.runs),
				Message: fmt.Sprintf("run %d: %s", b.runs, msg)})
		}
	}
}

// maxBudgetFindings bounds the runs over budget named one by one.
const maxBudgetFindings = 20

// overBudget says how run r exceeds each floor of cfg, naming the call
// that went past max_calls and the slowest call of a run over max_run_ms.
func overBudget(cfg Budget, run *cassette.Run, r BudgetRun) []string {
	var out []string
	if cfg.MaxCalls != nil && r.Calls > *cfg.MaxCalls {
		c := nthCall(run, *cfg.MaxCalls)
		out = append(out, fmt.Sprintf("%d calls, over max_calls %d: call %d is `%s` (%s)", r.Calls, *cfg.MaxCalls, *cfg.MaxCalls+1, c.ID(), c.where()))
	}
	if cfg.MaxTurns != nil && r.Turns > *cfg.MaxTurns {
		out = append(out, fmt.Sprintf("%d turns, over max_turns %d", r.Turns, *cfg.MaxTurns))
	}
	if cfg.MaxRunMS != nil && r.RunMS != nil && *r.RunMS > float64(*cfg.MaxRunMS) {
		c := slowestCall(run)
		out = append(out, fmt.Sprintf("%s ms, over max_run_ms %d: the slowest call is `%s` (%s, %s ms)", fmtMS(*r.RunMS), *cfg.MaxRunMS, c.ID(), c.where(), fmtMS(*c.DurationMS)))
	}
	return out
}

// nthCall returns the call after the first n of the run (which has more).
func nthCall(run *cassette.Run, n int64) LocatedCall {
	for ti, t := range run.Turns {
		if n < int64(len(t.Calls)) {
			return LocatedCall{Call: &t.Calls[n], Turn: ti + 1, N: int(n) + 1}
		}
		n -= int64(len(t.Calls))
	}
	return LocatedCall{Call: &cassette.Call{}}
}

// slowestCall returns the first of the run's slowest calls (every call
// of a timed run has a duration).
func slowestCall(run *cassette.Run) LocatedCall {
	best := LocatedCall{Call: &cassette.Call{}}
	for ti, t := range run.Turns {
		for ci := range t.Calls {
			c := &t.Calls[ci]
			if best.DurationMS == nil || *c.DurationMS > *best.DurationMS {
				best = LocatedCall{Call: c, Turn: ti + 1, N: ci + 1}
			}
		}
	}
	return best
}

func fmtMS(ms float64) string {
	return strconv.FormatFloat(ms, 'f', -1, 64)
}

// Untimed returns the 1-based runs that recorded no timings.
func (b *BudgetUse) Untimed() []int { return b.untimed }

// RunList renders runs as "run 2" or "runs 1, 3, 4" (the first ten).
func RunList(runs []int) string { return runList(runs) }

// NearestRank returns the p-th percentile of xs by the nearest-rank
// method: the value at rank ceil(p/100 × n) of xs sorted ascending (rank
// 1 for p = 0). xs must not be empty; it is not modified.
func NearestRank(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// Result reports steps.calls and steps.turns, each the largest over the
// runs, and, over the runs that record timings, latency.run_ms (the
// largest), latency.run_ms_p50 and latency.run_ms_p95. With no timed run
// the latency targets are absent, never 0.
func (b *BudgetUse) Result() Result {
	res := Result{
		Targets: map[string]float64{"steps.calls": float64(b.calls), "steps.turns": float64(b.turns)},
		Counts:  map[string]int64{"latency.timed_runs": int64(len(b.ms)), "steps.runs": b.runs},
	}
	if len(b.ms) > 0 {
		res.Targets["latency.run_ms"] = slices.Max(b.ms)
		res.Targets["latency.run_ms_p50"] = NearestRank(b.ms, 50)
		res.Targets["latency.run_ms_p95"] = NearestRank(b.ms, 95)
	}
	res.Findings = append(res.Findings, b.findings...)
	if len(b.untimed) > 0 && b.runs > 0 {
		level := "notice"
		if b.cfg.MaxRunMS != nil {
			level = "warning"
		}
		res.Findings = append(res.Findings, Finding{Level: level, Gate: "budget",
			Message: fmt.Sprintf("%d of %d runs record no timings (a call without duration_ms, or no call): latency.run_ms has no value for %s", len(b.untimed), b.runs, runList(b.untimed))})
	}
	return res
}

// runList renders "run 2" or "runs 1, 3, 4" (the first ten).
func runList(runs []int) string {
	if len(runs) == 1 {
		return fmt.Sprintf("run %d", runs[0])
	}
	s := "runs "
	for i, r := range runs {
		if i == 10 {
			return s + fmt.Sprintf(" and %d more", len(runs)-10)
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(r)
	}
	return s
}
