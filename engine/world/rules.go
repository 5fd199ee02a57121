package world

import (
	"fmt"
	"math"
	"strings"

	"github.com/mcptest/mcptest/internal/expr"
)

// Op is how an effect changes the value at its path.
type Op string

// The effect forms of a transition.
const (
	// OpSet sets the path to a literal (a bare value or {set: v}).
	OpSet Op = "set"
	// OpInc adds N to the number at the path; an absent value counts as 0.
	OpInc Op = "inc"
	// OpDec subtracts N from the number at the path; absent counts as 0.
	OpDec Op = "dec"
	// OpFromArg sets the path to the call argument at Arg.
	OpFromArg Op = "from_arg"
)

// Effect is one entry of a transition's effect: map.
type Effect struct {
	Path  Path
	Op    Op
	Value any     // OpSet
	N     float64 // OpInc, OpDec
	Arg   Path    // OpFromArg
}

// apply performs the effect on state (a copy the caller may discard).
func (e Effect) apply(state map[string]any, args any) error {
	switch e.Op {
	case OpSet:
		if err := checkNumbers(e.Path, e.Value); err != nil {
			return err
		}
		return set(state, e.Path, Clone(e.Value))
	case OpInc, OpDec:
		cur := 0.0
		if v, ok := Get(state, e.Path); ok && v != nil {
			n, isNum := expr.Number(v)
			if !isNum {
				return fmt.Errorf("cannot %s `%s`: it holds %s, not a number", e.Op, e.Path, Describe(v))
			}
			cur = n
		}
		delta := e.N
		if e.Op == OpDec {
			delta = -delta
		}
		next := cur + delta
		if math.IsNaN(next) || math.Abs(next) > MaxExact {
			return fmt.Errorf("cannot %s `%s` by %s: the result %s is beyond ±2^53, where numbers stop being exact", e.Op, e.Path, expr.FormatNumber(e.N), expr.FormatNumber(next))
		}
		return set(state, e.Path, next)
	case OpFromArg:
		v, ok := Get(args, e.Arg)
		if !ok {
			return fmt.Errorf("cannot set `%s` from the argument `%s`: the call has no such argument", e.Path, e.Arg)
		}
		if err := checkNumbers(e.Path, v); err != nil {
			return err
		}
		return set(state, e.Path, Clone(v))
	}
	return fmt.Errorf("unknown effect %q on `%s`", e.Op, e.Path)
}

// checkNumbers refuses a value holding a number beyond ±2^53 or not finite.
func checkNumbers(p Path, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if err := checkNumbers(p, e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkNumbers(p, e); err != nil {
				return err
			}
		}
	default:
		if n, ok := expr.Number(v); ok && (math.IsNaN(n) || math.Abs(n) > MaxExact) {
			return fmt.Errorf("cannot set `%s`: the number %s is beyond ±2^53, where numbers stop being exact", p, expr.FormatNumber(n))
		}
	}
	return nil
}

// Cmp is how a guard compares the value at its path.
type Cmp string

// The guard forms of a when: precondition.
const (
	// CmpEq holds when the value equals Value ({eq: v} or a bare literal).
	CmpEq Cmp = "eq"
	// CmpMin holds when the value is a number >= N.
	CmpMin Cmp = "min"
	// CmpMax holds when the value is a number <= N.
	CmpMax Cmp = "max"
)

// Guard is one condition of a when: precondition.
type Guard struct {
	Path  Path
	Cmp   Cmp
	Value any     // CmpEq
	N     float64 // CmpMin, CmpMax
}

// String renders the guard as written: "inventory.widgets {min: 1}".
func (g Guard) String() string {
	if g.Cmp == CmpEq {
		return fmt.Sprintf("`%s` {eq: %s}", g.Path, expr.Render(g.Value))
	}
	return fmt.Sprintf("`%s` {%s: %s}", g.Path, g.Cmp, expr.FormatNumber(g.N))
}

// Check reports whether the guard holds in state and, when it does not,
// why.
func (g Guard) Check(state map[string]any) (bool, string) {
	v, ok := Get(state, g.Path)
	actual := "it is absent"
	if ok {
		actual = "it holds " + expr.Render(v)
	}
	switch g.Cmp {
	case CmpEq:
		if ok && expr.Equal(v, g.Value) {
			return true, ""
		}
		return false, fmt.Sprintf("guard %s failed: %s", g, actual)
	case CmpMin, CmpMax:
		n, isNum := expr.Number(v)
		if !ok || !isNum {
			if ok {
				actual = "it holds " + Describe(v) + ", not a number"
			}
			return false, fmt.Sprintf("guard %s failed: %s", g, actual)
		}
		if (g.Cmp == CmpMin && n >= g.N) || (g.Cmp == CmpMax && n <= g.N) {
			return true, ""
		}
		return false, fmt.Sprintf("guard %s failed: %s", g, actual)
	}
	return false, fmt.Sprintf("guard %s has an unknown comparison", g)
}

// checkAll returns the reason of the first guard of gs that fails, "" when
// all hold.
func checkAll(gs []Guard, state map[string]any) string {
	for _, g := range gs {
		if ok, why := g.Check(state); !ok {
			return why
		}
	}
	return ""
}

// Transition is a legal action: a tool, an optional precondition and the
// effects the call has on the world.
type Transition struct {
	Tool    string
	When    []Guard
	Effects []Effect
}

// Forbidden is a tool that must never be called (while When holds).
type Forbidden struct {
	Tool   string
	Reason string
	When   []Guard
}

// Rules are a scenario's transitions, forbidden tools and escalation tools.
// A tool name matches a call by its bare name or its qualified server.tool
// id.
type Rules struct {
	Transitions []Transition
	Forbidden   []Forbidden
	// Escalation lists tools that hand the task to a human. A call to one
	// that has no transition leaves the world unchanged and is not an
	// invalid action.
	Escalation []string
}

// Outcome is what a step did.
type Outcome string

// The outcomes of a Step.
const (
	// Applied: a transition matched and its effects were applied.
	Applied Outcome = "applied"
	// Unchanged: the call was legal but changed nothing (the tool reported
	// an error, or an escalation tool with no transition).
	Unchanged Outcome = "unchanged"
	// Invalid: no transition for the tool, every guard failed, or an
	// effect could not be applied. The world is unchanged.
	Invalid Outcome = "invalid"
	// ForbiddenCall: a forbidden rule matched. The world is unchanged.
	ForbiddenCall Outcome = "forbidden"
)

// Step is one recorded tool call.
type Step struct {
	// Tool is the bare tool name; ID the qualified server.tool id (equal
	// to Tool when the server is unknown).
	Tool, ID string
	Args     any
	// IsError is the recorded call's error flag.
	IsError bool
}

// Result is the outcome of one step. Rule is the index of the rule the
// outcome is about: the transition applied (Applied), the first transition
// whose guard failed or whose effect could not be applied (Invalid), the
// forbidden rule that matched (ForbiddenCall); -1 when no rule names the
// tool.
type Result struct {
	Outcome Outcome
	Reason  string
	Rule    int
}

// World is a scenario's state as a trajectory is replayed.
type World struct {
	rules *Rules
	seed  map[string]any
	state map[string]any
}

// New starts a world from seed, which it clones and never mutates. A nil
// seed is an empty object.
func New(seed map[string]any, rules *Rules) *World {
	if rules == nil {
		rules = &Rules{}
	}
	st, _ := Clone(seed).(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	return &World{rules: rules, seed: seed, state: st}
}

// State returns the current state. The caller must not modify it.
func (w *World) State() map[string]any { return w.state }

// Changes lists what the replay changed, seed against current state.
func (w *World) Changes() []Change {
	var seed any = w.seed
	if w.seed == nil {
		seed = map[string]any{}
	}
	return Diff(seed, w.state)
}

// Check compares the current state with expected, path by path, in the
// order given.
func (w *World) Check(expected []Expected) []Mismatch {
	var out []Mismatch
	for _, e := range expected {
		v, ok := Get(w.state, e.Path)
		if !ok || !expr.Equal(v, e.Value) {
			out = append(out, Mismatch{Path: e.Path.String(), Expected: e.Value, Actual: v, Present: ok})
		}
	}
	return out
}

// Expected is one expect_state entry.
type Expected struct {
	Path  Path
	Value any
}

func matches(rule string, s Step) bool {
	return rule == s.Tool || (s.ID != "" && rule == s.ID)
}

// Call replays one step. Forbidden rules are checked first and never
// mutate the world. Then the step's transitions are tried in declaration
// order; the first whose guard holds is applied, atomically. A call the
// recording marks as an error is legal but changes nothing.
func (w *World) Call(s Step) Result {
	for i, f := range w.rules.Forbidden {
		if matches(f.Tool, s) && checkAll(f.When, w.state) == "" {
			reason := f.Reason
			if reason == "" {
				reason = "the tool is forbidden"
			}
			return Result{Outcome: ForbiddenCall, Reason: reason, Rule: i}
		}
	}
	firstWhy, first := "", -1
	for i, t := range w.rules.Transitions {
		if !matches(t.Tool, s) {
			continue
		}
		if why := checkAll(t.When, w.state); why != "" {
			if first < 0 {
				firstWhy, first = why, i
			}
			continue
		}
		if s.IsError {
			return Result{Outcome: Unchanged, Reason: "the call returned an error, so its effect is not applied", Rule: i}
		}
		next, _ := Clone(w.state).(map[string]any)
		for _, e := range t.Effects {
			if err := e.apply(next, s.Args); err != nil {
				return Result{Outcome: Invalid, Reason: err.Error(), Rule: i}
			}
		}
		w.state = next
		return Result{Outcome: Applied, Rule: i}
	}
	if first >= 0 {
		return Result{Outcome: Invalid, Reason: firstWhy, Rule: first}
	}
	for _, e := range w.rules.Escalation {
		if matches(e, s) {
			return Result{Outcome: Unchanged, Reason: "escalation tool", Rule: -1}
		}
	}
	return Result{Outcome: Invalid, Reason: fmt.Sprintf("no transition is declared for `%s`: the agent invented an action", s.Tool), Rule: -1}
}

// Refers reports whether text contains any of markers, case-insensitively.
func Refers(text string, markers []string) bool {
	low := strings.ToLower(text)
	for _, m := range markers {
		if m != "" && strings.Contains(low, strings.ToLower(m)) {
			return true
		}
	}
	return false
}
