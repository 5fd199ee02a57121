package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/live"
	"gopkg.in/yaml.v3"
)

func testCatalog(t *testing.T, n int) *live.Catalog {
	t.Helper()
	yes := true
	cat := &live.Catalog{}
	cat.Tools = append(cat.Tools,
		&mcp.Tool{Name: "delete_records", Description: "Delete records.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"filter": map[string]any{"type": "string"}}, "required": []any{"filter"}}},
		&mcp.Tool{Name: "wipe", Description: "Wipe.", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		&mcp.Tool{Name: "book", Description: "Book a slot.", InputSchema: map[string]any{
			"type":  "object",
			"$defs": map[string]any{"when": map[string]any{"type": "string", "format": "date-time"}},
			"properties": map[string]any{
				"at":    map[string]any{"$ref": "#/$defs/when"},
				"seats": map[string]any{"type": "integer", "minimum": 1, "maximum": 8},
				"kind":  map[string]any{"enum": []any{"table", "bar"}},
				"email": map[string]any{"anyOf": []any{map[string]any{"type": "null"}, map[string]any{"type": "string", "format": "email"}}},
			},
			"required": []any{"at", "seats", "kind", "email"},
		}, OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}, "required": []any{"id"}}},
	)
	for i := len(cat.Tools); i < n; i++ {
		cat.Tools = append(cat.Tools, &mcp.Tool{Name: fmt.Sprintf("get_item_%02d", i), Description: "Get an item.", InputSchema: map[string]any{"type": "object"}})
	}
	return cat
}

func mustValidate(t *testing.T, suite string) {
	t.Helper()
	if _, err := engine.ParseSuite("scaffold.yml", []byte(suite)); err != nil {
		t.Fatalf("the scaffolded suite does not validate: %v\n%s", err, suite)
	}
}

// TestScaffoldHoldsWrites: the tests of tools that change state are
// commented out under a review marker unless IncludeWrites, and a page of
// write tools only still loads.
func TestScaffoldHoldsWrites(t *testing.T) {
	cat := testCatalog(t, 30)
	target := live.Target{Command: []string{"node", "server.js"}, Env: map[string]string{"PORT": "0"}}
	all := ScaffoldSuite(cat, target, ScaffoldOptions{All: true})
	mustValidate(t, all.Suite)
	for _, name := range []string{"delete_records", "wipe"} {
		i := strings.Index(all.Suite, "# review before enabling: "+name+" changes state")
		j := strings.Index(all.Suite, `#   tool: "`+name+`"`)
		if i < 0 || j < i || strings.Contains(all.Suite, "\n    tool: \""+name+"\"") {
			t.Errorf("%s: its tests are not commented out under a review marker", name)
		}
	}
	writes := ScaffoldSuite(cat, target, ScaffoldOptions{All: true, IncludeWrites: true})
	mustValidate(t, writes.Suite)
	for _, name := range []string{"delete_records", "wipe"} {
		i := strings.Index(writes.Suite, "# review before first run: "+name)
		j := strings.Index(writes.Suite, "\n    tool: \""+name+"\"")
		if i < 0 || j < i {
			t.Errorf("IncludeWrites: %s: no review marker above its live tests", name)
		}
	}
	only := ScaffoldSuite(cat, target, ScaffoldOptions{Tools: []string{"wipe"}})
	mustValidate(t, only.Suite)
	if !strings.Contains(only.Suite, "\ntools: []  # every test below is commented out") || len(only.HeldWrites) != 1 {
		t.Errorf("a suite of write tools only:\n%s", only.Suite)
	}
}

func TestScaffoldPagesAndValidates(t *testing.T) {
	cat := testCatalog(t, 30)
	target := live.Target{Command: []string{"node", "server.js"}, Env: map[string]string{"PORT": "0"}}
	first := ScaffoldSuite(cat, target, ScaffoldOptions{IncludeEdge: true, IncludeViolation: true})
	if len(first.Tools) != PageSize || first.NextCursor == nil || *first.NextCursor != 25 {
		t.Fatalf("first page: %d tools, next %v", len(first.Tools), first.NextCursor)
	}
	mustValidate(t, first.Suite)
	if !strings.HasPrefix(first.Suite, SchemaHeader()) || !strings.Contains(first.Suite, "command: [\"node\",\"server.js\"]") || !strings.Contains(first.Suite, `env: {"PORT":"0"}`) {
		t.Errorf("header or servers block:\n%s", first.Suite)
	}
	second := ScaffoldSuite(cat, target, ScaffoldOptions{Cursor: *first.NextCursor})
	if len(second.Tools) != 5 || second.NextCursor != nil {
		t.Fatalf("second page: %d tools, next %v", len(second.Tools), second.NextCursor)
	}
	mustValidate(t, second.Suite)
	all := ScaffoldSuite(cat, target, ScaffoldOptions{All: true})
	if len(all.Tools) != 30 || all.NextCursor != nil {
		t.Errorf("all: %d tools", len(all.Tools))
	}
	if strings.Contains(first.Suite, "# review before first run: book") {
		t.Errorf("book is not destructive")
	}
	for _, want := range []string{
		`args: {"at":"2026-01-01T00:00:00Z","email":"user@example.com","kind":"table","seats":1}`,
		`"book: output matches its outputSchema"`,
		`target: "result.structuredContent"`,
		`"book: schema violation"`,
	} {
		if !strings.Contains(first.Suite, want) {
			t.Errorf("missing %s", want)
		}
	}
	for _, tc := range first.Tools {
		if tc.Name == "book" && tc.TestsGenerated != 4 {
			t.Errorf("book: %d tests, want 4 (valid, boundary, violation, output schema)", tc.TestsGenerated)
		}
	}
	probed := ScaffoldSuite(cat, target, ScaffoldOptions{Tools: []string{"book", "nope"}, Probe: true})
	mustValidate(t, probed.Suite)
	if !strings.Contains(probed.Suite, `"book: probe seats above maximum"`) || !strings.Contains(probed.Suite, `"seats":9`) || len(probed.Notes) == 0 || !strings.Contains(probed.Notes[0], `"nope"`) {
		t.Errorf("probe:\n%s\nnotes %v", probed.Suite, probed.Notes)
	}
	url := ScaffoldSuite(cat, live.Target{URL: "https://mcp.example.com/mcp", BearerTokenEnv: "TOK"}, ScaffoldOptions{Tools: []string{"wipe"}})
	mustValidate(t, url.Suite)
}

func TestLatencyBudget(t *testing.T) {
	for _, tc := range []struct {
		slowest time.Duration
		want    int64
	}{{0, 100}, {10 * time.Millisecond, 100}, {50 * time.Millisecond, 100}, {51 * time.Millisecond, 150}, {76 * time.Millisecond, 200}, {1234 * time.Millisecond, 2500}} {
		if got := LatencyBudget(tc.slowest); got != tc.want {
			t.Errorf("LatencyBudget(%v) = %d, want %d", tc.slowest, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		tool *mcp.Tool
		want ExecPolicy
	}{
		{&mcp.Tool{Name: "delete_records"}, Destructive},
		{&mcp.Tool{Name: "get_status"}, ReadOnly},
		{&mcp.Tool{Name: "create_note"}, Mutating},
		{&mcp.Tool{Name: "delete_x", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, ReadOnly},
		{&mcp.Tool{Name: "get_x", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, Destructive},
		// The verb is found in camelCase names and after a service prefix.
		{&mcp.Tool{Name: "DeleteUser"}, Destructive},
		{&mcp.Tool{Name: "notion_delete_page"}, Destructive},
		{&mcp.Tool{Name: "search_and_delete"}, Destructive},
		{&mcp.Tool{Name: "getUserById"}, ReadOnly},
		{&mcp.Tool{Name: "github_list_issues"}, ReadOnly},
		{&mcp.Tool{Name: "slack_post_message"}, Mutating},
	} {
		if got := Classify(tc.tool); got != tc.want {
			t.Errorf("Classify(%s) = %s, want %s", tc.tool.Name, got, tc.want)
		}
	}
}

// TestWritesByName: without annotations, a name says a tool changes state
// when a destructive verb is one of its words, or its first verb is a write
// verb, in snake_case, kebab-case, camelCase or after a service prefix.
// DeleteUser, createIssue and slack_post_message were generated as live
// tests that call the tool for real.
func TestWritesByName(t *testing.T) {
	for name, want := range map[string]bool{
		"DeleteUser": true, "deleteUser": true, "createIssue": true, "slack_post_message": true, "github_create_issue": true,
		"API-post-page": true, "user_delete": true, "drop-table": true, "HTTPSendRequest": true,
		"get_post": false, "listPosts": false, "read_graph": false, "search_nodes": false, "open_nodes": false,
		"run_sql": false, "get_settings": false, "skill_list": false, "get_dropdown_options": false,
	} {
		if got := Writes(&mcp.Tool{Name: name}); got != want {
			t.Errorf("Writes(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestProposalStability(t *testing.T) {
	a := map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}, "structuredContent": map[string]any{"serial": 1.0, "status": "up"}}
	b := map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}, "structuredContent": map[string]any{"serial": 2.0, "status": "up"}}
	out := &proposeOut{ExcludedVolatile: []string{}}
	test := proposal("get_status", map[string]any{}, []map[string]any{a, b}, 120*time.Millisecond, out)
	if len(out.ExcludedVolatile) != 1 || out.ExcludedVolatile[0] != "result.structuredContent.serial" {
		t.Errorf("volatile: %v", out.ExcludedVolatile)
	}
	for _, want := range []string{`target: "result.structuredContent.status"`, `{"exact":"up"}`, `not":{"exact":true}`, "max_duration_ms: 250"} {
		if !strings.Contains(test, want) {
			t.Errorf("missing %s in\n%s", want, test)
		}
	}
	if strings.Contains(test, `"result.structuredContent.serial"`) {
		t.Errorf("a volatile leaf got an exact assertion:\n%s", test)
	}
	mustValidate(t, "servers:\n  target: {command: [x]}\ntools:\n"+test)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"status check": "status-check", "Weather Selection (EU)": "weather-selection-eu", "a//b": "a-b"} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestItemsSchemaMixedBlocks(t *testing.T) {
	got := schemaOf([]any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "image", "data": "x", "mimeType": "image/png"}})
	items := got["items"].(map[string]any)
	if req := items["required"].([]string); len(req) != 1 || req[0] != "type" {
		t.Errorf("required %v, want [type]", req)
	}
	if len(items["properties"].(map[string]any)) != 4 {
		t.Errorf("properties %v", items["properties"])
	}
}

// TestInstallMatchesExamples holds examples/mcp-server-config/ to what
// --install writes into an empty file.
func TestInstallMatchesExamples(t *testing.T) {
	for file, writes := range map[string]bool{"mcp.json": false, "mcp-enable-writes.json": true} {
		want, err := os.ReadFile(filepath.Join("..", "examples", "mcp-server-config", file))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), ".claude", "mcp.json")
		if changed, err := Install(path, "mcptest", writes); err != nil || !changed {
			t.Fatalf("Install: %v %v", changed, err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", file, got, want)
		}
		if changed, err := Install(path, "mcptest", writes); err != nil || changed {
			t.Errorf("a second Install changed the file: %v %v", changed, err)
		}
	}
}

// A violation case exists only where the input schema can be broken: a
// schema with nothing required, no typed property and additional properties
// allowed accepts any arguments, so a server that answers them is right.
func TestViolation(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   string // the violating arguments; "" for none
	}{
		{`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}`, `{}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"not-a-integer"}`},
		{`{"type":"object","properties":{},"additionalProperties":false}`, `{"mcptest_unexpected_argument":true}`},
		{`{"type":"object","properties":{}}`, ``},
		{`{"type":"object"}`, ``},
		{`{}`, ``},
	} {
		var schema map[string]any
		if err := json.Unmarshal([]byte(c.schema), &schema); err != nil {
			t.Fatal(err)
		}
		args, ok := violation(schema)
		got := ""
		if ok {
			b, _ := json.Marshal(args)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("violation(%s) = %q, want %q", c.schema, got, c.want)
		}
	}
	cat := &live.Catalog{}
	cat.Tools = append(cat.Tools, &mcp.Tool{Name: "get-env", InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
	out := ScaffoldSuite(cat, live.Target{Command: []string{"srv"}}, ScaffoldOptions{IncludeEdge: true, IncludeViolation: true})
	if strings.Contains(out.Suite, "schema violation") || out.Tools[0].TestsGenerated != 2 || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "get-env: its input schema accepts any arguments") {
		t.Errorf("a tool whose schema accepts anything: tools %+v, notes %q\n%s", out.Tools, out.Notes, out.Suite)
	}
}

// TestQuoteReadsBack: a catalog string written into a scaffold reads back
// as itself. A NEL (U+0085) was written as it is, which the YAML reader
// takes for a line break: a live test called the tool "x  - name: y"
// instead of "x\u0085  - name: y", and a held-back test's comment ended at
// the NEL, so the scaffold did not load and the tool was dropped with a
// note that its cases were too large.
func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"x\u0085  - name: y", "a\u2028b\u2029", "\x7f\u0080\u009f", "q\"\\", "t\tab\n"} {
		var got struct{ V string }
		if err := yaml.Unmarshal([]byte("v: "+q(s)), &got); err != nil || got.V != s {
			t.Errorf("q(%q) = %s reads back as %q, %v", s, q(s), got.V, err)
		}
		if c := "# " + q(s); strings.ContainsAny(c, "\n\r\u0085") {
			t.Errorf("q(%q) = %s breaks the comment it is written in", s, q(s))
		}
	}
}
