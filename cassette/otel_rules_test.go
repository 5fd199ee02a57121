package cassette

import (
	"fmt"
	"strings"
	"testing"
)

// TestOTelReaderRules states rules of the OTLP span reader at their edges.
func TestOTelReaderRules(t *testing.T) {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	toolSpan := `{"traceId": "ab", "spanId": "03", "name": "execute_tool get-sum", "startTimeUnixNano": "5", "attributes": [` +
		attr("gen_ai.operation.name", "execute_tool") + `, ` + attr("gen_ai.tool.name", "get-sum") + `]}`
	for _, tt := range []struct {
		name, json string
		agent      string // the first call's agent; "" with err set: refused
		err        string
	}{
		// A member that is null is absent: no element, no problem.
		{"scopeSpans null", `{"resourceSpans": [{"scopeSpans": null}, {"scopeSpans": [{"spans": [` + toolSpan + `]}]}]}`, "", ""},
		{"start time null", `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Replace(toolSpan, `"5"`, `null`, 1) + `]}]}]}`, "", ""},
		{"spans a number", `{"resourceSpans": [{"scopeSpans": [{"spans": 7}]}]}`, "", "spans"},
		// The agent of a call is found walking up from its span's parent,
		// every span of the trace at most once: a span whose parents loop
		// back to it is its own agent.
		{"parents in a loop", `{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "ab", "spanId": "01", "parentSpanId": "02", "name": "bot", "startTimeUnixNano": "1", "attributes": [` +
			attr("openinference.span.kind", "AGENT") + `, ` +
			attr("gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get-sum", "arguments": {"a": 2}}]}]`) + `]},
			{"traceId": "ab", "spanId": "02", "parentSpanId": "01", "name": "loop", "startTimeUnixNano": "2", "attributes": []}]}]}]}`, "bot", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("spans.json", []byte(tt.json))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || len(c.Runs[0].callList()) != 1 || c.Runs[0].callList()[0].Agent != tt.agent {
				t.Fatalf("runs %+v, want one call by %q", c.Runs, tt.agent)
			}
		})
	}
}

// TestOTelSpanRules: an OpenInference TOOL span's arguments are its
// input.value only when it records no GenAI arguments; and the usage of a
// span with a span inside it that records usage (OpenInference counts
// too) is not counted again.
func TestOTelSpanRules(t *testing.T) {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	count := func(k string, n int) string { return fmt.Sprintf(`{"key": %q, "value": {"intValue": "%d"}}`, k, n) }
	tool := func(extra string) string {
		return `{"traceId": "ab", "spanId": "03", "parentSpanId": "01", "name": "get-sum", "startTimeUnixNano": "3", "attributes": [` +
			attr("openinference.span.kind", "TOOL") + `, ` + attr("tool.name", "get-sum") + `, ` + attr("input.value", `{"a": 2}`) + extra + `]}`
	}
	doc := func(rootCounts, spans string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "ab", "spanId": "01", "name": "agent", "startTimeUnixNano": "1", "attributes": [` + attr("openinference.span.kind", "CHAIN") + rootCounts + `]}, ` + spans + `]}]}]}`
	}
	llm := `{"traceId": "ab", "spanId": "02", "parentSpanId": "01", "name": "model", "startTimeUnixNano": "2", "attributes": [` +
		attr("openinference.span.kind", "LLM") + `, ` + count("llm.token_count.prompt", 10) + `, ` + count("llm.token_count.completion", 5) + `]}`
	repeat := `, ` + count("llm.token_count.prompt", 10) + `, ` + count("llm.token_count.completion", 5)
	for _, tt := range []struct {
		name, json string
		arg        float64
		tokens     *Tokens
	}{
		{"input.value read", doc("", tool("")), 2, nil},
		{"GenAI arguments win", doc("", tool(`, `+attr("gen_ai.tool.call.arguments", `{"a": 1}`))), 1, nil},
		{"a total repeated by the enclosing span", doc(repeat, llm+`, `+tool("")), 2, &Tokens{Input: 10, Output: 5, Total: 15}},
		{"the enclosing span's own usage", doc(repeat, tool("")), 2, &Tokens{Input: 10, Output: 5, Total: 15}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("spans.json", []byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || len(c.Runs[0].callList()) != 1 {
				t.Fatalf("runs %+v, want one call", c.Runs)
			}
			if args, _ := c.Runs[0].callList()[0].Arguments.Value().(map[string]any); args["a"] != tt.arg {
				t.Fatalf("runs %+v, want one call with a = %v", c.Runs, tt.arg)
			}
			got := c.Runs[0].Tokens
			if (got == nil) != (tt.tokens == nil) || (got != nil && *got != *tt.tokens) {
				t.Errorf("tokens %+v, want %+v", got, tt.tokens)
			}
		})
	}
}

// TestOTelModelCalls: a trace without tool spans is read from its model
// calls' messages: each tool_call part is a call by the span's agent (its
// own gen_ai.agent.name, else the invoke_agent span around it), answered
// by the first tool_call_response with its id (a response to no call is
// passed over); the prompt is the first user message with text and the
// answer the last assistant message with text.
func TestOTelModelCalls(t *testing.T) {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	span := func(id, parent, start string, attrs ...string) string {
		return `{"traceId": "ab", "spanId": "` + id + `", "parentSpanId": "` + parent + `", "name": "s` + id + `", "startTimeUnixNano": "` + start +
			`", "attributes": [` + strings.Join(attrs, ", ") + `]}`
	}
	chat := func(name string) string { return attr("gen_ai.operation.name", name) }
	doc := span("01", "", "1", chat("invoke_agent"), attr("gen_ai.agent.name", "outer")) + `, ` +
		span("02", "01", "2", chat("chat"),
			attr("gen_ai.input.messages", `[{"role": "user", "parts": [{"type": "blob", "content": "x"}]}, {"role": "user", "parts": [{"type": "text", "content": "What is 2 + 3?"}]}]`),
			attr("gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "text", "content": "Let me add."}]}, {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get-sum", "arguments": {"a": 2}}]}]`)) + `, ` +
		span("03", "01", "3", chat("chat"), attr("gen_ai.agent.name", "inner"),
			attr("gen_ai.input.messages", `[{"role": "tool", "parts": [{"type": "tool_call_response", "id": "nope", "response": "9"}, {"type": "tool_call_response", "id": "c1", "response": "5"}, {"type": "tool_call_response", "id": "c1", "response": "6"}]}]`),
			attr("gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c2", "name": "echo", "arguments": {}}]}]`))
	c, err := Read("spans.json", []byte(`{"resourceSpans": [{"scopeSpans": [{"spans": [`+doc+`]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 1 {
		t.Fatalf("runs %+v", c.Runs)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.Agent+":"+call.Tool+"="+resultText(call.Result))
	}
	if want := "outer:get-sum=5 inner:echo="; strings.Join(got, " ") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, " "), want)
	}
	if c.Prompt != "What is 2 + 3?" || c.Runs[0].Turns[len(c.Runs[0].Turns)-1].FinalResponse != "Let me add." {
		t.Errorf("prompt %q, answer %q", c.Prompt, c.Runs[0].Turns[len(c.Runs[0].Turns)-1].FinalResponse)
	}
}
