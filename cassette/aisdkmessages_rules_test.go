package cassette

import (
	"reflect"
	"strings"
	"testing"
)

// TestModelMessagesRules: a message list is the AI SDK's when a message
// holds a "tool-call" or a "tool-result" part (either alone); a call's
// arguments are its "input", else its "args"; a tool-call part without a
// "toolName", or with one that is not a non-empty string, is an error at
// it; a tool's text parts are not the answer; "content" and "error-json"
// outputs are a result and a failure.
func TestModelMessagesRules(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		aiSDK     bool
	}{
		{"a tool-call part", `[{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "1", "toolName": "t", "input": {}}]}]`, true},
		{"a tool-result part after its call", `[{"role": "user", "content": "go"}, {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "1", "toolName": "t", "input": {}}]}, {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "1", "toolName": "t", "output": {"type": "text", "value": "x"}}]}]`, true},
		// A result whose call the file does not hold is refused (audit.go).
		{"a tool-result part without its call", `[{"role": "user", "content": "go"}, {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "1", "toolName": "t", "output": {"type": "text", "value": "x"}}]}]`, false},
		{"text parts only", `[{"role": "user", "content": [{"type": "text", "text": "go"}]}, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]`, false},
		{"in the messages of a response", `{"messages": [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "1", "toolName": "t", "input": {}}]}]}`, true},
	} {
		c, err := Read("t.json", []byte(tc.doc))
		if got := err == nil && c.Format == FormatAISDKMessages; got != tc.aiSDK {
			t.Errorf("%s: %v; AI SDK messages %v, want %v", tc.name, err, got, tc.aiSDK)
		}
	}

	doc := `[{"role": "user", "content": [{"type": "text", "text": "go"}]},
		{"role": "assistant", "content": [{"type": "text", "text": "calling"},
			{"type": "tool-call", "toolCallId": "1", "toolName": "a", "input": {"x": 1}, "args": {"x": 2}},
			{"type": "tool-call", "toolCallId": "2", "toolName": "b", "args": {"y": 3}},
			{"type": "tool-call", "toolCallId": "3", "toolName": "c"}]},
		{"role": "tool", "content": [{"type": "text", "text": "tool chatter"},
			{"type": "tool-result", "toolCallId": "1", "toolName": "a", "output": {"type": "content", "value": [{"type": "text", "text": "a out"}]}},
			{"type": "tool-result", "toolCallId": "2", "toolName": "b", "output": {"type": "error-json", "value": {"code": 1}}}]},
		{"role": "assistant", "content": "the answer"}]`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		s := call.Tool + "=" + outcome(call)
		got = append(got, s)
	}
	if want := []string{"a=a out", `b={"code":1} (error)`, "c="}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	calls := c.Runs[0].callList()
	if len(calls) == 3 && (!reflect.DeepEqual(calls[0].Arguments.Value(), map[string]any{"x": 1.0}) || !reflect.DeepEqual(calls[1].Arguments.Value(), map[string]any{"y": 3.0})) {
		t.Errorf("arguments %v and %v, want the input, else the args", calls[0].Arguments, calls[1].Arguments)
	}
	if turns := c.Runs[0].Turns; turns[len(turns)-1].FinalResponse != "the answer" || c.Prompt != "go" {
		t.Errorf("answer %q, prompt %q", turns[len(turns)-1].FinalResponse, c.Prompt)
	}

	for _, tc := range []struct{ part, want string }{
		{`{"type": "tool-call", "toolCallId": "1", "input": {}}`, `missing "toolName"`},
		{`{"type": "tool-call", "toolCallId": "1", "toolName": "", "input": {}}`, "toolName"},
		{`{"type": "tool-call", "toolCallId": "1", "toolName": 7, "input": {}}`, "toolName"},
	} {
		_, err := Read("t.json", []byte(`[{"role": "assistant", "content": [`+tc.part+`, {"type": "tool-call", "toolCallId": "2", "toolName": "t", "input": {}}]}]`))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "[0].content[0]") {
			t.Errorf("%s: %v, want an error at [0].content[0] naming %s", tc.part, err, tc.want)
		}
	}
}
