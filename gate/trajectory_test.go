package gate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// run builds a one-turn run from ids: "server.tool" or a bare "tool";
// a trailing "=N" sets the call's amount argument.
func trajRun(ids ...string) *cassette.Run {
	var t cassette.Turn
	for _, id := range ids {
		id, amount, _ := strings.Cut(id, "=")
		c := cassette.Call{Tool: id, Arguments: cassette.JSONOf(map[string]any{})}
		if s, tool, ok := strings.Cut(id, "."); ok {
			c.Server, c.Tool = s, tool
		}
		if amount != "" {
			var n float64
			fmt.Sscan(amount, &n)
			c.Arguments = cassette.JSONOf(map[string]any{"amount": n})
		}
		t.Calls = append(t.Calls, c)
	}
	return &cassette.Run{Turns: []cassette.Turn{t}}
}

// atMost40 is the args check {amount: {"<=": 40}} as the engine builds it.
type atMost struct{}

var atMost40 = atMost{}

func (a atMost) HoldsArgs(args any) bool { ok, _ := a.MatchArgs(args); return ok }

func (atMost) MatchArgs(args any) (bool, string) {
	m, _ := args.(map[string]any)
	a, ok := m["amount"].(float64)
	if !ok {
		return false, "`amount`: no value at this target"
	}
	if a > 40 {
		return false, fmt.Sprintf("`amount`: %v is greater than the maximum 40", a)
	}
	return true, ""
}

var refundSteps = []Step{{Tool: "orders.get"}, {Tool: "policy.lookup"}, {Tool: "refund.issue", Args: atMost40}}

// TestTrajectoryModes is the worked example of docs/gates.md: one
// reference, every mode, the first divergence of each run.
func TestTrajectoryModes(t *testing.T) {
	inOrder := trajRun("orders.get", "policy.lookup", "refund.issue=40")
	swapped := trajRun("orders.get", "refund.issue=40", "policy.lookup")
	tooMuch := trajRun("orders.get", "policy.lookup", "refund.issue=400")
	short := trajRun("orders.get", "policy.lookup")
	extra := trajRun("orders.get", "policy.lookup", "refund.issue=40", "shell.exec")
	bare := trajRun("get", "lookup", "issue=10") // a transcript without servers
	for _, tc := range []struct {
		match string
		run   *cassette.Run
		want  string
	}{
		{MatchStrict, inOrder, ""},
		{MatchStrict, swapped, "expected step 2 `policy.lookup`, got `refund.issue` (turn 1 call 2)"},
		{MatchStrict, tooMuch, "step 3 `refund.issue` (turn 1 call 3): arguments `amount`: 400 is greater than the maximum 40"},
		{MatchStrict, short, "expected step 3 `refund.issue`, the run made 2 calls"},
		{MatchStrict, extra, "expected no call after step 3, got `shell.exec` (turn 1 call 4)"},
		{MatchStrict, bare, "expected step 1 `orders.get`, got `get` (turn 1 call 1)"},
		{MatchUnordered, swapped, ""},
		{MatchUnordered, tooMuch, "expected step 3 `refund.issue`, no call to it has its arguments; turn 1 call 3: arguments `amount`: 400 is greater than the maximum 40"},
		{MatchUnordered, short, "expected step 3 `refund.issue`, no call of the run is to it"},
		{MatchUnordered, extra, "got `shell.exec` (turn 1 call 4), which no step of the reference is left for"},
		{MatchSubset, short, ""},
		{MatchSubset, extra, "got `shell.exec` (turn 1 call 4), which no step of the reference is left for"},
		{MatchSuperset, extra, ""},
		{MatchSuperset, short, "expected step 3 `refund.issue`, no call of the run is to it"},
		{MatchSuperset, trajRun(), "expected step 1 `orders.get`, no call of the run is to it"},
		{MatchSubset, trajRun(), ""},
	} {
		got := Diverge(Trajectory{Match: tc.match, Steps: refundSteps}, locate(tc.run))
		if got != tc.want {
			t.Errorf("%s %v:\n got %q\nwant %q", tc.match, tc.run.Turns, got, tc.want)
		}
	}
}

// A bare step matches the tool on any server; a call without a server
// matches bare steps only, as Selection F1 reads members.
func TestTrajectoryServerPrefixes(t *testing.T) {
	bareSteps := []Step{{Tool: "get"}, {Tool: "lookup"}}
	if d := Diverge(Trajectory{Match: MatchStrict, Steps: bareSteps}, locate(trajRun("orders.get", "policy.lookup"))); d != "" {
		t.Errorf("bare steps on qualified calls: %s", d)
	}
	if d := Diverge(Trajectory{Match: MatchStrict, Steps: []Step{{Tool: "orders.get"}}}, locate(trajRun("billing.get"))); d == "" {
		t.Error("orders.get matched billing.get")
	}
}

// Each step stands for one call: two steps to the same tool need two
// calls, and a pairing that exists is found even when a greedy one would
// take the wrong call (step 1 accepts both calls, step 2 only the first).
func TestTrajectoryPairsEachCallOnce(t *testing.T) {
	twice := []Step{{Tool: "policy.lookup"}, {Tool: "policy.lookup"}}
	if d := Diverge(Trajectory{Match: MatchSuperset, Steps: twice}, locate(trajRun("policy.lookup"))); d == "" {
		t.Error("one call stood for two steps")
	}
	steps := []Step{{Tool: "refund.issue"}, {Tool: "refund.issue", Args: atMost40}}
	if d := Diverge(Trajectory{Match: MatchUnordered, Steps: steps}, locate(trajRun("refund.issue=10", "refund.issue=400"))); d != "" {
		t.Errorf("no pairing found: %s", d)
	}
}

// trajectory.match_pct is the share of runs that matched, and each
// diverging run is a finding naming its run.
func TestTrajectoryResult(t *testing.T) {
	m := NewTrajectory(Trajectory{Match: MatchStrict, Steps: refundSteps})
	for _, r := range []*cassette.Run{trajRun("orders.get", "policy.lookup", "refund.issue=40"),
		trajRun("orders.get", "refund.issue=40", "policy.lookup"), trajRun("orders.get", "policy.lookup", "refund.issue=5")} {
		m.Add(r)
	}
	res := m.Result()
	if got := res.Targets["trajectory.match_pct"]; got != 67 {
		t.Errorf("match_pct %v, want 67 (2 of 3)", got)
	}
	if len(res.Findings) != 1 || res.Findings[0].Run != 2 || !strings.HasPrefix(res.Findings[0].Message, "run 2: strict trajectory: expected step 2") {
		t.Errorf("findings %+v", res.Findings)
	}
	if got := NewTrajectory(Trajectory{Match: MatchStrict}).Result().Targets["trajectory.match_pct"]; got != 0 {
		t.Errorf("no runs: %v, want 0", got)
	}
}

// TestTrajectoryFindingsBound: at most maxTrajectoryFindings diverging
// runs are named, then one finding counts the rest; at the bound exactly,
// none; the run made "1 call" or "N calls".
func TestTrajectoryFindingsBound(t *testing.T) {
	for _, tc := range []struct {
		diverging int
		findings  int
		last      string
	}{
		{maxTrajectoryFindings, maxTrajectoryFindings, "run 20: strict trajectory: "},
		{maxTrajectoryFindings + 3, maxTrajectoryFindings + 1, "3 more diverging runs not listed"},
	} {
		m := NewTrajectory(Trajectory{Match: MatchStrict, Steps: refundSteps})
		for range tc.diverging {
			m.Add(trajRun("orders.get"))
		}
		m.Add(trajRun("orders.get", "policy.lookup", "refund.issue=40"))
		res := m.Result()
		if len(res.Findings) != tc.findings || !strings.HasPrefix(res.Findings[len(res.Findings)-1].Message, tc.last) {
			t.Errorf("%d diverging runs: %d findings, the last %+v; want %d, %q", tc.diverging, len(res.Findings), res.Findings[len(res.Findings)-1], tc.findings, tc.last)
		}
	}
	for n, want := range map[int]string{1: "1 call", 2: "2 calls", 0: "0 calls"} {
		if got := callCount(n); got != want {
			t.Errorf("callCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestUnpairedStepWords: why an expected step found no call, by the calls
// to its tool: none; some, but none with its arguments (the first one's
// place and reason); or some with its arguments, each taken by an earlier
// step. Steps are numbered from 1.
func TestUnpairedStepWords(t *testing.T) {
	call := func(tool string, turn, n int) LocatedCall {
		return LocatedCall{Call: &cassette.Call{Tool: tool}, Turn: turn, N: n}
	}
	for _, tt := range []struct {
		calls []LocatedCall
		want  string
	}{
		{nil, "expected step 1 `search`, no call of the run is to it"},
		{[]LocatedCall{call("fetch", 1, 1)}, "expected step 1 `search`, no call of the run is to it"},
		{[]LocatedCall{call("search", 1, 2)}, "expected step 1 `search`, every call to it stands for an earlier step"},
	} {
		if got := unpairedStep(0, Step{Tool: "search"}, slices.Values(tt.calls)); got != tt.want {
			t.Errorf("calls %+v: %q, want %q", tt.calls, got, tt.want)
		}
	}
}

// TestSupersetInPlaceSameAsList: a superset reference is matched over the
// run's calls where they lie, each step keeping its first len(steps)
// candidates; drawn runs (tools repeated, turns of random length) and
// drawn references (steps repeated, some with arguments) must give the
// divergence the full pairing over the located list gives, word for word.
func TestSupersetInPlaceSameAsList(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 3))
	tools := []string{"a", "b", "s.c", "d"}
	for n := range 3000 {
		run := &cassette.Run{}
		for range 1 + rng.IntN(3) {
			var turn cassette.Turn
			for range rng.IntN(8) {
				turn.Calls = append(turn.Calls, cassette.Call{Tool: tools[rng.IntN(len(tools))],
					Arguments: cassette.JSONOf(map[string]any{"amount": float64(rng.IntN(3))})})
			}
			run.Turns = append(run.Turns, turn)
		}
		var steps []Step
		for range rng.IntN(6) {
			s := Step{Tool: tools[rng.IntN(len(tools))]}
			if rng.IntN(3) == 0 {
				s.Tool = "c"
			}
			if rng.IntN(2) == 0 {
				s.Args = amountIs(rng.IntN(3))
			}
			steps = append(steps, s)
		}
		cfg := Trajectory{Match: MatchSuperset, Steps: steps}
		if got, want := divergeSuperset(cfg, run), Diverge(cfg, locate(run)); got != want {
			t.Fatalf("draw %d: in place %q, over the list %q", n, got, want)
		}
	}
}

// amountIs is the args check {amount: N}.
type amountIs float64

func (a amountIs) HoldsArgs(args any) bool { ok, _ := a.MatchArgs(args); return ok }

func (a amountIs) MatchArgs(args any) (bool, string) {
	m, _ := args.(map[string]any)
	if v, ok := m["amount"].(float64); !ok || v != float64(a) {
		return false, fmt.Sprintf("`amount`: expected %v", float64(a))
	}
	return true, ""
}
