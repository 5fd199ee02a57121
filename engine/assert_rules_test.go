package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/gate/distractor"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// TestRunCheckRules: an assertion checked on every run passes only when
// some run was checked and none failed; it reports the first failed run
// (its value and its run number), counts the failed runs, and says the run
// in its message only when there was more than one.
func TestRunCheckRules(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(cassetteJSON(runJSON("x", "w.get_weather"))), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseSuite(filepath.Join(dir, "suite.yml"), []byte("agents:\n  - name: a\n    cassette: c.json\n    expect:\n      - tokens.total: { \"<=\": 10 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Cases[0].Expect[0]
	doc := func(total float64) map[string]any { return map[string]any{"tokens": map[string]any{"total": total}} }
	for _, tc := range []struct {
		name    string
		totals  []float64
		passed  bool
		failed  int
		run     int
		actual  any
		message string
	}{
		{"no run", nil, false, 0, 0, nil, "no recorded run to check"},
		{"one run at the bound", []float64{10}, true, 0, 0, 10.0, "passed"},
		{"one run over", []float64{11}, false, 1, 1, 11.0, "failed: "},
		{"the first failure is kept", []float64{5, 12, 13}, false, 2, 2, 12.0, "failed in run 2 of 3: "},
		{"the count of failed runs", []float64{12, 1, 13}, false, 2, 1, 12.0, "(2 of 3 runs failed)"},
		{"every run passes", []float64{4, 10}, true, 0, 0, 4.0, "passed"},
	} {
		rc := newRunCheck(a)
		for i, v := range tc.totals {
			rc.check(i+1, doc(v))
		}
		r := rc.result(len(tc.totals))
		if r.Passed != tc.passed || r.FailedRuns != tc.failed || r.Run != tc.run || r.Actual != tc.actual || !strings.Contains(r.Message, tc.message) {
			t.Errorf("%s: passed %v, failed runs %d, run %d, actual %v, message %q; want %v, %d, %d, %v, %q",
				tc.name, r.Passed, r.FailedRuns, r.Run, r.Actual, r.Message, tc.passed, tc.failed, tc.run, tc.actual, tc.message)
		}
		if tc.failed > 0 && len(tc.totals) == 1 && (strings.Contains(r.Message, " in run ") || strings.Contains(r.Message, "runs failed")) {
			t.Errorf("%s: one run, the message counts or names it: %q", tc.name, r.Message)
		}
	}
}

// TestMatcherText: a matcher of one comparison with a number reads as the
// operator and the number (an integer without decimals); any other
// matcher, of two keys or a key without a number, as Go prints it.
func TestMatcherText(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{map[string]any{">=": 80.0}, ">= 80"},
		{map[string]any{"<=": 2.5}, "<= 2.5"},
		{map[string]any{"<": -3.0}, "< -3"},
		{map[string]any{">=": 1.0, "<=": 5.0}, "map[<=:5 >=:1]"},
		{map[string]any{"equals": "x"}, "map[equals:x]"},
		{map[string]any{}, "map[]"},
		{"x", "x"},
	} {
		if got := matcherText(tc.v); got != tc.want {
			t.Errorf("matcherText(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestRunDocKeys: a run's document has model and agent only when the
// cassette records them, final_response (of the run, and of each turn in
// turns) only when a turn ends with one, and a call's optional fields only
// when recorded.
func TestRunDocKeys(t *testing.T) {
	ms := 12.0
	run := &cassette.Run{Turns: []cassette.Turn{
		{Calls: []cassette.Call{{Tool: "search", Server: "web", Agent: "planner", Arguments: cassette.JSONOf(map[string]any{"q": "x"}), Result: "r", DurationMS: &ms}}},
		{Calls: []cassette.Call{{Tool: "fetch"}}, FinalResponse: "done"},
		{},
	}}
	doc := runDoc(1, &cassette.Cassette{Model: "m1", Agent: "a1"}, run, allCalls)
	if doc["model"] != "m1" || doc["agent"] != "a1" || doc["final_response"] != "done" {
		t.Errorf("model %v, agent %v, final_response %v; want m1, a1, done", doc["model"], doc["agent"], doc["final_response"])
	}
	turns := expr.Materialize(doc["turns"]).([]any)
	if len(turns) != 3 {
		t.Fatalf("%d turns, want 3", len(turns))
	}
	for i, want := range []any{nil, "done", nil} {
		got, ok := turns[i].(map[string]any)["final_response"]
		if got != want || ok != (want != nil) {
			t.Errorf("turn %d: final_response %v (present: %v), want %v", i, got, ok, want)
		}
	}
	calls := expr.Materialize(doc["calls"]).([]any)
	full, bare := calls[0].(map[string]any), calls[1].(map[string]any)
	if full["server"] != "web" || full["agent"] != "planner" || full["result"] != "r" || full["duration_ms"] != 12.0 || full["arguments"] == nil {
		t.Errorf("a call with every field: %v", full)
	}
	for _, k := range []string{"server", "agent", "result", "duration_ms", "arguments"} {
		if _, ok := bare[k]; ok {
			t.Errorf("a call without %s has the key: %v", k, bare)
		}
	}
	bareDoc := runDoc(2, &cassette.Cassette{}, &cassette.Run{}, noCalls)
	for _, k := range []string{"model", "agent", "final_response", "calls", "turns", "tool_names", "tokens", "cost_micros"} {
		if _, ok := bareDoc[k]; ok {
			t.Errorf("a bare run's document has %s: %v", k, bareDoc)
		}
	}
}

// TestReadsCalls: a run's calls are put in its document only for checks
// that read them: all of them for a target under calls or turns, or the
// whole document (an empty target), the names alone for one under
// tool_names; none for tokens, final_response or run alone.
func TestReadsCalls(t *testing.T) {
	check := func(target string) *runCheck {
		var p expr.Path
		if target != "" {
			var err error
			if p, err = expr.ParsePath(target); err != nil {
				t.Fatal(err)
			}
		}
		return &runCheck{a: &Assertion{Target: p}}
	}
	for _, tc := range []struct {
		targets []string
		want    callParts
	}{
		{nil, noCalls},
		{[]string{"tokens.total"}, noCalls},
		{[]string{"final_response", "run", "cost_micros"}, noCalls},
		{[]string{"calls[0].tool"}, callLists},
		{[]string{"tokens.total", "tool_names"}, callNames},
		{[]string{"tool_names[0]", "turns[1].calls"}, allCalls},
		{[]string{"tool_names", "calls"}, allCalls},
		{[]string{"calls[0]", "tool_names"}, allCalls},
		{[]string{"", "tool_names[1]"}, allCalls},
		{[]string{"turns[1].calls"}, callLists},
		{[]string{"calls", "turns[0]"}, callLists},
		{[]string{""}, allCalls},
		{[]string{"tool_names", ""}, allCalls},
	} {
		var checks []*runCheck
		for _, tg := range tc.targets {
			checks = append(checks, check(tg))
		}
		if got := readsCalls(checks); got != tc.want {
			t.Errorf("targets %q: reads calls %v, want %v", tc.targets, got, tc.want)
		}
	}
}

// TestWorthCaching: a case is served from the cache when its cassette
// files total minBytes or more, one byte less is computed; a minBytes of 0
// or less caches every case, one without files too; a file that cannot be
// examined counts as large.
func TestWorthCaching(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := os.WriteFile(a, make([]byte, 6), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, make([]byte, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files    []string
		minBytes int64
		want     bool
	}{
		{nil, 0, true},
		{nil, -1, true},
		{nil, 1, false},
		{[]string{a, b}, 10, true},
		{[]string{a, b}, 11, false},
		{[]string{a}, 6, true},
		{[]string{a}, 7, false},
		{[]string{a, filepath.Join(dir, "missing.json")}, 1 << 20, true},
	} {
		if got := worthCaching(tc.files, tc.minBytes); got != tc.want {
			t.Errorf("worthCaching(%d files, %d) = %v, want %v", len(tc.files), tc.minBytes, got, tc.want)
		}
	}
}

// TestCacheable: the cases the cache may serve, counted against
// CacheKeep, are the agent and scenario cases only, a dropped test among
// them; a run of more than CacheKeep of them is computed without it.
func TestCacheable(t *testing.T) {
	var plans []casePlan
	for _, k := range []report.Kind{report.KindAgent, report.KindTool, report.KindScenario, report.KindCompliance, report.KindAgent, report.KindEval} {
		plans = append(plans, casePlan{c: &Case{Kind: k}})
	}
	if got := cacheable(plans); got != 3 {
		t.Errorf("cacheable = %d, want 3 (two agents, one scenario)", got)
	}
	if got := cacheable(plans[1:2]); got != 0 {
		t.Errorf("cacheable of a tool case = %d, want 0", got)
	}
	// A test the suite dropped for the run (not built yet) is an agent test.
	if got := cacheable([]casePlan{{dropped: &droppedTest{name: "d"}}}); got != 1 {
		t.Errorf("cacheable of a dropped test = %d, want 1", got)
	}
	// The cache serves a run of CacheKeep cacheable cases, not one more.
	many := make([]casePlan, CacheKeep+1)
	for i := range many {
		many[i] = casePlan{c: &Case{Kind: report.KindAgent}}
	}
	if !cacheFits(many[:CacheKeep]) || cacheFits(many) {
		t.Errorf("cacheFits of %d and %d agent cases: %v and %v, want true and false", CacheKeep, CacheKeep+1, cacheFits(many[:CacheKeep]), cacheFits(many))
	}
}

// TestCheckAssertionsGateTarget: a cached agent result whose assertion on
// a gate target says passed where its own targets fail it is refused.
func TestCheckAssertionsGateTarget(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(cassetteJSON(runJSON("x", "w.get_weather"))), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ParseSuite(filepath.Join(dir, "suite.yml"), []byte("agents:\n  - name: a\n    cassette: c.json\n    equal_function_sets:\n      classes:\n        - { name: forecast, members: [w.get_forecast] }\n      expect:\n        - tool_selection.f1: { \">=\": 100 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, Options{Version: "test"}).Cases[0]
	c := s.Cases[0]
	if err := checkAssertions(res, c); err != nil {
		t.Fatalf("the result as computed: %v", err)
	}
	if len(res.Assertions) != 1 || res.Assertions[0].Passed || res.Assertions[0].Target != "tool_selection.f1" {
		t.Fatalf("assertions %+v, want tool_selection.f1 failed", res.Assertions)
	}
	res.Assertions[0].Passed = true
	if err := checkAssertions(res, c); err == nil || !strings.Contains(err.Error(), "says passed=true") {
		t.Errorf("the assertion flipped to passed: %v, want it refused", err)
	}
}

// TestCassetteDigestSize: a cassette of exactly cassette.MaxSize bytes is
// digested for the cache key; one byte more is refused (the reader then
// refuses it too).
func TestCassetteDigestSize(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.json")
	for _, tc := range []struct {
		size int64
		ok   bool
	}{
		{cassette.MaxSize, true},
		{cassette.MaxSize + 1, false},
	} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(f, tc.size); err != nil {
			t.Skip("truncate:", err)
		}
		sum, err := cassetteSHA256(f)
		if (err == nil) != tc.ok || (tc.ok && len(sum) != 32) {
			t.Errorf("a cassette of %d bytes: digest %x, %v; want ok %v", tc.size, sum, err, tc.ok)
		}
	}
}

// TestArgumentsFindingPlace: an argument violation names its run of the
// case, counted across cassettes, and points at the offending value in
// the cassette of that run (here the third run, the second of its file).
func TestArgumentsFindingPlace(t *testing.T) {
	dir := t.TempDir()
	call := func(q string) string {
		return `{"turns": [{"calls": [{"server": "w", "tool": "get", "arguments": {"q": ` + q + `}}], "final_response": "r"}]}`
	}
	files := map[string]string{
		"a.json":     `{"mcptest_cassette": 1, "model": "m-1", "runs": [` + "\n" + call("1") + "\n]}\n",
		"b.json":     `{"mcptest_cassette": 1, "model": "m-1", "runs": [` + "\n" + call("2") + ",\n" + call(`"x"`) + "\n]}\n",
		"tools.json": `{"tools": [{"name": "get", "inputSchema": {"type": "object", "properties": {"q": {"type": "integer"}}}}]}`,
		"suite.yml":  "agents:\n  - name: a\n    runs: 3\n    cassette: \"?.json\"\n    arguments: {catalog: tools.json}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadSuite(filepath.Join(dir, "suite.yml"))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, Options{Version: "test"}).Cases[0]
	var found []report.Finding
	for _, f := range res.Findings {
		if f.Gate == "arguments" && f.Level == "error" {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		t.Fatalf("argument findings %+v, want one", res.Findings)
	}
	f := found[0]
	if f.Run != 3 || !strings.HasPrefix(f.Message, "run 3: ") || f.Position == nil ||
		filepath.Base(f.Position.File) != "b.json" || f.Position.Line != 3 {
		t.Errorf("finding %+v at %+v, want run 3 at b.json line 3", f, f.Position)
	}
}

// TestDiscoveryPromptRules: a name-free prompt (the suite's, or a recorded
// one that differs from it) gives away a member of a declared class when it
// holds the member's qualified id, or its tool name where that name has an
// `_`, a `-` or a capital letter; a plain word, an id it does not hold,
// or a prompt of a case that is not name-free gives nothing away.
func TestDiscoveryPromptRules(t *testing.T) {
	classes := []gate.Class{{Name: "weather", Members: []string{"w.get_forecast", "web.search", "lookup_City"}}}
	for _, tc := range []struct {
		nameFree            bool
		suitePrompt, record string
		want                string
	}{
		{true, "what is the weather", "", ""},
		{true, "search the web for rain", "", ""},
		{true, "call w.get_forecast now", "", "`get_forecast`"},
		{true, "use get_forecast please", "", "`get_forecast`"},
		{true, "ask lookup_City", "", "`lookup_City`"},
		{true, "what is the weather", "what is the weather", ""},
		{true, "what is the weather", "call w.get_forecast now", "`get_forecast`"},
		{false, "what is the weather", "call w.get_forecast now", ""},
	} {
		g := &discoveryGate{blk: &DiscoveryBlock{NameFree: tc.nameFree}, prompt: tc.suitePrompt, classes: classes, hasClasses: true}
		if tc.nameFree {
			g.checkPrompt(tc.suitePrompt)
		}
		if tc.record != "" {
			g.addCassette(&cassette.Cassette{Prompt: tc.record})
		}
		res := &report.CaseResult{}
		g.result(res)
		got, n := "", 0
		for _, f := range res.Findings {
			if i := strings.Index(f.Message, "the prompt names "); i >= 0 {
				got, n = strings.TrimSuffix(f.Message[i+len("the prompt names "):], ": the scenario measures execution, not discovery"), n+1
			}
		}
		if got != tc.want || n != len(res.Findings) || (n == 1) != (tc.want != "") {
			t.Errorf("name_free %v, prompt %q, recorded %q: names %q in %d findings %v, want %q", tc.nameFree, tc.suitePrompt, tc.record, got, n, res.Findings, tc.want)
		}
	}
	// Without equal_function_sets:, a name-free case is warned that there
	// is nothing to judge its path against; a case that is not is not.
	for _, nameFree := range []bool{true, false} {
		res := &report.CaseResult{}
		(&discoveryGate{blk: &DiscoveryBlock{NameFree: nameFree}}).result(res)
		if warned := len(res.Findings) == 1 && strings.Contains(res.Findings[0].Message, "without `equal_function_sets:`"); warned != nameFree || len(res.Findings) > 1 {
			t.Errorf("no classes, name_free %v: findings %v", nameFree, res.Findings)
		}
	}
}

// TestDistractorsRunRules: a run's distractors.chose_distractor is its
// count of distractor calls, and its other targets its accuracy; a run
// that did not select only correct tools fails the per-run check only
// when distractors.certified_lower is asserted, which labels it.
func TestDistractorsRunRules(t *testing.T) {
	assertion := func(target string) *Assertion {
		p, err := expr.ParsePath(target)
		if err != nil {
			t.Fatal(err)
		}
		return &Assertion{Target: p, Block: "distractors"}
	}
	blk := &DistractorsBlock{Correct: []string{"w.get_forecast"}}
	plain := blk.newGate(&Case{Name: "c", Expect: []*Assertion{assertion("distractors.accuracy")}}).(*distractorsGate)
	certified := blk.newGate(&Case{Name: "c", Expect: []*Assertion{assertion("distractors.accuracy"), assertion("distractors.certified_lower")}}).(*distractorsGate)
	if plain.success != "" || certified.success == "" {
		t.Fatalf("success labels %q and %q, want none without certified_lower and one with it", plain.success, certified.success)
	}
	for _, g := range []*distractorsGate{plain, certified} {
		g.last = gate.DistractorRun{ChoseCorrect: 1, ChoseDistractor: 3}
		if v, _ := g.runValue("distractors.chose_distractor"); v != 3.0 {
			t.Errorf("chose_distractor %v, want 3", v)
		}
		want := float64(gate.DistractorAccuracy(1, 1, 3))
		if v, _ := g.runValue("distractors.accuracy"); v != want || want == 3.0 {
			t.Errorf("accuracy %v, want %v", v, want)
		}
	}
	if got := plain.runFailed([]string{"x"}); len(got) != 1 {
		t.Errorf("no certified floor: failed %q, want only x", got)
	}
	if got := certified.runFailed([]string{"x"}); len(got) != 2 || got[1] != certified.success {
		t.Errorf("certified floor, an unsuccessful run: failed %q, want x and %q", got, certified.success)
	}
	certified.last.Success = true
	if got := certified.runFailed(nil); len(got) != 0 {
		t.Errorf("certified floor, a successful run: failed %q, want none", got)
	}
}

// TestDistractorsCountAndFloor: a count above the distractors the source
// made is warned of, a count they reach is not; the certified floor holds
// only when every assertion on distractors.certified_lower passed.
func TestDistractorsCountAndFloor(t *testing.T) {
	for _, tc := range []struct {
		count int
		warn  bool
	}{{1, false}, {2, false}, {3, true}} {
		g := &distractorsGate{blk: &DistractorsBlock{Generate: distractor.Config{Count: tc.count, From: distractor.FromNearDuplicate}},
			injected: []distractor.Tool{{Name: "a"}, {Name: "b"}}, distr: gate.NewDistractors(nil, []string{"a", "b"})}
		res := &report.CaseResult{Targets: map[string]float64{}, Counts: map[string]int64{}}
		g.result(res)
		warned := false
		for _, f := range res.Findings {
			warned = warned || strings.Contains(f.Message, "asks for more distractors")
		}
		if warned != tc.warn {
			t.Errorf("count %d, 2 injected: warned %v, want %v (%v)", tc.count, warned, tc.warn, res.Findings)
		}
	}
	for _, tc := range []struct {
		passed []bool
		holds  bool
	}{{[]bool{true}, true}, {[]bool{false}, false}, {[]bool{true, false}, false}, {[]bool{false, true}, false}, {[]bool{true, true}, true}} {
		res := &report.CaseResult{Targets: map[string]float64{}, Counts: map[string]int64{"distractors.runs": 3, "distractors.successful_runs": 2}}
		for _, p := range tc.passed {
			res.Assertions = append(res.Assertions, report.AssertionResult{Target: "distractors.certified_lower", Passed: p})
		}
		(&distractorsGate{name: "c"}).floors(res)
		if len(res.Floors) != 1 || res.Floors[0].Passed != tc.holds {
			t.Errorf("certified assertions passed %v: floors %+v, want one that holds: %v", tc.passed, res.Floors, tc.holds)
		}
	}
}

// TestEdgesRunValues: a run's edges.restricted_attempts is its count of
// restricted calls, and its edges.gate_passed 1 when there is none, else 0.
func TestEdgesRunValues(t *testing.T) {
	for _, tc := range []struct {
		restricted   int64
		passed, want float64
	}{{0, 1, 0}, {2, 0, 2}} {
		g := &edgesGate{last: gate.EdgeRun{Restricted: tc.restricted}}
		p, _ := g.runValue("edges.gate_passed")
		n, _ := g.runValue("edges.restricted_attempts")
		if p != tc.passed || n != tc.want {
			t.Errorf("%d restricted calls: gate_passed %v, restricted_attempts %v; want %v, %v", tc.restricted, p, n, tc.passed, tc.want)
		}
	}
}

// TestToolSelectionMatrix: a case is judged model by model (a floor and a
// pair named "name [model]" each) only with two models or more; with one,
// its runs are one pair under its own name.
func TestToolSelectionMatrix(t *testing.T) {
	for _, tc := range []struct {
		models []string
		matrix bool
	}{{nil, false}, {[]string{"m-1"}, false}, {[]string{"m-1", "m-2"}, true}} {
		g := (&ToolSelectionBlock{}).newGate(&Case{Name: "c", Models: tc.models}).(*toolSelectionGate)
		if g.matrix != tc.matrix {
			t.Errorf("models %q: judged model by model %v, want %v", tc.models, g.matrix, tc.matrix)
		}
		g.add(&cassette.Cassette{Model: "m-1"}, &cassette.Run{})
		models := g.passK.Models()
		if want := map[bool]string{false: "c", true: "c [m-1]"}[tc.matrix]; len(models) != 1 || g.pairName(models[0]) != want {
			t.Errorf("models %q: pairs %q, want %q", tc.models, models, want)
		}
	}
}

// TestToolSelectionPairTokens: a pair has a token median and maximum only
// when one of its runs recorded tokens.
func TestToolSelectionPairTokens(t *testing.T) {
	g := (&ToolSelectionBlock{}).newGate(&Case{Name: "c"}).(*toolSelectionGate)
	g.add(&cassette.Cassette{}, &cassette.Run{})
	g.add(&cassette.Cassette{}, &cassette.Run{})
	if p := g.pair("", true); p.TokensMedian != nil || p.TokensMax != nil {
		t.Errorf("no run recorded tokens: median %v, max %v; want none", p.TokensMedian, p.TokensMax)
	}
	g.add(&cassette.Cassette{}, &cassette.Run{Tokens: &cassette.Tokens{Total: 40}})
	if p := g.pair("", true); p.TokensMedian == nil || p.TokensMax == nil || *p.TokensMax != 40 {
		t.Errorf("one run recorded 40 tokens: median %v, max %v; want both, max 40", p.TokensMedian, p.TokensMax)
	}
}

// TestStepKeyHint: an unknown key of a trajectory step spelled arguments,
// arg or params gets the hint of args; another key, or the same key
// elsewhere in the schema, gets none.
func TestStepKeyHint(t *testing.T) {
	const step = "https://raw.githubusercontent.com/mcptest/mcptest/main/engine/schema/suite.v1.json#/$defs/trajectoryStep/additionalProperties"
	for _, tc := range []struct{ loc, key, want string }{
		{step, "arguments", "did you mean `args`?"},
		{step, "arg", "did you mean `args`?"},
		{step, "params", "did you mean `args`?"},
		{step, "argz", ""},
		{"https://raw.githubusercontent.com/mcptest/mcptest/main/engine/schema/suite.v1.json#/$defs/case/additionalProperties", "arguments", ""},
	} {
		if got := stepKeyHint(tc.loc, tc.key); got != tc.want {
			t.Errorf("stepKeyHint(%q, %q) = %q, want %q", tc.loc, tc.key, got, tc.want)
		}
	}
}

// TestToolNamesDocIsAllCallsDoc: over drawn runs (turns with and without
// calls, calls with and without servers, arguments and results, final
// responses), the document of a run for checks that read tool_names alone
// is the document for checks that read every call, less calls and turns:
// the same tool_names, in the same order, and every other key the same.
func TestToolNamesDocIsAllCallsDoc(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 11))
	for i := range 300 {
		r := drawDocRun(rng, 5, 6)
		cas := &cassette.Cassette{Model: "m"}
		names, all := runDoc(i, cas, r, callNames), runDoc(i, cas, r, allCalls)
		delete(all, "calls")
		delete(all, "turns")
		if !reflect.DeepEqual(names, all) {
			t.Fatalf("run %d: the tool_names document\n%v\nis not the whole one less calls and turns\n%v", i, names, all)
		}
		if _, ok := names["tool_names"].([]any); !ok {
			t.Fatalf("run %d: tool_names is %T", i, names["tool_names"])
		}
	}
}
