package cassette

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// isOTLP reports whether m is an OTLP JSON export request of traces.
func isOTLP(m map[string]any) bool {
	_, ok := m["resourceSpans"]
	return ok
}

// otelSpan is what the reader keeps of one span.
type otelSpan struct {
	trace, id, parent, name string
	// start and end are Unix nanoseconds, 0 when not recorded.
	start, end uint64
	// order is the span's place in the file, for ties.
	order int
	// attrs are the span's attributes of the GenAI and MCP conventions
	// (gen_ai.*, mcp.*, error.type), decoded.
	attrs  map[string]any
	failed bool
}

func (s *otelSpan) str(key string) string {
	v, _ := s.attrs[key].(string)
	return v
}

// otelReader reads OpenTelemetry spans in the OTLP JSON encoding, one
// export request per line or per document, following the GenAI semantic
// conventions: each trace is a run, its execute_tool spans (and MCP
// tools/call spans outside any) are its calls, in start order.
type otelReader struct {
	c     *Cassette
	spans []*otelSpan
}

func newOTelReader() *otelReader {
	return &otelReader{c: &Cassette{Format: FormatOTel}}
}

func (r *otelReader) cassette() *Cassette { return r.c }

// line reads one export request {"resourceSpans": [{"scopeSpans":
// [{"spans": [...]}]}]}, keeping its spans for finish.
func (r *otelReader) line(w *walker, v any) []Run {
	m, ok := v.(map[string]any)
	if !ok {
		w.typeError(v, `an OTLP JSON export request {"resourceSpans": [...]}`)
		return nil
	}
	if !isOTLP(m) {
		w.errorf(`expected an OTLP JSON export request {"resourceSpans": [...]}, as the lines before it, found %s`, describeObject(m))
		return nil
	}
	eachOf(w, m, "resourceSpans", `an array of resource spans {"scopeSpans": [...]}`, func(rs map[string]any) {
		scope := func(ss map[string]any) { eachOf(w, ss, "spans", "an array of spans", r.span(w)) }
		eachOf(w, rs, "scopeSpans", `an array of scope spans {"spans": [...]}`, scope)
		// The name OTLP used before 0.15, which old exporters still write.
		eachOf(w, rs, "instrumentationLibrarySpans", `an array of instrumentation library spans {"spans": [...]}`, scope)
	})
	return nil
}

// eachOf calls f with each object of the array m[key]; a missing key is
// no element, anything but an array of objects is a problem.
func eachOf(w *walker, m map[string]any, key, expected string, f func(map[string]any)) {
	v, ok := m[key]
	if !ok || v == nil {
		return
	}
	w.push(key)
	defer w.pop()
	a, ok := v.([]any)
	if !ok {
		w.typeError(v, expected)
		return
	}
	for i, e := range a {
		w.pushIdx(i)
		if o, ok := e.(map[string]any); ok {
			f(o)
		} else {
			w.typeError(e, "an object")
		}
		w.pop()
	}
}

// span returns the reader of one span object.
func (r *otelReader) span(w *walker) func(map[string]any) {
	return func(m map[string]any) {
		s := &otelSpan{order: len(r.spans), attrs: map[string]any{}}
		var ok bool
		if s.trace, ok = spanID(w, m, "traceId", true); !ok {
			return
		}
		s.id, _ = spanID(w, m, "spanId", false)
		s.parent, _ = spanID(w, m, "parentSpanId", false)
		s.name, _ = m["name"].(string)
		s.start = unixNano(w, m, "startTimeUnixNano")
		s.end = unixNano(w, m, "endTimeUnixNano")
		readAttributes(w, m, s.attrs)
		trimOpenInference(s)
		if st, ok := m["status"].(map[string]any); ok {
			s.failed = st["code"] == 2.0 || st["code"] == "STATUS_CODE_ERROR"
		}
		if isExecuteTool(s) && toolOf(s) == "" {
			w.errorf(`an execute_tool span names its tool: expected a "gen_ai.tool.name" attribute or a span name "execute_tool <tool>"`)
			return
		}
		r.spans = append(r.spans, s)
	}
}

// spanID reads a hex id of a span; a required one missing is a problem.
func spanID(w *walker, m map[string]any, key string, required bool) (string, bool) {
	v, has := m[key]
	s, ok := v.(string)
	switch {
	case ok && (s != "" || !required):
		return s, true
	case !has && !required, v == nil && !required:
		return "", true
	case !has:
		w.errorf("missing %q: every span names its trace, a hex id that groups the spans of one run", key)
		return "", false
	}
	w.push(key)
	w.typeError(v, "a non-empty hex id, a string")
	w.pop()
	return "", false
}

// unixNano reads a time in Unix nanoseconds, a decimal string (as OTLP
// JSON writes 64-bit integers) or a number; 0 when absent.
func unixNano(w *walker, m map[string]any, key string) uint64 {
	v, has := m[key]
	if !has || v == nil {
		return 0
	}
	switch v := v.(type) {
	case string:
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			return n
		}
	case float64:
		if v >= 0 && v == math.Trunc(v) && v < 1<<64 {
			return uint64(v)
		}
	}
	w.push(key)
	w.typeError(v, "a time in Unix nanoseconds, a decimal string such as \"1732363200000000000\"")
	w.pop()
	return 0
}

// readAttributes reads a span's attributes [{"key": ..., "value":
// {"stringValue": ...}}] into attrs, keeping those mcptest reads.
func readAttributes(w *walker, m map[string]any, attrs map[string]any) {
	eachOf(w, m, "attributes", `an array of attributes {"key": ..., "value": {...}}`, func(a map[string]any) {
		key, ok := a["key"].(string)
		if !ok {
			w.errorf(`an attribute has a "key", a string, and a "value", {"stringValue": ...} or another AnyValue`)
			return
		}
		if !keptAttribute(key) {
			return
		}
		w.push("value")
		attrs[key] = anyValue(w, a["value"])
		w.pop()
	})
}

// anyValue decodes an OTLP AnyValue: {"stringValue": "x"}, {"intValue":
// "3"}, {"doubleValue": 1.5}, {"boolValue": true}, {"arrayValue":
// {"values": [...]}}, {"kvlistValue": {"values": [{"key", "value"}]}},
// {"bytesValue": "base64"}; {} is null.
func anyValue(w *walker, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			w.typeError(v, `an AnyValue object such as {"stringValue": "..."}`)
		}
		return nil
	}
	for _, k := range []string{"stringValue", "boolValue", "doubleValue", "bytesValue"} {
		if x, ok := m[k]; ok {
			return x
		}
	}
	if x, ok := m["intValue"]; ok {
		return intValue(w, x)
	}
	if x, ok := m["arrayValue"].(map[string]any); ok {
		vals, _ := x["values"].([]any)
		out := make([]any, 0, len(vals))
		for _, e := range vals {
			out = append(out, anyValue(w, e))
		}
		return out
	}
	if x, ok := m["kvlistValue"].(map[string]any); ok {
		vals, _ := x["values"].([]any)
		out := map[string]any{}
		for _, e := range vals {
			kv, _ := e.(map[string]any)
			if k, ok := kv["key"].(string); ok {
				out[k] = anyValue(w, kv["value"])
			}
		}
		return out
	}
	return nil
}

// intValue reads an OTLP intValue, a decimal string or a number, as a
// float64.
func intValue(w *walker, x any) any {
	switch x := x.(type) {
	case float64:
		return x
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return float64(n)
		}
	}
	w.push("intValue")
	w.typeError(x, "a 64-bit integer, a decimal string or a number")
	w.pop()
	return nil
}

// isExecuteTool reports whether s is an execute_tool span: by its
// gen_ai.operation.name, or without one by its name.
func isExecuteTool(s *otelSpan) bool {
	op := s.str("gen_ai.operation.name")
	return op == "execute_tool" || op == "" && (strings.HasPrefix(s.name, "execute_tool ") || isAIToolCall(s) || isOITool(s))
}

// toolOf is the tool a tool span calls: gen_ai.tool.name, else the span
// name after its operation.
func toolOf(s *otelSpan) string {
	if t := firstNonEmpty(s.str("gen_ai.tool.name"), s.str("ai.toolCall.name"), oiToolName(s)); t != "" {
		return t
	}
	for _, p := range []string{"execute_tool ", "tools/call "} {
		if t, ok := strings.CutPrefix(s.name, p); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// otelTrace is the spans of one trace, by id.
type otelTrace struct {
	spans []*otelSpan
	byID  map[string]*otelSpan
	// agents and tools remember, per span, the nearest invoke_agent name
	// and whether an execute_tool span encloses it (at or above the span),
	// so a deep trace is walked once.
	agents, tools map[*otelSpan]string
}

// nearest returns f of the nearest span at or above s (s first, then its
// ancestors) for which f says ok, else "". Every span walked is
// remembered in memo with the answer, so the spans of a trace are walked
// once in all.
func (t *otelTrace) nearest(s *otelSpan, memo map[*otelSpan]string, f func(*otelSpan) (string, bool)) string {
	var walked []*otelSpan
	answer := ""
	for range len(t.spans) + 1 {
		if s == nil {
			break
		}
		if a, ok := memo[s]; ok {
			answer = a
			break
		}
		walked = append(walked, s)
		if a, ok := f(s); ok {
			answer = a
			break
		}
		s = t.byID[s.parent]
	}
	for _, w := range walked {
		memo[w] = answer
	}
	return answer
}

// ancestors calls f with each ancestor of s, nearest first, until f
// returns false. A parent chain that loops stops after every span.
func (t *otelTrace) ancestors(s *otelSpan, f func(*otelSpan) bool) {
	for range t.spans {
		p := t.byID[s.parent]
		if p == nil || !f(p) {
			return
		}
		s = p
	}
}

// finish builds one run per trace, traces in the order of their first
// start time.
func (r *otelReader) finish() []Run {
	if w := r.untraced(); w != "" {
		r.c.Warnings = append(r.c.Warnings, w)
	}
	traces := map[string]*otelTrace{}
	var order []*otelTrace
	for _, s := range r.spans {
		t := traces[s.trace]
		if t == nil {
			t = &otelTrace{byID: map[string]*otelSpan{}, agents: map[*otelSpan]string{}, tools: map[*otelSpan]string{}}
			traces[s.trace] = t
			order = append(order, t)
		}
		t.spans = append(t.spans, s)
		if s.id != "" {
			t.byID[s.id] = s
		}
	}
	for _, t := range order {
		sort.SliceStable(t.spans, func(i, j int) bool { return t.spans[i].start < t.spans[j].start })
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].spans[0].start < order[j].spans[0].start })
	order, split := joinFragments(order)
	if split != "" {
		r.c.Warnings = append(r.c.Warnings, split)
	}
	runs := make([]Run, 0, len(order))
	for _, t := range order {
		r.provenance(t)
		runs = append(runs, t.run())
	}
	r.catalog()
	r.spans = nil
	return runs
}

// catalog reads the first gen_ai.tool.definitions of the file (else an
// AI SDK span's ai.prompt.tools, an OpenInference LLM span's
// llm.tools.<i>.tool.json_schema), the tools a model call offered, in the
// Responses API's shape or the Chat Completions one, as the catalog: a tool named
// mcp__<server>__<tool> under its server, any other under none.
func (r *otelReader) catalog() {
	for _, s := range r.spans {
		defs := jsonList(s.attrs["gen_ai.tool.definitions"])
		if len(defs) == 0 {
			defs = aiTools(s)
		}
		if len(defs) == 0 {
			defs = oiTools(s)
		}
		if len(defs) == 0 {
			continue
		}
		byServer := map[string][]Tool{}
		for _, d := range defs {
			if raw, ok := functionTool(flatFunction(d)); ok {
				server, name := splitMCP(raw["name"].(string))
				raw["name"] = name
				byServer[server] = append(byServer[server], ToolOf(raw))
			}
		}
		for server, tools := range byServer {
			r.c.Catalog = append(r.c.Catalog, ServerCatalog{Server: server, Tools: tools})
		}
		sort.Slice(r.c.Catalog, func(i, j int) bool { return r.c.Catalog[i].Server < r.c.Catalog[j].Server })
		return
	}
}

// provenance fills the cassette's model, provider, agent and prompt from
// the first trace that has them: the agent is the first invoke_agent's,
// else the first agent span's with no agent span around it.
func (r *otelReader) provenance(t *otelTrace) {
	c := r.c
	for _, s := range t.spans {
		if c.Model == "" {
			c.Model = firstNonEmpty(s.str("gen_ai.response.model"), s.str("gen_ai.request.model"), s.str("ai.model.id"), oiModel(s))
		}
		if c.Provider == "" {
			c.Provider = firstNonEmpty(s.str("gen_ai.provider.name"), s.str("gen_ai.system"), s.str("ai.model.provider"), s.str("llm.provider"), s.str("llm.system"))
		}
		if c.Agent == "" && s.str("gen_ai.operation.name") == "invoke_agent" {
			c.Agent = s.str("gen_ai.agent.name")
		}
		if name, ok := oiAgent(s); ok && c.Agent == "" && t.agentOf(s) == "" {
			c.Agent = name
		}
		if c.Prompt == "" {
			c.Prompt = firstNonEmpty(messagesText(s.attrs["gen_ai.input.messages"], "user", false), aiPrompt(s), oiPrompt(s))
		}
	}
}

// flatFunction is a tool definition in the Chat Completions shape,
// {"type": "function", "function": {"name", "description",
// "parameters"}}, in the flat one functionTool reads; any other as it is.
func flatFunction(v any) any {
	m, _ := v.(map[string]any)
	fn, ok := m["function"].(map[string]any)
	if !ok || m["type"] != "function" || m["name"] != nil {
		return v
	}
	out := map[string]any{"type": "function"}
	for k, x := range fn {
		out[k] = x
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// run builds the run of one trace.
func (t *otelTrace) run() Run {
	var turn Turn
	var run Run
	var usage usageSum
	handoffs := map[Delegation]bool{}
	shadowed := t.usageShadowed()
	var lastEnd uint64
	for _, s := range t.spans {
		if t.isCall(s) {
			turn.Calls = append(turn.Calls, t.call(s))
		}
		// The final response is the output of the span that ends last:
		// the agent's own span when it records one, else its last model
		// call.
		text := firstNonEmpty(messagesText(s.attrs["gen_ai.output.messages"], "assistant", true), s.str("ai.response.text"), oiAnswer(s))
		if text != "" && s.end >= lastEnd {
			turn.FinalResponse, lastEnd = text, s.end
		}
		if d, ok := t.delegation(s); ok && !handoffs[d] {
			handoffs[d] = true
			run.Delegations = append(run.Delegations, d)
		}
		if hasUsage(s) && !shadowed[s] {
			usage.add(spanUsage(s))
		}
	}
	if len(turn.Calls) == 0 {
		turn.Calls = t.modelCalls()
	}
	run.Turns = []Turn{turn}
	run.Tokens = usage.tokens()
	return run
}

// isCall reports whether s is a tool call: an execute_tool span, or an
// MCP tools/call span that no execute_tool span encloses (the same call
// seen from the MCP client).
func (t *otelTrace) isCall(s *otelSpan) bool {
	if isExecuteTool(s) {
		return true
	}
	if s.str("mcp.method.name") != "tools/call" || toolOf(s) == "" {
		return false
	}
	inside := t.nearest(t.byID[s.parent], t.tools, func(p *otelSpan) (string, bool) {
		return "yes", isExecuteTool(p)
	})
	return inside == ""
}

// call is the call a tool span records.
func (t *otelTrace) call(s *otelSpan) Call {
	args, ok := s.attrs["gen_ai.tool.call.arguments"]
	if !ok {
		args, ok = s.attrs["ai.toolCall.args"]
	}
	if !ok && isOITool(s) {
		args = s.attrs["input.value"]
	}
	c := Call{Arguments: arguments(args)}
	c.Server, c.Tool = splitMCP(toolOf(s))
	res, ok := s.attrs["gen_ai.tool.call.result"]
	if !ok {
		res, ok = s.attrs["ai.toolCall.result"]
	}
	oiFailed := false
	switch out, has := s.attrs["output.value"]; {
	case ok:
		c.Result = otelResult(res)
	case has && isOITool(s):
		c.Result, oiFailed = oiResult(out)
	}
	rm, _ := c.Result.(map[string]any)
	failed, _ := rm["isError"].(bool)
	failed = failed || oiFailed
	c.Result = keptResult(c.Result)
	c.IsError = s.failed || s.attrs["error.type"] != nil || failed
	if s.start > 0 && s.end >= s.start {
		ms := float64(s.end-s.start) / 1e6
		c.DurationMS = &ms
	}
	c.Agent = s.str("gen_ai.agent.name")
	if c.Agent == "" {
		c.Agent = firstNonEmpty(t.agentOf(s), s.str("ai.telemetry.functionId"))
	}
	return c
}

// agentOf is the name of the nearest invoke_agent span (or agent span of
// OpenInference or OpenLLMetry) enclosing s.
func (t *otelTrace) agentOf(s *otelSpan) string {
	return t.nearest(t.byID[s.parent], t.agents, func(p *otelSpan) (string, bool) {
		name := p.str("gen_ai.agent.name")
		if name == "" {
			return oiAgent(p)
		}
		return name, p.str("gen_ai.operation.name") == "invoke_agent" || isAgentSpan(p)
	})
}

// delegation is the hand-off an invoke_agent span inside another agent's
// records.
// An OpenInference AGENT span or an OpenLLMetry agent span inside another
// agent's span is the same.
func (t *otelTrace) delegation(s *otelSpan) (Delegation, bool) {
	to := s.str("gen_ai.agent.name")
	if s.str("gen_ai.operation.name") != "invoke_agent" {
		name, ok := oiAgent(s)
		if !ok || !isAgentSpan(s) {
			return Delegation{}, false
		}
		to = name
	}
	from := t.agentOf(s)
	return Delegation{From: from, To: to}, to != "" && from != "" && from != to
}

// usageShadowed returns the spans with a span inside them that has
// usage: their own usage is not counted, so a total an agent span repeats
// over its model calls is counted once.
func (t *otelTrace) usageShadowed() map[*otelSpan]bool {
	out := map[*otelSpan]bool{}
	for _, s := range t.spans {
		if !hasUsage(s) {
			continue
		}
		t.ancestors(s, func(p *otelSpan) bool {
			if out[p] {
				return false
			}
			out[p] = true
			return true
		})
	}
	return out
}

func hasUsage(s *otelSpan) bool {
	return s.attrs["gen_ai.usage.input_tokens"] != nil || s.attrs["gen_ai.usage.output_tokens"] != nil || oiUsage(s) != nil
}

// spanUsage is the usage a span records, in the naming usageSum reads:
// the GenAI attributes, else OpenInference's.
func spanUsage(s *otelSpan) map[string]any {
	if s.attrs["gen_ai.usage.input_tokens"] == nil && s.attrs["gen_ai.usage.output_tokens"] == nil {
		return oiUsage(s)
	}
	// The semantic conventions count gen_ai.usage.cache_read.input_tokens
	// inside gen_ai.usage.input_tokens, as OpenAI does.
	return map[string]any{"input_tokens": s.attrs["gen_ai.usage.input_tokens"],
		"output_tokens":        s.attrs["gen_ai.usage.output_tokens"],
		"input_tokens_details": map[string]any{"cached_tokens": s.attrs["gen_ai.usage.cache_read.input_tokens"]}}
}

// otelResult makes a CallToolResult of gen_ai.tool.call.result: an object
// with a "content" array (or a JSON string of one) is one already; any
// other string is its text, any other value the text of its JSON, kept as
// its text (keptToolResult).
func otelResult(v any) any {
	m, ok := v.(map[string]any)
	if s, isStr := v.(string); isStr {
		// Most results are text: checked first without the error
		// encoding/json allocates for each.
		ok = validJSON([]byte(s)) && json.Unmarshal([]byte(s), &m) == nil
	}
	if _, has := m["content"].([]any); ok && has {
		return m
	}
	return keptToolResult(jsonText(v))
}

// jsonList decodes an attribute that holds a list, gen_ai.input.messages,
// gen_ai.output.messages or gen_ai.tool.definitions: a JSON string, or
// structured.
func jsonList(v any) []any {
	if s, ok := v.(string); ok {
		if json.Unmarshal([]byte(s), &v) != nil {
			return nil
		}
	}
	msgs, _ := v.([]any)
	return msgs
}

// messagesText reads gen_ai.input.messages or gen_ai.output.messages: the
// text parts of the first (or, with last, the last) message of role.
func messagesText(v any, role string, last bool) string {
	out := ""
	for _, m := range jsonList(v) {
		m, _ := m.(map[string]any)
		if m["role"] != role {
			continue
		}
		var b strings.Builder
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			p, _ := p.(map[string]any)
			if p["type"] == "text" {
				s, _ := p["content"].(string)
				b.WriteString(s)
			}
		}
		if b.Len() > 0 {
			out = b.String()
			if !last {
				return out
			}
		}
	}
	return out
}

// partsOf returns the parts of type typ of the messages v holds.
func partsOf(v any, typ string) []map[string]any {
	var out []map[string]any
	for _, m := range jsonList(v) {
		m, _ := m.(map[string]any)
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			if p, _ := p.(map[string]any); p["type"] == typ {
				out = append(out, p)
			}
		}
	}
	return out
}

// modelCalls reads the calls of a trace that has no tool spans from its
// model calls' messages: the tool_call parts of gen_ai.output.messages (an
// OpenInference LLM span's llm.output_messages.<i>.message.tool_calls), in
// start order, each answered by the first tool_call_response part with its
// id in a later gen_ai.input.messages (the content of a later
// llm.input_messages message of role "tool" with its tool_call_id).
func (t *otelTrace) modelCalls() []Call {
	var calls []Call
	byID := map[string]int{}
	for _, s := range t.spans {
		for _, p := range partsOf(s.attrs["gen_ai.input.messages"], "tool_call_response") {
			id, _ := p["id"].(string)
			if i, ok := byID[id]; ok && calls[i].Result == nil {
				calls[i].Result = keptResult(otelResult(p["response"]))
			}
		}
		ids, contents := oiToolResults(s)
		for k, id := range ids {
			if i, ok := byID[id]; ok && calls[i].Result == nil {
				calls[i].Result = keptResult(otelResult(contents[k]))
			}
		}
		add := func(id, name string, args any) {
			if name == "" {
				return
			}
			c := Call{Arguments: arguments(args), Agent: s.str("gen_ai.agent.name")}
			c.Server, c.Tool = splitMCP(name)
			if c.Agent == "" {
				c.Agent = t.agentOf(s)
			}
			if id != "" {
				byID[id] = len(calls)
			}
			calls = append(calls, c)
		}
		for _, p := range partsOf(s.attrs["gen_ai.output.messages"], "tool_call") {
			name, _ := p["name"].(string)
			id, _ := p["id"].(string)
			add(id, name, p["arguments"])
		}
		for _, c := range oiToolCalls(s, "llm.output_messages") {
			add(c.id, c.name, c.args)
		}
	}
	return calls
}
