package world

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

func mustPath(t testing.TB, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParsePath(t *testing.T) {
	for _, bad := range []string{"", ".", "a.", ".a", "a..b"} {
		if _, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) accepted", bad)
		}
	}
	if p := mustPath(t, "inventory.widgets"); len(p) != 2 || p.String() != "inventory.widgets" {
		t.Errorf("got %v", p)
	}
}

// TestEffects covers every effect form and its error cases: each row runs
// one transition on a fresh world and checks the outcome and the state.
func TestEffects(t *testing.T) {
	const seed = `{"inventory": {"widgets": 3, "name": "shelf"}, "flag": false, "n": 9007199254740990}`
	tests := []struct {
		name   string
		effect Effect
		args   string
		want   Outcome
		reason string // substring of the reason
		path   string
		value  any // expected value at path after the step
	}{
		{"bare scalar", Effect{Path: mustPath(t, "flag"), Op: OpSet, Value: true}, `{}`, Applied, "", "flag", true},
		{"bare object", Effect{Path: mustPath(t, "order"), Op: OpSet, Value: map[string]any{"status": "open"}}, `{}`, Applied, "", "order.status", "open"},
		{"set creates parents", Effect{Path: mustPath(t, "a.b.c"), Op: OpSet, Value: 1.0}, `{}`, Applied, "", "a.b.c", 1.0},
		{"set under a scalar", Effect{Path: mustPath(t, "flag.x"), Op: OpSet, Value: 1.0}, `{}`, Invalid, "`flag` is the boolean false, not an object", "flag", false},
		{"set absurd", Effect{Path: mustPath(t, "x"), Op: OpSet, Value: 1e300}, `{}`, Invalid, "beyond ±2^53", "flag", false},
		{"inc", Effect{Path: mustPath(t, "inventory.widgets"), Op: OpInc, N: 2}, `{}`, Applied, "", "inventory.widgets", 5.0},
		{"inc absent is zero", Effect{Path: mustPath(t, "inventory.gadgets"), Op: OpInc, N: 1}, `{}`, Applied, "", "inventory.gadgets", 1.0},
		{"inc a string", Effect{Path: mustPath(t, "inventory.name"), Op: OpInc, N: 1}, `{}`, Invalid, "holds the string \"shelf\", not a number", "inventory.name", "shelf"},
		{"inc overflow", Effect{Path: mustPath(t, "n"), Op: OpInc, N: 10}, `{}`, Invalid, "beyond ±2^53", "n", 9007199254740990.0},
		{"dec", Effect{Path: mustPath(t, "inventory.widgets"), Op: OpDec, N: 1}, `{}`, Applied, "", "inventory.widgets", 2.0},
		{"dec below zero is allowed", Effect{Path: mustPath(t, "inventory.widgets"), Op: OpDec, N: 5}, `{}`, Applied, "", "inventory.widgets", -2.0},
		{"dec into a list parent", Effect{Path: mustPath(t, "inventory.widgets.x"), Op: OpDec, N: 1}, `{}`, Invalid, "`inventory.widgets` is the number 3, not an object", "inventory.widgets", 3.0},
		{"from_arg", Effect{Path: mustPath(t, "inventory.widgets"), Op: OpFromArg, Arg: mustPath(t, "qty")}, `{"qty": 7}`, Applied, "", "inventory.widgets", 7.0},
		{"from_arg nested", Effect{Path: mustPath(t, "who"), Op: OpFromArg, Arg: mustPath(t, "user.id")}, `{"user": {"id": "u1"}}`, Applied, "", "who", "u1"},
		{"from_arg missing", Effect{Path: mustPath(t, "who"), Op: OpFromArg, Arg: mustPath(t, "user.id")}, `{}`, Invalid, "no such argument", "flag", false},
		{"from_arg absurd", Effect{Path: mustPath(t, "who"), Op: OpFromArg, Arg: mustPath(t, "n")}, `{"n": 1e300}`, Invalid, "beyond ±2^53", "flag", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seedVal := decode(t, seed)
			before, _ := json.Marshal(seedVal)
			w := New(seedVal, &Rules{Transitions: []Transition{{Tool: "t", Effects: []Effect{tt.effect}}}})
			var args any = decode(t, tt.args)
			res := w.Call(Step{Tool: "t", ID: "t", Args: args})
			if res.Outcome != tt.want || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("outcome %s %q, want %s containing %q", res.Outcome, res.Reason, tt.want, tt.reason)
			}
			if got, ok := Get(w.State(), mustPath(t, tt.path)); !ok || !expr.Equal(got, tt.value) {
				t.Errorf("%s = %v (%v), want %v", tt.path, got, ok, tt.value)
			}
			after, _ := json.Marshal(seedVal)
			if string(before) != string(after) {
				t.Errorf("the seed was mutated: %s", after)
			}
		})
	}
}

// TestEffectsAtomic: a transition whose second effect fails leaves the
// first unapplied.
func TestEffectsAtomic(t *testing.T) {
	w := New(decode(t, `{"a": 1, "s": "x"}`), &Rules{Transitions: []Transition{{Tool: "t", Effects: []Effect{
		{Path: mustPath(t, "a"), Op: OpInc, N: 1},
		{Path: mustPath(t, "s"), Op: OpInc, N: 1},
	}}}})
	if res := w.Call(Step{Tool: "t"}); res.Outcome != Invalid {
		t.Fatalf("outcome %s", res.Outcome)
	}
	if v, _ := Get(w.State(), Path{"a"}); v != 1.0 {
		t.Errorf("a = %v: a failed transition changed the world", v)
	}
}

// TestGuards covers every guard form.
func TestGuards(t *testing.T) {
	state := decode(t, `{"inv": {"w": 3, "name": "shelf"}, "full": false, "o": {"s": "open"}}`)
	tests := []struct {
		guard  Guard
		ok     bool
		reason string
	}{
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpEq, Value: 3.0}, true, ""},
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpEq, Value: 4.0}, false, "guard `inv.w` {eq: 4} failed: it holds 3"},
		{Guard{Path: Path{"full"}, Cmp: CmpEq, Value: false}, true, ""},
		{Guard{Path: Path{"o"}, Cmp: CmpEq, Value: map[string]any{"s": "open"}}, true, ""},
		{Guard{Path: Path{"o", "s"}, Cmp: CmpEq, Value: "closed"}, false, `it holds "open"`},
		{Guard{Path: Path{"missing"}, Cmp: CmpEq, Value: nil}, false, "it is absent"},
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpMin, N: 3}, true, ""},
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpMin, N: 4}, false, "guard `inv.w` {min: 4} failed: it holds 3"},
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpMax, N: 3}, true, ""},
		{Guard{Path: Path{"inv", "w"}, Cmp: CmpMax, N: 2}, false, "{max: 2} failed: it holds 3"},
		{Guard{Path: Path{"inv", "name"}, Cmp: CmpMin, N: 1}, false, `it holds the string "shelf", not a number`},
		{Guard{Path: Path{"inv", "w", "deeper"}, Cmp: CmpMin, N: 1}, false, "it is absent"},
	}
	for _, tt := range tests {
		ok, why := tt.guard.Check(state)
		if ok != tt.ok || !strings.Contains(why, tt.reason) {
			t.Errorf("%s: got %v %q, want %v containing %q", tt.guard, ok, why, tt.ok, tt.reason)
		}
	}
}

// TestCall covers the order of checks: forbidden first (scoped by when),
// then transitions in order, then escalation tools, then invented tools.
func TestCall(t *testing.T) {
	rules := &Rules{
		Transitions: []Transition{
			{Tool: "remove", When: []Guard{{Path: Path{"w"}, Cmp: CmpMin, N: 1}}, Effects: []Effect{{Path: Path{"w"}, Op: OpDec, N: 1}}},
			{Tool: "close", When: []Guard{{Path: Path{"open"}, Cmp: CmpEq, Value: true}}, Effects: []Effect{{Path: Path{"open"}, Op: OpSet, Value: false}}},
			{Tool: "srv.add", Effects: []Effect{{Path: Path{"w"}, Op: OpInc, N: 1}}},
		},
		Forbidden: []Forbidden{
			{Tool: "drop", Reason: "never"},
			{Tool: "close", Reason: "not while stocked", When: []Guard{{Path: Path{"w"}, Cmp: CmpMin, N: 5}}},
		},
		Escalation: []string{"page"},
	}
	w := New(map[string]any{"w": 1.0, "open": true}, rules)
	steps := []struct {
		step    Step
		outcome Outcome
		reason  string
		w       float64
	}{
		{Step{Tool: "remove"}, Applied, "", 0},
		{Step{Tool: "remove"}, Invalid, "guard `w` {min: 1} failed: it holds 0", 0},
		{Step{Tool: "drop"}, ForbiddenCall, "never", 0},
		{Step{Tool: "add", ID: "srv.add"}, Applied, "", 1},
		{Step{Tool: "add", ID: "other.add"}, Invalid, "invented", 1},
		{Step{Tool: "add", ID: "srv.add", IsError: true}, Unchanged, "returned an error", 1},
		{Step{Tool: "page"}, Unchanged, "escalation", 1},
		{Step{Tool: "fly"}, Invalid, "no transition is declared for `fly`", 1},
	}
	for i, s := range steps {
		res := w.Call(s.step)
		if res.Outcome != s.outcome || !strings.Contains(res.Reason, s.reason) {
			t.Errorf("step %d %s: %s %q, want %s containing %q", i, s.step.Tool, res.Outcome, res.Reason, s.outcome, s.reason)
		}
		if got := w.State()["w"]; got != s.w {
			t.Errorf("step %d: w = %v, want %v", i, got, s.w)
		}
	}
	// A forbidden rule with when: applies only while it holds.
	w2 := New(map[string]any{"w": 5.0, "open": true}, rules)
	if res := w2.Call(Step{Tool: "close"}); res.Outcome != ForbiddenCall || res.Rule != 1 {
		t.Errorf("close while stocked: %+v", res)
	}
	if res := w.Call(Step{Tool: "close"}); res.Outcome != Applied {
		t.Errorf("close: %+v", res)
	}
}

func TestDiffAndCheck(t *testing.T) {
	seed := decode(t, `{"inv": {"w": 3, "gone": 1}, "full": false, "list": [1, 2]}`)
	w := New(seed, &Rules{Transitions: []Transition{{Tool: "t", Effects: []Effect{
		{Path: Path{"inv", "w"}, Op: OpInc, N: 2},
		{Path: Path{"inv", "new"}, Op: OpSet, Value: "x"},
		{Path: Path{"list"}, Op: OpSet, Value: []any{1.0}},
	}}}})
	w.Call(Step{Tool: "t"})
	var got []string
	for _, c := range w.Changes() {
		got = append(got, c.String())
	}
	want := []string{`inv.new: (absent) → "x"`, `inv.w: 3 → 5`, `list: [1,2] → [1]`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("changes %q, want %q", got, want)
	}
	mm := w.Check([]Expected{{Path: Path{"inv", "w"}, Value: 5.0}, {Path: Path{"full"}, Value: true}, {Path: Path{"nope"}, Value: 1.0}})
	var msgs []string
	for _, m := range mm {
		msgs = append(msgs, m.String())
	}
	wantMM := []string{"`full`: expected true, actual false", "`nope`: expected 1, actual absent"}
	if strings.Join(msgs, "|") != strings.Join(wantMM, "|") {
		t.Errorf("mismatches %q, want %q", msgs, wantMM)
	}
}

// TestScore pins the golden.* definitions with worked examples.
func TestScore(t *testing.T) {
	g := []string{"add", "add", "full"}
	alts := [][]string{{"add", "add", "add", "remove", "full"}}
	tests := []struct {
		name                      string
		rec                       []string
		alts                      [][]string
		exact, alternate, matched bool
		penalty                   int
		efficiency                float64
	}{
		{"exact", []string{"add", "add", "full"}, alts, true, false, true, 0, 100},
		{"alternate", []string{"add", "add", "add", "remove", "full"}, alts, false, true, true, 0, 60},
		{"one extra call", []string{"add", "add", "remove", "full"}, nil, false, false, false, 1, 75},
		{"twice as long", []string{"add", "x", "add", "y", "full", "z"}, nil, false, false, false, 3, 50},
		{"stopped short", []string{"add"}, nil, false, false, false, 2, 100},
		{"nothing", nil, nil, false, false, false, 3, 100},
		{"substitution", []string{"add", "add", "drop"}, nil, false, false, false, 1, 100},
		{"seven for three", []string{"a", "b", "c", "d", "e", "f", "g"}, nil, false, false, false, 7, 43},
		{"nearest is the alternate", []string{"add", "add", "add", "full"}, alts, false, false, false, 1, 75},
	}
	for _, tt := range tests {
		got := Score(tt.rec, g, tt.alts)
		if got.Exact != tt.exact || got.Alternate != tt.alternate || got.Matched != tt.matched || got.Penalty != tt.penalty || got.Efficiency != tt.efficiency {
			t.Errorf("%s: got %+v, want exact=%v alternate=%v matched=%v penalty=%d efficiency=%v", tt.name, got, tt.exact, tt.alternate, tt.matched, tt.penalty, tt.efficiency)
		}
	}
	if got := Score(nil, nil, nil); !got.Exact || got.Efficiency != 100 {
		t.Errorf("empty against empty: %+v", got)
	}
}

// TestScoreNearest pins Golden.Nearest: the accepted sequence at the least
// edit distance, the shorter on a tie, the first listed when the tied
// sequences are as long.
func TestScoreNearest(t *testing.T) {
	tests := []struct {
		name       string
		rec, calls []string
		alts       [][]string
		penalty    int
		nearest    int
	}{
		{"exact golden", []string{"a", "b"}, []string{"a", "b"}, [][]string{{"a"}}, 0, 0},
		{"nearer beats shorter", []string{"a", "b", "c"}, []string{"a"}, [][]string{{"a", "b", "c"}}, 0, 1},
		{"tie goes to the shorter alternate", []string{"a", "b", "c"}, []string{"a", "b", "c", "d"}, [][]string{{"a", "b"}}, 1, 1},
		{"tie goes to the shorter golden", []string{"a", "b", "c"}, []string{"a", "b"}, [][]string{{"a", "b", "c", "d"}}, 1, 0},
		{"tie between alternates goes to the shorter", []string{"a", "b", "c"}, []string{"x", "y", "z", "w", "v"}, [][]string{{"a", "b", "c", "d"}, {"a", "b"}}, 1, 2},
		{"tie of equal length goes to the first listed", []string{"a", "d"}, []string{"a", "b"}, [][]string{{"a", "c"}}, 1, 0},
	}
	for _, tt := range tests {
		got := Score(tt.rec, tt.calls, tt.alts)
		if got.Penalty != tt.penalty || got.Nearest != tt.nearest {
			t.Errorf("%s: penalty %d nearest %d, want penalty %d nearest %d", tt.name, got.Penalty, got.Nearest, tt.penalty, tt.nearest)
		}
	}
}

func TestRefers(t *testing.T) {
	if !Refers("Sorry, I CAN'T help with that.", []string{"can't help"}) || Refers("ok", []string{"", "no"}) {
		t.Error("Refers")
	}
}
