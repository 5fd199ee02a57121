package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// searchSchema is a tool schema with every kind of check BFCL's AST checker
// makes: types, required, an enum and no unexpected parameters.
const searchSchema = `{"type": "object", "additionalProperties": false, "required": ["query"],
 "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1},
  "units": {"enum": ["c", "f"]}, "tags": {"type": "array", "items": {"type": "string"}}}}`

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestViolations: each kind of bad argument is one violation with its
// pointer, keyword and what the schema expected.
func TestViolations(t *testing.T) {
	raw := decode(t, searchSchema)
	s, err := CompileToolSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   string
		strict bool
		want   []string
	}{
		{`{"query": "go"}`, false, nil},
		{`{"query": "go", "limit": 5, "units": "c", "tags": ["a"]}`, false, nil},
		{`{"limit": 5}`, false, []string{"/query: required: expected the required parameter `query`, got none"}},
		{`{"query": "go", "limit": "many"}`, false, []string{`/limit: type: expected integer, got "many" (string)`}},
		{`{"query": "go", "limit": 2.5}`, false, []string{`/limit: type: expected integer, got 2.5 (number)`}},
		{`{"query": "go", "units": "kelvin"}`, false, []string{`/units: enum: expected one of ["c","f"], got "kelvin" (string)`}},
		{`{"query": "go", "sort": "new"}`, false, []string{"/sort: additionalProperties: expected no parameter but `limit`, `query`, `tags`, `units`, got unexpected parameter `sort`"}},
		{`{"query": "go", "tags": ["a", 3]}`, false, []string{`/tags/1: type: expected string, got 3 (integer)`}},
		{`{"query": "go", "limit": 0}`, false, []string{`/limit: minimum: expected minimum 1, got 0 (integer)`}},
		{`"query=go"`, false, []string{`(arguments): type: expected object, got "query=go" (string)`}},
		{`{"limit": "x", "sort": 1}`, false, []string{
			`/limit: type: expected integer, got "x" (string)`,
			"/query: required: expected the required parameter `query`, got none",
			"/sort: additionalProperties: expected no parameter but `limit`, `query`, `tags`, `units`, got unexpected parameter `sort`",
		}},
	} {
		var got []string
		for _, v := range Violations(s, raw, decode(t, tc.args), tc.strict) {
			got = append(got, v.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// TestViolationsStrict: a schema that allows any parameter passes an
// unexpected one, unless strict (BFCL's check) refuses it.
func TestViolationsStrict(t *testing.T) {
	raw := decode(t, `{"type": "object", "properties": {"city": {"type": "string"}}}`)
	s, err := CompileToolSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	args := decode(t, `{"city": "Oslo", "country": "NO"}`)
	if v := Violations(s, raw, args, false); len(v) != 0 {
		t.Errorf("lenient: %v", v)
	}
	v := Violations(s, raw, args, true)
	if len(v) != 1 || v[0].String() != "/country: additionalProperties: expected no parameter but `city` (strict), got unexpected parameter `country`" {
		t.Errorf("strict: %v", v)
	}
}

// TestSchemaDrafts: the draft comes from $schema, 2020-12 without one:
// draft-07's array form of items checks each position; 2020-12 refuses
// the array form of items at compile time.
func TestSchemaDrafts(t *testing.T) {
	d7 := decode(t, `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		"properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}`)
	s, err := CompileToolSchema(d7)
	if err != nil {
		t.Fatalf("draft-07: %v", err)
	}
	v := Violations(s, d7, decode(t, `{"pair": ["a", "b"]}`), false)
	if len(v) != 1 || v[0].Pointer != "/pair/1" || v[0].Keyword != "type" {
		t.Errorf("draft-07 items: %v", v)
	}
	delete(d7.(map[string]any), "$schema")
	if _, err := CompileToolSchema(d7); err == nil {
		t.Error("2020-12 compiled the array form of items")
	}
	for _, bad := range []string{`{"type": 7}`, `{"$ref": "https://example.com/s.json"}`, `"object"`, `null`} {
		if _, err := CompileToolSchema(decode(t, bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

// TestArgumentsGate: calls to a recorded tool are checked, a tool with
// no schema is unchecked, a schema that does not compile is one warning
// naming the tool (compiled once, however many calls), never a crash.
func TestArgumentsGate(t *testing.T) {
	cat := []cassette.ServerCatalog{{Server: "web", Tools: []cassette.Tool{
		cassette.SchemaTool("search", decode(t, searchSchema)),
		cassette.SchemaTool("broken", decode(t, `{"type": "objekt"}`)),
	}}}
	call := func(tool, args string) cassette.Call {
		return cassette.Call{Server: "web", Tool: tool, Arguments: cassette.JSONOf(decode(t, args))}
	}
	a := NewArguments(ArgumentsConfig{})
	a.AddCatalog(cat)
	r1 := a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{call("search", `{"query": "go"}`)}}}}, nil)
	r2 := a.Add(2, &cassette.Run{Turns: []cassette.Turn{
		{Calls: []cassette.Call{call("broken", `{}`), call("broken", `{}`)}},
		{Calls: []cassette.Call{call("search", `{"limit": "many"}`), call("fetch", `{}`)}},
	}}, nil)
	if r1.Invalid != 0 || r2.Invalid != 1 {
		t.Errorf("per run invalid %d, %d; want 0, 1", r1.Invalid, r2.Invalid)
	}
	res := a.Result()
	// 2 checked calls, 1 invalid: valid_pct = 1/2 = 50.
	if res.Targets["arguments.valid_pct"] != 50 || res.Targets["arguments.invalid"] != 1 ||
		res.Counts["arguments.calls"] != 5 || res.Counts["arguments.checked"] != 2 || res.Counts["arguments.unchecked"] != 3 {
		t.Errorf("targets %v counts %v", res.Targets, res.Counts)
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Level+": "+f.Message)
	}
	want := []string{
		"warning: the inputSchema of `web.broken` does not compile",
		"error: run 2: turn 2 call 1 `web.search` arguments /limit: type: expected integer, got \"many\" (string)",
		"error: run 2: turn 2 call 1 `web.search` arguments /query: required: expected the required parameter `query`, got none",
		"warning: 3 of 5 calls were not checked (`web.broken` ×2, `web.fetch` ×1): ",
	}
	if len(msgs) != len(want) {
		t.Fatalf("findings:\n%s", strings.Join(msgs, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(msgs[i], w) {
			t.Errorf("finding %d = %q, want prefix %q", i, msgs[i], w)
		}
	}
	if len(a.cache) != 2 {
		t.Errorf("%d compilations cached, want one per schema (2)", len(a.cache))
	}
}

// FuzzArguments: any schema and any arguments a recording holds give
// violations or a compile error, never a panic, and the same answer twice.
func FuzzArguments(f *testing.F) {
	f.Add(searchSchema, `{"limit": "many", "sort": 1}`)
	f.Add(`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}`, `["a", 1]`)
	f.Add(`{"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"enum": [1]}}}`, `{"a": 2}`)
	f.Add(`{"additionalProperties": false, "patternProperties": {"^x": {}}}`, `{"y": 1}`)
	f.Add(`true`, `null`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		var raw, val any
		if json.Unmarshal([]byte(schema), &raw) != nil || json.Unmarshal([]byte(args), &val) != nil {
			return
		}
		s, err := CompileToolSchema(raw)
		if err != nil {
			return
		}
		first := Violations(s, raw, val, true)
		again := Violations(s, raw, val, true)
		if len(first) != len(again) {
			t.Fatalf("two runs differ: %v, %v", first, again)
		}
		for i := range first {
			if first[i] != again[i] {
				t.Fatalf("two runs differ: %v, %v", first, again)
			}
		}
	})
}

// TestArgumentsResolvedNames: a call named as a framework names the
// server's tool (Mastra's server prefix, the Agents SDK's get_sum) is
// checked against the one catalog tool its name resolves to
// (cassette.ResolveTool), the recording's or the block's; a name two
// catalog tools could be is not checked, and a warning names both.
func TestArgumentsResolvedNames(t *testing.T) {
	sum := `{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}`
	call := func(tool, args string) cassette.Call {
		return cassette.Call{Tool: tool, Arguments: cassette.JSONOf(decode(t, args))}
	}
	a := NewArguments(ArgumentsConfig{Catalog: []cassette.Tool{
		cassette.SchemaTool("get-sum", decode(t, sum)),
		cassette.SchemaTool("read-file", decode(t, searchSchema)),
		cassette.SchemaTool("read_file", decode(t, searchSchema)),
	}})
	a.AddCatalog(nil)
	r := a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{
		call("everything_get-sum", `{"a": 1}`),
		call("get_sum", `{"a": 1}`),
		call("Everything__GET_SUM", `{"a": 1, "b": 2}`),
		call("fs_READ_FILE", `{"query": "x"}`),
	}}}}, nil)
	if r.Invalid != 2 {
		t.Errorf("invalid %d, want 2 (the prefixed and the sanitized get-sum without b)", r.Invalid)
	}
	res := a.Result()
	if res.Counts["arguments.checked"] != 3 || res.Counts["arguments.unchecked"] != 1 {
		t.Errorf("counts %v, want 3 checked, 1 unchecked (the ambiguous read file)", res.Counts)
	}
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Level+": "+f.Message)
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		"error: run 1: turn 1 call 1 `everything_get-sum` arguments /b: required: expected the required parameter `b`, got none",
		"error: run 1: turn 1 call 2 `get_sum` arguments /b: required",
		"warning: the tool `fs_READ_FILE` could be any of the catalog's `read-file`, `read_file`, so its calls are not checked",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no finding %q in:\n%s", want, got)
		}
	}

	// The recording's own catalog resolves the same way, and an exact name
	// wins over a resolved one.
	a = NewArguments(ArgumentsConfig{})
	a.AddCatalog([]cassette.ServerCatalog{{Server: "everything", Tools: []cassette.Tool{
		cassette.SchemaTool("get-sum", decode(t, sum)),
		cassette.SchemaTool("get_sum", decode(t, `{"type": "object"}`)),
	}}})
	r = a.Add(1, &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{
		call("get_sum", `{"a": 1}`),
		call("mastra_get-sum", `{"a": 1}`),
	}}}}, nil)
	if r.Invalid != 0 || a.Result().Counts["arguments.unchecked"] != 1 {
		t.Errorf("invalid %d, counts %v; want 0 and 1 unchecked: get_sum is its own tool (no b required), mastra_get-sum could be either", r.Invalid, a.Result().Counts)
	}
	if f := a.Result().Findings; len(f) == 0 || !strings.Contains(f[0].Message, "`mastra_get-sum` could be any of the catalog's `get-sum`, `get_sum`") {
		t.Errorf("findings %v, want the ambiguous name first", f)
	}
}
