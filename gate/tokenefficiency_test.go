package gate

import (
	"math"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate/tokens"
)

func teRun(cost *int64, tools ...string) *cassette.Run {
	var calls []cassette.Call
	for _, t := range tools {
		calls = append(calls, cassette.Call{Tool: t})
	}
	return &cassette.Run{Turns: []cassette.Turn{{Calls: calls}}, CostMicros: cost}
}

func TestTokenEfficiency(t *testing.T) {
	classes := []Class{{Name: "search", Members: []string{"search"}}, {Name: "fetch", Members: []string{"fetch"}}}
	catalog := []cassette.ServerCatalog{{Server: "docs", Tools: []cassette.Tool{
		cassette.ToolOf(map[string]any{"name": "search", "description": "Search the documents.", "inputSchema": map[string]any{"type": "object"}}),
		cassette.ToolOf(map[string]any{"name": "fetch", "description": "Fetch a document by id."}),
	}}}
	surface := float64(tokens.Tool("search", "Search the documents.", map[string]any{"type": "object"}) + tokens.Tool("fetch", "Fetch a document by id.", nil))
	c := func(n int64) *int64 { return &n }

	cases := []struct {
		name    string
		catalog bool
		runs    []*cassette.Run
		want    map[string]float64
		grade   string
	}{
		{"two runs, both classes, paid", true, []*cassette.Run{teRun(c(1500), "search", "fetch"), teRun(c(500), "search", "fetch")},
			map[string]float64{"token_efficiency.f1": 100, "token_efficiency.correct_selections": 4, "token_efficiency.tool_surface_tokens": surface,
				"token_efficiency.tokens_per_correct": surface * 2 / 4, "token_efficiency.cost": 0.002, "token_efficiency.cost_per_correct": 0.0005}, "A"},
		{"free run: cost 0, cost_per_correct absent", true, []*cassette.Run{teRun(c(0), "search", "shell")},
			map[string]float64{"token_efficiency.f1": 50, "token_efficiency.correct_selections": 1, "token_efficiency.tool_surface_tokens": surface,
				"token_efficiency.tokens_per_correct": surface, "token_efficiency.cost": 0}, "F"},
		{"nothing correct: per-correct figures absent", true, []*cassette.Run{teRun(nil, "shell")},
			map[string]float64{"token_efficiency.f1": 0, "token_efficiency.correct_selections": 0, "token_efficiency.tool_surface_tokens": surface}, "F"},
		{"no catalog recorded: surface figures absent", false, []*cassette.Run{teRun(nil, "search", "fetch")},
			map[string]float64{"token_efficiency.f1": 100, "token_efficiency.correct_selections": 2}, "A"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			te := NewTokenEfficiency(classes)
			if tc.catalog {
				te.AddCatalog(catalog)
				te.AddCatalog(catalog) // the same tools again count once
			}
			for _, r := range tc.runs {
				te.Add(r)
			}
			res := te.Result()
			if !reflect.DeepEqual(res.Targets, tc.want) {
				t.Errorf("targets\n got %v\nwant %v", res.Targets, tc.want)
			}
			last := res.Findings[len(res.Findings)-1]
			if last.Level != "notice" || last.Message[:len("grade X")] != "grade "+tc.grade {
				t.Errorf("grade finding %+v, want grade %s", last, tc.grade)
			}
			if res.Labels["token_efficiency.grade"] != tc.grade {
				t.Errorf("grade label %q, want %s", res.Labels["token_efficiency.grade"], tc.grade)
			}
		})
	}
}

func TestGrade(t *testing.T) {
	for f1, want := range map[int64]string{100: "A", 90: "A", 89: "B", 80: "B", 79: "C", 70: "C", 69: "D", 60: "D", 59: "F", 0: "F"} {
		if got := Grade(f1); got != want {
			t.Errorf("Grade(%d) = %s, want %s", f1, got, want)
		}
	}
}

// TestTokenEfficiencyCostSaturates: costs summed over runs stop at the
// largest int64 instead of wrapping: two runs priced at 2^62 micro-dollars
// each summed to a negative cost, under any cost budget.
func TestTokenEfficiencyCostSaturates(t *testing.T) {
	te := NewTokenEfficiency([]Class{{Name: "search", Members: []string{"search"}}})
	for range 3 {
		c := int64(1) << 62
		te.Add(teRun(&c, "search"))
	}
	res := te.Result()
	if got := res.Counts["token_efficiency.cost_micros"]; got != math.MaxInt64 {
		t.Errorf("cost_micros %d, want %d", got, int64(math.MaxInt64))
	}
	if got := res.Targets["token_efficiency.cost"]; got <= 0 {
		t.Errorf("cost %g, want the saturated sum", got)
	}
}

// TestTokenEfficiencyCostOnlyWhenRecorded: runs that record no cost give
// no cost target (absent, not a cost of 0 that passes every budget); one
// run that records it gives the target, and its cost per correct selection
// only when a selection was correct.
func TestTokenEfficiencyCostOnlyWhenRecorded(t *testing.T) {
	te := NewTokenEfficiency([]Class{{Name: "search", Members: []string{"search"}}})
	te.Add(teRun(nil, "search"))
	if v, ok := te.Result().Targets["token_efficiency.cost"]; ok {
		t.Errorf("no run records a cost, and the target is %g", v)
	}
	c := int64(2_500_000)
	te.Add(teRun(&c, "search"))
	if v, ok := te.Result().Targets["token_efficiency.cost"]; !ok || v != 2.5 {
		t.Errorf("one run of 2.5 recorded: cost %g (%v), want 2.5", v, ok)
	}

	// A cost with no correct selection has no cost per correct selection
	// (not a division by zero).
	te = NewTokenEfficiency([]Class{{Name: "search", Members: []string{"search"}}})
	te.Add(teRun(&c, "fetch"))
	res := te.Result()
	if v, ok := res.Targets["token_efficiency.cost_per_correct"]; ok || res.Targets["token_efficiency.cost"] != 2.5 {
		t.Errorf("no correct selection: cost_per_correct %g (%v), cost %g", v, ok, res.Targets["token_efficiency.cost"])
	}
}
