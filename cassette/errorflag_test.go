package cassette

import (
	"strings"
	"testing"
)

// TestSpanErrorFlag: the OTel span that records a tool call marks the call
// failed by its status code ERROR (2, or the enum's name), by an
// error.type attribute, or by an isError result; an OK or unset status,
// with neither, is a call that succeeded.
func TestSpanErrorFlag(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		failed      bool
	}{
		{"status code 2", `"status": {"code": 2}`, true},
		{"status STATUS_CODE_ERROR", `"status": {"code": "STATUS_CODE_ERROR"}`, true},
		{"status code 1 (OK)", `"status": {"code": 1}`, false},
		{"status STATUS_CODE_OK", `"status": {"code": "STATUS_CODE_OK"}`, false},
		{"status code 0 (unset)", `"status": {"code": 0, "message": "error"}`, false},
		{"no status", `"name": "execute_tool echo"`, false},
		{"error.type", `"attributes": [{"key": "error.type", "value": {"stringValue": "timeout"}}]`, true},
		{"isError result", `"attributes": [{"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\"content\": [], \"isError\": true}"}}]`, true},
		{"isError false", `"attributes": [{"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\"content\": [], \"isError\": false}"}}]`, false},
	} {
		span := `{"traceId": "t", "spanId": "a", "name": "execute_tool echo", ` + tc.extra + `}`
		if strings.HasPrefix(tc.extra, `"name"`) {
			span = `{"traceId": "t", "spanId": "a", ` + tc.extra + `}`
		}
		doc := `{"resourceSpans": [{"scopeSpans": [{"spans": [` + span + `]}]}]}`
		c, err := Read("t.json", []byte(doc))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		calls := c.Runs[0].callList()
		if len(calls) != 1 || calls[0].Tool != "echo" || calls[0].IsError != tc.failed {
			t.Errorf("%s: calls %+v, want one call to echo with is_error %v", tc.name, calls, tc.failed)
		}
	}
}

// TestTranscriptErrorFlag: a chat transcript's tool result is failed by
// its own is_error (Anthropic's tool_result block, an OpenAI tool
// message), and an OpenAI message's isError, when given, wins over
// is_error.
func TestTranscriptErrorFlag(t *testing.T) {
	openai := func(fields string) string {
		return `{"messages": [{"role": "user", "content": "go"},
{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}]},
{"role": "tool", "tool_call_id": "c1", "content": "x"` + fields + `},
{"role": "assistant", "content": "done"}]}`
	}
	anthropic := func(fields string) string {
		return `{"messages": [{"role": "user", "content": "go"},
{"role": "assistant", "content": [{"type": "tool_use", "id": "u1", "name": "echo", "input": {}}]},
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u1", "content": "x"` + fields + `}]},
{"role": "assistant", "content": [{"type": "text", "text": "done"}]}]}`
	}
	for _, tc := range []struct {
		name, doc string
		failed    bool
	}{
		{"openai, no flag", openai(""), false},
		{"openai is_error", openai(`, "is_error": true`), true},
		{"openai isError", openai(`, "isError": true`), true},
		{"openai isError false wins", openai(`, "is_error": true, "isError": false`), false},
		{"anthropic, no flag", anthropic(""), false},
		{"anthropic is_error", anthropic(`, "is_error": true`), true},
	} {
		c, err := Read("t.json", []byte(tc.doc))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		calls := c.Runs[0].callList()
		if len(calls) != 1 || calls[0].Tool != "echo" || calls[0].IsError != tc.failed {
			t.Errorf("%s: calls %+v, want one call to echo with is_error %v", tc.name, calls, tc.failed)
		}
	}
}
