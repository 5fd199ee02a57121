package quality

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// tool decodes a tools/list entry written as JSON.
func tool(t *testing.T, js string) Tool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return FromRaw(m)
}

// clean is a tool no rule fires on; each case below breaks one thing.
const clean = `{"name": "search_orders", "description": "Search the order book for a customer and return a list of order objects, each with id, total and status.",
	"inputSchema": {"type": "object", "properties": {
		"customer": {"type": "string", "description": "The customer id.", "examples": ["c-42"]},
		"status": {"type": "string", "enum": ["open", "closed"], "description": "Only orders in this state: open or closed."}},
		"required": ["customer"]},
	"annotations": {"readOnlyHint": true}}`

func firedRules(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

func TestCleanToolPasses(t *testing.T) {
	fs := Lint(tool(t, clean))
	if len(fs) != 1 || fs[0].Rule != PassRule || fs[0].Severity != Pass {
		t.Fatalf("clean tool: %+v", fs)
	}
	if s := Score(tool(t, clean)); s != 1 {
		t.Errorf("clean tool scores %v, want 1", s)
	}
	if len(LintSchema(tool(t, clean))) != 0 {
		t.Errorf("clean schema: %+v", LintSchema(tool(t, clean)))
	}
}

// TestDESCRules: each rule fires on its case and stays quiet on its quiet
// case (which must also not trip the rule under test).
func TestDESCRules(t *testing.T) {
	cases := []struct {
		rule, fire, quiet string
	}{
		{"DESC-001", `{"name": "x", "description": "Gets data."}`, `{"name": "x", "description": "Gets the data of a record by id."}`},
		{"DESC-001", `{"name": "x", "description": "  "}`, `{"name": "x", "description": "Twenty characters ok"}`},
		{"DESC-002", `{"name": "x", "description": "Return ` + strings.Repeat("words ", 90) + `"}`, `{"name": "x", "description": "Return ` + strings.Repeat("words ", 80) + `"}`},
		{"DESC-003", `{"name": "read_file_contents", "description": "Read file contents"}`, `{"name": "read_file_contents", "description": "Read file contents as UTF-8 text"}`},
		{"DESC-004", `{"name": "x", "description": "The weather forecast for a city, as JSON."}`, `{"name": "x", "description": "Returns the weather forecast for a city, as JSON."}`},
		{"DESC-005", `{"name": "x", "description": "Use the id from the previous tool to fetch the record."}`, `{"name": "x", "description": "Use the id from search_records to fetch the record."}`},
		{"DESC-005", `{"name": "x", "description": "Fetch the record, see above for the format."}`, `{"name": "x", "description": "Fetch the record in the format of search_records."}`},
		{"DESC-006", `{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}`,
			`{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}`},
		{"DESC-007", `{"name": "x", "description": "Sort the records.", "inputSchema": {"type": "object", "properties": {"order": {"type": "string", "enum": ["asc", "desc"], "description": "The order."}}}}`,
			`{"name": "x", "description": "Sort the records.", "inputSchema": {"type": "object", "properties": {"order": {"type": "string", "enum": ["asc", "desc"], "description": "asc or desc."}}}}`},
		{"DESC-008", `{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "The identifier of the record to fetch from the store."}}}}`,
			`{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "The record id."}}}}`},
		{"DESC-009", `{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}`,
			`{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "string"}}}}`},
		{"DESC-009", `{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}}`,
			`{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}`},
		{"DESC-009", `{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}`,
			`{"name": "x", "description": "Fetch a record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "examples": [{"a": "r-1"}]}}`},
		{"DESC-010", `{"name": "x", "description": "Fetch a record by id."}`, `{"name": "x", "description": "Fetch a record by id.", "outputSchema": {"type": "object"}}`},
		{"DESC-011", `{"name": "x", "description": "Fetch a record by id.", "annotations": {"readOnlyHint": "yes"}}`, `{"name": "x", "description": "Fetch a record by id.", "annotations": {"readOnlyHint": true}}`},
		{"DESC-012", `{"name": "x", "description": "Fetch a record by id."}`, `{"name": "x", "description": "Fetch a record by id.", "annotations": {}}`},
		{"DESC-013", `{"name": "x", "description": "Set a ticket's status.", "inputSchema": {"type": "object", "properties": {"status": {"type": "string", "description": "The new status, one of open, closed, or pending."}}}}`,
			`{"name": "x", "description": "Set a ticket's status.", "inputSchema": {"type": "object", "properties": {"status": {"type": "string", "enum": ["open", "closed", "pending"], "description": "The new status, one of open, closed, or pending."}}}}`},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.rule] = true
		fire, quiet := firedRules(Lint(tool(t, tc.fire))), firedRules(Lint(tool(t, tc.quiet)))
		if !contains(fire, tc.rule) {
			t.Errorf("%s did not fire on %s (fired %v)", tc.rule, tc.fire, fire)
		}
		if contains(quiet, tc.rule) {
			t.Errorf("%s fired on %s", tc.rule, tc.quiet)
		}
	}
	for _, r := range Rules {
		if !seen[r.ID] {
			t.Errorf("%s has no test case", r.ID)
		}
	}
	if len(Rules) != 13 {
		t.Errorf("%d rules, the seed's table has 13", len(Rules))
	}
}

func TestSCHRules(t *testing.T) {
	obj := func(props string, extra string) string {
		return `{"name": "x", "inputSchema": {"type": "object", "properties": {` + props + `}` + extra + `}}`
	}
	cases := []struct{ rule, fire, quiet string }{
		{"SCH-001", `{"name": "x"}`, obj("", "")},
		{"SCH-001", `{"name": "x", "inputSchema": {"type": "string"}}`, obj("", "")},
		{"SCH-002", obj(`"a": {"description": "anything"}`, ""), obj(`"a": {"enum": [1, 2]}`, "")},
		{"SCH-003", obj(`"a": {"type": "string"}`, `, "required": ["b"]`), obj(`"a": {"type": "string"}`, `, "required": ["a"]`)},
		{"SCH-004", obj(`"a": {"type": "array"}`, ""), obj(`"a": {"type": "array", "items": {"type": "string"}}`, "")},
		{"SCH-005", obj(`"a": {"type": "text"}`, ""), obj(`"a": {"type": ["string", "null"]}`, "")},
		{"SCH-006", obj(`"a": {"type": "string", "enum": ["x", "x"]}`, ""), obj(`"a": {"type": "string", "enum": ["x", "y"]}`, "")},
		{"SCH-002", obj(`"o": {"type": "object", "properties": {"deep": {}}}`, ""), obj(`"o": {"type": "object", "properties": {"deep": {"type": "number"}}}`, "")},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.rule] = true
		if fire := firedRules(LintSchema(tool(t, tc.fire))); !contains(fire, tc.rule) {
			t.Errorf("%s did not fire on %s (fired %v)", tc.rule, tc.fire, fire)
		}
		if quiet := firedRules(LintSchema(tool(t, tc.quiet))); len(quiet) != 0 {
			t.Errorf("%s: quiet case fired %v", tc.rule, quiet)
		}
	}
	for _, r := range SchemaRules {
		if !seen[r.ID] {
			t.Errorf("%s has no test case", r.ID)
		}
	}
}

func TestScores(t *testing.T) {
	cases := []struct {
		js   string
		want []float64
	}{
		{`{"name": "x"}`, []float64{0, 0, 1, 1, 0, 0}},
		{`{"name": "x", "description": "Gets data.", "annotations": {"readOnlyHint": "no"}}`, []float64{1, 0.5, 1, 1, 0, 0.5}},
		{`{"name": "x", "description": "Return the record by id.", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "description": "A very long description of a."}, "b": {"type": "string"}}}, "annotations": {}}`,
			[]float64{1, 1, 0.5, 0.5, 1, 1}},
	}
	for _, tc := range cases {
		if got := Scores(tool(t, tc.js)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Scores(%s) = %v, want %v", tc.js, got, tc.want)
		}
	}
	if got := Score(tool(t, cases[1].js)); got != 0.67 {
		t.Errorf("Score = %v, want 0.67 (4/6)", got)
	}
}

func TestAssess(t *testing.T) {
	r := Assess([]Tool{tool(t, clean), tool(t, `{"name": "get", "description": "get"}`)})
	tg := r.Targets()
	want := map[string]float64{"min_score": Score(tool(t, `{"name": "get", "description": "get"}`)), "critical_count": 2, "smells.uninformative": 1, "smells.underspecified": 1,
		`tool["search_orders"].score`: 1}
	for k, v := range want {
		if tg[k] != v {
			t.Errorf("%s = %v, want %v (targets %v)", k, tg[k], v, tg)
		}
	}
	if r.SmellTotal != r.Smells["underspecified"]+r.Smells["uninformative"]+r.Smells["missing_return_format"]+r.Smells["missing_annotations"]+r.Smells["missing_examples"] {
		t.Errorf("smell_total %d, smells %v", r.SmellTotal, r.Smells)
	}
	if e := Assess(nil); e.MinScore != 0 || e.MeanScore != 0 || len(e.Tools) != 0 {
		t.Errorf("empty catalog %+v", e)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestLintTools: the lint document counts its tools, their findings by
// severity (a clean tool's one PASS finding included) and the scores.
func TestLintTools(t *testing.T) {
	var raw []map[string]any
	for _, js := range []string{clean, `{"name": "get", "description": "get"}`} {
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, m)
	}
	doc := LintTools(raw)
	r := Assess([]Tool{tool(t, clean), tool(t, `{"name": "get", "description": "get"}`)})
	want := LintSummary{Tools: 2, Critical: r.CriticalCount, Warning: r.WarningCount, Pass: 1, MeanScore: r.MeanScore, MinScore: r.MinScore}
	if doc.Summary != want || len(doc.Tools) != 2 {
		t.Errorf("summary %+v, want %+v", doc.Summary, want)
	}
}
