package gate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate/distractor"
	"github.com/mcptest/mcptest/report"
)

func run(tokens int64, ids ...string) *cassette.Run {
	r := &cassette.Run{Turns: []cassette.Turn{{Calls: calls(ids...)}}}
	if tokens >= 0 {
		r.Tokens = &cassette.Tokens{Total: tokens}
	}
	return r
}

func i64(v int64) *int64 { return &v }

// seedFloor is the seed's tool_selection: block.
var seedFloor = PassKConfig{ExpectedTool: "get_weather", MinRate: 0.8, MaxTokens: i64(2000)}

func TestPassKSeedPass(t *testing.T) {
	// Nine of ten runs select get_weather, all within 2000 tokens: median
	// 1520, max 1840.
	tokens := []int64{1500, 1520, 1840, 1400, 1520, 1600, 1510, 1530, 1490, 1700}
	p := NewPassK(seedFloor)
	for i, tk := range tokens {
		if i == 6 {
			p.Add("", run(tk, "search"))
			continue
		}
		p.Add("", run(tk, "weather.get_weather"))
	}
	f := p.FloorOf("weather selection", "")
	want := "weather selection: selection 9/10 (90%), pass^k 90%, tokens 1520 median / 1840 max"
	if !f.Passed || f.Summary != want || len(f.Breaches) != 0 {
		t.Errorf("floor = %+v\nwant summary %q", f, want)
	}
	res := p.Result()
	wantT := map[string]float64{"tool_selection.selection_rate": 90, "tool_selection.pass_k": 90,
		"tool_selection.tokens_median": 1520, "tool_selection.tokens_max": 1840}
	if !reflect.DeepEqual(res.Targets, wantT) {
		t.Errorf("targets = %v", res.Targets)
	}
	if res.Counts["tool_selection.selected"] != 9 || res.Counts["tool_selection.runs"] != 10 {
		t.Errorf("counts = %v", res.Counts)
	}
}

func TestPassKSeedBreach(t *testing.T) {
	// Six of ten select; three runs over the 2000-token budget, the worst
	// 3120 tokens. The FLOOR lines are the seed's.
	p := NewPassK(seedFloor)
	rows := []struct {
		tokens int64
		tool   string
	}{
		{1500, "get_weather"}, {1500, "get_weather"}, {1500, "get_weather"}, {2400, "get_weather"},
		{1500, "get_weather"}, {3120, "get_weather"}, {1500, "search"}, {2100, "search"},
		{1500, "search"}, {1500, "search"},
	}
	for _, r := range rows {
		p.Add("", run(r.tokens, r.tool))
	}
	f := p.FloorOf("weather selection", "")
	want := []string{
		"FLOOR weather selection: selection rate 60% is below the 80% floor (6 of 10 runs selected `get_weather`)",
		"FLOOR weather selection: 3 of 10 runs exceeded the 2000-token budget (worst run 3120 tokens)",
		"  run 4: 2400 tokens, over budget",
		"  run 6: 3120 tokens, over budget",
		"  run 7: did not select `get_weather`, called search",
		"  run 8: did not select `get_weather`, called search; 2100 tokens, over budget",
		"  run 9: did not select `get_weather`, called search",
		"  run 10: did not select `get_weather`, called search",
	}
	if f.Passed || !reflect.DeepEqual(f.Breaches, want) {
		t.Errorf("breaches:\n%s\nwant:\n%s", strings.Join(f.Breaches, "\n"), strings.Join(want, "\n"))
	}
	if got := p.Result().Targets["tool_selection.pass_k"]; got != 40 {
		t.Errorf("pass^k = %v, want 40 (runs 1,2,3,5)", got)
	}
}

func TestPassKBudgetAllOrNothing(t *testing.T) {
	// One run over the cap fails the floor even at a 100% selection rate.
	p := NewPassK(seedFloor)
	for i := range 10 {
		tk := int64(1000)
		if i == 4 {
			tk = 2001
		}
		p.Add("", run(tk, "get_weather"))
	}
	f := p.FloorOf("w", "")
	if f.Passed || len(f.Breaches) != 2 || !strings.Contains(f.Breaches[0], "1 of 10 runs exceeded the 2000-token budget (worst run 2001 tokens)") {
		t.Errorf("floor = %+v", f)
	}
	// Exactly at the cap is within budget.
	p = NewPassK(seedFloor)
	p.Add("", run(2000, "get_weather"))
	if f := p.FloorOf("w", ""); !f.Passed {
		t.Errorf("a run at exactly the cap failed: %+v", f)
	}
}

func TestPassKNoBudgetNoTokens(t *testing.T) {
	p := NewPassK(PassKConfig{ExpectedTool: "get_weather", MinRate: 0.5})
	p.Add("", run(-1, "get_weather"))
	p.Add("", run(-1))
	f := p.FloorOf("w", "")
	if !f.Passed || f.Summary != "w: selection 1/2 (50%), pass^k 50%, tokens not recorded" {
		t.Errorf("floor = %+v", f)
	}
	res := p.Result()
	if _, ok := res.Targets["tool_selection.tokens_median"]; ok {
		t.Error("tokens_median present with no recorded tokens")
	}
	// With a budget, a run without recorded tokens cannot prove it stayed
	// within it.
	p = NewPassK(PassKConfig{ExpectedTool: "get_weather", MinRate: 0.5, MaxTokens: i64(10)})
	p.Add("", run(-1, "get_weather"))
	f = p.FloorOf("w", "")
	if f.Passed || f.Breaches[len(f.Breaches)-1] != "  run 1: no token usage recorded, so the budget cannot be checked" {
		t.Errorf("floor = %+v", f)
	}
}

func TestMeetsRate(t *testing.T) {
	for _, tt := range []struct {
		sel, runs int64
		rate      float64
		want      bool
	}{
		{7, 10, 0.7, true}, {8, 10, 0.8, true}, {7, 10, 0.8, false}, {0, 1, 0, true},
		{1, 3, 0.33, true}, {1, 3, 0.34, false}, {3, 3, 1, true}, {0, 0, 0.5, false},
	} {
		if got := MeetsRate(tt.sel, tt.runs, tt.rate); got != tt.want {
			t.Errorf("MeetsRate(%d, %d, %v) = %v", tt.sel, tt.runs, tt.rate, got)
		}
	}
	if ratePercent(0.825) != "82.5" || ratePercent(0.8) != "80" || ratePercent(1) != "100" {
		t.Error("ratePercent")
	}
}

func TestMedianEven(t *testing.T) {
	p := NewPassK(seedFloor)
	for _, tk := range []int64{1, 4, 2, 3} {
		p.Fold("", report.PassKRun{Tokens: i64(tk)})
	}
	s := p.SummaryOf("")
	if s.TokensMedian != 3 || s.TokensMax != 4 {
		t.Errorf("median %d max %d, want 3 (2.5 rounded half up) and 4", s.TokensMedian, s.TokensMax)
	}
}

func TestDistractorAccuracy(t *testing.T) {
	tests := []struct {
		name     string
		correct  []string
		calls    []string
		cc, cd   int64
		accuracy int64
		success  bool
	}{
		{"only correct", []string{"catalog.search_products"}, []string{"catalog.search_products"}, 1, 0, 100, true},
		{"one of each", []string{"catalog.search_products"}, []string{"catalog.search_products", "catalog.search_products_v2"}, 1, 1, 50, false},
		{"out of scope ignored by accuracy, not by success", []string{"catalog.search_products"}, []string{"catalog.search_products", "shell.exec"}, 1, 0, 100, false},
		{"nothing in scope scores 0", []string{"catalog.search_products"}, []string{"shell.exec"}, 0, 0, 0, false},
		{"no correct ids is vacuous", nil, nil, 0, 0, 100, true},
		{"only distractor", []string{"google.search"}, []string{"get_ticker_news"}, 0, 1, 0, false},
		{"two of three", []string{"google.search"}, []string{"google.search", "google.search", "get_ticker_news"}, 2, 1, 67, false},
		{"a distractor and another tool", []string{"google.search"}, []string{"google.search", "get_ticker_news", "shell.exec"}, 1, 1, 50, false},
		{"no call is no success", []string{"google.search"}, nil, 0, 0, 0, false},
		{"no correct ids, a distractor", nil, []string{"get_ticker_news"}, 0, 1, 0, false},
	}
	dis := []string{"search_products_v2", "get_ticker_news"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ScoreDistractors(tt.correct, dis, oneRun(calls(tt.calls...)))
			acc := DistractorAccuracy(len(tt.correct), r.ChoseCorrect, r.ChoseDistractor)
			if r.ChoseCorrect != tt.cc || r.ChoseDistractor != tt.cd || acc != tt.accuracy || r.Success != tt.success {
				t.Errorf("got cc=%d cd=%d acc=%d success=%v, want %d %d %d %v", r.ChoseCorrect, r.ChoseDistractor, acc, r.Success, tt.cc, tt.cd, tt.accuracy, tt.success)
			}
		})
	}
}

func TestDistractorsCertifiedLower(t *testing.T) {
	// One perfect run certifies only about 5 percent at 95 percent confidence.
	d := NewDistractors([]string{"google.search"}, []string{"get_ticker_news"})
	d.Add(run(-1, "google.search"))
	res := d.Result()
	if res.Targets["distractors.certified_lower"] != 5 || res.Targets["distractors.accuracy"] != 100 {
		t.Errorf("one perfect run: %v", res.Targets)
	}
	// Ten perfect runs: 0.05^(1/10) = 0.7411, so 74.
	for range 9 {
		d.Add(run(-1, "google.search"))
	}
	if got := d.Result().Targets["distractors.certified_lower"]; got != 74 {
		t.Errorf("ten perfect runs certify %v, want 74", got)
	}
	// Eight of ten successes: 49 (the bound is 0.4931).
	d = NewDistractors([]string{"google.search"}, []string{"get_ticker_news"})
	for i := range 10 {
		if i < 8 {
			d.Add(run(-1, "google.search"))
		} else {
			d.Add(run(-1, "google.search", "get_ticker_news"))
		}
	}
	res = d.Result()
	if res.Targets["distractors.certified_lower"] != 49 || res.Targets["distractors.chose_distractor"] != 2 || res.Targets["distractors.accuracy"] != 83 {
		t.Errorf("8 of 10: %v", res.Targets)
	}
	if len(res.Findings) != 1 || res.Findings[0].Message != "chose distractor `get_ticker_news` (in 2 of 10 runs)" {
		t.Errorf("findings = %+v", res.Findings)
	}
}

func TestDistractorsNeverPresented(t *testing.T) {
	d := NewDistractors([]string{"google.search"}, []string{"get_ticker_news"})
	d.AddCatalog([]cassette.ServerCatalog{{Server: "google", Tools: []cassette.Tool{{Name: "search"}}}})
	d.AddCatalog([]cassette.ServerCatalog{{Server: "google", Tools: []cassette.Tool{{Name: "search"}, {Name: "get_ticker_news"}}}})
	d.AddCatalog(nil) // no recorded catalog says nothing
	res := d.Result()
	if len(res.Findings) != 1 || res.Findings[0].Level != "warning" || !strings.Contains(res.Findings[0].Message, "1 of 2 cassettes lists none of the 1 generated distractors") {
		t.Errorf("findings = %+v", res.Findings)
	}
}

func TestOrchestrationSeed(t *testing.T) {
	classes := []Class{
		{Name: "search", Members: []string{"catalog.search", "catalog.web_search"}},
		{Name: "fetch", Members: []string{"fulfillment.fetch", "fulfillment.get"}},
	}
	obj := map[string]any{"q": "Paris"}
	call := func(id string, args any, isErr bool) cassette.Call {
		c := calls(id)[0]
		c.Arguments, c.IsError = cassette.JSONOf(args), isErr
		return c
	}
	tests := []struct {
		name  string
		calls []cassette.Call
		want  OrchestrationScores
	}{
		{"both classes, one call each", []cassette.Call{call("catalog.search", obj, false), call("fulfillment.get", obj, false)},
			OrchestrationScores{100, 100, 100, 100, 100}},
		// Two classes optimal over three observed calls rounds efficiency to 67.
		{"two classes over three calls", []cassette.Call{call("catalog.search", obj, false), call("catalog.web_search", obj, false), call("fulfillment.fetch", obj, false)},
			OrchestrationScores{100, 100, 100, 100, 67}},
		// One of two classes reached scores discovery 50.
		{"one of two classes", []cassette.Call{call("catalog.search", obj, false)},
			OrchestrationScores{50, 100, 100, 100, 100}},
		{"empty trace", nil, OrchestrationScores{0, 100, 100, 100, 0}},
		{"empty and missing args", []cassette.Call{call("catalog.search", map[string]any{}, false), call("fulfillment.get", nil, false), call("", obj, false), call("catalog.search", "not json", false)},
			OrchestrationScores{100, 25, 25, 100, 50}},
		{"error recovered by a class member", []cassette.Call{call("catalog.search", obj, true), call("catalog.web_search", obj, false), call("fulfillment.get", obj, false)},
			OrchestrationScores{100, 100, 100, 100, 67}},
		{"error recovered by a retry, another never", []cassette.Call{call("fulfillment.get", obj, true), call("fulfillment.get", obj, false), call("catalog.search", obj, true)},
			OrchestrationScores{100, 100, 100, 50, 67}},
		{"a later error is no recovery", []cassette.Call{call("fulfillment.get", obj, true), call("fulfillment.get", obj, true)},
			OrchestrationScores{50, 100, 100, 0, 100}},
		// Recovery is by the same tool or its class: a later success of
		// another class's tool does not recover the error.
		{"a success of another class is no recovery", []cassette.Call{call("catalog.search", obj, true), call("fulfillment.get", obj, false)},
			OrchestrationScores{100, 100, 100, 0, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScoreOrchestration(classes, tt.calls).Scores(); got != tt.want {
				t.Errorf("scores = %+v, want %+v", got, tt.want)
			}
		})
	}
	// No expected classes scores efficiency 0.
	if got := ScoreOrchestration(nil, []cassette.Call{call("a", obj, false)}).Scores(); got.Efficiency != 0 || got.Discovery != 0 {
		t.Errorf("no classes: %+v", got)
	}
	// Pooled over runs: 4 optimal over 6 calls is 67.
	o := NewOrchestration(classes)
	o.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{call("catalog.search", obj, false), call("fulfillment.get", obj, false)}}}})
	o.Add(&cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{call("catalog.search", obj, false), call("catalog.search", obj, false), call("catalog.web_search", obj, false), call("fulfillment.get", obj, false)}}}})
	res := o.Result()
	if res.Targets["orchestration.efficiency"] != 67 || res.Counts["orchestration.calls"] != 6 || res.Counts["orchestration.classes_expected"] != 4 {
		t.Errorf("pooled: %v %v", res.Targets, res.Counts)
	}
}

func TestGenerateDistractors(t *testing.T) {
	if n := len(distractor.Catalog()); n < 50 {
		t.Fatalf("the catalog has %d tools, want at least 50", n)
	}
	for _, tool := range distractor.Catalog() {
		if tool.Name == "" || len(tool.Description) < 20 || tool.InputSchema == nil {
			t.Errorf("catalog tool %+v lacks a name, a description or a schema", tool)
		}
	}
	nd := distractor.Generate(distractor.Config{From: distractor.FromNearDuplicate, Of: []string{"search_products", "get_product"}, Count: 8})
	var names []string
	for _, tool := range nd {
		names = append(names, tool.Name)
	}
	want := []string{"search_products_v2", "get_product_v2", "search_products_internal", "get_product_internal",
		"searchProducts", "getProduct", "search_product", "get_products"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("near duplicates = %v\nwant %v", names, want)
	}
	if got := distractor.Generate(distractor.Config{From: distractor.FromNearDuplicate, Of: []string{"search_products"}, Count: 100}); len(got) != 4 {
		t.Errorf("a name has four variants, got %d", len(got))
	}
	cat := distractor.Generate(distractor.Config{From: distractor.FromCatalog, Count: 3, Correct: []string{"x." + distractor.Catalog()[1].Name}})
	if len(cat) != 3 || cat[0].Name != distractor.Catalog()[0].Name || cat[1].Name != distractor.Catalog()[2].Name {
		t.Errorf("catalog draw skips correct names and keeps catalog order: %v", cat)
	}
	if got := distractor.Generate(distractor.Config{From: distractor.FromCatalog, Count: 0}); len(got) != 0 {
		t.Errorf("count 0 is the no-noise baseline, got %d", len(got))
	}
	again := distractor.Generate(distractor.Config{From: distractor.FromNearDuplicate, Of: []string{"search_products", "get_product"}, Count: 8})
	if !reflect.DeepEqual(nd, again) {
		t.Error("generation is not deterministic")
	}
}

// TestDistractorSuccessOnlyCorrectTools is the seed's rule for
// certified_lower: a run succeeds when the agent "selected only correct
// tools", so a run that calls the correct tool and also shell.exec (in no
// set at all) is not a success, although accuracy, which counts in-scope
// choices only, stays 100 and chose_distractor 0.
func TestDistractorSuccessOnlyCorrectTools(t *testing.T) {
	correct := []string{"catalog.search_products"}
	r := ScoreDistractors(correct, []string{"search_products_v2"}, oneRun(calls("catalog.search_products", "shell.exec")))
	if r.Success {
		t.Errorf("a run that also called shell.exec selected only correct tools: %+v", r)
	}
	if acc := DistractorAccuracy(1, r.ChoseCorrect, r.ChoseDistractor); acc != 100 || r.ChoseDistractor != 0 {
		t.Errorf("accuracy %d, chose_distractor %d: the in-scope figures are unchanged", acc, r.ChoseDistractor)
	}
	d := NewDistractors(correct, []string{"search_products_v2"})
	d.Add(run(-1, "catalog.search_products", "shell.exec"))
	d.Add(run(-1, "catalog.search_products"))
	res := d.Result()
	if res.Counts["distractors.successful_runs"] != 1 || res.Targets["distractors.certified_lower"] != 2 {
		t.Errorf("1 of 2 runs selected only correct tools: %v %v", res.Counts, res.Targets)
	}
}

// TestPassKEdges: a floor over budget names its worst run only when one
// recorded tokens; no runs meet a rate of 0 and no higher one.
func TestPassKEdges(t *testing.T) {
	p := NewPassK(PassKConfig{ExpectedTool: "get_weather", MinRate: 0.5, MaxTokens: i64(10)})
	p.Add("", run(-1, "get_weather"))
	if f := p.FloorOf("w", ""); f.Passed || len(f.Breaches) == 0 || f.Breaches[0] != "FLOOR w: 1 of 1 runs exceeded the 10-token budget" {
		t.Errorf("floor = %+v", f)
	}
	if !MeetsRate(0, 0, 0) || MeetsRate(0, 0, 0.01) {
		t.Error("no runs: a rate of 0 is met, 0.01 is not")
	}
}

// TestPassKFloorWhyRules: a failed floor names, for each run that missed,
// what it called instead of the expected tool, "called no tool" for a run
// without calls.
func TestPassKFloorWhyRules(t *testing.T) {
	p := NewPassK(PassKConfig{ExpectedTool: "search", MinRate: 1})
	rows := []report.PassKRun{
		{Run: 1, Called: []string{}, WithinBudget: true},
		{Run: 2, Called: []string{"fetch", "list"}, WithinBudget: true},
		{Run: 3, Selected: true, Called: []string{"search"}, WithinBudget: true, PassK: true},
	}
	for _, r := range rows {
		p.Fold("", r)
	}
	out := p.FloorOf("agent", "")
	want := []string{
		"FLOOR agent: selection rate 33% is below the 100% floor (1 of 3 runs selected `search`)",
		"  run 1: did not select `search`, called no tool",
		"  run 2: did not select `search`, called fetch, list",
	}
	if out.Passed || !reflect.DeepEqual(out.Breaches, want) {
		t.Errorf("passed %v, breaches\n%q\nwant\n%q", out.Passed, out.Breaches, want)
	}
}
