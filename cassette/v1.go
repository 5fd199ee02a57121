package cassette

import (
	"math"
	"slices"
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

// member is one member of an object: its key and where the key and the
// value start.
type member struct {
	key         string
	keyOff, val int
}

// readV1 decodes the v1 cassette whose root object starts at root, checking
// every value against the format as it goes. It returns the cassette
// without its runs and the offset of the runs array (-1 when missing); see
// runs for those.
func (d *decoder) readV1(root int) (*Cassette, int) {
	w := d.w
	c := &Cassette{Format: FormatV1}
	var ms []member
	d.object(root, func(key string, k, v int) int {
		ms = append(ms, member{key, k, v})
		return d.skip(v, false)
	})
	runs := -1
	for _, m := range ms {
		if m.key == "runs" {
			runs = m.val
		}
		if m.key != "mcptest_cassette" {
			continue
		}
		w.push(m.key)
		switch v, _ := d.value(m.val); v := v.(type) {
		case float64:
			if v != Version {
				w.errorAt(m.val, "unsupported cassette format version %s: this mcptest reads version %d", formatNumber(v), Version)
				w.pop()
				return c, -1 // another version has other rules: say only this
			}
		default:
			w.errorAt(m.val, "expected the cassette format version, the number %d, found %s", Version, describe(v))
		}
		w.pop()
	}
	for _, m := range ms {
		d.rootMember(c, m)
	}
	if runs < 0 {
		w.errorAt(root, `missing required "runs": a cassette holds one entry per recorded run (an empty array when none)`)
	}
	return c, runs
}

// rootMember reads one member of the root object other than the version
// and the runs.
func (d *decoder) rootMember(c *Cassette, m member) {
	w := d.w
	if m.key == "mcptest_cassette" || m.key == "runs" {
		return
	}
	if m.key == "catalog" {
		c.Catalog = d.catalog(m.val)
		return
	}
	w.push(m.key)
	defer w.pop()
	switch m.key {
	case "agent":
		c.Agent, _ = d.strField(m.val, false)
	case "model":
		c.Model, _ = d.strField(m.val, false)
	case "provider":
		c.Provider, _ = d.strField(m.val, false)
	case "recorded_at":
		c.RecordedAt, _ = d.strField(m.val, false)
	case "prompt":
		c.Prompt, _ = d.strField(m.val, false)
	default:
		w.pop()
		if !isExtension(m.key) {
			w.unknownKeyAt(m.keyOff, m.key, rootKeys)
		}
		w.push(m.key)
		d.discard(m.val)
	}
}

// strField reads the value at i as a string, recording a problem when it
// is not one; intern is for names that repeat.
func (d *decoder) strField(i int, intern bool) (string, int) {
	if d.data[i] == '"' {
		return d.str(i, intern)
	}
	v, end := d.value(i)
	d.w.typeErrorAt(i, v, "a string")
	return "", end
}

// count reads the value at i as a non-negative integer up to maxCount,
// else records a problem saying what the number counts.
func (d *decoder) count(i int, what string) (int64, bool, int) {
	v, end := d.value(i)
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > maxCount {
		d.w.typeErrorAt(i, v, "a non-negative integer ("+what+")")
		return 0, false, end
	}
	return int64(f), true, end
}

// unknownMember records the member key, at offset k, of the object being
// read as unexpected: the walker's path names the member, the message
// names the object.
func (d *decoder) unknownMember(k int, key string, valid []string) {
	d.w.pop()
	d.w.unknownKeyAt(k, key, valid)
	d.w.push(key)
}

// typed reads the value at i when it starts with one of the bytes of
// want; otherwise it decodes it and records that it is not the expected
// value. It returns whether the value was of the wanted kind.
func (d *decoder) typed(i int, want, expected string) (bool, int) {
	if strings.IndexByte(want, d.data[i]) >= 0 {
		return true, i
	}
	v, end := d.value(i)
	d.w.typeErrorAt(i, v, expected)
	return false, end
}

// runs reads the runs array at i, handing each run to each as soon as it
// is read, while the document has shown no problem.
func (d *decoder) runs(i int, each func(*Run)) {
	w := d.w
	w.push("runs")
	defer w.pop()
	if ok, _ := d.typed(i, "[", "an array of runs"); !ok {
		return
	}
	d.array(i, func(n, v int) int {
		r := &Run{}
		end := d.run(r, v)
		if d.clean() && each != nil {
			each(r)
		}
		return end
	})
}

func (d *decoder) run(r *Run, i int) int {
	if ok, end := d.typed(i, "{", `a run object {"turns": [...], ...}`); !ok {
		return end
	}
	return d.object(i, func(key string, k, v int) int {
		switch key {
		case "turns":
			return d.turns(&r.Turns, v)
		case "delegations":
			return d.delegations(&r.Delegations, v)
		case "tokens":
			return d.tokens(&r.Tokens, v)
		case "cost_micros":
			n, ok, end := d.count(v, "micro-dollars")
			if ok {
				r.CostMicros = &n
			}
			return end
		}
		if !isExtension(key) {
			d.unknownMember(k, key, runKeys)
		}
		return d.discard(v)
	})
}

func (d *decoder) turns(dst *[]Turn, i int) int {
	if ok, end := d.typed(i, "[", "an array of turns"); !ok {
		return end
	}
	turns := []Turn{}
	end := d.array(i, func(_, v int) int {
		var t Turn
		end := d.turn(&t, v)
		turns = append(turns, t)
		return end
	})
	*dst = turns
	return end
}

func (d *decoder) turn(t *Turn, i int) int {
	if ok, end := d.typed(i, "{", `a turn object {"calls": [...], "final_response": ...}`); !ok {
		return end
	}
	return d.object(i, func(key string, k, v int) int {
		switch key {
		case "calls":
			return d.calls(&t.Calls, v)
		case "final_response":
			var end int
			t.FinalResponse, end = d.strField(v, false)
			return end
		}
		if !isExtension(key) {
			d.unknownMember(k, key, turnKeys)
		}
		return d.discard(v)
	})
}

func (d *decoder) calls(dst *[]Call, i int) int {
	if ok, end := d.typed(i, "[", "an array of calls"); !ok {
		return end
	}
	calls := []Call{}
	counted := false
	end := d.array(i, func(_, v int) int {
		var c Call
		end := d.call(&c, v)
		if len(calls) == cap(calls) && len(calls) >= countFrom && !counted {
			// A long list: make room for the calls left at once, rather
			// than growing by a quarter at a time (five times the final
			// size allocated, twice held while copying).
			counted = true
			calls = slices.Grow(calls, 1+d.countRest(end))
		}
		calls = append(calls, c)
		return end
	})
	*dst = calls
	return end
}

// countFrom is the number of calls after which calls counts the rest of
// its array before growing it.
const countFrom = 1024

// countRest counts the values of an array left after offset i, which is
// just after one of its values: the commas before the array's end that
// are not inside a string or a nested value.
func (d *decoder) countRest(i int) int {
	data := d.data
	n := 0
	for i < len(data) {
		switch data[i] {
		case ',':
			n++
			i++
		case ']':
			return n
		case '"', '{', '[':
			i = d.skip(i, false)
		default:
			i++
		}
	}
	return n
}

func (d *decoder) call(c *Call, i int) int {
	w := d.w
	if ok, end := d.typed(i, "{", `a call object {"tool": ..., "arguments": {...}, ...}`); !ok {
		return end
	}
	hasTool := false
	end := d.object(i, func(key string, k, v int) int {
		var end int
		switch key {
		case "server":
			c.Server, end = d.strField(v, true)
		case "tool":
			hasTool = true
			c.Tool, end = d.toolName(v)
		case "arguments":
			c.Arguments, end = d.args(v)
		case "is_error":
			c.IsError, end = d.boolField(v)
		case "result":
			c.Result, end = d.result(v)
		case "duration_ms":
			c.DurationMS, end = d.duration(v)
		case "agent":
			c.Agent, end = d.strField(v, true)
		default:
			if !isExtension(key) {
				d.unknownMember(k, key, callKeys)
			}
			end = d.discard(v)
		}
		return end
	})
	if !hasTool {
		w.errorAt(i, `missing required "tool": every call names the tool it called`)
	}
	return end
}

// toolName reads a call's tool, a non-empty string.
func (d *decoder) toolName(i int) (string, int) {
	if d.data[i] == '"' && d.data[i+1] != '"' {
		return d.str(i, true)
	}
	v, end := d.value(i)
	d.w.typeErrorAt(i, v, "the name of the called tool, a non-empty string")
	return "", end
}

func (d *decoder) boolField(i int) (bool, int) {
	v, end := d.value(i)
	b, ok := v.(bool)
	if !ok {
		d.w.typeErrorAt(i, v, "true or false")
	}
	return b, end
}

// result reads a call's result, a CallToolResult object.
func (d *decoder) result(i int) (any, int) {
	if d.data[i] != '{' {
		v, end := d.value(i)
		d.w.typeErrorAt(i, v, `the MCP CallToolResult, an object {"content": [...]}`)
		return nil, end
	}
	// Kept as its compact text, checked as value checks it: decoded, a
	// result of a hundred bytes took about 0.9 KB of Go maps, and a run
	// of 200,000 such calls peaked 37 % past SECURITY.md's bound.
	end := d.check(i)
	return compact(d.data[i:end]), end
}

// duration reads a call's duration_ms, a number ≥ 0.
func (d *decoder) duration(i int) (*float64, int) {
	v, end := d.value(i)
	if f, ok := v.(float64); ok && f >= 0 {
		return &f, end
	}
	d.w.typeErrorAt(i, v, "a duration in milliseconds, a number ≥ 0")
	return nil, end
}

func (d *decoder) delegations(dst *[]Delegation, i int) int {
	if ok, end := d.typed(i, "[", `an array of hand-offs {"from": ..., "to": ...}`); !ok {
		return end
	}
	out := []Delegation{}
	end := d.array(i, func(_, v int) int {
		var dl Delegation
		end := d.delegation(&dl, v)
		out = append(out, dl)
		return end
	})
	*dst = out
	return end
}

func (d *decoder) delegation(dl *Delegation, i int) int {
	w := d.w
	if ok, end := d.typed(i, "{", `a hand-off {"from": ..., "to": ...}`); !ok {
		return end
	}
	hasFrom, hasTo := false, false
	end := d.object(i, func(key string, k, v int) int {
		var end int
		switch key {
		case "from":
			hasFrom = true
			dl.From, end = d.strField(v, true)
		case "to":
			hasTo = true
			dl.To, end = d.strField(v, true)
		default:
			if !isExtension(key) {
				d.unknownMember(k, key, delegationKeys)
			}
			end = d.discard(v)
		}
		return end
	})
	if !hasFrom {
		w.errorAt(i, `missing required "from": a hand-off names the agent that delegated`)
	}
	if !hasTo {
		w.errorAt(i, `missing required "to": a hand-off names the agent it delegated to`)
	}
	return end
}

func (d *decoder) tokens(dst **Tokens, i int) int {
	if ok, end := d.typed(i, "{", `an object {"input": ..., "output": ..., "total": ...}`); !ok {
		return end
	}
	t := &Tokens{}
	hasTotal := false
	end := d.object(i, func(key string, k, v int) int {
		var end int
		switch key {
		case "input":
			t.Input, _, end = d.count(v, "tokens")
		case "output":
			t.Output, _, end = d.count(v, "tokens")
		case "total":
			hasTotal = true
			t.Total, _, end = d.count(v, "tokens")
		default:
			if !isExtension(key) {
				d.unknownMember(k, key, tokensKeys)
			}
			end = d.discard(v)
		}
		return end
	})
	if !hasTotal {
		t.Total = t.Input + t.Output
	}
	*dst = t
	return end
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

// catalog reads the catalog, the value at i: an object of server name →
// tools/list result, read from the bytes (catalog.go), ordered by server
// name.
func (d *decoder) catalog(i int) []ServerCatalog {
	w := d.w
	w.push("catalog")
	defer w.pop()
	if d.data[i] != '{' {
		v, _ := d.value(i)
		w.typeError(v, `an object of server name → {"tools": [...]}, the tools/list result of each server`)
		return nil
	}
	var out []ServerCatalog
	d.object(i, func(server string, _, v int) int {
		tools, end := d.server(v)
		out = append(out, ServerCatalog{Server: server, Tools: tools})
		return end
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// server reads one server's tools/list result, the value at i: {"tools":
// [...]}. Other keys of the result (nextCursor, _meta) are allowed.
func (d *decoder) server(i int) ([]Tool, int) {
	w := d.w
	if d.data[i] != '{' {
		v, end := d.value(i)
		w.typeError(v, `the server's tools/list result, an object {"tools": [...]}`)
		return nil, end
	}
	var tools []Tool
	found := false
	end := d.object(i, func(key string, _, v int) int {
		if key != "tools" {
			return d.discard(v)
		}
		found = true
		if d.data[v] != '[' {
			tv, end := d.value(v)
			w.typeError(tv, "an array of tools")
			return end
		}
		n, size := countItems(d.data, v)
		tools = make([]Tool, 0, n)
		d.toolLeft = size
		return d.array(v, func(_, t int) int {
			tool, end := d.tool(t)
			tools = append(tools, tool)
			d.toolLeft -= end - t
			return end
		})
	})
	if !found {
		w.errorf(`missing required "tools": the tools/list result lists the tools the server advertised`)
	}
	return tools, end
}

// tool checks one decoded tools/list entry, the way catalog.go reads a
// tool the bytes could not be kept of as they are; keys other than the
// ones checked here are allowed.
func (w *walker) tool(v any) Tool {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a tool object {"name": ..., "description": ..., "inputSchema": {...}}`)
		return Tool{}
	}
	dropNulls(m)
	t := ToolOf(m)
	if n, ok := m["name"]; !ok {
		w.errorf(`missing required "name": every tool has a name`)
	} else if s, ok := n.(string); !ok || s == "" {
		w.push("name")
		w.typeError(n, "a non-empty tool name")
		w.pop()
	}
	if d, ok := m["description"]; ok && d != nil {
		w.str("description", d)
	}
	if s, ok := m["inputSchema"]; ok {
		if _, isObj := s.(map[string]any); !isObj {
			w.push("inputSchema")
			w.typeError(s, "a JSON Schema object")
			w.pop()
		}
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

// dropNulls removes from a tool the optional members that are null: a
// registry or server that writes "annotations": null (483 of the 527
// LiveMCPBench tools) or "title": null means the member is absent. The name
// and inputSchema are required, so their null stays and is reported.
func dropNulls(m map[string]any) {
	for k, v := range m {
		if v == nil && k != "name" && k != "inputSchema" {
			delete(m, k)
		}
	}
}
