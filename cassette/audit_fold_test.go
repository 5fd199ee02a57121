package cassette

import (
	"strings"
	"testing"
)

// TestAuditFoldsCaseAndSeparators: the audit counts a call under every
// name a framework writes for its tool: another case, _ for -, the name
// qualified by its server or a prefix after any separator the frameworks
// use (everything_get-sum, mcp__everything__get_sum, functions.get-sum,
// fs/get-sum, srv:get-sum), and the name a call was recorded as; never a
// longer or shorter name.
func TestAuditFoldsCaseAndSeparators(t *testing.T) {
	a := &audit{}
	a.call(&Call{Tool: "Get-Sum"})
	a.call(&Call{Tool: "echo", RecordedAs: "Shout_Back"})
	for _, name := range []string{"get-sum", "get_sum", "GET-SUM", "everything_get-sum", "mcp__everything__get_sum",
		"functions.get-sum", "fs/get-sum", "srv:get-sum", "everything-get-sum", "echo", "shout-back", "tools.shout_back"} {
		if got := a.made(name); got != 1 {
			t.Errorf("made(%q) = %d, want 1", name, got)
		}
	}
	for _, name := range []string{"get-sums", "sum", "get", "get sum", "getsum", "shout", "echoes", "fs/echo-back"} {
		if got := a.made(name); got != 0 {
			t.Errorf("made(%q) = %d, want 0", name, got)
		}
	}
	if got := (&audit{}).made("anything"); got != 0 {
		t.Errorf("made on no calls = %d, want 0", got)
	}
}

// TestAuditCallTypes: an object that names a tool and says by its "type"
// alone that it is a call or a result (function_call, tool_result,
// mcp_call), with no id and no arguments, is call-shaped, so a file that holds
// one and no call is refused at it; a type of more than 48 characters is
// text, not a type, and the file reads.
func TestAuditCallTypes(t *testing.T) {
	doc := func(typ string) string {
		return `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "ok"}, ` +
			`{"type": "` + typ + `", "name": "get_sum"}]}]}`
	}
	for _, typ := range []string{"function_call", "tool_result", "Tool_Use", "mcp_call", "function_call_output"} {
		if _, err := Read("fuzz.json", []byte(doc(typ))); err == nil || !strings.Contains(err.Error(), `naming the tool "get_sum"`) {
			t.Errorf("type %q: %v, want the call-shaped object named", typ, err)
		}
	}
	long := strings.Repeat("x", 45) + "call"
	if c, err := Read("fuzz.json", []byte(doc(long))); err != nil || hasCalls(c.Runs) {
		t.Errorf("a type of %d characters: %v, want it read, no call", len(long), err)
	}
}

// TestAuditSchemaIsNoArguments: a tool definition outside a catalog key
// whose "input" is a JSON Schema (properties, or "type": "object" with
// required or additionalProperties, four members at most) declares
// parameters, not a call's arguments: the file reads. An object of more
// members is arguments, and the tool it names a call no reader made.
func TestAuditSchemaIsNoArguments(t *testing.T) {
	doc := func(input string) string {
		return `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], ` +
			`"config": {"tool": {"name": "get_sum", "input": ` + input + `}}}`
	}
	for _, schema := range []string{
		`{"type": "object", "properties": {"a": {"type": "number"}}}`,
		`{"type": "object", "required": ["a"], "additionalProperties": false, "description": "adds"}`,
		`{"type": "object", "additionalProperties": false}`,
		`{"type": "object"}`,
		`{}`,
	} {
		if c, err := Read("fuzz.json", []byte(doc(schema))); err != nil || hasCalls(c.Runs) {
			t.Errorf("input %s: %v, want it read as a schema, no call", schema, err)
		}
	}
	for _, args := range []string{
		`{"type": "object", "required": ["a"], "additionalProperties": false, "description": "adds", "title": "x"}`,
		`{"type": "object", "a": 2, "b": 3}`,
		`{"a": 2, "b": 3}`,
	} {
		if _, err := Read("fuzz.json", []byte(doc(args))); err == nil || !strings.Contains(err.Error(), `naming the tool "get_sum"`) {
			t.Errorf("input %s: %v, want the call named", args, err)
		}
	}
}

// TestAuditToolCallAttributes: a span attribute that names the function
// of a tool call (…tool_calls.N.tool_call.function.name,
// …toolCalls.N.toolCall.function.name) in a span no reader takes a call
// from is a lost call, refused at the attribute; a function name of
// another kind of attribute is not.
func TestAuditToolCallAttributes(t *testing.T) {
	span := func(key string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab", "spanId": "01", "name": "step", "attributes": [` +
			`{"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}}, {"key": "` + key + `", "value": {"stringValue": "get-sum"}}, ` +
			`{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "5"}}]}]}]}]}`
	}
	for _, key := range []string{"step.tool_calls.0.tool_call.function.name", "step.toolCalls.0.toolCall.function.name"} {
		if _, err := Read("fuzz.json", []byte(span(key))); err == nil || !strings.Contains(err.Error(), `span attribute "`+key+`" naming the tool "get-sum"`) {
			t.Errorf("%s: %v, want the attribute named", key, err)
		}
	}
	for _, key := range []string{"step.function.name", "step.choice.function.name"} {
		if c, err := Read("fuzz.json", []byte(span(key))); err != nil || hasCalls(c.Runs) {
			t.Errorf("%s: %v, want it read, no call", key, err)
		}
	}
}
