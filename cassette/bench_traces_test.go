package cassette

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The same generated runs (benchConfig, 10 runs, 45 KB as a v1 cassette)
// written in each recording format, so the readers can be compared on the
// same content and checked to read the same calls.

// asLines writes one JSON value per line.
func asLines(values []any) []byte {
	var b strings.Builder
	for _, v := range values {
		line, _ := json.Marshal(v)
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func argsString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func resultText(v any) string {
	if j, ok := v.(JSON); ok {
		v = j.Value()
	}
	m, _ := v.(map[string]any)
	content, _ := m["content"].([]any)
	return text(content)
}

func mcpName(c Call) string { return "mcp__" + c.Server + "__" + c.Tool }

// asChat writes each run as an OpenAI Chat Completions transcript, one a
// line.
func asChat(c *Cassette) []byte {
	var lines []any
	for _, r := range c.Runs {
		var msgs []any
		for ti, t := range r.Turns {
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("turn %d", ti)})
			var calls, results []any
			for ci, call := range t.Calls {
				id := fmt.Sprintf("call_%d_%d", ti, ci)
				calls = append(calls, map[string]any{"id": id, "type": "function",
					"function": map[string]any{"name": mcpName(call), "arguments": argsString(call.Arguments)}})
				results = append(results, map[string]any{"role": "tool", "tool_call_id": id, "content": resultText(call.Result)})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": calls})
			msgs = append(msgs, results...)
			msgs = append(msgs, map[string]any{"role": "assistant", "content": t.FinalResponse})
		}
		lines = append(lines, map[string]any{"model": c.Model, "messages": msgs})
	}
	return asLines(lines)
}

// asResponses writes each run as a Responses API conversation (input
// items and response objects), one a line.
func asResponses(c *Cassette) []byte {
	var lines []any
	for _, r := range c.Runs {
		var items []any
		for ti, t := range r.Turns {
			items = append(items, map[string]any{"role": "user", "content": fmt.Sprintf("turn %d", ti)})
			var out, outputs []any
			for ci, call := range t.Calls {
				id := fmt.Sprintf("call_%d_%d", ti, ci)
				out = append(out, map[string]any{"type": "function_call", "call_id": id, "name": mcpName(call), "arguments": argsString(call.Arguments)})
				outputs = append(outputs, map[string]any{"type": "function_call_output", "call_id": id, "output": resultText(call.Result)})
			}
			items = append(items, map[string]any{"object": "response", "model": c.Model, "output": out})
			items = append(items, outputs...)
			items = append(items, map[string]any{"object": "response", "model": c.Model, "output": []any{
				map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": t.FinalResponse}}}}})
		}
		lines = append(lines, items)
	}
	return asLines(lines)
}

// asOTel writes every run as a trace of execute_tool spans in one OTLP
// JSON export request.
func asOTel(c *Cassette) []byte {
	str := func(k, v string) any { return map[string]any{"key": k, "value": map[string]any{"stringValue": v}} }
	var spans []any
	at := int64(1_700_000_000_000_000_000)
	for ri, r := range c.Runs {
		for ci, call := range r.callList() {
			at += 1_000_000
			spans = append(spans, map[string]any{
				"traceId": fmt.Sprintf("%032x", ri+1), "spanId": fmt.Sprintf("%016x", ci+1), "name": "execute_tool " + call.Tool,
				"startTimeUnixNano": fmt.Sprint(at), "endTimeUnixNano": fmt.Sprint(at + 500_000),
				"attributes": []any{str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", mcpName(call)),
					str("gen_ai.tool.call.arguments", argsString(call.Arguments)), str("gen_ai.tool.call.result", resultText(call.Result))},
			})
		}
	}
	doc, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": spans}}}}})
	return doc
}

// asClaude writes each run as a Claude Code stream-json session.
func asClaude(c *Cassette) []byte {
	var events []any
	for ri, r := range c.Runs {
		sid := fmt.Sprint("session-", ri)
		events = append(events, map[string]any{"type": "system", "subtype": "init", "session_id": sid, "model": c.Model, "tools": []any{}})
		for ti, t := range r.Turns {
			var uses, results []any
			for ci, call := range t.Calls {
				id := fmt.Sprintf("toolu_%d_%d", ti, ci)
				uses = append(uses, map[string]any{"type": "tool_use", "id": id, "name": mcpName(call), "input": call.Arguments})
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": id, "content": resultText(call.Result)})
			}
			events = append(events,
				map[string]any{"type": "assistant", "session_id": sid, "message": map[string]any{"role": "assistant", "content": uses}},
				map[string]any{"type": "user", "session_id": sid, "message": map[string]any{"role": "user", "content": results}},
				map[string]any{"type": "assistant", "session_id": sid, "message": map[string]any{"role": "assistant",
					"content": []any{map[string]any{"type": "text", "text": t.FinalResponse}}}})
		}
		events = append(events, map[string]any{"type": "result", "subtype": "success", "session_id": sid})
	}
	return asLines(events)
}

// recordingFormats are the generated runs in each format.
func recordingFormats(tb testing.TB) (*Cassette, map[Format][]byte) {
	v1 := generate(benchConfig)
	c, err := Read("bench.json", v1)
	if err != nil {
		tb.Fatal(err)
	}
	return c, map[Format][]byte{
		FormatV1: v1, FormatOpenAI: asChat(c), FormatResponses: asResponses(c), FormatOTel: asOTel(c), FormatClaudeCode: asClaude(c),
	}
}

// TestFormatsReadTheSameCalls: the generated runs, written in every
// format, read back as the same calls (tool, server, arguments) in the
// same runs.
func TestFormatsReadTheSameCalls(t *testing.T) {
	want, files := recordingFormats(t)
	for f, data := range files {
		c, err := Read("bench", data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Format != f || len(c.Runs) != len(want.Runs) {
			t.Fatalf("%s: read as %s with %d runs, want %d", f, c.Format, len(c.Runs), len(want.Runs))
		}
		for i, r := range c.Runs {
			got, exp := r.callList(), want.Runs[i].callList()
			if len(got) != len(exp) {
				t.Fatalf("%s: run %d has %d calls, want %d", f, i, len(got), len(exp))
			}
			for j := range got {
				if got[j].ID() != exp[j].ID() || !reflect.DeepEqual(got[j].Arguments.Value(), exp[j].Arguments.Value()) {
					t.Fatalf("%s: run %d call %d is %s %v, want %s %v", f, i, j, got[j].ID(), got[j].Arguments, exp[j].ID(), exp[j].Arguments)
				}
			}
		}
	}
}

// BenchmarkReadFormats reads the same runs in each format.
//
//	go test ./cassette -run '^$' -bench ReadFormats -benchmem
func BenchmarkReadFormats(b *testing.B) {
	_, files := recordingFormats(b)
	for _, f := range []Format{FormatV1, FormatOpenAI, FormatResponses, FormatOTel, FormatClaudeCode} {
		data := files[f]
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read("bench", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
