package agentsuite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// runOf is a run that calls tools (server "s") in order, answers final and
// used total tokens (none when total < 0).
func runOf(total int64, final string, tools ...string) cassette.Run {
	var calls []cassette.Call
	for _, t := range tools {
		calls = append(calls, cassette.Call{Server: "s", Tool: t})
	}
	r := cassette.Run{Turns: []cassette.Turn{{Calls: calls, FinalResponse: final}}}
	if total >= 0 {
		r.Tokens = &cassette.Tokens{Total: total}
	}
	return r
}

// TestProposeRules: a tool every run called is a class, in first-call
// order, counted once per run however often a run calls it; a tool only
// some runs called is left out with a note; a tool that may write and
// that a run called is allowed, not restricted, with a note (restricting
// it would fail the draft on its own recordings); the token ceiling is the largest run's, and none when a
// run recorded no tokens; the F1 floor is the lowest run's.
func TestProposeRules(t *testing.T) {
	cas := &cassette.Cassette{Agent: "bot", Runs: []cassette.Run{
		runOf(100, "Order 42 shipped.", "search", "fetch", "search"),
		runOf(300, "Order 42 shipped!", "fetch", "search", "extra"),
		runOf(200, "Order 42 shipped", "search", "fetch", "fetch", "delete_repo"),
	}, Catalog: []cassette.ServerCatalog{{Server: "s", Tools: []cassette.Tool{{Name: "search"}, {Name: "fetch"}, {Name: "delete_repo"}, cassette.ToolOf(map[string]any{"name": "ro_write", "annotations": map[string]any{"readOnlyHint": true}})}}}}
	d := propose(cas, "rec/orders.json")
	(*argCatalog)(nil).apply(d) // as Propose does: the note on the schemas the recording lacks
	if d.name != "bot: orders" || d.runs != 3 {
		t.Errorf("name %q, runs %d; want bot: orders, 3", d.name, d.runs)
	}
	if !slices.Equal(d.classes, []string{"search", "fetch"}) || !slices.Equal(d.sometimes, []string{"extra", "delete_repo"}) {
		t.Errorf("classes %q, sometimes %q; want [search fetch], [extra delete_repo]", d.classes, d.sometimes)
	}
	if len(d.restricted) != 0 || !slices.Equal(d.allowed, []string{"delete_repo", "fetch", "ro_write", "search"}) {
		t.Errorf("restricted %q, allowed %q", d.restricted, d.allowed)
	}
	if d.maxTokens == nil || *d.maxTokens != 300 {
		t.Errorf("maxTokens %v, want 300 (the largest run's)", d.maxTokens)
	}
	// Run 1 called the classes only (F1 100); runs 2 and 3 called one tool
	// more (extra, delete_repo): F1 80.
	if d.minF1 == nil || *d.minF1 != 80 {
		t.Errorf("minF1 %v, want 80 (the lowest run's)", d.minF1)
	}
	if !slices.Equal(d.facts, []string{"42"}) || d.unclassed {
		t.Errorf("facts %q, unclassed %v", d.facts, d.unclassed)
	}
	notes := strings.Join(d.notes, "\n")
	if !strings.Contains(notes, `"delete_repo" may change state`) || !strings.Contains(notes, "1 of 3 runs called it: allowed, not restricted") ||
		!strings.Contains(notes, `"extra", "delete_repo" called in some runs only`) || !strings.Contains(notes, "no input schema for") {
		t.Errorf("notes:\n%s", notes)
	}

	cas.Runs[1].Tokens = nil
	if d := propose(cas, "o.json"); d.maxTokens != nil {
		t.Errorf("a run without tokens: maxTokens %d, want none", *d.maxTokens)
	}
	cas.Runs = []cassette.Run{runOf(0, "", "search", "fetch")}
	if d := propose(cas, "o.json"); d.maxTokens == nil || *d.maxTokens != 0 || d.minF1 == nil || *d.minF1 != 100 {
		t.Errorf("one run of 0 tokens: maxTokens %v, minF1 %v; want 0 and 100", d.maxTokens, d.minF1)
	}
}

// TestUnclassedRules: a draft with runs and no class is unclassed, with
// the note that says why; one whose every run called a tool that may
// write is not (the tool is its class, with a note), nor is one without
// runs.
func TestUnclassedRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		runs      []cassette.Run
		unclassed bool
		note      string
	}{
		{"no runs", nil, false, "has no runs"},
		{"no calls", []cassette.Run{runOf(1, ""), runOf(1, "")}, true, "no run called a tool"},
		{"some runs only", []cassette.Run{runOf(1, "", "search"), runOf(1, "")}, true, "was called in some runs only"},
		{"only a write", []cassette.Run{runOf(1, "", "delete_repo"), runOf(1, "", "delete_repo")}, false, "may change state (its annotations, or its name without them) and every run called it: proposed as expected"},
		{"a class", []cassette.Run{runOf(1, "", "search")}, false, ""},
	} {
		schema := map[string]any{"type": "object"}
		catalog := []cassette.ServerCatalog{{Server: "s", Tools: []cassette.Tool{cassette.SchemaTool("search", schema), cassette.SchemaTool("delete_repo", schema)}}}
		d := propose(&cassette.Cassette{Runs: tc.runs, Catalog: catalog}, "c.json")
		notes := strings.Join(d.notes, "\n")
		if d.unclassed != tc.unclassed || !strings.Contains(notes, tc.note) || tc.note == "" && notes != "" {
			t.Errorf("%s: unclassed %v, notes %q; want %v with %q", tc.name, d.unclassed, notes, tc.unclassed, tc.note)
		}
	}
}

// TestFactBounds: a fact is at least 2 characters, at most maxFacts are
// proposed, and each must be in every response.
func TestFactBounds(t *testing.T) {
	for _, tc := range []struct {
		responses []string
		want      []string
	}{
		{[]string{"A 7 B2 C3 D4 E5"}, []string{"B2", "C3", "D4"}},
		{[]string{"A1 B2", "B2 only"}, []string{"B2"}},
		{[]string{"A1 B2", "A1", "A1 B2"}, []string{"A1"}},
		{[]string{"AB cd"}, []string{"AB"}},
	} {
		if got := commonFacts(tc.responses); !slices.Equal(got, tc.want) {
			t.Errorf("commonFacts(%q) = %q, want %q", tc.responses, got, tc.want)
		}
	}
}

// TestRenderRules: what each part of a proposed test is written under:
// runs and reliability only for more than one run, the some-runs note
// only when a tool was dropped, each side of the edges only when it has
// tools, a blank line between tests, the pass rate exactly.
func TestRenderRules(t *testing.T) {
	rate := 0.25
	one := &draft{name: "one", cassette: "a.json", runs: 1, classes: []string{"search"}, toolOf: map[string]string{"search": "search"}, allowed: []string{"search"}}
	two := &draft{name: "two", cassette: "b.json", runs: 2, classes: []string{"search"}, toolOf: map[string]string{"search": "search"},
		sometimes: []string{"extra"}, restricted: []string{"drop"}, allowed: []string{"search"}}
	bare := &draft{name: "bare", cassette: "c.json", runs: 2}
	writes := &draft{name: "writes", cassette: "d.json", runs: 1, restricted: []string{"drop"}}
	out := render([]*draft{one, two, bare, writes}, map[string]measured{"one": {passRate: &rate}, "two": {passRate: &rate}, "bare": {passRate: &rate}})
	tests := strings.Split(strings.TrimPrefix(out[strings.Index(out, "agents:\n"):], "agents:\n"), "\n\n")
	if len(tests) != 4 || !strings.HasPrefix(tests[0], `  - name: "one"`) {
		t.Fatalf("want four tests apart by one blank line, the first right under agents:\n%s", out)
	}
	for i, tc := range []struct{ has, hasNot []string }{
		{[]string{"allowed: [\"search\"]"}, []string{"runs:", "reliability:", "some runs only", "restricted:"}},
		{[]string{"runs: 2", "min_pass_rate: 0.25", `called in some runs only: "extra"`, `restricted: ["drop"]`, `allowed: ["search"]`}, nil},
		{[]string{"runs: 2", "min_pass_rate: 0.25"}, []string{"tool_edges:", "equal_function_sets:", "expect:"}},
		{[]string{"tool_edges:", `restricted: ["drop"]`}, []string{"allowed:", "runs:", "reliability:"}},
	} {
		for _, s := range tc.has {
			if !strings.Contains(tests[i], s) {
				t.Errorf("test %d lacks %q:\n%s", i, s, tests[i])
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(tests[i], s) {
				t.Errorf("test %d has %q:\n%s", i, s, tests[i])
			}
		}
	}
}

// TestFinalResponseAndNames: the final response of a run is its last
// turn's that is not empty; a third recording of one name is "#3"; a
// cassette's path is written relative to the suite's directory.
func TestFinalResponseAndNames(t *testing.T) {
	r := cassette.Run{Turns: []cassette.Turn{{FinalResponse: "first"}, {FinalResponse: "second"}, {}}}
	if got := finalResponse(&r); got != "second" {
		t.Errorf("finalResponse = %q, want second", got)
	}
	if got := finalResponse(&cassette.Run{Turns: []cassette.Turn{{FinalResponse: "only"}}}); got != "only" {
		t.Errorf("finalResponse of one turn = %q", got)
	}
	if got := relativeTo("suites", "suites/rec/a.json"); got != "rec/a.json" {
		t.Errorf("relativeTo = %q, want rec/a.json", got)
	}
}

// TestProposeMeasures: the floors of a proposal are measured by running
// the draft on its recordings: two runs that both pass give a pass rate
// of 100 (per cent).
func TestProposeMeasures(t *testing.T) {
	dir := t.TempDir()
	session := `{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	for _, name := range []string{"1.jsonl", "2.jsonl"} {
		if err := os.MkdirAll(filepath.Join(dir, "rec"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "rec", name), []byte(session), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Propose(filepath.Join(dir, "suite.yml"), []string{filepath.Join(dir, "rec")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Suite, "runs: 2\n") || !strings.Contains(p.Suite, "min_pass_rate: 100\n") {
		t.Errorf("want runs: 2 and the measured min_pass_rate: 100:\n%s", p.Suite)
	}
}

// TestReadAllCatalog: a recording of several files takes the runs of all
// and the catalog of the first file that has one.
func TestReadAllCatalog(t *testing.T) {
	dir := t.TempDir()
	session := func(tools string) string {
		return `{"type":"system","subtype":"init","session_id":"s","model":"m","tools":[` + tools + `]}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	}
	for name, tools := range map[string]string{"1.jsonl": `"First"`, "2.jsonl": `"Second"`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(session(tools)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cas, err := readAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cas.Runs) != 2 || len(cas.Catalog) != 1 || len(cas.Catalog[0].Tools) != 1 || cas.Catalog[0].Tools[0].Name != "First" {
		t.Errorf("%d runs, catalog %+v; want 2 runs and the first file's catalog", len(cas.Runs), cas.Catalog)
	}
}

// TestDraftsThatProtect: from runs that all call a tool that changes
// state (server-memory's create_entities), in the same order, with the
// tools' schemas recorded, the draft expects the tool (a class and
// tool_names, with a note, never restricted), checks every call's
// arguments against the recorded schemas, and holds the order as a strict
// trajectory; it passes on its own recordings (Propose checks it), and a
// run that sends invalid arguments or reorders the calls fails it.
func TestDraftsThatProtect(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"entities": map[string]any{"type": "array"}}, "required": []any{"entities"}}
	catalog := []cassette.ServerCatalog{{Server: "memory", Tools: []cassette.Tool{
		cassette.SchemaTool("create_entities", schema), cassette.SchemaTool("read_graph", map[string]any{"type": "object"}),
		cassette.SchemaTool("delete_entities", schema)}}}
	run := func(tools ...string) cassette.Run {
		var calls []cassette.Call
		for _, tool := range tools {
			calls = append(calls, cassette.Call{Server: "memory", Tool: tool, Arguments: cassette.JSONOf(map[string]any{"entities": []any{}})})
		}
		return cassette.Run{Turns: []cassette.Turn{{Calls: calls, FinalResponse: "Stored."}}}
	}
	d := propose(&cassette.Cassette{Runs: []cassette.Run{run("create_entities", "read_graph"), run("create_entities", "read_graph")}, Catalog: catalog}, "m.json")
	if !slices.Equal(d.classes, []string{"create_entities", "read_graph"}) || slices.Contains(d.restricted, "create_entities") ||
		!slices.Contains(d.restricted, "delete_entities") || !d.arguments || !slices.Equal(d.steps, []string{"create_entities", "read_graph"}) {
		t.Fatalf("classes %q, restricted %q, arguments %v, steps %q", d.classes, d.restricted, d.arguments, d.steps)
	}
	if notes := strings.Join(d.notes, "\n"); !strings.Contains(notes, `"create_entities" may change state`) || !strings.Contains(notes, "every run called it: proposed as expected") {
		t.Errorf("notes:\n%s", notes)
	}
	var b strings.Builder
	renderCase(&b, d, measured{})
	for _, want := range []string{`tool_names: { contains: "create_entities" }`, "arguments: {}", "match: strict", `- { tool: "create_entities" }`, `restricted: ["delete_entities"]`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the test lacks %s:\n%s", want, b.String())
		}
	}
	if d := propose(&cassette.Cassette{Runs: []cassette.Run{run("read_graph", "create_entities"), run("create_entities", "read_graph")}, Catalog: catalog}, "m.json"); d.steps != nil {
		t.Errorf("runs in another order: steps %q, want none", d.steps)
	}
	bare := func() *draft {
		return propose(&cassette.Cassette{Runs: []cassette.Run{run("create_entities")}, Catalog: []cassette.ServerCatalog{{Server: "memory", Tools: []cassette.Tool{{Name: "create_entities"}}}}}, "m.json")
	}
	d = bare()
	(*argCatalog)(nil).apply(d)
	if d.arguments ||
		!strings.Contains(strings.Join(d.notes, "\n"), "`--catalog catalog.json`, or add `arguments: { catalog: catalog.json }`") {
		t.Errorf("no schema recorded: arguments %v, notes %q", d.arguments, d.notes)
	}
	// Given a catalog that has the tool: arguments: against it, by its
	// path relative to the suite.
	d = bare()
	(&argCatalog{rel: "../cat/tools.json", tools: map[string]bool{"create_entities": true}}).apply(d)
	b.Reset()
	renderCase(&b, d, measured{})
	if !d.arguments || !strings.Contains(b.String(), "    arguments: { catalog: \"../cat/tools.json\" }\n") {
		t.Errorf("with the catalog: arguments %v:\n%s", d.arguments, b.String())
	}
	// One that lacks it (a framework's own name for the tool): a note.
	d = bare()
	(&argCatalog{rel: "tools.json", tools: map[string]bool{"read_graph": true}}).apply(d)
	if d.arguments || !strings.Contains(strings.Join(d.notes, "\n"), `neither the recording nor the catalog "tools.json" gives an input schema for "create_entities"`) {
		t.Errorf("a catalog without the tool: arguments %v, notes %q", d.arguments, d.notes)
	}
}

// TestProposeWithCatalog: a transcript carries no schemas; proposed with
// a saved tools/list, its test checks every call's arguments against it,
// and the draft passes its recording.
func TestProposeWithCatalog(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.json")
	doc := `{"messages": [{"role": "user", "content": "2+3?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get-sum", "arguments": "{\"a\": 2, \"b\": 3}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "5"}, {"role": "assistant", "content": "5"}]}`
	cat := `{"tools": [{"name": "get-sum", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}]}`
	if err := os.WriteFile(rec, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "cat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cat", "tools.json"), []byte(cat), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ProposeWith(filepath.Join(dir, "suite.yml"), []string{rec}, Options{Catalog: filepath.Join(dir, "cat", "tools.json")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Suite, `    arguments: { catalog: "cat/tools.json" }`+"\n") {
		t.Errorf("no arguments: against the catalog:\n%s", p.Suite)
	}
	if _, err := ProposeWith(filepath.Join(dir, "suite.yml"), []string{rec}, Options{Catalog: filepath.Join(dir, "none.json")}); err == nil {
		t.Errorf("a catalog that does not exist: no error")
	}
}

// TestProposeResolvedNames: a log that names the server's tools its
// framework's way (Mastra's everything_get-sum, the Agents SDK's get_sum)
// gets an arguments: check against the catalog tool each name resolves
// to (cassette.ResolveTool, as the gate resolves it); a name two catalog
// tools could be gets none, and a note naming them.
func TestProposeResolvedNames(t *testing.T) {
	logOf := func(tools ...string) *draft {
		var calls []cassette.Call
		for _, tool := range tools {
			calls = append(calls, cassette.Call{Tool: tool})
		}
		return propose(&cassette.Cassette{Runs: []cassette.Run{{Turns: []cassette.Turn{{Calls: calls}}}}}, "log.json")
	}
	cat := func() *argCatalog {
		return &argCatalog{rel: "catalog.json", tools: map[string]bool{"get-sum": true, "echo": true, "toggle-simulated-logging": true}}
	}
	for _, tools := range [][]string{{"everything_get-sum", "everything_echo"}, {"get_sum", "echo"}, {"Everything.GET_SUM"}} {
		d := logOf(tools...)
		cat().apply(d)
		if !d.arguments || d.argCatalog != "catalog.json" {
			t.Errorf("%q: arguments %v against %q, notes %q; want the catalog's check", tools, d.arguments, d.argCatalog, d.notes)
		}
	}
	// The recording's own schemas resolve the same way: arguments: {}.
	d := propose(&cassette.Cassette{
		Runs:    []cassette.Run{{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "everything_get-sum"}}}}}},
		Catalog: []cassette.ServerCatalog{{Server: "everything", Tools: []cassette.Tool{cassette.SchemaTool("get-sum", map[string]any{"type": "object"})}}},
	}, "log.json")
	if !d.arguments {
		t.Errorf("a prefixed name of a recorded tool: arguments %v, lack %q", d.arguments, d.lack)
	}
	// Two catalog tools the name could be: no check, a note.
	d = logOf("srv_get_sum")
	c := cat()
	c.tools["get_sum"] = true
	c.apply(d)
	notes := strings.Join(d.notes, "\n")
	if d.arguments || !strings.Contains(notes, `"srv_get_sum" could be any of the catalog's tools "get-sum", "get_sum"`) {
		t.Errorf("an ambiguous name: arguments %v, notes %q", d.arguments, d.notes)
	}
}
