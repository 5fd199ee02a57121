package gate

import (
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// triage is the edge set of the seed's worked suite.
var triage = Edges{
	Allowed:    []string{"search", "summarize"},
	Restricted: []string{"delete_repo", "force_push"},
	Delegation: []cassette.Delegation{{From: "planner", To: "worker"}},
}

func TestEdgeCoverage(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Edges
		runs     []cassette.Run
		targets  map[string]float64
		findings []string
		// counts, when set, are checked too (only the keys named).
		counts map[string]int64
	}{
		{
			name: "stays inside its edges",
			cfg:  triage,
			runs: []cassette.Run{{Turns: []cassette.Turn{{Calls: calls("repo.search", "repo.summarize")}},
				Delegations: []cassette.Delegation{{From: "planner", To: "worker"}}}},
			targets: map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 0, "edges.delegation_pct": 100, "edges.gate_passed": 1},
		},
		{
			name:    "a restricted call fails the gate",
			cfg:     triage,
			runs:    []cassette.Run{{Turns: []cassette.Turn{{Calls: calls("repo.search")}, {Calls: calls("repo.summarize", "repo.force_push")}}}},
			targets: map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 1, "edges.delegation_pct": 0, "edges.gate_passed": 0},
			findings: []string{
				"run 1: turn 2 call 2 called restricted tool `repo.force_push`",
				"delegation edges never observed: `planner -> worker`",
			},
		},
		{
			name: "coverage is the union over runs",
			cfg:  triage,
			runs: []cassette.Run{
				{Turns: []cassette.Turn{{Calls: calls("search")}}},
				{Turns: []cassette.Turn{{Calls: calls("summarize", "shell.exec")}}},
			},
			targets:  map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 0, "edges.delegation_pct": 0, "edges.gate_passed": 1},
			findings: []string{"delegation edges never observed: `planner -> worker`", "calls outside the declared edges: `shell.exec`"},
		},
		{
			name: "a delegation edge is matched on both ends",
			cfg:  triage,
			runs: []cassette.Run{{Turns: []cassette.Turn{{Calls: calls("search", "summarize")}},
				Delegations: []cassette.Delegation{{From: "planner", To: "reviewer"}, {From: "reviewer", To: "worker"}}}},
			targets:  map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 0, "edges.delegation_pct": 0, "edges.gate_passed": 1},
			findings: []string{"delegation edges never observed: `planner -> worker`"},
			counts:   map[string]int64{"edges.delegation": 1, "edges.delegation_observed": 0},
		},
		{
			name: "undeclared calls are counted call by call",
			cfg:  triage,
			runs: []cassette.Run{
				{Turns: []cassette.Turn{{Calls: calls("search", "shell.exec")}, {Calls: calls("shell.exec", "net.fetch")}}},
				{Turns: []cassette.Turn{{Calls: calls("shell.exec")}}},
			},
			targets:  map[string]float64{"edges.allowed_pct": 50, "edges.restricted_attempts": 0, "edges.delegation_pct": 0, "edges.gate_passed": 1},
			findings: []string{"allowed edges never exercised: `summarize`", "delegation edges never observed: `planner -> worker`", "calls outside the declared edges: `shell.exec`, `net.fetch`"},
			counts:   map[string]int64{"edges.calls": 5, "edges.undeclared_calls": 4, "edges.allowed": 2, "edges.allowed_exercised": 1},
		},
		{
			name:     "one of three allowed edges",
			cfg:      Edges{Allowed: []string{"a", "b", "c"}},
			runs:     []cassette.Run{{Turns: []cassette.Turn{{Calls: calls("a", "a")}}}},
			targets:  map[string]float64{"edges.allowed_pct": 33, "edges.restricted_attempts": 0, "edges.gate_passed": 1},
			findings: []string{"allowed edges never exercised: `b`, `c`"},
		},
		{
			name:    "nothing declared: no coverage, 100 % of nothing is no figure",
			cfg:     Edges{},
			runs:    []cassette.Run{{}},
			targets: map[string]float64{"edges.restricted_attempts": 0, "edges.gate_passed": 1},
		},
		{
			name:    "restricted is checked before allowed",
			cfg:     Edges{Allowed: []string{"repo.push"}, Restricted: []string{"push"}},
			runs:    []cassette.Run{{Turns: []cassette.Turn{{Calls: calls("repo.push", "repo.push")}}}},
			targets: map[string]float64{"edges.allowed_pct": 0, "edges.restricted_attempts": 2, "edges.gate_passed": 0},
			findings: []string{
				"run 1: turn 1 call 1 called restricted tool `repo.push`",
				"run 1: turn 1 call 2 called restricted tool `repo.push`",
				"allowed edges never exercised: `repo.push`",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEdges(tt.cfg)
			for i := range tt.runs {
				e.Add(&tt.runs[i])
			}
			res := e.Result()
			if !reflect.DeepEqual(res.Targets, tt.targets) {
				t.Errorf("targets = %v, want %v", res.Targets, tt.targets)
			}
			var msgs []string
			for _, f := range res.Findings {
				msgs = append(msgs, f.Message)
			}
			if !reflect.DeepEqual(msgs, tt.findings) {
				t.Errorf("findings = %q, want %q", msgs, tt.findings)
			}
			for k, want := range tt.counts {
				if got, ok := res.Counts[k]; !ok || got != want {
					t.Errorf("counts[%s] = %d (present %v), want %d", k, got, ok, want)
				}
			}
		})
	}
}

func TestEdgeCoverageBoundsFindings(t *testing.T) {
	e := NewEdges(Edges{Restricted: []string{"rm"}})
	for i := 0; i < 30; i++ {
		e.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: calls("rm")}}})
	}
	res := e.Result()
	if res.Targets["edges.restricted_attempts"] != 30 {
		t.Fatalf("attempts = %v", res.Targets["edges.restricted_attempts"])
	}
	if len(res.Findings) != maxAttemptFindings+1 || res.Findings[maxAttemptFindings].Message != "10 more restricted calls not listed" {
		t.Errorf("findings not bounded: %d, last %q", len(res.Findings), res.Findings[len(res.Findings)-1].Message)
	}
	// At the bound exactly, every attempt is named and none is "more".
	e = NewEdges(Edges{Restricted: []string{"rm"}})
	for range maxAttemptFindings {
		e.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: calls("rm")}}})
	}
	if res := e.Result(); len(res.Findings) != maxAttemptFindings {
		t.Errorf("%d attempts: %d findings, last %q", maxAttemptFindings, len(res.Findings), res.Findings[len(res.Findings)-1].Message)
	}
}

// TestEdgeRunRestricted: a run's own figure counts its restricted calls
// one by one (the per-run edges.restricted_calls), calls of other tools
// not at all.
func TestEdgeRunRestricted(t *testing.T) {
	e := NewEdges(Edges{Allowed: []string{"ls"}, Restricted: []string{"rm"}})
	for _, tt := range []struct {
		calls []string
		want  int64
	}{
		{[]string{"ls"}, 0},
		{[]string{"rm"}, 1},
		{[]string{"rm", "ls", "rm"}, 2},
	} {
		if got := e.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: calls(tt.calls...)}}}); got.Restricted != tt.want {
			t.Errorf("calls %v: Restricted = %d, want %d", tt.calls, got.Restricted, tt.want)
		}
	}
}
