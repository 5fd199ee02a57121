package gate

import (
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

func calls(ids ...string) []cassette.Call {
	out := make([]cassette.Call, len(ids))
	for i, id := range ids {
		c := cassette.Call{Tool: id}
		for j := 0; j < len(id); j++ {
			if id[j] == '.' {
				c.Server, c.Tool = id[:j], id[j+1:]
				break
			}
		}
		out[i] = c
	}
	return out
}

// oneRun is a run of one turn making calls.
func oneRun(calls []cassette.Call) *cassette.Run {
	return &cassette.Run{Turns: []cassette.Turn{{Calls: calls}}}
}

// seedClasses are the classes of the worked example in "Selection F1".
var seedClasses = []Class{
	{Name: "search", Members: []string{"brave.web_search", "google.search"}},
	{Name: "fetch", Members: []string{"http.get"}},
}

func TestScoreSelection(t *testing.T) {
	tests := []struct {
		name    string
		classes []Class
		calls   []cassette.Call
		want    RunSelection
		scores  SelectionScores
	}{
		{"seed example: both classes reached", seedClasses, calls("brave.web_search", "http.get"),
			RunSelection{TP: 2}, SelectionScores{100, 100, 100}},
		{"seed example: one class, one extra", seedClasses, calls("google.search", "shell.exec"),
			RunSelection{TP: 1, FP: 1, FN: 1, Missed: []string{"fetch"}, Unexpected: []string{"shell.exec"}},
			SelectionScores{50, 50, 50}},
		{"repeated interchangeable members count once", seedClasses, calls("brave.web_search", "google.search", "brave.web_search", "http.get"),
			RunSelection{TP: 2}, SelectionScores{100, 100, 100}},
		{"vacuous: no classes, no calls", nil, nil, RunSelection{}, SelectionScores{100, 100, 100}},
		{"no calls: zero denominator gives 0", seedClasses, nil,
			RunSelection{FN: 2, Missed: []string{"search", "fetch"}}, SelectionScores{0, 0, 0}},
		{"no classes but calls", nil, calls("a.b"),
			RunSelection{FP: 1, Unexpected: []string{"a.b"}}, SelectionScores{0, 0, 0}},
		{"every unmatched call is a false positive", seedClasses, calls("shell.exec", "shell.exec", "http.get"),
			RunSelection{TP: 1, FP: 2, FN: 1, Missed: []string{"search"}, Unexpected: []string{"shell.exec", "shell.exec"}},
			SelectionScores{33, 50, 40}},
		{"server prefix keeps same-named tools apart", []Class{{Name: "s", Members: []string{"brave.search"}}}, calls("google.search"),
			RunSelection{FP: 1, FN: 1, Missed: []string{"s"}, Unexpected: []string{"google.search"}}, SelectionScores{0, 0, 0}},
		{"bare member matches any server", []Class{{Name: "s", Members: []string{"search"}}}, calls("google.search"),
			RunSelection{TP: 1}, SelectionScores{100, 100, 100}},
		{"call without server matches bare members only", []Class{{Name: "s", Members: []string{"google.search"}}, {Name: "t", Members: []string{"fetch"}}}, calls("search", "fetch"),
			RunSelection{TP: 1, FP: 1, FN: 1, Missed: []string{"s"}, Unexpected: []string{"search"}}, SelectionScores{50, 50, 50}},
		{"a tool in two classes reaches the next unreached one", []Class{{Name: "a", Members: []string{"x"}}, {Name: "b", Members: []string{"x"}}}, calls("x", "x", "x"),
			RunSelection{TP: 2}, SelectionScores{100, 100, 100}},
		{"precision 100, recall 50 rounds F1 to 67", seedClasses, calls("http.get"),
			RunSelection{TP: 1, FN: 1, Missed: []string{"search"}}, SelectionScores{100, 50, 67}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScoreSelection(tt.classes, oneRun(tt.calls))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ScoreSelection = %+v, want %+v", got, tt.want)
			}
			if s := Scores(got.TP, got.FP, got.FN); s != tt.scores {
				t.Errorf("Scores = %+v, want %+v", s, tt.scores)
			}
		})
	}
}

func TestSelectionMicroAveragesOverRuns(t *testing.T) {
	runs := [][]cassette.Call{
		calls("brave.web_search", "http.get"), // 2 TP
		calls("google.search", "shell.exec"),  // 1 TP, 1 FP, 1 FN
		nil,                                   // 2 FN
	}
	forward, backward := NewSelection(seedClasses), NewSelection(seedClasses)
	for i := range runs {
		forward.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: runs[i]}}})
		backward.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: runs[len(runs)-1-i]}}})
	}
	got := forward.Result()
	// tp=3 fp=1 fn=3: precision 75, recall 50, F1 6/10 = 60.
	want := map[string]float64{"tool_selection.f1": 60, "tool_selection.precision": 75, "tool_selection.recall": 50}
	if !reflect.DeepEqual(got.Targets, want) {
		t.Errorf("targets = %v, want %v", got.Targets, want)
	}
	if got.Counts["tool_selection.tp"] != 3 || got.Counts["tool_selection.fp"] != 1 || got.Counts["tool_selection.fn"] != 3 {
		t.Errorf("counts = %v", got.Counts)
	}
	if !reflect.DeepEqual(backward.Result().Targets, got.Targets) {
		t.Errorf("micro-average depends on run order: %v vs %v", backward.Result().Targets, got.Targets)
	}
	wantFindings := []string{
		"missed class `fetch`: no call reached any of its members (in 2 of 3 runs)",
		"missed class `search`: no call reached any of its members (in 1 of 3 runs)",
		"unexpected tool `shell.exec`: it is in no declared class (in 1 of 3 runs)",
	}
	var msgs []string
	for _, f := range got.Findings {
		msgs = append(msgs, f.Message)
	}
	if !reflect.DeepEqual(msgs, wantFindings) {
		t.Errorf("findings:\n%q\nwant\n%q", msgs, wantFindings)
	}
}

func TestPercent(t *testing.T) {
	for _, tt := range []struct{ num, den, want int64 }{
		{0, 0, 0}, {1, 2, 50}, {2, 3, 67}, {1, 3, 33}, {1, 8, 13}, {3, 8, 38}, {1, 200, 1}, {1, 201, 0}, {5, 5, 100},
	} {
		if got := stats.Percent(tt.num, tt.den); got != tt.want {
			t.Errorf("stats.Percent(%d, %d) = %d, want %d", tt.num, tt.den, got, tt.want)
		}
	}
}

// TestSelectionUnexpectedCountsRuns pins that "(in k of n runs)" counts the
// runs an unexpected tool appeared in, not its calls: a tool called twice
// in one run of two is "in 1 of 2 runs", while every call is still a false
// positive.
func TestSelectionUnexpectedCountsRuns(t *testing.T) {
	s := NewSelection(seedClasses)
	s.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: calls("brave.web_search", "shell.exec", "http.get", "shell.exec")}}})
	s.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: calls("google.search", "http.get")}}})
	res := s.Result()
	if res.Counts["tool_selection.fp"] != 2 {
		t.Errorf("fp = %d, want 2 (each unmatched call)", res.Counts["tool_selection.fp"])
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Message)
	}
	want := []string{"unexpected tool `shell.exec`: it is in no declared class (in 1 of 2 runs)"}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("findings:\n%q\nwant\n%q", msgs, want)
	}
}

// setF1 is the set-based tool-call F1 over tool names, written from its
// definition: precision |called ∩ expected| / |called|, recall
// |called ∩ expected| / |expected|, F1 their harmonic mean, 0 when both
// are 0.
func setF1(expected, called []string) float64 {
	exp, got := map[string]bool{}, map[string]bool{}
	for _, e := range expected {
		exp[e] = true
	}
	for _, c := range called {
		got[c] = true
	}
	inter := 0
	for e := range exp {
		if got[e] {
			inter++
		}
	}
	var p, r float64
	if len(got) > 0 {
		p = float64(inter) / float64(len(got))
	}
	if len(exp) > 0 {
		r = float64(inter) / float64(len(exp))
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// TestScoreSelectionDistinct: with one class per expected tool name,
// CountDistinct reproduces the set-based tool-call F1 on every case, where
// CountCalls does not when an unexpected tool is called again.
func TestScoreSelectionDistinct(t *testing.T) {
	expected := []string{"search", "fetch"}
	var classes []Class
	for _, e := range expected {
		classes = append(classes, Class{Name: e, Members: []string{e}})
	}
	tests := []struct {
		called         []string
		distinct, each SelectionScores
	}{
		{[]string{"search", "fetch"}, SelectionScores{100, 100, 100}, SelectionScores{100, 100, 100}},
		{[]string{"shell", "shell", "fetch"}, SelectionScores{50, 50, 50}, SelectionScores{33, 50, 40}},
		{[]string{"search", "search", "shell", "fetch", "shell", "shell"}, SelectionScores{67, 100, 80}, SelectionScores{40, 100, 57}},
		{[]string{"shell", "grep", "shell"}, SelectionScores{0, 0, 0}, SelectionScores{0, 0, 0}},
		{nil, SelectionScores{0, 0, 0}, SelectionScores{0, 0, 0}},
		{[]string{"fetch", "fetch"}, SelectionScores{100, 50, 67}, SelectionScores{100, 50, 67}},
	}
	for _, tt := range tests {
		d := ScoreSelectionBy(classes, oneRun(calls(tt.called...)), CountDistinct)
		sd := Scores(d.TP, d.FP, d.FN)
		if sd != tt.distinct {
			t.Errorf("%v: distinct %+v, want %+v", tt.called, sd, tt.distinct)
		}
		if want := int64(setF1(expected, tt.called)*100 + 0.5); sd.F1 != want {
			t.Errorf("%v: distinct F1 %d, the set F1 is %d", tt.called, sd.F1, want)
		}
		e := ScoreSelection(classes, oneRun(calls(tt.called...)))
		if se := Scores(e.TP, e.FP, e.FN); se != tt.each {
			t.Errorf("%v: per call %+v, want %+v", tt.called, se, tt.each)
		}
	}
	// The unexpected tools are named once each, in call order.
	d := ScoreSelectionBy(classes, oneRun(calls("shell", "grep", "shell")), CountDistinct)
	if !reflect.DeepEqual(d.Unexpected, []string{"shell", "grep"}) || d.FP != 2 {
		t.Errorf("unexpected %v (fp %d), want [shell grep] (fp 2)", d.Unexpected, d.FP)
	}
}
