package cassette

import (
	"strings"
	"testing"
)

// TestLostCalls holds the no-silent-zero rule: a recording read with runs
// and no calls is refused where its content names a tool, in every shape
// the frameworks write; one that names none, or only offers tools, reads.
func TestLostCalls(t *testing.T) {
	for _, tt := range lostCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("fuzz.json", []byte(tt.json))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("got %v\nwant the prefix %s", err, tt.want)
			}
		})
	}
	read := []struct{ name, json string }{
		{"an answer without tools", `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`},
		{"tools offered, none called", `{"tools": [{"type": "function", "function": {"name": "get_sum", "parameters": {}}}],
			"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`},
		{"a tool's name as text", `{"messages": [{"role": "user", "content": "call tool.name get-sum"}, {"role": "assistant", "content": "no"}]}`},
	}
	for _, tt := range read {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("fuzz.json", []byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || hasCalls(c.Runs) {
				t.Fatalf("runs %+v", c.Runs)
			}
		})
	}
}

// lostCases are recordings whose calls a reader would lose, each with the
// start of its error; they seed FuzzRead too.
var lostCases = []struct{ name, json, want string }{
	{"openinference span", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab", "spanId": "01", "name": "get-sum",
			"attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}}, {"key": "tool.name", "value": {"stringValue": "get-sum"}},
			{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "5"}}]}]}]}]}`,
		`fuzz.json:2:90: resourceSpans[0].scopeSpans[0].spans[0].attributes[1]: the file reads as otel-genai with 1 run and no tool calls, but holds a "tool.name" span attribute naming the tool "get-sum", the shape of OpenInference TOOL spans (tool.name), which the otel-genai reader takes only where its format places it`},
	{"ai sdk ui chat row", `{"chat": {"id": "c", "messages": [{"role": "user", "parts": [{"type": "text", "text": "hi"}]},
			{"role": "assistant", "parts": [{"type": "tool-get-sum", "toolCallId": "c1", "state": "output-available", "input": {}}]}]}}`,
		`fuzz.json:2:36: chat.messages[1].parts[0]: unrecognized recording: it holds a "tool-get-sum" part naming the tool "get-sum", the shape of Vercel AI SDK UIMessage arrays (useChat messages), which the ai-sdk-ui-messages reader takes as a file of its own; tried`},
	{"agents sdk results", `[{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
			{"type": "function_call_result", "callId": "c1", "name": "get_sum", "output": {"type": "text", "text": "5"}},
			{"type": "function_call_result", "callId": "c2", "name": "echo", "output": {"type": "text", "text": "x"}}]`,
		`fuzz.json:2:4: [1]: the file reads as openai-responses with 1 run and no tool calls, but holds a "function_call_result" item naming the tool "get_sum", the shape of OpenAI Agents SDK protocol items (callId), which the openai-responses reader takes only where its format places it`},
	{"nested chat transcript", `{"result": {"conversation": {"messages": [{"role": "assistant", "content": null,
			"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_sum", "arguments": "{}"}}]}]}}}`,
		`fuzz.json:2:19: result.conversation.messages[0].tool_calls[0]: unrecognized recording: it holds an OpenAI tool call naming the tool "get_sum", the shape of OpenAI Chat Completions transcripts, which the openai-chat reader takes as a file of its own; tried`},
}
