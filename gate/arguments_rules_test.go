package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// TestValueWordsBounds: a value of up to 60 bytes of JSON is shown whole,
// a longer one cut to 57 bytes (never inside a character) and "...".
func TestValueWordsBounds(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{strings.Repeat("a", 58), `"` + strings.Repeat("a", 58) + `" (string)`},
		{strings.Repeat("a", 59), `"` + strings.Repeat("a", 56) + `... (string)`},
		{strings.Repeat("a", 55) + "é", `"` + strings.Repeat("a", 55) + `é" (string)`},
		{strings.Repeat("a", 55) + "éé", `"` + strings.Repeat("a", 55) + `... (string)`},
	} {
		if got := valueWords(tc.v); got != tc.want {
			t.Errorf("valueWords(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestAtPointer: a JSON pointer reaches an object's key (with ~1 for / and
// ~0 for ~) and an array's index within its bounds; anything else is not
// there.
func TestAtPointer(t *testing.T) {
	doc := map[string]any{"a": []any{"x", "y"}, "b/c": "slash", "d~e": "tilde"}
	for _, tc := range []struct {
		ptr  string
		want any
		ok   bool
	}{
		{"/a/0", "x", true},
		{"/a/1", "y", true},
		{"/a/2", nil, false},
		{"/a/-1", nil, false},
		{"/a/z", nil, false},
		{"/a/0/q", nil, false},
		{"/nope", nil, false},
		{"/b~1c", "slash", true},
		{"/d~0e", "tilde", true},
	} {
		if got, ok := at(doc, tc.ptr); ok != tc.ok || got != tc.want {
			t.Errorf("at(%q) = %v, %v; want %v, %v", tc.ptr, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := at(doc, ""); !ok || got == nil {
		t.Errorf(`at("") = %v, %v; want the document`, got, ok)
	}
}

// TestArgumentFindingsBound: a case names at most maxArgumentFindings
// violations, not counting the warnings of schemas that do not compile,
// and says how many more there were; at the bound exactly, none more.
func TestArgumentFindingsBound(t *testing.T) {
	catalog := []cassette.Tool{cassette.SchemaTool("search", decode(t, searchSchema)), cassette.SchemaTool("broken", decode(t, `{"type": 3}`))}
	for _, tc := range []struct {
		name       string
		broken     bool
		violations int
		named      int
		more       string
	}{
		{"at the bound", false, maxArgumentFindings, maxArgumentFindings, ""},
		{"two over", false, maxArgumentFindings + 2, maxArgumentFindings, "and 2 more argument violations (the first 50 are named)"},
		{"at the bound, after a warning", true, maxArgumentFindings, maxArgumentFindings, ""},
	} {
		a := NewArguments(ArgumentsConfig{Catalog: catalog})
		var calls []cassette.Call
		if tc.broken {
			calls = append(calls, cassette.Call{Tool: "broken", Arguments: cassette.JSONOf(map[string]any{})})
		}
		for range tc.violations {
			calls = append(calls, cassette.Call{Tool: "search", Arguments: cassette.JSONOf(map[string]any{"limit": 5.0})})
		}
		a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: calls}}}, nil)
		named, more := 0, ""
		for _, f := range a.Result().Findings {
			switch {
			case strings.HasPrefix(f.Message, "run 1:"):
				named++
			case strings.HasPrefix(f.Message, "and "):
				more = f.Message
			}
		}
		if named != tc.named || more != tc.more {
			t.Errorf("%s: %d named, %q; want %d, %q", tc.name, named, more, tc.named, tc.more)
		}
	}
}

// TestSchemaForRules: a call's schema is the recorded tool of its server;
// a call without a server takes the tool of that name on the first server
// by name that records a schema; else the block's catalog; else a
// recorded tool without a schema (nil, unchecked); else none.
func TestSchemaForRules(t *testing.T) {
	a := NewArguments(ArgumentsConfig{Catalog: []cassette.Tool{cassette.SchemaTool("q", "catalog"), cassette.SchemaTool("only_catalog", "catalog2"),
		cassette.SchemaTool("named", "catalog3")}})
	a.AddCatalog([]cassette.ServerCatalog{
		{Server: "zeta", Tools: []cassette.Tool{cassette.SchemaTool("q", "zeta"), {Name: "named"}, {Name: "bare"}}},
		{Server: "alpha", Tools: []cassette.Tool{cassette.SchemaTool("q", "alpha"), cassette.SchemaTool("q", "alpha again"), {Name: "r"}}},
		{Server: "beta", Tools: []cassette.Tool{cassette.SchemaTool("r", "beta")}},
	})
	for _, tc := range []struct {
		server, tool string
		want         any
		ok           bool
	}{
		{"zeta", "q", "zeta", true},
		{"alpha", "q", "alpha", true},
		{"", "q", "alpha", true},
		{"other", "q", "catalog", true},
		{"", "only_catalog", "catalog2", true},
		{"zeta", "none", nil, false},
		{"", "none", nil, false},
		// A trace that lists its tools by name: the block's catalog.
		{"zeta", "named", "catalog3", true},
		{"", "named", "catalog3", true},
		{"", "r", "beta", true},
		{"alpha", "r", nil, true},
		{"zeta", "bare", nil, true},
		{"", "bare", nil, true},
	} {
		if got, ok := a.schemaFor(tc.server, tc.tool); got != tc.want || ok != tc.ok {
			t.Errorf("schemaFor(%q, %q) = %v, %v; want %v, %v", tc.server, tc.tool, got, ok, tc.want, tc.ok)
		}
	}
}

// TestArgumentsSummaryCounts: the summary counts the runs added, the
// calls, the checked, invalid and unchecked ones, and the keywords.
func TestArgumentsSummaryCounts(t *testing.T) {
	a := NewArguments(ArgumentsConfig{Catalog: []cassette.Tool{cassette.SchemaTool("search", decode(t, searchSchema))}})
	a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "search", Arguments: cassette.JSONOf(map[string]any{"query": "q"})}, {Tool: "other"}}}}}, nil)
	a.Add(2, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "search", Arguments: cassette.JSONOf(map[string]any{})}}}}}, nil)
	s := a.Summary()
	if s.Runs != 2 || s.Calls != 3 || s.Checked != 2 || s.Invalid != 1 || s.Unchecked != 1 || len(s.Keywords) != 1 || s.Keywords[0] != (KeywordCount{"required", 1}) {
		t.Errorf("summary %+v", s)
	}
}

// TestSchemaCompileErrors: a schema that does not compile is worded by
// where it breaks its meta-schema, the deepest failure first, or by the
// cause, without the library's URLs.
func TestSchemaCompileErrors(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type": 3}`:      `/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"`,
		`{"minimum": "x"}`: `/minimum: expected number, but got string`,
		`{"type": "object", "properties": {"a": {"minimum": "x", "type": 5}}}`: `/properties/a/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"`,
		`{"$ref": "#/nope"}`: `/nope not found`,
	} {
		_, err := CompileToolSchema(decode(t, schema))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", schema, err, want)
		}
	}
}

// TestStrictRules states when strict (BFCL's check of unexpected
// parameters) reports an argument: only for object arguments of a schema
// with properties or of type object, and once, when the schema's own
// additionalProperties has not already reported it at that place.
func TestStrictRules(t *testing.T) {
	for _, tc := range []struct{ schema, args, want string }{
		// Arguments that are no object: nothing to call unexpected.
		{`{"type": "object", "properties": {"city": {"type": "string"}}}`, `["Oslo"]`,
			`(arguments): type: expected object, got ["Oslo"] (array)`},
		// No properties but type object: every argument is unexpected.
		{`{"type": "object"}`, `{"city": "Oslo"}`,
			"/city: additionalProperties: expected no parameter but none (strict), got unexpected parameter `city`"},
		// Neither properties nor type object: strict says nothing.
		{`{}`, `{"city": "Oslo"}`, ``},
		// Reported by the schema's additionalProperties: not twice.
		{`{"type": "object", "properties": {"city": {"type": "string"}}, "additionalProperties": false}`, `{"city": "Oslo", "country": "NO"}`,
			"/country: additionalProperties: expected no parameter but `city`, got unexpected parameter `country`"},
		// Properties without a type: an object all the same.
		{`{"properties": {"city": {"type": "string"}}}`, `{"city": "Oslo", "country": "NO"}`,
			"/country: additionalProperties: expected no parameter but `city` (strict), got unexpected parameter `country`"},
		// Another keyword at the same place does not hide it.
		{`{"type": "object", "properties": {"city": {"type": "string"}}, "propertyNames": {"maxLength": 4}}`, `{"city": "Oslo", "country": "NO"}`,
			"/country: additionalProperties: expected no parameter but `city` (strict), got unexpected parameter `country`|/country: maxLength: expected maxLength 4, got \"NO\" (string)"},
	} {
		raw := decode(t, tc.schema)
		s, err := CompileToolSchema(raw)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range Violations(s, raw, decode(t, tc.args), true) {
			got = append(got, v.String())
		}
		if joined := strings.Join(got, "|"); joined != tc.want {
			t.Errorf("%s with %s:\n got %q\nwant %q", tc.schema, tc.args, joined, tc.want)
		}
	}
}

// TestTrimSchemaErrorPlain: an error that is no schema error is worded as
// it is, without the library's prefix.
func TestTrimSchemaErrorPlain(t *testing.T) {
	if got := trimSchemaError(errors.New("jsonschema: the reader failed")); got != "the reader failed" {
		t.Errorf("got %q", got)
	}
}

// TestArgumentsResultRules: valid_pct only when a call was checked, the
// notice of unchecked calls only when there is one.
func TestArgumentsResultRules(t *testing.T) {
	a := NewArguments(ArgumentsConfig{Catalog: []cassette.Tool{cassette.SchemaTool("search", decode(t, searchSchema))}})
	a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "other"}}}}}, nil)
	res := a.Result()
	if v, ok := res.Targets["arguments.valid_pct"]; ok {
		t.Errorf("no call checked, and valid_pct is %g", v)
	}
	if len(res.Findings) != 1 || !strings.HasPrefix(res.Findings[0].Message, "1 of 1 calls were not checked") {
		t.Errorf("findings %+v", res.Findings)
	}
	a = NewArguments(ArgumentsConfig{Catalog: []cassette.Tool{cassette.SchemaTool("search", decode(t, searchSchema))}})
	a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "search", Arguments: cassette.JSONOf(map[string]any{"query": "q"})}}}}}, nil)
	res = a.Result()
	if v, ok := res.Targets["arguments.valid_pct"]; !ok || v != 100 || len(res.Findings) != 0 {
		t.Errorf("one valid call: valid_pct %g (%v), findings %+v", v, ok, res.Findings)
	}
}

// TestViolationsOrderRules: the violations of a call are ordered by
// pointer, then by keyword; those at one place with one keyword keep the
// schema's order (the sort is stable, so a report does not shuffle them),
// and one named twice is named once.
func TestViolationsOrderRules(t *testing.T) {
	for _, tc := range []struct{ schema, args, want string }{
		// One place, one keyword: the schema's order, three deep.
		{`{"properties": {"limit": {"allOf": [{"minimum": 5}, {"minimum": 3}, {"minimum": 2}]}}}`, `{"limit": 1}`,
			"/limit: minimum: expected minimum 5, got 1 (integer)|/limit: minimum: expected minimum 3, got 1 (integer)|/limit: minimum: expected minimum 2, got 1 (integer)"},
		// One place, two keywords: by keyword, not the schema's order.
		{`{"properties": {"limit": {"allOf": [{"minimum": 5}, {"maximum": 0}]}}}`, `{"limit": 1}`,
			"/limit: maximum: expected maximum 0, got 1 (integer)|/limit: minimum: expected minimum 5, got 1 (integer)"},
		// Two places: by pointer, not the schema's order.
		{`{"properties": {"b": {"minimum": 5}, "a": {"minimum": 5}}}`, `{"a": 1, "b": 1}`,
			"/a: minimum: expected minimum 5, got 1 (integer)|/b: minimum: expected minimum 5, got 1 (integer)"},
		// The same violation twice: once.
		{`{"properties": {"limit": {"allOf": [{"minimum": 5}, {"minimum": 5}]}}}`, `{"limit": 1}`,
			"/limit: minimum: expected minimum 5, got 1 (integer)"},
	} {
		raw := decode(t, tc.schema)
		s, err := CompileToolSchema(raw)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range Violations(s, raw, decode(t, tc.args), false) {
			got = append(got, v.String())
		}
		if joined := strings.Join(got, "|"); joined != tc.want {
			t.Errorf("%s with %s:\n got %q\nwant %q", tc.schema, tc.args, joined, tc.want)
		}
	}
}
