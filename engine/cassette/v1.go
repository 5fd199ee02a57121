package cassette

import (
	"math"
	"sort"
	"strings"
)

// The keys of each object of the v1 format, in the order the messages list
// them. Keys starting with "x-" are extensions and allowed everywhere.
var (
	rootKeys       = []string{"mcptest_cassette", "agent", "model", "provider", "recorded_at", "prompt", "catalog", "runs"}
	runKeys        = []string{"turns", "delegations", "tokens", "cost_micros"}
	turnKeys       = []string{"calls", "final_response"}
	callKeys       = []string{"server", "tool", "arguments", "is_error", "result", "duration_ms", "agent"}
	delegationKeys = []string{"from", "to"}
	tokensKeys     = []string{"input", "output", "total"}
)

// maxCount is the largest integer the v1 format accepts for a token count
// or a cost: 2^53, the largest a JSON number carries exactly in a float64.
const maxCount = 1 << 53

func isExtension(key string) bool { return strings.HasPrefix(key, "x-") }

// readV1 converts a decoded v1 cassette to the model, checking every value
// against the format as it goes.
func readV1(w *walker, root map[string]any) *Cassette {
	c := &Cassette{Format: FormatV1}
	switch v := root["mcptest_cassette"].(type) {
	case float64:
		if v != Version {
			w.fieldErrorf("mcptest_cassette", "unsupported cassette format version %s: this mcptest reads version %d",
				formatNumber(v), Version)
			return c // another version has other rules: say only this
		}
	default:
		w.fieldErrorf("mcptest_cassette", "expected the cassette format version, the number %d, found %s",
			Version, describe(v))
	}
	hasRuns := false
	for k, v := range root {
		switch k {
		case "mcptest_cassette":
		case "agent":
			c.Agent = w.str(k, v)
		case "model":
			c.Model = w.str(k, v)
		case "provider":
			c.Provider = w.str(k, v)
		case "recorded_at":
			c.RecordedAt = w.str(k, v)
		case "prompt":
			c.Prompt = w.str(k, v)
		case "catalog":
			c.Catalog = w.catalog(v)
		case "runs":
			hasRuns = true
			c.Runs = w.runs(v)
		default:
			if !isExtension(k) {
				w.unknownKey(k, rootKeys)
			}
		}
	}
	if !hasRuns {
		w.errorf(`missing required "runs": a cassette holds one entry per recorded run (an empty array when none)`)
	}
	return c
}

// str returns v when it is a string, else records a problem on member key.
func (w *walker) str(key string, v any) string {
	s, ok := v.(string)
	if !ok {
		w.push(key)
		w.typeError(v, "a string")
		w.pop()
	}
	return s
}

// count returns v when it is a non-negative integer up to maxCount, else
// records a problem on member key saying what the number counts.
func (w *walker) count(key string, v any, what string) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > maxCount {
		w.push(key)
		w.typeError(v, "a non-negative integer ("+what+")")
		w.pop()
		return 0, false
	}
	return int64(f), true
}

func (w *walker) catalog(v any) []ServerCatalog {
	m, ok := v.(map[string]any)
	if !ok {
		w.push("catalog")
		w.typeError(v, `an object of server name → {"tools": [...]}, the tools/list result of each server`)
		w.pop()
		return nil
	}
	w.push("catalog")
	out := make([]ServerCatalog, 0, len(m))
	for server, entry := range m {
		w.push(server)
		out = append(out, ServerCatalog{Server: server, Tools: w.server(entry)})
		w.pop()
	}
	w.pop()
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// server reads one server's tools/list result: {"tools": [...]}. Other keys
// of the result (nextCursor, _meta) are allowed.
func (w *walker) server(v any) []Tool {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `the server's tools/list result, an object {"tools": [...]}`)
		return nil
	}
	tv, ok := m["tools"]
	if !ok {
		w.errorf(`missing required "tools": the tools/list result lists the tools the server advertised`)
		return nil
	}
	arr, ok := tv.([]any)
	if !ok {
		w.push("tools")
		w.typeError(tv, "an array of tools")
		w.pop()
		return nil
	}
	w.push("tools")
	tools := make([]Tool, len(arr))
	for i, t := range arr {
		w.pushIdx(i)
		tools[i] = w.tool(t)
		w.pop()
	}
	w.pop()
	return tools
}

// tool reads one tools/list entry; it is kept verbatim in Raw, so keys
// other than the ones checked here are allowed.
func (w *walker) tool(v any) Tool {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a tool object {"name": ..., "description": ..., "inputSchema": {...}}`)
		return Tool{}
	}
	t := Tool{Raw: m}
	if n, ok := m["name"]; !ok {
		w.errorf(`missing required "name": every tool has a name`)
	} else if s, ok := n.(string); !ok || s == "" {
		w.push("name")
		w.typeError(n, "a non-empty tool name")
		w.pop()
	} else {
		t.Name = s
	}
	if d, ok := m["description"]; ok && d != nil {
		t.Description = w.str("description", d)
	}
	if s, ok := m["inputSchema"]; ok {
		if _, isObj := s.(map[string]any); !isObj {
			w.push("inputSchema")
			w.typeError(s, "a JSON Schema object")
			w.pop()
		}
		t.InputSchema = s
	}
	for _, k := range [...]string{"annotations", "outputSchema"} {
		if a, ok := m[k]; ok {
			if _, isObj := a.(map[string]any); !isObj {
				w.push(k)
				w.typeError(a, "an object")
				w.pop()
			}
		}
	}
	if s, ok := m["title"]; ok {
		w.str("title", s)
	}
	return t
}

func (w *walker) runs(v any) []Run {
	arr, ok := v.([]any)
	if !ok {
		w.push("runs")
		w.typeError(v, "an array of runs")
		w.pop()
		return nil
	}
	w.push("runs")
	runs := make([]Run, len(arr))
	for i, r := range arr {
		w.pushIdx(i)
		w.run(&runs[i], r)
		w.pop()
	}
	w.pop()
	return runs
}

func (w *walker) run(r *Run, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a run object {"turns": [...], ...}`)
		return
	}
	for k, v := range m {
		switch k {
		case "turns":
			r.Turns = w.turns(v)
		case "delegations":
			r.Delegations = w.delegations(v)
		case "tokens":
			r.Tokens = w.tokens(v)
		case "cost_micros":
			if n, ok := w.count(k, v, "micro-dollars"); ok {
				r.CostMicros = &n
			}
		default:
			if !isExtension(k) {
				w.unknownKey(k, runKeys)
			}
		}
	}
}

func (w *walker) turns(v any) []Turn {
	arr, ok := v.([]any)
	if !ok {
		w.push("turns")
		w.typeError(v, "an array of turns")
		w.pop()
		return nil
	}
	w.push("turns")
	turns := make([]Turn, len(arr))
	for i, t := range arr {
		w.pushIdx(i)
		w.turn(&turns[i], t)
		w.pop()
	}
	w.pop()
	return turns
}

func (w *walker) turn(t *Turn, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a turn object {"calls": [...], "final_response": ...}`)
		return
	}
	for k, v := range m {
		switch k {
		case "calls":
			t.Calls = w.calls(v)
		case "final_response":
			t.FinalResponse = w.str(k, v)
		default:
			if !isExtension(k) {
				w.unknownKey(k, turnKeys)
			}
		}
	}
}

func (w *walker) calls(v any) []Call {
	arr, ok := v.([]any)
	if !ok {
		w.push("calls")
		w.typeError(v, "an array of calls")
		w.pop()
		return nil
	}
	w.push("calls")
	calls := make([]Call, len(arr))
	for i, c := range arr {
		w.pushIdx(i)
		w.call(&calls[i], c)
		w.pop()
	}
	w.pop()
	return calls
}

func (w *walker) call(c *Call, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a call object {"tool": ..., "arguments": {...}, ...}`)
		return
	}
	hasTool := false
	for k, v := range m {
		switch k {
		case "server":
			c.Server = w.str(k, v)
		case "tool":
			hasTool = true
			if s, ok := v.(string); ok && s != "" {
				c.Tool = s
			} else {
				w.push(k)
				w.typeError(v, "the name of the called tool, a non-empty string")
				w.pop()
			}
		case "arguments":
			c.Arguments = v
		case "is_error":
			if b, ok := v.(bool); ok {
				c.IsError = b
			} else {
				w.push(k)
				w.typeError(v, "true or false")
				w.pop()
			}
		case "result":
			if _, ok := v.(map[string]any); ok {
				c.Result = v
			} else {
				w.push(k)
				w.typeError(v, `the MCP CallToolResult, an object {"content": [...]}`)
				w.pop()
			}
		case "duration_ms":
			if f, ok := v.(float64); ok && f >= 0 {
				c.DurationMS = &f
			} else {
				w.push(k)
				w.typeError(v, "a duration in milliseconds, a number ≥ 0")
				w.pop()
			}
		case "agent":
			c.Agent = w.str(k, v)
		default:
			if !isExtension(k) {
				w.unknownKey(k, callKeys)
			}
		}
	}
	if !hasTool {
		w.errorf(`missing required "tool": every call names the tool it called`)
	}
}

func (w *walker) delegations(v any) []Delegation {
	arr, ok := v.([]any)
	if !ok {
		w.push("delegations")
		w.typeError(v, `an array of hand-offs {"from": ..., "to": ...}`)
		w.pop()
		return nil
	}
	w.push("delegations")
	out := make([]Delegation, len(arr))
	for i, d := range arr {
		w.pushIdx(i)
		out[i] = w.delegation(d)
		w.pop()
	}
	w.pop()
	return out
}

func (w *walker) delegation(v any) Delegation {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a hand-off {"from": ..., "to": ...}`)
		return Delegation{}
	}
	var d Delegation
	hasFrom, hasTo := false, false
	for k, v := range m {
		switch k {
		case "from":
			hasFrom = true
			d.From = w.str(k, v)
		case "to":
			hasTo = true
			d.To = w.str(k, v)
		default:
			if !isExtension(k) {
				w.unknownKey(k, delegationKeys)
			}
		}
	}
	if !hasFrom {
		w.errorf(`missing required "from": a hand-off names the agent that delegated`)
	}
	if !hasTo {
		w.errorf(`missing required "to": a hand-off names the agent it delegated to`)
	}
	return d
}

func (w *walker) tokens(v any) *Tokens {
	m, ok := v.(map[string]any)
	if !ok {
		w.push("tokens")
		w.typeError(v, `an object {"input": ..., "output": ..., "total": ...}`)
		w.pop()
		return nil
	}
	w.push("tokens")
	t := &Tokens{}
	hasTotal := false
	for k, v := range m {
		switch k {
		case "input":
			t.Input, _ = w.count(k, v, "tokens")
		case "output":
			t.Output, _ = w.count(k, v, "tokens")
		case "total":
			hasTotal = true
			t.Total, _ = w.count(k, v, "tokens")
		default:
			if !isExtension(k) {
				w.unknownKey(k, tokensKeys)
			}
		}
	}
	w.pop()
	if !hasTotal {
		t.Total = t.Input + t.Output
	}
	return t
}
