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
	for _, call := range c.Runs[0].callList() {
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
	if err != nil || c.Format != FormatMastra || len(c.Runs[0].callList()) != 1 || resultText(c.Runs[0].callList()[0].Result) != "5" {
		t.Errorf("format 3: %v %+v", err, c)
	}

	// Format 1 (MastraMessageV1): AI SDK 4 parts in a content array, read
	// as ModelMessages.
	v1 := `[{"id": "1", "role": "user", "type": "text", "content": "go", "threadId": "t"},
		{"id": "2", "role": "assistant", "type": "tool-call", "threadId": "t",
		 "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "get-sum", "args": {"a": 2}}]},
		{"id": "3", "role": "tool", "type": "tool-result", "threadId": "t",
		 "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "get-sum", "result": "5"}]}]`
	c, err = Read("t.json", []byte(v1))
	if err != nil || c.Format != FormatAISDKMessages || len(c.Runs[0].callList()) != 1 || outcome(c.Runs[0].callList()[0]) != "5" {
		t.Errorf("format 1: %v %+v", err, c)
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

// TestFrameworkShapesNotLost: the call-shaped data of the Mastra,
// LlamaIndex.TS and Inspect readers, where those readers do not look
// (among messages of another shape, nested in another document), refuses
// the file at it, naming the reader that takes it, rather than reading a
// run without calls.
func TestFrameworkShapesNotLost(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`[{"role": "user", "content": "go"}, {"role": "assistant", "content": {"format": 2, "parts": [
			{"type": "tool-invocation", "toolInvocation": {"state": "result", "toolCallId": "1", "toolName": "get-sum", "args": {}, "result": "5"}}]}}]`,
			`naming the tool "get-sum", the shape of Mastra messages (content {"format": 2, "parts"}) and AI SDK 4 UIMessages, which the mastra-messages reader takes`},
		{`{"run": {"messages": [{"role": "user", "content": "go"}]}, "log": [{"type": "8", "data": {"agentName": "a", "toolName": "get-sum", "toolKwargs": {}, "toolId": "1"}}]}`,
			`log[0].data: unrecognized recording: it holds a LlamaIndex.TS agent tool call naming the tool "get-sum"`},
		{`{"chat": {"messages": [{"role": "user", "content": "go"}]}, "saved": {"options": {"toolCall": [{"id": "1", "name": "get-sum", "input": {}}]}}}`,
			`saved.options: unrecognized recording: it holds a LlamaIndex.TS message's options.toolCall naming the tool "get-sum"`},
		{`{"sample": {"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "calls": [{"id": "1", "function": "get-sum", "arguments": {"a": 2}}]}]}}`,
			`holds an Inspect AI tool call naming the tool "get-sum"`},
	} {
		_, err := Read("t.json", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n%v\nwant %q", tc.doc, err, tc.want)
		}
	}
}
