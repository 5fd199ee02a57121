package cassette

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// FormatInspect is an Inspect AI eval log: the ".json" log (an EvalLog,
// {"version", "status", "eval", "plan", "results", "stats", "samples"})
// or the ".eval" archive (a zip of header.json and samples/*.json, see
// inspectarchive.go). Each sample of each epoch is a run.
const FormatInspect Format = "inspect-eval-log"

// isInspectLog reports whether root is an Inspect EvalLog: an "eval"
// object naming its "task" and "model", beside the log's "samples",
// "plan", "stats" or "results".
func isInspectLog(root map[string]any) bool {
	spec, _ := root["eval"].(map[string]any)
	_, task := spec["task"].(string)
	_, model := spec["model"].(string)
	if !task || !model {
		return false
	}
	for _, k := range [...]string{"samples", "plan", "stats", "results"} {
		if _, ok := root[k]; ok {
			return true
		}
	}
	return false
}

// inspectHeader reads the provenance of an EvalLog (or of an archive's
// header.json), the object root: the model the eval ran
// ("provider/model"), its provider, the task as the agent.
func inspectHeader(root map[string]any) *Cassette {
	c := &Cassette{Format: FormatInspect}
	spec, _ := root["eval"].(map[string]any)
	c.Model, _ = spec["model"].(string)
	if p, _, ok := strings.Cut(c.Model, "/"); ok {
		c.Provider = p
	}
	c.RecordedAt, _ = spec["created"].(string)
	return c
}

// readInspectLog reads a ".json" EvalLog, the document root: each of its
// samples is a run (see inspectSample). A log without samples (written
// with --no-log-samples, or a header read alone) has nothing to gate and
// is an error.
func readInspectLog(w *walker, root map[string]any) *Cassette {
	c := inspectHeader(root)
	samples, ok := root["samples"].([]any)
	if !ok || len(samples) == 0 {
		if v, has := root["samples"]; has && !ok {
			w.push("samples")
			w.typeError(v, "the log's samples, an array")
			w.pop()
			return c
		}
		w.errorf(`the Inspect eval log holds no samples (a header alone, or a log written with --no-log-samples): ` +
			`there is no run to gate; keep the samples in the log`)
		return c
	}
	ids := map[string]bool{}
	w.push("samples")
	for i, s := range samples {
		w.pushIdx(i)
		if m, ok := s.(map[string]any); ok {
			run := inspectSample(w, c, m)
			c.Runs = append(c.Runs, run)
			ids[fmt.Sprint(m["id"])] = true
		} else {
			w.typeError(s, `a sample {"id", "epoch", "messages": [...]}`)
		}
		w.pop()
	}
	w.pop()
	c.Warnings = append(inspectWarnings(len(ids)), c.Warnings...)
	return c
}

// inspectWarnings says, for a log of more than one sample, that a test
// over the file gates every sample's runs together.
func inspectWarnings(samples int) []string {
	if samples <= 1 {
		return nil
	}
	return []string{fmt.Sprintf("the Inspect log holds %d samples, each epoch of each read as a run: "+
		"a test over this file gates all of them together, its prompt the first sample's", samples)}
}

// inspectSample reads one EvalSample, the object at the walker's path, as
// a run: its messages (ChatMessageSystem, User, Assistant and Tool, see
// inspectMessage) are the turns and calls, its model_usage (summed over
// the models it used) the tokens. The first sample read gives the
// cassette its prompt and the exact model its output names.
func inspectSample(w *walker, c *Cassette, s map[string]any) Run {
	t := newTranscript(w, c)
	att, _ := s["attachments"].(map[string]any)
	msgs, ok := s["messages"].([]any)
	switch {
	case !ok && s["messages"] == nil:
		w.errorf(`missing "messages": an Inspect sample holds the conversation of its run`)
	case !ok:
		w.push("messages")
		w.typeError(s["messages"], "the sample's messages, an array")
		w.pop()
	}
	w.push("messages")
	for i, m := range msgs {
		w.pushIdx(i)
		t.inspectMessage(resolveAttachments(m, att, 0))
		w.pop()
	}
	w.pop()
	if c.Prompt == "" {
		c.Prompt = inspectPrompt(s["input"])
	}
	out, _ := s["output"].(map[string]any)
	if m, _ := out["model"].(string); m != "" && !strings.Contains(c.Model, "/"+m) && m != c.Model {
		// The exact model the provider answered with, where the eval
		// named an alias.
		c.Model = m
	}
	if w := sampleEnd(s); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	run := t.finish()
	run.Tokens = inspectUsage(s["model_usage"])
	if run.Tokens == nil {
		run.Tokens = inspectUsage(map[string]any{"": out["usage"]})
	}
	return run
}

// inspectMessage reads one ChatMessage of a sample, the value at the
// walker's path: a user message starts a turn (one that carries the
// payload of tool calls, "tool_call_id", does not), an assistant's text
// is the answer and its tool_calls ({"id", "function", "arguments"}) the
// calls, a server-side tool use among its content blocks ({"type":
// "tool_use", "tool_type", "id", "name", "context", "arguments",
// "result", "error"}) a call with its result, the server its context; a
// tool message answers the call with its tool_call_id, failed when it
// has an "error" ({"type", "message"}).
func (t *transcript) inspectMessage(v any) {
	w := t.w
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a chat message {"role": ..., "content": ...}`)
		return
	}
	role, _ := m["role"].(string)
	switch role {
	case "user":
		if m["tool_call_id"] == nil {
			t.userTurn(text(m["content"]))
		}
	case "assistant":
		t.say(text(m["content"]))
		if blocks, ok := m["content"].([]any); ok {
			w.push("content")
			for i, b := range blocks {
				if b, _ := b.(map[string]any); b["type"] == "tool_use" {
					w.pushIdx(i)
					t.inspectToolUse(b)
					w.pop()
				}
			}
			w.pop()
		}
		if tcs, has := m["tool_calls"]; has && tcs != nil {
			w.push("tool_calls")
			t.inspectCalls(tcs)
			w.pop()
		}
	case "tool":
		id, _ := m["tool_call_id"].(string)
		name, _ := m["function"].(string)
		res := toolResult(m["content"])
		isErr := false
		if e, ok := m["error"].(map[string]any); ok {
			isErr = true
			if strings.TrimSpace(text(m["content"])) == "" {
				msg, _ := e["message"].(string)
				res = toolResult(msg)
			}
		}
		if id != "" {
			name = ""
		}
		t.result(id, name, res, isErr)
	case "system":
	default:
		if _, has := m["role"]; !has {
			w.errorf(`missing "role": every message says who sent it ("system", "user", "assistant" or "tool")`)
		} else {
			w.push("role")
			w.typeError(m["role"], `the message's role, "system", "user", "assistant" or "tool"`)
			w.pop()
		}
	}
}

// inspectCalls reads an assistant's tool_calls, the value at the
// walker's path.
func (t *transcript) inspectCalls(v any) {
	w := t.w
	calls, ok := v.([]any)
	if !ok {
		w.typeError(v, `an array of tool calls {"id": ..., "function": ..., "arguments": {...}}`)
		return
	}
	t.turn()
	for i, tc := range calls {
		w.pushIdx(i)
		m, ok := tc.(map[string]any)
		if !ok {
			w.typeError(tc, `a tool call {"id": ..., "function": ..., "arguments": {...}}`)
			w.pop()
			continue
		}
		name, ok := m["function"].(string)
		if !ok || name == "" {
			if _, has := m["function"]; !has {
				w.errorf(`missing "function": every Inspect tool call names the tool it calls`)
			} else {
				w.push("function")
				w.typeError(m["function"], "the name of the called tool, a non-empty string")
				w.pop()
			}
			w.pop()
			continue
		}
		id, _ := m["id"].(string)
		c := Call{Arguments: arguments(m["arguments"])}
		c.Server, c.Tool = splitMCP(name)
		t.addCall(id, c)
		w.pop()
	}
}

// inspectToolUse reads a server-side tool use block (an MCP call the
// model provider made, a web search) as a call with its result.
func (t *transcript) inspectToolUse(b map[string]any) {
	name, ok := t.toolName(b)
	if !ok {
		return
	}
	id, _ := b["id"].(string)
	server, _ := b["context"].(string)
	t.addCall(id, Call{Server: server, Tool: name, Arguments: arguments(b["arguments"])})
	msg, _ := b["error"].(string)
	if msg != "" {
		t.result(id, "", toolResult(msg), true)
		return
	}
	t.result(id, "", otelResult(b["result"]), false)
}

// inspectPrompt is the text of a sample's input: the string, or the last
// user message of the list.
func inspectPrompt(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	msgs, _ := v.([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, _ := msgs[i].(map[string]any); m["role"] == "user" {
			return text(m["content"])
		}
	}
	return ""
}

// inspectUsage sums a sample's model_usage, {model: ModelUsage}, over its
// models; nil when it names none. A ModelUsage's input_tokens leaves out
// the cached input for some providers (Anthropic's, whose cache reads
// and writes are input_tokens_cache_read and _write) and counts it for
// others (OpenAI's), but its total_tokens counts every input and output
// token for all of them: the input is the total less the output, the
// cached part input_tokens_cache_read.
func inspectUsage(v any) *Tokens {
	usage, _ := v.(map[string]any)
	keys := make([]string, 0, len(usage))
	for k := range usage {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var tok *Tokens
	for _, k := range keys {
		u, ok := usage[k].(map[string]any)
		if !ok {
			continue
		}
		in, okIn := firstCount(u, "input_tokens")
		out, okOut := firstCount(u, "output_tokens")
		total, okTotal := firstCount(u, "total_tokens")
		if !okIn && !okOut && !okTotal {
			continue
		}
		read, _ := firstCount(u, "input_tokens_cache_read")
		written, _ := firstCount(u, "input_tokens_cache_write")
		if okTotal && total >= out {
			in = max(in, total-out)
		} else {
			in = addCount(addCount(in, read), written)
			total = addCount(in, out)
		}
		if tok == nil {
			tok = &Tokens{}
		}
		tok.Input = addCount(tok.Input, in)
		tok.Cached = addCount(tok.Cached, min(read, in))
		tok.Output = addCount(tok.Output, out)
		tok.Total = addCount(tok.Total, total)
	}
	return tok
}

// attachmentScheme starts a string an Inspect log moved to the sample's
// attachments (an image, or a long text of its events): the rest of the
// string is the attachment's key.
const attachmentScheme = "attachment://"

// resolveAttachments returns v with each string that refers to one of
// att replaced by its content, to a bounded depth; v itself when att is
// empty.
func resolveAttachments(v any, att map[string]any, depth int) any {
	if len(att) == 0 || depth > maxShapeDepth {
		return v
	}
	switch v := v.(type) {
	case string:
		if key, ok := strings.CutPrefix(v, attachmentScheme); ok {
			if s, ok := att[key].(string); ok {
				return s
			}
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = resolveAttachments(e, att, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = resolveAttachments(e, att, depth+1)
		}
		return out
	}
	return v
}

// sampleEnd says how a sample ended when it did not end as the agent
// chose: with an error ({"message"}), or stopped at a limit ({"type",
// "limit"}); "" otherwise. Its run is read as far as it went.
func sampleEnd(s map[string]any) string {
	w := sampleEndText(s)
	// The text is the log's: no control character of it reaches a
	// terminal or a workflow command.
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, w)
}

func sampleEndText(s map[string]any) string {
	name := fmt.Sprintf("sample %s epoch %s", clip(jsonText(s["id"]), 60), clip(jsonText(s["epoch"]), 20))
	if e, ok := s["error"].(map[string]any); ok {
		msg, _ := e["message"].(string)
		return fmt.Sprintf("%s ended in an error, its run read as far as it went: %s", name, clip(msg, 200))
	}
	if l, ok := s["limit"].(map[string]any); ok {
		typ, _ := l["type"].(string)
		return fmt.Sprintf("%s stopped at its %s limit (%s), its run read as far as it went", name, clip(typ, 40), clip(jsonText(l["limit"]), 40))
	}
	return ""
}
