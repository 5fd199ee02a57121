package annotate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

func TestThresholdOf(t *testing.T) {
	for _, tt := range []struct {
		matcher any
		op      string
		at      float64
		ok      bool
	}{
		{map[string]any{">=": 80.0}, ">=", 80, true},
		{map[string]any{"<": 3}, "<", 3, true},
		{map[string]any{"exact": 0.0}, "==", 0, true},
		{map[string]any{"exact": true}, "", 0, false},
		{map[string]any{"schema": map[string]any{"minimum": json.Number("70")}}, ">=", 70, true},
		{map[string]any{"schema": map[string]any{"maximum": 5.0}}, "<=", 5, true},
		{map[string]any{"schema": map[string]any{"type": "string"}}, "", 0, false},
		{map[string]any{"regex": "x"}, "", 0, false},
		{"80", "", 0, false},
	} {
		th, ok := thresholdOf(tt.matcher)
		if ok != tt.ok || ok && (th.op != tt.op || th.at != tt.at) {
			t.Errorf("thresholdOf(%v) = %+v %v, want %s %v %v", tt.matcher, th, ok, tt.op, tt.at, tt.ok)
		}
	}
}

// TestFiguresByGate: figures group under their gate in order of first
// appearance (a gate's figures stay together even when another gate's
// sort between them), each held figure shows its outcome against its
// threshold, and the run's worst figure is the failing one furthest
// below its threshold.
func TestFiguresByGate(t *testing.T) {
	c := &report.CaseResult{Name: "weather",
		Targets: map[string]float64{"tool_selection.f1": 57, "tool_selection.recall": 90, "actions": 2, "state.x": 1, "turns": 3},
		Assertions: []report.AssertionResult{
			{Target: "tool_selection.f1", Matcher: map[string]any{">=": 80.0}, Passed: false},
			{Target: "tool_selection.recall", Matcher: map[string]any{">=": 80.0}, Passed: true},
		},
	}
	gates := figuresOf(c)
	var names []string
	for _, g := range gates {
		names = append(names, g.Name)
	}
	if got := strings.Join(names, " "); got != "case state tool_selection" {
		t.Fatalf("gates %q, want case state tool_selection", got)
	}
	if n := len(gates[0].Figures); n != 2 {
		t.Errorf("the case's own figures are split: %d in its group, want 2", n)
	}
	f1 := gates[2].Figures[0]
	if f1.Short != "f1" || f1.Outcome != "fail" || f1.Against != "< 80" || f1.Need != "needs >= 80" {
		t.Errorf("f1 = %+v", f1)
	}
	if held := heldFigures(gates); len(held) != 2 || held[0].Name != "tool_selection.f1" {
		t.Errorf("held figures %+v: want the failing one first", held)
	}
	other := &report.CaseResult{Name: "other", Targets: map[string]float64{"distractors.accuracy": 75},
		Assertions: []report.AssertionResult{{Target: "distractors.accuracy", Matcher: map[string]any{">=": 70.0}, Passed: true}}}
	w := worstFloorOf(&report.Envelope{Cases: []*report.CaseResult{other, c}})
	if w == nil || w.Case != "weather" || w.Name != "tool_selection.f1" || w.Against != "< 80" || w.Href != "#case-2" {
		t.Errorf("worst floor %+v", w)
	}
}
