package gate

import (
	"fmt"
	"iter"
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

// The trajectory match modes, as LangSmith's agentevals defines them.
const (
	// MatchStrict: the same calls in the same order, no more, no fewer.
	MatchStrict = "strict"
	// MatchUnordered: the same calls as a multiset, in any order.
	MatchUnordered = "unordered"
	// MatchSubset: every call of the run is a step of the reference (each
	// step stands for one call); the run may leave steps out.
	MatchSubset = "subset"
	// MatchSuperset: every step of the reference is a call of the run (each
	// call stands for one step); the run may make more calls.
	MatchSuperset = "superset"
)

// Step is one step of a reference trajectory: a tool, matched as the
// members of equal_function_sets: are (MatchID), and a check of the
// call's arguments, nil for none.
type Step struct {
	Tool string
	Args ArgsMatcher
}

// ArgsMatcher checks a call's arguments against what a step asks.
type ArgsMatcher interface {
	// MatchArgs reports whether the arguments contain what the step asks
	// and, when they do not, why in one line.
	MatchArgs(arguments any) (ok bool, why string)
	// HoldsArgs is MatchArgs without the why: pairing tries a step against
	// every call to its tool and reads no reason, so it builds none.
	HoldsArgs(arguments any) bool
}

// Trajectory is a trajectory: block: a match mode and the reference steps.
type Trajectory struct {
	Match string
	Steps []Step
}

// maxTrajectoryFindings bounds how many diverging runs are named one by
// one; the count is always exact.
const maxTrajectoryFindings = 20

// TrajectoryMatch folds the runs of a test against a reference trajectory.
type TrajectoryMatch struct {
	cfg      Trajectory
	runs     int64
	matched  int64
	findings []Finding
}

// NewTrajectory returns an empty accumulator for the reference.
func NewTrajectory(cfg Trajectory) *TrajectoryMatch {
	return &TrajectoryMatch{cfg: cfg}
}

// TrajectoryRun is one run's verdict: whether it matched and, when it did
// not, its first divergence.
type TrajectoryRun struct {
	Matched    bool
	Divergence string
}

// Add folds one run and returns its verdict.
func (t *TrajectoryMatch) Add(run *cassette.Run) TrajectoryRun {
	r := t.Score(run)
	t.Fold(r)
	return r
}

// Score matches one run against the reference without folding it: it
// reads only the reference, so runs are matched on any goroutine, several
// at once, and Fold folds them in order.
func (t *TrajectoryMatch) Score(run *cassette.Run) TrajectoryRun {
	var why string
	if t.cfg.Match == MatchSuperset {
		why = divergeSuperset(t.cfg, run)
	} else {
		why = Diverge(t.cfg, locate(run))
	}
	if why == "" {
		return TrajectoryRun{Matched: true}
	}
	return TrajectoryRun{Divergence: why}
}

// Fold folds one run Score matched.
func (t *TrajectoryMatch) Fold(r TrajectoryRun) {
	t.runs++
	if r.Matched {
		t.matched++
		return
	}
	if len(t.findings) < maxTrajectoryFindings {
		t.findings = append(t.findings, Finding{Level: "error", Gate: "trajectory", Run: int(t.runs),
			Message: fmt.Sprintf("run %d: %s trajectory: %s", t.runs, t.cfg.Match, r.Divergence)})
	}
}

// Result reports trajectory.match_pct, the percentage of runs that
// matched, rounded half up; no runs score 0.
func (t *TrajectoryMatch) Result() Result {
	res := Result{
		Targets: map[string]float64{"trajectory.match_pct": float64(stats.Percent(t.matched, t.runs))},
		Counts:  map[string]int64{"trajectory.runs": t.runs, "trajectory.matched_runs": t.matched, "trajectory.steps": int64(len(t.cfg.Steps))},
	}
	res.Findings = append(res.Findings, t.findings...)
	if missed := t.runs - t.matched; missed > maxTrajectoryFindings {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "trajectory",
			Message: fmt.Sprintf("%d more diverging runs not listed", missed-maxTrajectoryFindings)})
	}
	return res
}

// LocatedCall is a call with its 1-based turn and position in the turn.
// It points at the run's own call, so a list of a run's calls costs 24
// bytes a call, not a copy of each.
type LocatedCall struct {
	*cassette.Call
	Turn, N int
}

func (c LocatedCall) where() string {
	return fmt.Sprintf("turn %d call %d", c.Turn, c.N)
}

func locate(run *cassette.Run) []LocatedCall {
	n := 0
	for _, turn := range run.Turns {
		n += len(turn.Calls)
	}
	out := make([]LocatedCall, 0, n)
	for ti, turn := range run.Turns {
		for ci := range turn.Calls {
			out = append(out, LocatedCall{Call: &turn.Calls[ci], Turn: ti + 1, N: ci + 1})
		}
	}
	return out
}

// stepMatches reports whether call c is step s: the tool, then the
// arguments, and why the arguments are not the step's.
func stepMatches(s Step, c *cassette.Call) (bool, string) {
	if !MatchID(s.Tool, c.Server, c.Tool) {
		return false, ""
	}
	if s.Args == nil {
		return true, ""
	}
	return s.Args.MatchArgs(c.Arguments.Value())
}

// callArgs is a call's arguments decoded once for every step that reads
// them (the run keeps their text).
type callArgs struct {
	v    any
	done bool
}

// stepFits is stepMatches without the why, for pairing: the call's decoded
// arguments are kept in args, when not nil, across the steps tried
// against it.
func stepFits(s Step, c *cassette.Call, args *callArgs) bool {
	if !MatchID(s.Tool, c.Server, c.Tool) {
		return false
	}
	if s.Args == nil {
		return true
	}
	if args == nil {
		return s.Args.HoldsArgs(c.Arguments.Value())
	}
	if !args.done {
		args.v, args.done = c.Arguments.Value(), true
	}
	return s.Args.HoldsArgs(args.v)
}

// Diverge checks a run's calls against the reference and returns "" when
// they match, else the first divergence in one line: "expected step 2
// `policy.lookup`, got `refund.issue` (turn 1 call 2)".
func Diverge(cfg Trajectory, calls []LocatedCall) string {
	if cfg.Match == MatchStrict {
		return divergeStrict(cfg.Steps, calls)
	}
	return divergeUnordered(cfg, calls)
}

// divergeStrict walks steps and calls side by side.
func divergeStrict(steps []Step, calls []LocatedCall) string {
	for i, s := range steps {
		if i == len(calls) {
			return fmt.Sprintf("expected step %d `%s`, the run made %s", i+1, s.Tool, callCount(len(calls)))
		}
		c := calls[i]
		ok, why := stepMatches(s, c.Call)
		if ok {
			continue
		}
		if why != "" {
			return fmt.Sprintf("step %d `%s` (%s): arguments %s", i+1, s.Tool, c.where(), why)
		}
		return fmt.Sprintf("expected step %d `%s`, got `%s` (%s)", i+1, s.Tool, c.ID(), c.where())
	}
	if len(calls) > len(steps) {
		c := calls[len(steps)]
		return fmt.Sprintf("expected no call after step %d, got `%s` (%s)", len(steps), c.ID(), c.where())
	}
	return ""
}

func callCount(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// divergeUnordered pairs steps with calls, each with at most one of the
// other (a maximum bipartite matching: a call may satisfy several steps,
// so pairing greedily could miss a pairing that exists), and checks the
// pairing the mode asks for: every step paired (superset), every call
// paired (subset), or both (unordered).
func divergeUnordered(cfg Trajectory, calls []LocatedCall) string {
	needSteps := cfg.Match == MatchSuperset || cfg.Match == MatchUnordered
	needCalls := cfg.Match == MatchSubset || cfg.Match == MatchUnordered
	stepOf, callOf := pair(cfg.Steps, calls, !needCalls)
	if needSteps {
		for i, c := range callOf {
			if c < 0 {
				return unpairedStep(i, cfg.Steps[i], slices.Values(calls))
			}
		}
	}
	if needCalls {
		for j, s := range stepOf {
			if s < 0 {
				c := calls[j]
				return fmt.Sprintf("got `%s` (%s), which no step of the reference is left for", c.ID(), c.where())
			}
		}
	}
	return ""
}

// unpairedStep says why step i has no call: no call names its tool, or
// the calls that do fail its arguments (the first one's reason), or they
// all stand for other steps.
func unpairedStep(i int, s Step, calls iter.Seq[LocatedCall]) string {
	named, why := 0, ""
	for c := range calls {
		if !MatchID(s.Tool, c.Server, c.Tool) {
			continue
		}
		if named++; why != "" {
			continue // the first reason is the one said
		}
		if ok, w := stepMatches(s, c.Call); !ok {
			why = fmt.Sprintf("; %s: arguments %s", c.where(), w)
		}
	}
	switch {
	case named == 0:
		return fmt.Sprintf("expected step %d `%s`, no call of the run is to it", i+1, s.Tool)
	case why != "":
		return fmt.Sprintf("expected step %d `%s`, no call to it has its arguments%s", i+1, s.Tool, why)
	}
	return fmt.Sprintf("expected step %d `%s`, every call to it stands for an earlier step", i+1, s.Tool)
}

// divergeSuperset is Diverge of a superset reference over the run's calls
// where they lie: what divergeUnordered finds, without a list of the
// run's calls. Each step keeps its first len(steps) fitting calls (see
// pair), so the matching holds no more than steps² candidates however
// long the run.
func divergeSuperset(cfg Trajectory, run *cassette.Run) string {
	k := len(cfg.Steps)
	fits := make([][]int, k)
	// A call that fits a step is numbered among the candidates as it is
	// met (at most k² of them), so the matching's arrays are sized by the
	// reference, not by the run.
	candidates := 0
	for c := range runCalls(run) {
		var args callArgs
		fitted := false
		for i, s := range cfg.Steps {
			if len(fits[i]) == k || !stepFits(s, c.Call, &args) {
				continue
			}
			fits[i] = append(fits[i], candidates)
			fitted = true
		}
		if fitted {
			candidates++
		}
	}
	stepOf, callOf := filled(candidates), filled(k)
	seen := make([]bool, candidates)
	for i := range k {
		clear(seen)
		augment(i, fits, stepOf, callOf, seen)
	}
	for i, c := range callOf {
		if c < 0 {
			return unpairedStep(i, cfg.Steps[i], runCalls(run))
		}
	}
	return ""
}

// runCalls yields the run's calls in call order, each where it lies.
func runCalls(run *cassette.Run) iter.Seq[LocatedCall] {
	return func(yield func(LocatedCall) bool) {
		for ti, turn := range run.Turns {
			for ci := range turn.Calls {
				if !yield(LocatedCall{Call: &turn.Calls[ci], Turn: ti + 1, N: ci + 1}) {
					return
				}
			}
		}
	}
}

// pair returns a maximum matching between steps and calls: stepOf[j] is
// the step call j stands for, callOf[i] the call of step i, -1 for none.
// Steps are tried in order and each looks at calls in order (Kuhn's
// augmenting paths), so the pairing is deterministic.
//
// With superset, which reads callOf alone, each step keeps only its first
// len(steps) fitting calls: a step with that many candidates can always be
// paired whatever the other steps take (Hall's condition), so the steps
// paired in order are the same, and the lists stay bounded by the
// reference rather than by the run's calls.
func pair(steps []Step, calls []LocatedCall, superset bool) (stepOf, callOf []int) {
	stepOf, callOf = filled(len(calls)), filled(len(steps))
	fits := make([][]int, len(steps))
	for i, s := range steps {
		for j, c := range calls {
			if superset && len(fits[i]) == len(steps) {
				break
			}
			if stepFits(s, c.Call, nil) {
				fits[i] = append(fits[i], j)
			}
		}
	}
	seen := make([]bool, len(calls))
	for i := range steps {
		clear(seen)
		augment(i, fits, stepOf, callOf, seen)
	}
	return stepOf, callOf
}

func augment(i int, fits [][]int, stepOf, callOf []int, seen []bool) bool {
	for _, j := range fits[i] {
		if seen[j] {
			continue
		}
		seen[j] = true
		if stepOf[j] < 0 || augment(stepOf[j], fits, stepOf, callOf, seen) {
			stepOf[j], callOf[i] = i, j
			return true
		}
	}
	return false
}

func filled(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	return out
}
