package cassette

import (
	"strconv"
	"strings"
)

// OpenInference (Arize Phoenix's conventions, written by its
// instrumentations of LangChain, LlamaIndex, the OpenAI SDK and others)
// says what a span is in openinference.span.kind: a TOOL span is a tool
// call, its tool tool.name (else the span's name), its arguments
// input.value and its result output.value; an LLM span's usage is
// llm.token_count.prompt, .completion and .total, its model
// llm.model_name, its messages the flattened
// llm.input_messages.<i>.message.role and .content (and output). The OTLP
// reader keeps these attributes and reads them where the GenAI ones are
// missing.

// oiKind is the attribute that says what an OpenInference span is.
const oiKind = "openinference.span.kind"

// openInferenceAttribute reports whether the OTLP reader keeps the
// OpenInference attribute key.
func openInferenceAttribute(key string) bool {
	switch key {
	case oiKind, "tool.name", "input.value", "output.value", "metadata", "agent.name", "traceloop.span.kind", "traceloop.entity.name",
		"llm.model_name", "llm.provider", "llm.system":
		return true
	}
	return strings.HasPrefix(key, "llm.token_count.") || strings.HasPrefix(key, "llm.tools.") ||
		strings.HasPrefix(key, "llm.input_messages.") || strings.HasPrefix(key, "llm.output_messages.")
}

// isOITool reports whether s is an OpenInference TOOL span.
func isOITool(s *otelSpan) bool {
	return s.str(oiKind) == "TOOL"
}

// oiToolName is the tool an OpenInference TOOL span calls: tool.name,
// else the span's name.
func oiToolName(s *otelSpan) string {
	if !isOITool(s) {
		return ""
	}
	return firstNonEmpty(s.str("tool.name"), s.name)
}

// oiResult makes a CallToolResult of a TOOL span's output.value, and says
// whether it reports a failure: LangChain's instrumentation writes the
// ToolMessage the tool returned ({"output": {"lc": 1, ... "kwargs":
// {"content", "status"}}}), whose content is the result and status
// "error" a failure; any other value is read as gen_ai.tool.call.result
// is.
func oiResult(v any) (any, bool) {
	s, _ := v.(string)
	d, ok := decodeAny([]byte(s))
	m, _ := d.(map[string]any)
	if inner, has := m["output"].(map[string]any); ok && has {
		m = inner
	}
	if role, fields, _, isMsg := langChainMessage(m); isMsg && role == "tool" {
		return toolResult(fields["content"]), fields["status"] == "error"
	}
	return otelResult(v), false
}

// oiUsage is the usage of an OpenInference LLM span
// (llm.token_count.prompt, .completion, .total and
// .prompt_details.cache_read) in the naming usageSum reads; nil when it
// records none.
func oiUsage(s *otelSpan) map[string]any {
	in, out := s.attrs["llm.token_count.prompt"], s.attrs["llm.token_count.completion"]
	if in == nil && out == nil {
		return nil
	}
	u := map[string]any{"input_tokens": in, "output_tokens": out}
	if tot := s.attrs["llm.token_count.total"]; tot != nil {
		u["total_tokens"] = tot
	}
	if c := s.attrs["llm.token_count.prompt_details.cache_read"]; c != nil {
		u["input_tokens_details"] = map[string]any{"cached_tokens": c}
	}
	return u
}

// oiMessages returns the texts of the flattened messages of an LLM span
// (llm.input_messages or llm.output_messages) of role, in order.
func oiMessages(s *otelSpan, prefix, role string) []string {
	var out []string
	for i := 0; ; i++ {
		p := prefix + "." + strconv.Itoa(i) + ".message."
		r, ok := s.attrs[p+"role"].(string)
		if !ok {
			return out
		}
		if c, _ := s.attrs[p+"content"].(string); r == role && strings.TrimSpace(c) != "" {
			out = append(out, c)
		}
	}
}

// oiToolCall is a tool call an LLM span's messages hold:
// llm.output_messages.<i>.message.tool_calls.<j>.tool_call.function.name,
// .function.arguments (JSON text) and .id.
type oiToolCall struct {
	id, name string
	args     any
}

// oiToolCalls returns the tool calls of the flattened messages of an LLM
// span under prefix (llm.output_messages), in order.
func oiToolCalls(s *otelSpan, prefix string) []oiToolCall {
	var out []oiToolCall
	for i := 0; ; i++ {
		p := prefix + "." + strconv.Itoa(i) + ".message."
		if _, ok := s.attrs[p+"role"]; !ok && !oiHasCall(s, p) {
			return out
		}
		for j := 0; ; j++ {
			c := p + "tool_calls." + strconv.Itoa(j) + ".tool_call."
			name, ok := s.attrs[c+"function.name"].(string)
			if !ok {
				break
			}
			id, _ := s.attrs[c+"id"].(string)
			out = append(out, oiToolCall{id: id, name: name, args: s.attrs[c+"function.arguments"]})
		}
	}
}

// oiHasCall reports whether the message under p (a message without a
// role) holds a tool call.
func oiHasCall(s *otelSpan, p string) bool {
	_, ok := s.attrs[p+"tool_calls.0.tool_call.function.name"]
	return ok
}

// oiToolResults returns the results an LLM span's input messages hold:
// the content of each message of role "tool", by its
// message.tool_call_id, in order.
func oiToolResults(s *otelSpan) (ids []string, contents []any) {
	for i := 0; ; i++ {
		p := "llm.input_messages." + strconv.Itoa(i) + ".message."
		role, ok := s.attrs[p+"role"].(string)
		if !ok && !oiHasCall(s, p) {
			return ids, contents
		}
		if id, _ := s.attrs[p+"tool_call_id"].(string); role == "tool" && id != "" {
			ids = append(ids, id)
			contents = append(contents, s.attrs[p+"content"])
		}
	}
}

// oiTools are the tools an LLM span offered its model,
// llm.tools.<i>.tool.json_schema (each the JSON of a Chat Completions tool
// definition), decoded.
func oiTools(s *otelSpan) []any {
	var out []any
	for i := 0; ; i++ {
		text, ok := s.attrs["llm.tools."+strconv.Itoa(i)+".tool.json_schema"].(string)
		if !ok {
			return out
		}
		if v, ok := decodeAny([]byte(text)); ok {
			out = append(out, v)
		}
	}
}

// oiAnswer is the last assistant text an LLM span's output messages hold.
func oiAnswer(s *otelSpan) string {
	texts := oiMessages(s, "llm.output_messages", "assistant")
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

// oiPrompt is the first user text an LLM span's input messages hold.
func oiPrompt(s *otelSpan) string {
	texts := oiMessages(s, "llm.input_messages", "user")
	if len(texts) == 0 {
		return ""
	}
	return texts[0]
}

// oiModel is the model of an OpenInference LLM span: llm.model_name, else
// the response_metadata.model_name (or model) of the message LangChain's
// instrumentation writes in its output.value ({"generations": [[{"message":
// ...}]]}).
func oiModel(s *otelSpan) string {
	if m := s.str("llm.model_name"); m != "" || s.str(oiKind) != "LLM" {
		return m
	}
	out, _ := s.attrs["output.value"].(string)
	d, _ := decodeAny([]byte(out))
	m, _ := d.(map[string]any)
	gens, _ := m["generations"].([]any)
	for _, g := range gens {
		list, _ := g.([]any)
		for _, e := range list {
			e, _ := e.(map[string]any)
			msg, _ := e["message"].(map[string]any)
			if _, fields, _, ok := langChainMessage(msg); ok {
				meta, _ := fields["response_metadata"].(map[string]any)
				if name := firstNonEmpty(str(meta["model_name"]), str(meta["model"])); name != "" {
					return name
				}
			}
		}
	}
	return ""
}

// isAgentSpan reports whether s is an agent's span in OpenInference's
// conventions (kind AGENT) or OpenLLMetry's (traceloop.span.kind "agent",
// what withAgent opens).
func isAgentSpan(s *otelSpan) bool {
	return s.str(oiKind) == "AGENT" || s.str("traceloop.span.kind") == "agent"
}

// oiAgent reports whether s is the span of an agent and its name: an
// OpenLLMetry agent span (its traceloop.entity.name), an
// OpenInference AGENT span (its agent.name, else its name), or the root
// span of a LangGraph graph (metadata ls_integration "langgraph", no
// parent), named after the graph unless the graph has the default name.
func oiAgent(s *otelSpan) (string, bool) {
	if isAgentSpan(s) && s.str(oiKind) != "AGENT" {
		name := s.str("traceloop.entity.name")
		return name, name != ""
	}
	if s.str(oiKind) == "AGENT" {
		name := firstNonEmpty(s.str("agent.name"), s.name)
		return name, name != ""
	}
	if s.parent != "" || s.str(oiKind) != "CHAIN" || s.name == "LangGraph" || s.name == "" {
		return "", false
	}
	meta, _ := decodeAny([]byte(s.str("metadata")))
	m, _ := meta.(map[string]any)
	return s.name, m["ls_integration"] == "langgraph"
}

// trimOpenInference drops the OpenInference values a span of its kind is
// not read for: input.value and output.value hold a chain's whole
// conversation on every CHAIN span, and only a TOOL span's (and an LLM
// span's output, for its model) are read.
func trimOpenInference(s *otelSpan) {
	kind := s.str(oiKind)
	if kind != "TOOL" {
		delete(s.attrs, "input.value")
	}
	if kind != "TOOL" && kind != "LLM" {
		delete(s.attrs, "output.value")
	}
	if kind != "CHAIN" || s.parent != "" {
		delete(s.attrs, "metadata")
	}
}
