package cassette

import (
	"strings"
	"testing"
)

// TestStreamRules: Stream hands each run to each with the cassette's
// path set, only while the file has shown no problem, and takes a nil
// each, whatever the format.
func TestStreamRules(t *testing.T) {
	chat := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null,
		"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_sum", "arguments": "{}"}}]}]}`
	broken := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null,
		"tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}]}`
	v1 := `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"server": "s", "tool": "t", "arguments": {}}]}]}]}`
	for _, tt := range []struct {
		name, json string
		runs       int // handed to each; -1: the file is refused
	}{
		{"chat transcript", chat, 1},
		{"mcptest cassette", v1, 1},
		{"chat transcript with a problem", broken, -1},
		{"mcptest cassette with a problem", `{"mcptest_cassette": 1, "runs": [{"turns": 5}]}`, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			_, err := Stream("dir/rec.json", []byte(tt.json), func(c *Cassette, r *Run) {
				n++
				if c.Path != "dir/rec.json" {
					t.Errorf("each got the cassette of %q", c.Path)
				}
			})
			if (err != nil) != (tt.runs < 0) || n != max(tt.runs, 0) {
				t.Fatalf("%d runs handed to each, error %v; want %d", n, err, tt.runs)
			}
			if _, err := Stream("dir/rec.json", []byte(tt.json), nil); (err != nil) != (tt.runs < 0) {
				t.Fatalf("without each: error %v", err)
			}
		})
	}
}

// TestOutOfRangeDocument: a document that is one number out of range is
// refused for that number, as encoding/json words it, even at offset 0.
func TestOutOfRangeDocument(t *testing.T) {
	for _, doc := range []string{"1e999", " -1e400", `{"runs": 1e999}`} {
		if _, err := Read("n.json", []byte(doc)); err == nil || !strings.Contains(err.Error(), "is out of range") {
			t.Errorf("%s: got %v, want the number out of range", doc, err)
		}
	}
}

// TestTranscriptUnderKey: a transcript under a key other than "messages"
// places its problems under that key.
func TestTranscriptUnderKey(t *testing.T) {
	doc := `{"history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null,
		"tool_calls": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}]}]}`
	_, err := Read("t.json", []byte(doc))
	if err == nil || !strings.HasPrefix(err.Error(), "t.json:2:63: history[1].tool_calls[0].function: missing \"name\"") {
		t.Errorf("got %v", err)
	}
}

// TestClaudeCodeArray: Claude Code's stream-json events saved as one JSON
// array read as they do one a line.
func TestClaudeCodeArray(t *testing.T) {
	doc := `[{"type": "system", "subtype": "init", "session_id": "s1", "model": "claude-x", "tools": []},
		{"type": "assistant", "session_id": "s1", "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "mcp__calc__get_sum", "input": {"a": 1}}]}},
		{"type": "result", "subtype": "success", "session_id": "s1", "result": "done"}]`
	c, err := Read("session.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != FormatClaudeCode || len(c.Runs) != 1 || len(c.Runs[0].callList()) != 1 || c.Runs[0].callList()[0].Tool != "get_sum" {
		t.Errorf("format %s, runs %+v", c.Format, c.Runs)
	}
}

// TestCompletionChoiceWithoutMessage: a Chat Completions choice without
// its message is refused at that choice, alone.
func TestCompletionChoiceWithoutMessage(t *testing.T) {
	doc := `{"id": "r", "object": "chat.completion", "model": "gpt-x", "choices": [
		{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
			"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_sum", "arguments": "{}"}}]}},
		{"index": 1, "finish_reason": "length"}]}`
	_, err := Read("r.json", []byte(doc))
	if want := `r.json:4:3: choices[1]: missing "message": a choice holds the assistant message chosen [cassette]`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestResponsesFirstModel: a list of OpenAI Responses objects is the
// cassette of the first one's model.
func TestResponsesFirstModel(t *testing.T) {
	doc := `[{"object": "response", "model": "m1", "output": [{"type": "function_call", "call_id": "c1", "name": "get_sum", "arguments": "{}"}]},
		{"object": "response", "model": "m2", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "5"}]}]}]`
	c, err := Read("r.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != FormatResponses || c.Model != "m1" {
		t.Errorf("format %s, model %q, want m1", c.Format, c.Model)
	}
}

// TestCallIDRules: the id a function call's output names is call_id, else
// callId (the Agents SDK's items), else id; an empty one is no id.
func TestCallIDRules(t *testing.T) {
	for _, tt := range []struct {
		m    map[string]any
		want string
	}{
		{map[string]any{"call_id": "a", "callId": "b", "id": "c"}, "a"},
		{map[string]any{"call_id": "", "callId": "b", "id": "c"}, "b"},
		{map[string]any{"callId": "", "id": "c"}, "c"},
		{map[string]any{"call_id": "", "callId": "", "id": "c"}, "c"},
		{map[string]any{"callId": 7, "id": "c"}, "c"},
		{map[string]any{}, ""},
	} {
		if got := callID(tt.m); got != tt.want {
			t.Errorf("callID(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

// TestFunctionToolRules: a Responses tool definition is a tool of the
// catalog when it is a function with a name; built-in tools and nameless
// functions are not.
func TestFunctionToolRules(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want bool
	}{
		{map[string]any{"type": "function", "name": "get_sum", "parameters": map[string]any{}}, true},
		{map[string]any{"type": "file_search", "name": "fs"}, false},
		{map[string]any{"type": "function", "name": ""}, false},
		{map[string]any{"type": "function"}, false},
		{"get_sum", false},
	} {
		if tool, ok := functionTool(tt.v); ok != tt.want || (ok && tool["name"] != "get_sum") {
			t.Errorf("functionTool(%v) = %+v, %v; want %v", tt.v, tool, ok, tt.want)
		}
	}
}

// TestNullToolMembers: a tool definition whose parameters or annotations
// are null has none: its tools/list entry leaves them out.
func TestNullToolMembers(t *testing.T) {
	raw, ok := functionTool(map[string]any{"type": "function", "name": "get_sum", "parameters": nil})
	if _, has := raw["inputSchema"]; !ok || has || ToolOf(raw).InputSchema() != nil {
		t.Errorf("function tool with parameters null: %+v", raw)
	}
	tool, ok := responsesTool(&walker{}, map[string]any{"name": "get_sum", "input_schema": map[string]any{}, "annotations": nil})
	if _, has := tool.Raw()["annotations"]; !ok || has {
		t.Errorf("mcp_list_tools tool with annotations null: %+v", tool)
	}
	tool, _ = responsesTool(&walker{}, map[string]any{"name": "get_sum", "annotations": map[string]any{"readOnlyHint": true}})
	if _, has := tool.Raw()["annotations"]; !has {
		t.Errorf("mcp_list_tools tool with annotations: %+v", tool)
	}
}
