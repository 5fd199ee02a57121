package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// transcriptFormat is how an SDK writes a transcript of one format: the
// opening of the object wrapping the messages, the user's request, the
// final answer, and an exchange: the assistant's calls n to end-1 (to
// mcp__s__t0 ... mcp__s__t19, every call's arguments distinct) and their
// results, each "N: res".
type transcriptFormat struct {
	wrap, user, done string
	exchange         func(b *strings.Builder, n, end int, res string)
}

// transcriptFormats are OpenAI's Chat Completions (tool_calls, then a tool
// message a result), Anthropic's Messages (text and tool_use blocks, then
// a user message of tool_result blocks), LangChain's messages_to_dict (an
// ai message's tool_calls, then tool messages), the AI SDK's ModelMessages
// (tool-call parts, then a tool message of tool-result parts), its
// UIMessages (an assistant message's tool parts, each with its output)
// and an Agents SDK history of Responses items (function_call items, then
// their outputs; its list is never wrapped in an object).
var transcriptFormats = map[string]transcriptFormat{
	"OpenAI": {`{"model": "gpt-4o", "messages": `, `{"role": "user", "content": "Look everything up."}`, `{"role": "assistant", "content": "done"}`,
		func(b *strings.Builder, n, end int, res string) {
			b.WriteString(`, {"role": "assistant", "content": null, "tool_calls": [`)
			for k := n; k < end; k++ {
				if k > n {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, `{"id": "call_%d", "type": "function", "function": {"name": "mcp__s__t%d", "arguments": "{\"q\": %d}"}}`, k, k%20, k)
			}
			b.WriteString("]}")
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"role": "tool", "tool_call_id": "call_%d", "content": "%d: %s"}`, k, k, res)
			}
		}},
	"Anthropic": {`{"model": "claude-sonnet-4-5", "messages": `, `{"role": "user", "content": "Look everything up."}`, `{"role": "assistant", "content": "done"}`,
		func(b *strings.Builder, n, end int, res string) {
			b.WriteString(`, {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}`)
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "tool_use", "id": "toolu_%d", "name": "mcp__s__t%d", "input": {"q": %d}}`, k, k%20, k)
			}
			b.WriteString(`]}, {"role": "user", "content": [`)
			for k := n; k < end; k++ {
				if k > n {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, `{"type": "tool_result", "tool_use_id": "toolu_%d", "content": "%d: %s"}`, k, k, res)
			}
			b.WriteString("]}")
		}},
	"LangChain": {`{"model": "gpt-4o", "messages": `, `{"type": "human", "data": {"content": "Look everything up."}}`, `{"type": "ai", "data": {"content": "done"}}`,
		func(b *strings.Builder, n, end int, res string) {
			b.WriteString(`, {"type": "ai", "data": {"content": "", "tool_calls": [`)
			for k := n; k < end; k++ {
				if k > n {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, `{"name": "mcp__s__t%d", "args": {"q": %d}, "id": "call_%d", "type": "tool_call"}`, k%20, k, k)
			}
			b.WriteString("]}}")
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "tool", "data": {"content": "%d: %s", "tool_call_id": "call_%d"}}`, k, res, k)
			}
		}},
	"AI SDK": {`{"response": {"modelId": "gpt-4o"}, "messages": `, `{"role": "user", "content": "Look everything up."}`, `{"role": "assistant", "content": "done"}`,
		func(b *strings.Builder, n, end int, res string) {
			b.WriteString(`, {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}`)
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "tool-call", "toolCallId": "call_%d", "toolName": "mcp__s__t%d", "input": {"q": %d}}`, k, k%20, k)
			}
			b.WriteString(`]}, {"role": "tool", "content": [`)
			for k := n; k < end; k++ {
				if k > n {
					b.WriteString(", ")
				}
				fmt.Fprintf(b, `{"type": "tool-result", "toolCallId": "call_%d", "toolName": "mcp__s__t%d", "output": {"type": "text", "value": "%d: %s"}}`, k, k%20, k, res)
			}
			b.WriteString("]}")
		}},
	"Responses": {"", `{"role": "user", "content": "Look everything up."}`, `{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}`,
		func(b *strings.Builder, n, end int, res string) {
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "function_call", "call_id": "call_%d", "name": "mcp__s__t%d", "arguments": "{\"q\": %d}"}`, k, k%20, k)
			}
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "function_call_output", "call_id": "call_%d", "output": "%d: %s"}`, k, k, res)
			}
		}},
	"AI SDK UI": {`{"id": "chat", "messages": `, `{"role": "user", "parts": [{"type": "text", "text": "Look everything up."}]}`, `{"role": "assistant", "parts": [{"type": "text", "text": "done"}]}`,
		func(b *strings.Builder, n, end int, res string) {
			b.WriteString(`, {"role": "assistant", "parts": [{"type": "step-start"}`)
			for k := n; k < end; k++ {
				fmt.Fprintf(b, `, {"type": "tool-t%d", "toolCallId": "call_%d", "state": "output-available", "input": {"q": %d}, "output": "%d: %s"}`, k%20, k, k, k, res)
			}
			b.WriteString("]}")
		}},
}

// transcriptShape writes a transcript of format (transcriptFormats) as an
// SDK saves one (json.dumps of the messages, one line): the user's
// request, then exchanges of perMessage calls each, each call answered by
// a result text of about resultBytes, and a final answer "done"; wrapped
// in its format's object when wrapped, else a bare array.
func transcriptShape(calls, perMessage, resultBytes int, format string, wrapped bool) string {
	f := transcriptFormats[format]
	var b strings.Builder
	wrapped = wrapped && f.wrap != ""
	if wrapped {
		b.WriteString(f.wrap)
	}
	b.WriteString("[" + f.user)
	res := strings.Repeat("sunny and mild ", resultBytes/15)
	for n := 0; n < calls; n += perMessage {
		f.exchange(&b, n, min(n+perMessage, calls), res)
	}
	b.WriteString(", " + f.done + "]")
	if wrapped {
		b.WriteByte('}')
	}
	b.WriteByte('\n')
	return b.String()
}

// TestTranscriptMemoryIsBounded replays OpenAI Chat Completions, Anthropic
// Messages, LangChain, AI SDK (ModelMessage and UIMessage) and Responses
// transcripts
// (60,000 calls with results of 40 bytes in each format, then seeded draws of format, calls, calls a
// message, result sizes and wrapping) through the built
// binary with no gate and with each gate switched on, and holds each to
// SECURITY.md's bound of a replay, as TestCassetteShapesMemoryIsBounded
// holds mcptest's cassettes: 3 times the file, 128 bytes a call, 256 a
// run, 48 MiB, the per-file terms twice under arguments:. Before the
// transcript was read a message at a time and its results kept as text,
// it was decoded whole and each result held as Go maps: 60,000 calls
// (16 to 17 MB) peaked at 230 MiB (OpenAI), 243 MiB (Anthropic) and 254
// to 267 MiB (LangChain) against a bound of about 104.
func TestTranscriptMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays transcripts of tens of MB")
	}
	tl := buildTools(t)
	type shape struct {
		calls, perMessage, resultBytes int
		format                         string
		wrapped                        bool
	}
	shapes := []shape{{60_000, 3, 40, "OpenAI", true}, {60_000, 3, 40, "Anthropic", false}, {60_000, 3, 40, "LangChain", true},
		{60_000, 3, 40, "AI SDK", true}, {60_000, 3, 40, "AI SDK UI", false}, {60_000, 3, 40, "Responses", false}}
	rng := rand.New(rand.NewPCG(40, 30))
	draws := 1 // MCPTEST_LONG=1: three draws
	if long() {
		draws = 3
	}
	for range draws {
		sh := shape{perMessage: 1 + rng.IntN(8), resultBytes: rng.IntN(2000), format: []string{"OpenAI", "Anthropic", "LangChain", "AI SDK", "AI SDK UI", "Responses"}[rng.IntN(6)], wrapped: rng.IntN(2) == 0}
		sh.calls = 1 + rng.IntN(12_000_000/(200+sh.resultBytes)) // at most about 12 MB
		shapes = append(shapes, sh)
	}
	for i, sh := range shapes {
		t.Run(fmt.Sprintf("transcript %d", i), func(t *testing.T) {
			dir := t.TempDir()
			text := transcriptShape(sh.calls, sh.perMessage, sh.resultBytes, sh.format, sh.wrapped)
			if err := os.WriteFile(filepath.Join(dir, "t.json"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			size := int64(len(text))
			perItem := shapeFileFactor*size + shapeCallBytes*int64(sh.calls) + shapeRunBytes
			// About 40 ns a byte read: the limit is ten times that, so
			// only a reader gone quadratic or a gate stuck fails it.
			cpuLimit := time.Second + time.Duration(size)*400*time.Nanosecond
			what := fmt.Sprintf("%s, %d calls, %d a message, results of %d bytes, %.1f MB", sh.format, sh.calls, sh.perMessage, sh.resultBytes, float64(size)/1e6)
			for _, g := range gateBlocks {
				writeGateSuite(t, dir, "t.json", g)
				runGateBounded(t, tl, dir, g, perItem, cpuLimit, what)
			}
		})
	}
}

// spansShape writes an OTLP JSON export of one trace as an exporter writes
// it: an invoke_agent span and calls execute_tool spans under it, each
// with its tool (mcp__s__t0 ... mcp__s__t19), call id, distinct arguments
// and a result text of about resultBytes.
func spansShape(calls, resultBytes int) string {
	var b strings.Builder
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	b.WriteString(`{"resourceSpans": [{"resource": {"attributes": [` + attr("service.name", "agent") + `]}, "scopeSpans": [{"scope": {"name": "agent", "version": "1"}, "spans": [`)
	fmt.Fprintf(&b, `{"traceId": "%032x", "spanId": "%016x", "parentSpanId": "", "name": "invoke_agent helper", "startTimeUnixNano": "1000", "endTimeUnixNano": "%d", "attributes": [%s, %s]}`,
		1, 1, 2000+10*calls, attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "helper"))
	res := strings.Repeat("sunny and mild ", resultBytes/15)
	for k := range calls {
		tool := fmt.Sprintf("mcp__s__t%d", k%20)
		fmt.Fprintf(&b, `, {"traceId": "%032x", "spanId": "%016x", "parentSpanId": "%016x", "name": "execute_tool %s", "startTimeUnixNano": "%d", "endTimeUnixNano": "%d", "attributes": [%s, %s, %s, %s, %s], "status": {"code": 1}}`,
			1, k+2, 1, tool, 2000+10*k, 2005+10*k, attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", tool),
			attr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", k)), attr("gen_ai.tool.call.arguments", fmt.Sprintf(`{"q": %d}`, k)),
			attr("gen_ai.tool.call.result", fmt.Sprintf("%d: %s", k, res)))
	}
	b.WriteString("]}]}]}\n")
	return b.String()
}

// spansFileFactor is the file term of the bound an OTLP export is held to:
// read a span at a time, the reader still keeps each span's ids, times and
// GenAI attributes until the trace is put together, about twice the file
// besides the file itself.
const spansFileFactor = 5

// TestSpansMemoryIsBounded replays OTLP exports of one trace of 40,000
// execute_tool spans (26 MB) and of a seeded draw of spans and result
// sizes through the built binary, with no gate and with each gate, and
// holds each to spansFileFactor times the file, 128 bytes a call, 256 a
// run and 48 MiB (the file term twice under arguments:). Decoded whole,
// an export of this shape (40,000 spans, 26.7 MB) peaked at 338 MiB
// against that bound's 182; read a span at a time, 150 to 159.
func TestSpansMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays exports of tens of MB")
	}
	tl := buildTools(t)
	type shape struct{ calls, resultBytes int }
	rng := rand.New(rand.NewPCG(40, 31))
	shapes := []shape{{40_000, 40}, {1 + rng.IntN(30_000), rng.IntN(1500)}}
	for i, sh := range shapes {
		t.Run(fmt.Sprintf("export %d", i), func(t *testing.T) {
			dir := t.TempDir()
			text := spansShape(sh.calls, sh.resultBytes)
			if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			size := int64(len(text))
			perItem := spansFileFactor*size + shapeCallBytes*int64(sh.calls) + shapeRunBytes
			cpuLimit := time.Second + time.Duration(size)*400*time.Nanosecond
			what := fmt.Sprintf("OTLP, %d spans, results of %d bytes, %.1f MB", sh.calls, sh.resultBytes, float64(size)/1e6)
			for _, g := range gateBlocks {
				writeGateSuite(t, dir, "s.json", g)
				runGateBounded(t, tl, dir, g, perItem, cpuLimit, what)
			}
		})
	}
}
