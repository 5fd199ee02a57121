package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// A recording read with runs but no tool calls passes every tool gate,
// whatever the agent did. When its content names tools all the same
// (spans, message parts or items of a shape the reader did not read), the
// calls were lost, not absent: callShape finds that data so the reader can
// refuse the file at it rather than read it as a run that made no call.

// callShape is call-shaped data found in a decoded document.
type callShape struct {
	// path is where it is, for the error's position.
	path []seg
	// what names it, tool the tool it names.
	what, tool string
	// source names the recordings that hold it, reader the format that
	// reads them.
	source string
	reader Format
	// count is how many call-shaped values of the same source the
	// document holds.
	count int
}

// shapeOf is the call-shaped data m is, if it is one: what it is, the
// tool it names, the recordings that hold it and their reader.
func shapeOf(m map[string]any) (what, tool, source string, reader Format, ok bool) {
	str := func(v any) string { s, _ := v.(string); return s }
	if isHandoffItem(m) {
		return "", "", "", "", false
	}
	switch {
	case m["type"] == "tool-call" && str(m["toolName"]) != "":
		return `a "tool-call" part`, str(m["toolName"]), "Vercel AI SDK ModelMessage arrays (response.messages)", FormatAISDKMessages, true
	case isUIToolPart(m):
		return fmt.Sprintf("a %q part", m["type"]), uiTool(m), "Vercel AI SDK UIMessage arrays (useChat messages)", FormatAISDKUIMessages, true
	case m["key"] == "tool.name":
		return `a "tool.name" span attribute`, otlpString(m["value"]), "OpenInference TOOL spans (tool.name)", FormatOTel, true
	case m["object"] == "trace.span":
		sd, _ := m["span_data"].(map[string]any)
		if sd["type"] == "function" && str(sd["name"]) != "" {
			return `a "function" span`, str(sd["name"]), `OpenAI Agents SDK trace exports (object "trace.span")`, FormatAgentsTrace, true
		}
	case m["type"] == "function_call_result" && str(m["callId"]) != "":
		return `a "function_call_result" item`, str(m["name"]), "OpenAI Agents SDK protocol items (callId)", FormatResponses, true
	case m["lc"] == 1.0 && m["type"] == "constructor":
		kw, _ := m["kwargs"].(map[string]any)
		if t := firstToolCall(kw["tool_calls"]); t != "" {
			return "a serialized AIMessage with tool_calls", t, `LangChain serialized messages ("lc": 1)`, FormatLangChain, true
		}
	case m["type"] == "ai":
		data, _ := m["data"].(map[string]any)
		if t := firstToolCall(data["tool_calls"]); t != "" {
			return `a StoredMessage of type "ai" with tool_calls`, t, `LangChain StoredMessage arrays ({"type", "data"})`, FormatLangChain, true
		}
	}
	return readableShape(m, str)
}

// readableShape is shapeOf for the data a reader of mcptest takes, when
// it is found where that reader does not look (nested in another
// document, or in a file read in another format).
func readableShape(m map[string]any, str func(any) string) (what, tool, source string, reader Format, ok bool) {
	fn, _ := m["function"].(map[string]any)
	switch {
	case fn != nil && str(fn["name"]) != "" && fn["arguments"] != nil:
		return "an OpenAI tool call", str(fn["name"]), "OpenAI Chat Completions transcripts", FormatOpenAI, true
	case m["type"] == "tool_use" && str(m["name"]) != "":
		return `a "tool_use" block`, str(m["name"]), "Anthropic Messages transcripts", FormatAnthropic, true
	case (m["type"] == "function_call" || m["type"] == "mcp_call") && str(m["name"]) != "":
		return fmt.Sprintf("a %q item", m["type"]), str(m["name"]), "OpenAI Responses output", FormatResponses, true
	case m["key"] == "ai.toolCall.name":
		return `an "ai.toolCall" span`, otlpString(m["value"]), "Vercel AI SDK telemetry spans (ai.toolCall)", FormatOTel, true
	case m["key"] == "gen_ai.tool.name":
		return `a "gen_ai.tool.name" span attribute`, otlpString(m["value"]), "OTLP JSON spans (gen_ai)", FormatOTel, true
	}
	return frameworkShape(m, str)
}

// isUIToolPart reports whether m is the tool part of an AI SDK
// UIMessage: type "tool-<name>" (or "dynamic-tool" with a toolName), a
// toolCallId and a state.
func isUIToolPart(m map[string]any) bool {
	typ, _ := m["type"].(string)
	_, id := m["toolCallId"].(string)
	_, state := m["state"].(string)
	return id && state && (strings.HasPrefix(typ, "tool-") && typ != "tool-call" && typ != "tool-result" || typ == "dynamic-tool")
}

// uiTool is the tool a UIMessage tool part names.
func uiTool(m map[string]any) string {
	if name, ok := m["toolName"].(string); ok || m["type"] == "dynamic-tool" {
		return name
	}
	typ, _ := m["type"].(string)
	return strings.TrimPrefix(typ, "tool-")
}

// otlpString is the string of an OTLP AnyValue {"stringValue": ...}.
func otlpString(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["stringValue"].(string)
	return s
}

// firstToolCall is the name of the first of a LangChain message's
// tool_calls, [{"name", "args", "id"}]; "" when it has none.
func firstToolCall(v any) string {
	calls, _ := v.([]any)
	for _, c := range calls {
		c, _ := c.(map[string]any)
		if s, _ := c["name"].(string); s != "" {
			return s
		}
	}
	return ""
}

// maxShapeDepth bounds the nesting findShape descends into.
const maxShapeDepth = 64

// findShape returns the first call-shaped value of the decoded document v
// (array elements in order, object members by sorted key, so the answer
// is the same on every read) with the count of those of its source.
func findShape(v any) (callShape, bool) {
	var first callShape
	found := false
	var walk func(v any, path []seg, depth int)
	walk = func(v any, path []seg, depth int) {
		if depth > maxShapeDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if what, tool, source, reader, ok := shapeOf(v); ok {
				if !found {
					found = true
					first = callShape{path: append([]seg(nil), path...), what: what, tool: tool, source: source, reader: reader}
				}
				if source == first.source {
					first.count++
				}
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(v[k], append(path, seg{key: k, idx: -1}), depth+1)
			}
		case []any:
			for i, e := range v {
				walk(e, append(path, seg{idx: i}), depth+1)
			}
		}
	}
	walk(v, nil, 0)
	return first, found
}

// found describes the shape for an error: what it is, the tool it names,
// how many like it the file holds, and which reader takes the recordings
// of its shape, for a file read as format ("" when it was recognised as
// none).
func (s callShape) found(format Format) string {
	tool := ""
	if s.tool != "" {
		tool = fmt.Sprintf(" naming the tool %q", s.tool)
	}
	more := ""
	if s.count > 1 {
		more = fmt.Sprintf(" (the first of %d)", s.count)
	}
	var reader string
	switch {
	case s.reader == format:
		reader = fmt.Sprintf("which the %s reader takes only where its format places it (docs/traces.md)", s.reader)
	default:
		reader = fmt.Sprintf("which the %s reader takes as a file of its own", s.reader)
	}
	return s.what + tool + more + ", the shape of " + s.source + ", " + reader
}

// unrecognizedCalls records, for a document no reader recognised, the
// call-shaped data it holds and the reader that takes it; it reports
// whether it found any.
func unrecognizedCalls(w *walker, v any) bool {
	s, ok := findShape(v)
	if !ok {
		return false
	}
	w.path = append(w.path[:0], s.path...)
	w.errorf("unrecognized recording: it holds %s; %s", s.found(""), tried)
	return true
}

// hasCalls reports whether any of runs made a call.
func hasCalls(runs []Run) bool {
	for i := range runs {
		for _, t := range runs[i].Turns {
			if len(t.Calls) > 0 {
				return true
			}
		}
	}
	return false
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// lostInLines audits a recording spread over the lines of a JSON Lines
// file (OTLP export requests, stream-json events), read as c with runs
// runs: each piece of call-shaped content no call was read from is an
// error placed at its first object, in the first line that holds it.
func lostInLines(ls *lines, data []byte, c *Cassette, a *audit, runs int) {
	for _, l := range a.lost(c, runs) {
		rest := data
		for no := 1; len(rest) > 0; no++ {
			var line []byte
			line, rest, _ = bytes.Cut(rest, []byte("\n"))
			var v any
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &v) != nil {
				continue
			}
			if path, m, ok := l.locate(v); ok {
				w := &walker{path: path}
				w.errorf("%s", l.msg(m))
				ls.add(errorsAt(ls.path, line, w), no)
				break
			}
		}
	}
}
