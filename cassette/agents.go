package cassette

import (
	"regexp"
	"sort"
	"strings"
	"time"
)

// FormatAgentsTrace is the trace export of the OpenAI Agents SDK: the
// trace and span objects its exporter posts ({"data": [...]}), as a
// processor's toJSON writes them.
const FormatAgentsTrace Format = "openai-agents-trace"

// isAgentsTraceItem reports whether m is a trace or a span of the OpenAI
// Agents SDK's trace export: "object" "trace" or "trace.span".
func isAgentsTraceItem(m map[string]any) bool {
	return m["object"] == "trace.span" || m["object"] == "trace" && m["id"] != nil
}

// isAgentsTrace reports whether m is the body the Agents SDK's exporter
// posts, {"data": [trace, spans...]}, or one of its items.
func isAgentsTrace(m map[string]any) bool {
	if isAgentsTraceItem(m) {
		return true
	}
	data, _ := m["data"].([]any)
	for _, e := range data {
		if e, ok := e.(map[string]any); ok && isAgentsTraceItem(e) {
			return true
		}
	}
	return false
}

// agentsSpan is what the reader keeps of one span of the export.
type agentsSpan struct {
	trace, id, parent string
	start, end        time.Time
	// startText orders the spans: the SDK writes ISO 8601 times of one
	// length, which sort as text.
	startText string
	data      map[string]any
	failed    bool
	errText   string
}

// agentsReader reads the OpenAI Agents SDK's trace export: each trace is
// a run; its function spans are the calls (the agent span around each is
// its agent, mcp_data.server its server), its handoff spans the
// delegations, its mcp_tools spans the catalog (tool names only), the
// usage of its innermost spans that record one (turn, generation) the
// tokens, a generation span's model the model and its last output the
// answer.
type agentsReader struct {
	c      *Cassette
	spans  []*agentsSpan
	traces []string
	seen   map[string]bool
}

func newAgentsReader() *agentsReader {
	return &agentsReader{c: &Cassette{Format: FormatAgentsTrace}, seen: map[string]bool{}}
}

func (r *agentsReader) cassette() *Cassette { return r.c }

// line reads one value: the exporter's body {"data": [...]}, a trace or a
// span.
func (r *agentsReader) line(w *walker, v any) []Run {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `a trace or a span of the OpenAI Agents SDK's trace export ("object": "trace" or "trace.span")`)
		return nil
	}
	if _, has := m["data"]; has && m["object"] == nil {
		eachOf(w, m, "data", "an array of traces and spans", r.item(w))
		return nil
	}
	r.item(w)(m)
	return nil
}

// item returns the reader of one trace or span object.
func (r *agentsReader) item(w *walker) func(map[string]any) {
	return func(m map[string]any) {
		switch m["object"] {
		case "trace":
			if id, _ := m["id"].(string); id != "" {
				r.trace(id)
			}
		case "trace.span":
			r.span(w, m)
		default:
			w.errorf(`expected a trace or a span of the OpenAI Agents SDK's trace export ("object": "trace" or "trace.span"), found %s`, describeObject(m))
		}
	}
}

// trace notes the trace id, runs being in the order of their traces.
func (r *agentsReader) trace(id string) {
	if !r.seen[id] {
		r.seen[id] = true
		r.traces = append(r.traces, id)
	}
}

// span reads one span object.
func (r *agentsReader) span(w *walker, m map[string]any) {
	s := &agentsSpan{}
	var ok bool
	if s.trace, ok = spanID(w, m, "trace_id", true); !ok {
		return
	}
	s.id, _ = spanID(w, m, "id", false)
	s.parent, _ = spanID(w, m, "parent_id", false)
	s.startText, _ = m["started_at"].(string)
	s.start = isoTime(s.startText)
	end, _ := m["ended_at"].(string)
	s.end = isoTime(end)
	data, isObj := m["span_data"].(map[string]any)
	if !isObj {
		w.push("span_data")
		w.typeError(m["span_data"], `the span's data, an object {"type": ...}`)
		w.pop()
		return
	}
	s.data = data
	if e, ok := m["error"].(map[string]any); ok {
		s.failed = true
		s.errText, _ = e["message"].(string)
	}
	if data["type"] == "function" {
		if name, _ := data["name"].(string); name == "" {
			w.push("span_data")
			w.errorf(`a function span names the tool it calls: expected "name", a non-empty string`)
			w.pop()
			return
		}
	}
	r.trace(s.trace)
	r.spans = append(r.spans, s)
}

// isoTime parses an ISO 8601 time; the zero time when it is none.
func isoTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func (s *agentsSpan) str(key string) string {
	v, _ := s.data[key].(string)
	return v
}

// custom is the sdk_span_type of a custom span (task, turn) and its data.
func (s *agentsSpan) custom() (string, map[string]any) {
	if s.str("type") != "custom" {
		return "", nil
	}
	d, _ := s.data["data"].(map[string]any)
	typ, _ := d["sdk_span_type"].(string)
	return typ, d
}

// usage is the usage a span records (a turn, a task, a generation), in
// the naming usageSum reads; nil when none.
func (s *agentsSpan) usage() map[string]any {
	u, _ := s.data["usage"].(map[string]any)
	if typ, d := s.custom(); typ != "" {
		u, _ = d["usage"].(map[string]any)
	}
	if u == nil {
		return nil
	}
	out := map[string]any{"input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"]}
	if u["total_tokens"] != nil {
		out["total_tokens"] = u["total_tokens"]
	}
	if c := u["cached_input_tokens"]; c != nil {
		out["input_tokens_details"] = map[string]any{"cached_tokens": c}
	}
	return out
}

// finish builds one run per trace, in the order the traces appear.
func (r *agentsReader) finish() []Run {
	byTrace := map[string][]*agentsSpan{}
	for _, s := range r.spans {
		byTrace[s.trace] = append(byTrace[s.trace], s)
	}
	r.catalog()
	var runs []Run
	for _, id := range r.traces {
		spans := byTrace[id]
		if len(spans) == 0 {
			continue
		}
		sort.SliceStable(spans, func(i, j int) bool { return spans[i].startText < spans[j].startText })
		runs = append(runs, r.run(spans))
	}
	r.spans = nil
	return runs
}

// catalog reads the mcp_tools spans, the tools/list each MCP server
// answered (names only): the first list of each server is kept.
func (r *agentsReader) catalog() {
	seen := map[string]bool{}
	for _, s := range r.spans {
		if s.str("type") != "mcp_tools" || seen[s.str("server")] {
			continue
		}
		list, _ := s.data["result"].([]any)
		server := s.str("server")
		seen[server] = true
		tools := []Tool{}
		for _, t := range list {
			if name, _ := t.(string); name != "" {
				tools = append(tools, ToolOf(map[string]any{"name": name}))
			}
		}
		r.c.Catalog = append(r.c.Catalog, ServerCatalog{Server: server, Tools: tools})
	}
	sort.SliceStable(r.c.Catalog, func(i, j int) bool { return r.c.Catalog[i].Server < r.c.Catalog[j].Server })
}

// agentsTrace is the spans of one trace, by id.
type agentsTrace struct {
	byID map[string]*agentsSpan
}

// agentOf is the name of the nearest agent span enclosing s (or the
// agent_name of the turn span around it).
func (t *agentsTrace) agentOf(s *agentsSpan) string {
	for range len(t.byID) + 1 {
		s = t.byID[s.parent]
		if s == nil {
			return ""
		}
		if s.str("type") == "agent" && s.str("name") != "" {
			return s.str("name")
		}
		if typ, d := s.custom(); typ == "turn" {
			if name, _ := d["agent_name"].(string); name != "" {
				return name
			}
		}
	}
	return ""
}

// run builds the run of one trace's spans, in start order.
func (r *agentsReader) run(spans []*agentsSpan) Run {
	t := &agentsTrace{byID: map[string]*agentsSpan{}}
	for _, s := range spans {
		if s.id != "" {
			t.byID[s.id] = s
		}
	}
	shadowed := map[*agentsSpan]bool{}
	for _, s := range spans {
		if s.usage() != nil {
			for p := t.byID[s.parent]; p != nil && !shadowed[p] && p != s; p = t.byID[p.parent] {
				shadowed[p] = true
			}
		}
	}
	var run Run
	var turn Turn
	var usage usageSum
	seen := map[Delegation]bool{}
	for _, s := range spans {
		switch s.str("type") {
		case "function":
			turn.Calls = append(turn.Calls, r.call(t, s))
		case "handoff":
			d := Delegation{From: s.str("from_agent"), To: s.str("to_agent")}
			if d.From != "" && d.To != "" && !seen[d] {
				seen[d] = true
				run.Delegations = append(run.Delegations, d)
			}
		case "agent":
			if r.c.Agent == "" {
				r.c.Agent = s.str("name")
			}
		case "generation":
			r.generation(s, &turn)
		}
		if u := s.usage(); u != nil && !shadowed[s] {
			usage.add(u)
		}
	}
	run.Turns = []Turn{turn}
	run.Tokens = usage.tokens()
	return run
}

// generation reads a generation span (a Chat Completions model call):
// its model, the first user message as the prompt, its last assistant
// text as the answer so far.
func (r *agentsReader) generation(s *agentsSpan, turn *Turn) {
	if m := s.str("model"); m != "" && r.c.Model == "" {
		r.c.Model = m
	}
	in, _ := s.data["input"].([]any)
	for _, m := range in {
		if m, _ := m.(map[string]any); m["role"] == "user" && r.c.Prompt == "" {
			r.c.Prompt = text(m["content"])
		}
	}
	out, _ := s.data["output"].([]any)
	for _, m := range out {
		if m, _ := m.(map[string]any); m["role"] == "assistant" {
			if txt := text(m["content"]); strings.TrimSpace(txt) != "" {
				turn.FinalResponse = txt
			}
		}
	}
}

// call is the call a function span records.
func (r *agentsReader) call(t *agentsTrace, s *agentsSpan) Call {
	c := Call{Tool: s.str("name"), Arguments: arguments(s.data["input"]), Agent: t.agentOf(s), IsError: s.failed}
	if md, ok := s.data["mcp_data"].(map[string]any); ok {
		c.Server, _ = md["server"].(string)
		c.Tool = r.mcpName(c.Server, c.Tool)
	}
	if out, ok := s.data["output"]; ok && out != "" {
		c.Result = agentsResult(out)
	} else if s.failed {
		c.Result = toolResult(s.errText)
	}
	if rm, ok := c.Result.(map[string]any); ok && rm["isError"] == true || isMCPError(c.Result) {
		c.IsError = true
	}
	if !s.start.IsZero() && !s.end.Before(s.start) {
		ms := float64(s.end.Sub(s.start).Microseconds()) / 1e3
		c.DurationMS = &ms
	}
	return c
}

// notAlnum is what the Agents SDK replaces with "_" in an MCP tool's name
// to make its function name.
var notAlnum = regexp.MustCompile(`[^a-zA-Z0-9]`)

// mcpName is the MCP tool a function span of server calls: the SDK gives
// the model the tool's name with every character but letters and digits
// made "_" (get-sum is get_sum), and the tool of the server's mcp_tools
// list that has the function's name so is the one called; the name as
// it is when none or several do.
func (r *agentsReader) mcpName(server, name string) string {
	found := ""
	for _, sc := range r.c.Catalog {
		if sc.Server != server {
			continue
		}
		for _, tool := range sc.Tools {
			if tool.Name == name {
				return name
			}
			if notAlnum.ReplaceAllString(tool.Name, "_") == name {
				if found != "" {
					return name
				}
				found = tool.Name
			}
		}
	}
	return firstNonEmpty(found, name)
}

// agentsResult makes a CallToolResult of a function span's output, the
// JSON text of the tool's output: a content item {"type": "text", ...} or
// an array of them is the content, a CallToolResult is itself, any other
// text its text.
func agentsResult(v any) any {
	s, isStr := v.(string)
	if !isStr {
		return toolResult(jsonText(v))
	}
	d, ok := decodeAny([]byte(s))
	if !ok {
		return toolResult(s)
	}
	switch d := d.(type) {
	case map[string]any:
		if _, has := d["content"].([]any); has {
			return d
		}
		if _, typed := d["type"].(string); typed {
			return toolResult([]any{d})
		}
	case []any:
		for _, e := range d {
			if e, _ := e.(map[string]any); e["type"] == nil {
				return toolResult(s)
			}
		}
		return toolResult(d)
	}
	return toolResult(s)
}
