package cassette

import (
	"reflect"
	"strings"
	"testing"
)

// TestMastraRules: a message list is Mastra's when every message's
// content is {"format": 2 or 3, "parts"}, alone or under "messages"; a
// tool-invocation part of state "result" is a call with its result (an
// MCP CallToolResult's isError fails it), one of state "call" a call
// without one; format 3's "tool-<name>" parts read as AI SDK 5's; a
// message that keeps only the older toolInvocations list reads it; the
// model is the content's metadata.modelId; a broken part is an error at
// it.
func TestMastraRules(t *testing.T) {
	msg := func(role, parts string, rest ...string) string {
		extra := ""
		if len(rest) > 0 {
			extra = ", " + strings.Join(rest, ", ")
		}
		return `{"id": "m", "role": "` + role + `", "content": {"format": 2, "parts": [` + parts + `]` + extra + `}}`
	}
	inv := func(state, id, name, rest string) string {
		return `{"type": "tool-invocation", "toolInvocation": {"state": "` + state + `", "toolCallId": "` + id +
			`", "toolName": "` + name + `", "args": {"q": "` + id + `"}` + rest + `}}`
	}
	doc := "[" + strings.Join([]string{
		msg("user", `{"type": "text", "text": "go"}`),
		msg("assistant", inv("result", "1", "search", `, "result": {"content": [{"type": "text", "text": "found"}]}`)+", "+
			inv("result", "2", "fetch", `, "result": {"content": [{"type": "text", "text": "denied"}], "isError": true}`)+", "+
			inv("call", "3", "pending", "")+`, {"type": "step-start"}, {"type": "text", "text": "done"}`,
			`"metadata": {"modelId": "gpt-x", "provider": "openai"}`),
		msg("assistant", `{"type": "text", "text": "and more"}`,
			`"toolInvocations": [{"state": "result", "toolCallId": "4", "toolName": "old", "args": {}, "result": "kept"}]`),
	}, ", ") + "]"
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].Calls() {
		got = append(got, call.Tool+"="+outcome(call))
	}
	want := []string{"search=found", "fetch=denied (error)", "pending=", "old=kept"}
	if !reflect.DeepEqual(got, want) || c.Format != FormatMastra || c.Model != "gpt-x" || c.Prompt != "go" ||
		c.Runs[0].Turns[0].FinalResponse != "and more" {
		t.Errorf("calls %q, format %s, model %q, prompt %q, turns %+v", got, c.Format, c.Model, c.Prompt, c.Runs[0].Turns)
	}

	// Format 3: AI SDK 5 UIMessage parts in the same place; the list under
	// "messages".
	v3 := `{"messages": [{"role": "user", "content": {"format": 3, "parts": [{"type": "text", "text": "go"}]}},
		{"role": "assistant", "content": {"format": 3, "parts": [{"type": "tool-get-sum", "toolCallId": "1", "state": "output-available",
		 "input": {"a": 2}, "output": {"content": [{"type": "text", "text": "5"}]}}]}}]}`
	c, err = Read("t.json", []byte(v3))
	if err != nil || c.Format != FormatMastra || len(c.Runs[0].Calls()) != 1 || resultText(c.Runs[0].Calls()[0].Result) != "5" {
		t.Errorf("format 3: %v %+v", err, c)
	}

	// Not Mastra's: a content that is no format 2/3 object in one message.
	mixed := `[{"role": "user", "content": "go"}, {"role": "assistant", "content": {"format": 2, "parts": []}}]`
	if c, err := Read("t.json", []byte(mixed)); err == nil && c.Format == FormatMastra {
		t.Errorf("a list with a plain message read as Mastra's")
	}

	// A tool part that names no tool is an error at it.
	bad := "[" + msg("assistant", `{"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "1", "args": {}}}`) + "]"
	if _, err := Read("t.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "[0].content.parts[0].toolInvocation") {
		t.Errorf("a nameless invocation: %v", err)
	}
}
