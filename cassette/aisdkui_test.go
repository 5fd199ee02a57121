package cassette

import (
	"reflect"
	"strings"
	"testing"
)

// TestUIMessageRules states what the UIMessage reader takes of a tool
// part in each state, and of the AI SDK 4 shape: a result only once the
// state has one, a failure for an error, a denial or a CallToolResult
// marked isError, the last text of the assistant's steps as the answer,
// the first user text as the prompt.
func TestUIMessageRules(t *testing.T) {
	user := `{"role": "user", "parts": [{"type": "text", "text": "add"}]}`
	for _, tt := range []struct {
		name, part string
		want       string // call=result (error)
	}{
		{"output available", `{"type": "tool-get-sum", "toolCallId": "c1", "state": "output-available", "input": {"a": 1}, "output": {"content": [{"type": "text", "text": "3"}]}}`, "get-sum=3"},
		{"an MCP error as the output", `{"type": "dynamic-tool", "toolName": "get-sum", "toolCallId": "c1", "state": "output-available", "input": {}, "output": {"content": [{"type": "text", "text": "bad a"}], "isError": true}}`, "get-sum=bad a (error)"},
		{"a plain value as the output", `{"type": "tool-get-sum", "toolCallId": "c1", "state": "output-available", "input": {}, "output": 5}`, "get-sum=5"},
		{"output error", `{"type": "tool-get-sum", "toolCallId": "c1", "state": "output-error", "input": {}, "errorText": "timeout"}`, "get-sum=timeout (error)"},
		{"output denied", `{"type": "tool-delete", "toolCallId": "c1", "state": "output-denied", "input": {}, "approval": {"id": "a", "approved": false, "reason": "not now"}}`, "delete=denied not now (error)"},
		{"input available: no result yet", `{"type": "tool-get-sum", "toolCallId": "c1", "state": "input-available", "input": {}}`, "get-sum="},
		{"an MCP server's tool by its prefixed name", `{"type": "dynamic-tool", "toolName": "mcp__everything__echo", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "hi"}`, "everything.echo=hi"},
		{"AI SDK 4 tool invocation", `{"type": "tool-invocation", "toolInvocation": {"toolCallId": "c1", "toolName": "get-sum", "state": "result", "args": {"a": 1}, "result": "3"}}`, "get-sum=3"},
		{"AI SDK 4 call without result", `{"type": "tool-invocation", "toolInvocation": {"toolCallId": "c1", "toolName": "get-sum", "state": "call", "args": {}}}`, "get-sum="},
		// A tool-invocation part without its toolInvocation is no call:
		// the part beside it is the only one.
		{"AI SDK 4 part without its invocation", `{"type": "tool-invocation"}, {"type": "tool-get-sum", "toolCallId": "c2", "state": "input-available", "input": {}}`, "get-sum="},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := `[` + user + `, {"role": "assistant", "parts": [{"type": "step-start"}, {"type": "text", "text": "Let me add."}, ` +
				tt.part + `, {"type": "text", "text": "Done."}]}]`
			c, err := Read("ui.json", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if c.Format != FormatAISDKUIMessages || len(c.Runs) != 1 || c.Prompt != "add" {
				t.Fatalf("format %s, %d runs, prompt %q", c.Format, len(c.Runs), c.Prompt)
			}
			var got []string
			for _, call := range c.Runs[0].callList() {
				s := call.ID() + "=" + outcome(call)
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, []string{tt.want}) {
				t.Errorf("calls %q, want %q", got, tt.want)
			}
			if turns := c.Runs[0].Turns; len(turns) != 1 || turns[0].FinalResponse != "Done." {
				t.Errorf("turns %+v, want one answered with the last text", turns)
			}
		})
	}
}

// TestUIMessageErrors: a chat saved whole ({"id", "messages"}) reads; a
// tool part that names no tool, or parts that are no array, are refused
// at their position.
func TestUIMessageErrors(t *testing.T) {
	saved := `{"id": "chat1", "messages": [{"role": "user", "parts": [{"type": "text", "text": "add"}]},
		{"role": "assistant", "parts": [{"type": "tool-get-sum", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "5"}]}]}`
	if c, err := Read("ui.json", []byte(saved)); err != nil || c.Format != FormatAISDKUIMessages || len(c.Runs[0].callList()) != 1 {
		t.Errorf("a saved chat: %v", err)
	}
	for _, tt := range []struct{ doc, want string }{
		// In a saved chat, the position runs through its "messages".
		{`{"id": "chat1", "messages": [{"role": "user", "parts": [{"type": "text", "text": "add"}]},
		{"role": "assistant", "parts": [{"type": "dynamic-tool", "toolCallId": "c1", "state": "input-available", "input": {}}]}]}`,
			`ui.json:2:35: messages[1].parts[0]: the tool part names no tool`},
		{`[{"role": "user", "parts": [{"type": "text", "text": "add"}]},
		{"role": "assistant", "parts": [{"type": "dynamic-tool", "toolCallId": "c1", "state": "input-available", "input": {}}]}]`,
			`ui.json:2:35: [1].parts[0]: the tool part names no tool: expected a "tool-<name>" type or a "toolName"`},
		{`[{"role": "user", "parts": "add"},
		{"role": "assistant", "parts": [{"type": "tool-get-sum", "toolCallId": "c1", "state": "input-available", "input": {}}]}]`,
			`ui.json:1:28: [0].parts: expected the message's parts, an array, found the string "add"`},
	} {
		_, err := Read("ui.json", []byte(tt.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("got %v\nwant the prefix %s", err, tt.want)
		}
	}
}
