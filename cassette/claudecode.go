package cassette

import (
	"math"
	"sort"
)

// claudeEventTypes are the "type" values of the stream-json events that
// carry a run; other event types are read and passed over.
var claudeEventTypes = map[string]bool{"system": true, "assistant": true, "user": true, "result": true}

// isClaudeEvent reports whether m is a Claude Code stream-json event: a
// "type" of its own (system, assistant, user, result) and a "session_id",
// or an assistant or user event wrapping a "message" object.
func isClaudeEvent(m map[string]any) bool {
	t, _ := m["type"].(string)
	if !claudeEventTypes[t] {
		return false
	}
	if _, ok := m["session_id"]; ok {
		return true
	}
	_, isMsg := m["message"].(map[string]any)
	return isMsg && (t == "assistant" || t == "user")
}

// claudeReader reads the stream-json output of Claude Code or the Claude
// Agent SDK (claude -p --output-format stream-json): a system init event
// (model, tools), assistant and user events each wrapping one Anthropic
// Messages message, and a result event (final text, usage, cost). Each
// session, from its init event to its result, is one run.
type claudeReader struct {
	c *Cassette
	// t is the run being read, nil between runs.
	t *transcript
	// catalog tells that the catalog was read from the first init event.
	catalog bool
	// agents maps the id of a Task call to the subagent it started.
	agents map[string]string
	// usageOf keeps the message ids whose usage is counted: a message
	// split over several events repeats its usage on each.
	usageOf map[string]bool
}

func newClaudeReader() *claudeReader {
	return &claudeReader{c: &Cassette{Format: FormatClaudeCode, Provider: "anthropic"}}
}

func (r *claudeReader) cassette() *Cassette { return r.c }

// line reads one event.
func (r *claudeReader) line(w *walker, v any) []Run {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a stream-json event {"type": "system" | "assistant" | "user" | "result", ...}`)
		return nil
	}
	typ, ok := m["type"].(string)
	if !ok {
		if t, has := m["type"]; has {
			w.push("type")
			w.typeError(t, `the event's type, a string such as "assistant"`)
			w.pop()
		} else {
			w.errorf(`missing "type": every stream-json event says what it is ("system", "assistant", "user", "result")`)
		}
		return nil
	}
	switch typ {
	case "system":
		if m["subtype"] != "init" {
			return nil
		}
		var done []Run
		if r.t != nil && len(r.t.run.Turns) > 0 {
			done = append(done, r.t.finish())
		}
		r.t = nil
		r.init(w, m)
		return done
	case "assistant", "user":
		r.message(w, typ, m)
	case "result":
		return r.result(w, m)
	}
	return nil
}

// open returns the run being read, starting one when there is none.
func (r *claudeReader) open(w *walker) *transcript {
	if r.t == nil {
		r.t = newTranscript(w, r.c)
		r.agents = map[string]string{}
		r.usageOf = map[string]bool{}
	}
	r.t.w = w
	return r.t
}

// init reads a system init event: the model, and the first one's tools
// as the catalog, the agent's built-in tools under no server.
func (r *claudeReader) init(w *walker, m map[string]any) {
	r.open(w)
	if model, ok := m["model"].(string); ok && r.c.Model == "" {
		r.c.Model = model
	}
	if r.catalog {
		return
	}
	r.catalog = true
	tools, ok := m["tools"].([]any)
	if !ok {
		return
	}
	byServer := map[string][]Tool{}
	w.push("tools")
	for i, t := range tools {
		name, ok := t.(string)
		if !ok {
			w.pushIdx(i)
			w.typeError(t, "a tool name, a string")
			w.pop()
			continue
		}
		// A built-in tool of the agent (Bash, Task) has no server, as its
		// calls have none.
		server, tool := splitMCP(name)
		byServer[server] = append(byServer[server], ToolOf(map[string]any{"name": tool}))
	}
	w.pop()
	for s, t := range byServer {
		r.c.Catalog = append(r.c.Catalog, ServerCatalog{Server: s, Tools: t})
	}
	sort.Slice(r.c.Catalog, func(i, j int) bool { return r.c.Catalog[i].Server < r.c.Catalog[j].Server })
}

// message reads an assistant or user event: its Anthropic message, whose
// calls are the subagent's when the event names a parent Task call.
func (r *claudeReader) message(w *walker, role string, m map[string]any) {
	t := r.open(w)
	msg, ok := m["message"].(map[string]any)
	if !ok {
		if v, has := m["message"]; has {
			w.push("message")
			w.typeError(v, `an Anthropic Messages message {"role": ..., "content": [...]}`)
			w.pop()
		} else {
			w.errorf(`missing "message": an %s event wraps the message it carries`, role)
		}
		return
	}
	w.push("message")
	checkUsage(w, msg["usage"])
	w.pop()
	if id, _ := msg["id"].(string); id != "" && msg["usage"] != nil {
		if r.usageOf[id] {
			msg = withoutUsage(msg)
		}
		r.usageOf[id] = true
	}
	if _, ok := msg["role"]; !ok {
		msg = withRole(msg, role)
	}
	before := t.calls
	w.push("message")
	t.message(FormatAnthropic, msg)
	w.pop()
	if parent, _ := m["parent_tool_use_id"].(string); parent != "" {
		t.tagSince(before, r.agents[parent])
	}
	r.subagents(msg)
}

// subagents remembers the subagent each Task call of msg starts.
func (r *claudeReader) subagents(msg map[string]any) {
	blocks, _ := msg["content"].([]any)
	for _, b := range blocks {
		b, _ := b.(map[string]any)
		if b["type"] != "tool_use" || b["name"] != "Task" {
			continue
		}
		id, _ := b["id"].(string)
		in, _ := b["input"].(map[string]any)
		if agent, _ := in["subagent_type"].(string); id != "" && agent != "" {
			r.agents[id] = agent
		}
	}
}

// result reads the result event that ends a session: its final text,
// usage and cost, and returns the finished run.
func (r *claudeReader) result(w *walker, m map[string]any) []Run {
	t := r.open(w)
	if text, ok := m["result"].(string); ok && text != "" {
		t.turn().FinalResponse = text
	}
	run := t.finish()
	checkUsage(w, m["usage"])
	if u, ok := m["usage"].(map[string]any); ok {
		in, _ := firstCount(u, "input_tokens")
		cw, _ := firstCount(u, "cache_creation_input_tokens")
		cr, _ := firstCount(u, "cache_read_input_tokens")
		out, _ := firstCount(u, "output_tokens")
		input := addCount(addCount(in, cw), cr)
		run.Tokens = &Tokens{Input: input, Cached: cr, Output: out, Total: addCount(input, out)}
	}
	if cost, ok := m["total_cost_usd"].(float64); ok && cost >= 0 && cost < maxCount/1e6 {
		micros := int64(math.Round(cost * 1e6))
		run.CostMicros = &micros
	} else if v, has := m["total_cost_usd"]; has {
		w.push("total_cost_usd")
		w.typeError(v, "the session's cost in US dollars, a non-negative number")
		w.pop()
	}
	r.t = nil
	return []Run{run}
}

// finish returns the session still open at the end of the file, one that
// never reached its result event.
func (r *claudeReader) finish() []Run {
	if r.t == nil || len(r.t.run.Turns) == 0 {
		return nil
	}
	run := r.t.finish()
	r.t = nil
	return []Run{run}
}

// tagSince sets the agent of the calls made after the first n, walking
// back from the last call.
func (t *transcript) tagSince(n int, agent string) {
	if agent == "" {
		agent = "subagent"
	}
	left := t.calls - n
	for ti := len(t.run.Turns) - 1; ti >= 0 && left > 0; ti-- {
		calls := t.run.Turns[ti].Calls
		for ci := len(calls) - 1; ci >= 0 && left > 0; ci-- {
			calls[ci].Agent = agent
			left--
		}
	}
}

// usageCounts are the token counts of a Claude Code usage object.
var usageCounts = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}

// checkUsage refuses a usage object's token count that is not a
// non-negative integer, as the v1 reader refuses one in tokens: a negative
// count read as no tokens would pass any token budget.
func checkUsage(w *walker, v any) {
	u, ok := v.(map[string]any)
	if !ok {
		return
	}
	w.push("usage")
	for _, k := range usageCounts {
		c, has := u[k]
		if !has || c == nil {
			continue
		}
		if f, ok := c.(float64); !ok || f < 0 || f != math.Trunc(f) {
			w.push(k)
			w.typeError(c, "a non-negative integer (tokens)")
			w.pop()
		}
	}
	w.pop()
}

func withoutUsage(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != "usage" {
			out[k] = v
		}
	}
	return out
}

func withRole(m map[string]any, role string) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out["role"] = role
	return out
}
