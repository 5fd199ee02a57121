package cassette

import (
	"fmt"
	"sort"
	"strings"
)

// The Vercel AI SDK's telemetry (experimental_telemetry) writes spans of
// its own conventions beside a few GenAI ones: a tool call is an
// "ai.toolCall" span (ai.toolCall.name, .args, .result), the answer is
// ai.response.text, the agent ai.telemetry.functionId, the tools offered
// ai.prompt.tools. The OTLP reader keeps these attributes (aiAttributes)
// and reads them where the GenAI ones are missing.

// aiAttributes are the ai.* attributes of the AI SDK the OTLP reader keeps.
var aiAttributes = map[string]bool{
	"ai.operationId": true, "ai.toolCall.name": true, "ai.toolCall.args": true, "ai.toolCall.result": true,
	"ai.response.text": true, "ai.telemetry.functionId": true, "ai.prompt": true, "ai.prompt.tools": true,
	"ai.model.id": true, "ai.model.provider": true,
}

// keptAttribute reports whether the OTLP reader keeps the attribute key.
func keptAttribute(key string) bool {
	return strings.HasPrefix(key, "gen_ai.") || strings.HasPrefix(key, "mcp.") || key == "error.type" || aiAttributes[key] || openInferenceAttribute(key) || sessionAttribute(key)
}

// isAIToolCall reports whether s is an AI SDK tool call span.
func isAIToolCall(s *otelSpan) bool {
	return s.str("ai.operationId") == "ai.toolCall" || s.name == "ai.toolCall" && s.str("ai.toolCall.name") != ""
}

// isAIRoot reports whether s is the span of an AI SDK call (ai.generateText,
// ai.streamText, ai.generateObject, ...): an operation of the SDK with no
// operation above it in the SDK's naming.
func isAIRoot(s *otelSpan) bool {
	op := s.str("ai.operationId")
	return strings.Count(op, ".") == 1 && strings.HasPrefix(op, "ai.") && op != "ai.toolCall"
}

// aiPrompt is the user's prompt an AI SDK call span records in ai.prompt,
// {"prompt": "..."} (a call given messages records no single prompt).
func aiPrompt(s *otelSpan) string {
	v, _ := s.attrs["ai.prompt"].(string)
	m, ok := decodeAny([]byte(v))
	if !ok {
		return ""
	}
	obj, _ := m.(map[string]any)
	p, _ := obj["prompt"].(string)
	return p
}

// aiTools are the tool definitions an AI SDK model call offered
// (ai.prompt.tools, each a JSON string {"type": "function", "name",
// "description", "inputSchema"}), as GenAI tool definitions.
func aiTools(s *otelSpan) []any {
	list, _ := s.attrs["ai.prompt.tools"].([]any)
	var out []any
	for _, e := range list {
		str, _ := e.(string)
		v, ok := decodeAny([]byte(str))
		m, _ := v.(map[string]any)
		if !ok || m == nil {
			continue
		}
		if _, has := m["parameters"]; !has && m["inputSchema"] != nil {
			m["parameters"] = m["inputSchema"]
		}
		out = append(out, m)
	}
	return out
}

// untraced joins spans that share no trace into runs: when every span of
// the file is a trace of its own (an AI SDK app without an OpenTelemetry
// context manager, whose spans then never share their parent's trace),
// each AI SDK call span is a root, and every other span belongs to the
// run of the root whose time it starts in (the innermost, the latest
// started, when several hold it; of the same ai.telemetry.functionId when
// both name one), as its child. It returns the warning to give, "" when
// the spans were left as they are.
func (r *otelReader) untraced() string {
	if len(r.spans) < 2 {
		return ""
	}
	traces := map[string]bool{}
	var roots []*otelSpan
	for _, s := range r.spans {
		if traces[s.trace] || s.parent != "" {
			return "" // some spans share a trace, or name a parent
		}
		traces[s.trace] = true
		if isAIRoot(s) && s.end > 0 {
			roots = append(roots, s)
		}
	}
	if len(roots) == 0 || len(roots) == len(r.spans) {
		return ""
	}
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].start > roots[j].start })
	joined := 0
	for _, s := range r.spans {
		if isAIRoot(s) {
			continue
		}
		if root := rootOf(roots, s); root != nil {
			s.trace, s.parent = root.trace, root.id
			joined++
		}
	}
	return fmt.Sprintf("the %d spans share no trace (each is a trace of its own, as the AI SDK's spans are "+
		"without an OpenTelemetry context manager): read as one run per AI SDK call span (%s), "+
		"%d spans joined to the call they started in; register a context manager "+
		"(AsyncHooksContextManager) so a run's spans share its trace", len(r.spans), plural(len(roots), "run"), joined)
}

// rootOf is the root, of roots sorted latest start first, whose time s
// starts in, of the same function id when both name one; nil when none.
func rootOf(roots []*otelSpan, s *otelSpan) *otelSpan {
	fn := s.str("ai.telemetry.functionId")
	for _, root := range roots {
		if s.start < root.start || s.start > root.end {
			continue
		}
		if rf := root.str("ai.telemetry.functionId"); fn != "" && rf != "" && fn != rf {
			continue
		}
		return root
	}
	return nil
}
