package cassette

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// chatSpan is a GenAI chat span that is a trace of its own (no span
// around it), started at start, with its conversation so far (in) and its
// output parts (out) as OpenLLMetry records them; nil in and out record
// no messages.
func chatSpan(id string, start int, in, out any, extra ...string) string {
	attrs := []string{oiAttr("gen_ai.operation.name", "chat"), oiNum("gen_ai.usage.input_tokens", 10)}
	if in != nil {
		b, _ := json.Marshal(in)
		attrs = append(attrs, oiAttr("gen_ai.input.messages", string(b)))
	}
	if out != nil {
		b, _ := json.Marshal([]any{map[string]any{"role": "assistant", "parts": out}})
		attrs = append(attrs, oiAttr("gen_ai.output.messages", string(b)))
	}
	attrs = append(attrs, extra...)
	return `{"traceId": "tr` + id + `", "spanId": "sp` + id + `", "name": "chat m", "startTimeUnixNano": "` + strconv.Itoa(start) +
		`", "endTimeUnixNano": "` + strconv.Itoa(start+5) + `", "attributes": [` + strings.Join(attrs, ", ") + `]}`
}

// oiLLMSpan is an OpenInference LLM span, a trace of its own, whose input
// messages have the roles given (no tool call ids) and whose output calls
// tool under id ("" for an answer).
func oiLLMSpan(id string, start int, roles []string, tool, callID string) string {
	attrs := []string{oiAttr("openinference.span.kind", "LLM"), oiNum("llm.token_count.prompt", 10)}
	for i, r := range roles {
		attrs = append(attrs, oiAttr("llm.input_messages."+strconv.Itoa(i)+".message.role", r), oiAttr("llm.input_messages."+strconv.Itoa(i)+".message.content", "m"))
	}
	attrs = append(attrs, oiAttr("llm.output_messages.0.message.role", "assistant"))
	if tool != "" {
		attrs = append(attrs, oiAttr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", tool),
			oiAttr("llm.output_messages.0.message.tool_calls.0.tool_call.id", callID),
			oiAttr("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", "{}"))
	} else {
		attrs = append(attrs, oiAttr("llm.output_messages.0.message.content", "done"))
	}
	return `{"traceId": "tr` + id + `", "spanId": "sp` + id + `", "name": "llm", "startTimeUnixNano": "` + strconv.Itoa(start) +
		`", "endTimeUnixNano": "` + strconv.Itoa(start+5) + `", "attributes": [` + strings.Join(attrs, ", ") + `]}`
}

func userMsg(text string) map[string]any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": text}}}
}

func callPart(id, name string) map[string]any {
	return map[string]any{"type": "tool_call", "id": id, "name": name, "arguments": map[string]any{}}
}

func resultPart(id string) map[string]any {
	return map[string]any{"type": "tool_call_response", "id": id, "response": "result " + id}
}

// TestRootlessJoinRules: how the spans of runs with no span around them
// are grouped, case by case: a continuation joins the latest run that
// issued the calls it carries, saying when several did; one that carries
// calls only in a user message still continues; one that continues a
// conversation none of whose calls was seen joins the run before it,
// saying so; a trace of a tool's execution alone is no fragment of a run;
// spans with neither messages nor a session id are each a run, with the
// advice to give them a session id.
func TestRootlessJoinRules(t *testing.T) {
	text := []any{map[string]any{"type": "text", "content": "done"}}
	tool := func(m map[string]any) map[string]any { return map[string]any{"role": "tool", "parts": []any{m}} }
	asst := func(parts ...any) map[string]any { return map[string]any{"role": "assistant", "parts": parts} }
	for _, tc := range []struct {
		name  string
		spans []string
		want  [][]string
		warn  []string // each in the warnings
		not   []string // none in the warnings
	}{{
		name: "the same call id in two runs: the latest",
		spans: []string{
			chatSpan("1", 100, []any{userMsg("a")}, []any{callPart("call_1", "get-sum")}),
			chatSpan("2", 110, []any{userMsg("a"), asst(callPart("call_1", "get-sum")), tool(resultPart("call_1"))}, text),
			chatSpan("3", 200, []any{userMsg("b")}, []any{callPart("call_1", "echo")}),
			chatSpan("4", 210, []any{userMsg("b"), asst(callPart("call_1", "echo")), tool(resultPart("call_1"))}, []any{callPart("call_2", "add")}),
			chatSpan("5", 220, []any{userMsg("b"), asst(callPart("call_1", "echo")), tool(resultPart("call_1")), asst(callPart("call_2", "add")), tool(resultPart("call_2"))}, text),
		},
		want: [][]string{{"get-sum"}, {"echo", "add"}},
		warn: []string{"could not be told apart", "read as 2 runs"},
	}, {
		name: "calls carried in a user message",
		spans: []string{
			chatSpan("1", 100, []any{userMsg("a")}, []any{callPart("c1", "get-sum")}),
			chatSpan("2", 110, []any{map[string]any{"role": "user", "parts": []any{resultPart("c1")}}}, text),
		},
		want: [][]string{{"get-sum"}},
		warn: []string{"read as 1 run, 1 traces joined"},
		not:  []string{"apart"},
	}, {
		name: "a continuation of calls never seen",
		spans: []string{
			chatSpan("1", 100, []any{userMsg("a")}, []any{callPart("c1", "get-sum")}),
			chatSpan("2", 110, []any{userMsg("a"), asst(callPart("c9", "echo")), tool(resultPart("c9"))}, text),
		},
		want: [][]string{{"get-sum"}},
		warn: []string{"1 trace of model calls could not be told apart", "read as 1 run"},
	}, {
		name: "a tool's execution alone beside one model call",
		spans: []string{
			chatSpan("1", 100, []any{userMsg("a")}, text),
			`{"traceId": "trx", "spanId": "spx", "name": "execute_tool get-sum", "startTimeUnixNano": "150", "endTimeUnixNano": "160", "attributes": [` +
				oiAttr("gen_ai.operation.name", "execute_tool") + `, ` + oiAttr("gen_ai.tool.name", "get-sum") + `]}`,
		},
		not: []string{"record neither messages"},
	}, {
		name: "generate_content and text_completion spans",
		spans: []string{
			chatSpan("1", 100, []any{userMsg("a")}, []any{callPart("c1", "get-sum")}, oiAttr("gen_ai.operation.name", "generate_content")),
			chatSpan("2", 110, []any{userMsg("a"), asst(callPart("c1", "get-sum")), tool(resultPart("c1"))}, []any{callPart("c2", "echo")}, oiAttr("gen_ai.operation.name", "text_completion")),
			chatSpan("3", 120, []any{userMsg("a"), asst(callPart("c2", "echo")), tool(resultPart("c2"))}, text, oiAttr("gen_ai.operation.name", "generate_content")),
		},
		want: [][]string{{"get-sum", "echo"}},
		warn: []string{"read as 1 run, 2 traces joined"},
	}, {
		name: "OpenInference: a tool message without an id continues",
		spans: []string{
			oiLLMSpan("1", 100, []string{"user"}, "get-sum", "c1"),
			oiLLMSpan("2", 110, []string{"user", "tool"}, "", ""),
		},
		want: [][]string{{"get-sum"}},
		warn: []string{"read as 1 run", "could not be told apart"},
	}, {
		name: "no messages, no session",
		spans: []string{
			chatSpan("1", 100, nil, nil),
			chatSpan("2", 110, nil, nil),
		},
		warn: []string{"record neither messages nor a session id", "give its spans a session id"},
		not:  []string{"open a span around each run so its spans share its trace"},
	}, {
		name: "a session id each",
		spans: []string{
			chatSpan("1", 100, nil, []any{callPart("c1", "get-sum")}, oiAttr("session.id", "s1")),
			chatSpan("2", 110, nil, []any{callPart("c2", "echo")}, oiAttr("session.id", "s2")),
			chatSpan("3", 120, nil, text, oiAttr("session.id", "s1")),
		},
		want: [][]string{{"get-sum"}, {"echo"}},
		warn: []string{"read as 2 runs, 1 traces joined by their session id", "open a span around each run so its spans share its trace"},
		not:  []string{"conversation carries"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Read("t.json", oiDoc(tc.spans...))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				var got [][]string
				for _, r := range c.Runs {
					var calls []string
					for _, call := range r.callList() {
						calls = append(calls, call.Tool)
					}
					got = append(got, calls)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("runs' calls %q, want %q (warnings %q)", got, tc.want, c.Warnings)
				}
			}
			warnings := strings.Join(c.Warnings, " ")
			for _, w := range tc.warn {
				if !strings.Contains(warnings, w) {
					t.Errorf("the warnings %q say nothing of %q", c.Warnings, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(warnings, w) {
					t.Errorf("the warnings %q say %q", c.Warnings, w)
				}
			}
		})
	}
}
