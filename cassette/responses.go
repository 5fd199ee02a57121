package cassette

import (
	"encoding/json"
	"sort"
)

// responsesItemTypes are the "type" values of OpenAI Responses API items
// that no other recording uses.
var responsesItemTypes = map[string]bool{
	"function_call": true, "function_call_output": true, "function_call_result": true, "mcp_call": true, "mcp_list_tools": true,
	"mcp_approval_request": true, "mcp_approval_response": true, "reasoning": true,
	"web_search_call": true, "file_search_call": true, "computer_call": true, "computer_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "hosted_tool_call": true,
}

// isResponse reports whether m is an OpenAI Responses API response
// object: an "output" array, with "object": "response" or items that all
// say their "type". An item that says its own "type" is none, though its
// output is a list (an Agents SDK function_call_result).
func isResponse(m map[string]any) bool {
	out, ok := m["output"].([]any)
	if _, typed := m["type"].(string); !ok || typed {
		return false
	}
	if m["object"] == "response" {
		return true
	}
	for _, it := range out {
		it, _ := it.(map[string]any)
		if _, ok := it["type"].(string); !ok {
			return false
		}
	}
	return len(out) > 0
}

// isResponsesItem reports whether m is an item of the Responses API: one
// of its own item types, or a message whose content parts are
// input_text or output_text.
func isResponsesItem(m map[string]any) bool {
	t, _ := m["type"].(string)
	if responsesItemTypes[t] {
		return true
	}
	parts, _ := m["content"].([]any)
	for _, p := range parts {
		p, _ := p.(map[string]any)
		if p["type"] == "output_text" || p["type"] == "input_text" {
			return true
		}
	}
	return false
}

// responses reads OpenAI Responses API output into one run.
type responses struct {
	t       *transcript
	catalog map[string][]Tool
	// agents follows the handoffs of an OpenAI Agents SDK history.
	agents handoffs
}

// readResponses converts a response object, or a list of response
// objects and input items (a conversation as a client logs it), to a
// cassette of one run.
func readResponses(w *walker, v any) *Cassette {
	c := &Cassette{Format: FormatResponses}
	r := newResponses(w, c, transferIDs(v))
	w.path = w.path[:0]
	switch v := v.(type) {
	case map[string]any:
		r.response(v)
	case []any:
		for i, e := range v {
			w.pushIdx(i)
			r.element(e)
			w.pop()
		}
	}
	return r.finish()
}

func newResponses(w *walker, c *Cassette, transfers map[string]bool) *responses {
	r := &responses{t: newTranscript(w, c), catalog: map[string][]Tool{}}
	r.agents.transfers = transfers
	return r
}

// element reads one element of a list of responses and items.
func (r *responses) element(e any) {
	if m, ok := e.(map[string]any); ok && isResponse(m) {
		r.response(m)
	} else {
		r.item(e)
	}
}

// finish is the cassette read: its catalog, and its one run with the
// handoffs followed.
func (r *responses) finish() *Cassette {
	c := r.t.c
	for s, tools := range r.catalog {
		c.Catalog = append(c.Catalog, ServerCatalog{Server: s, Tools: tools})
	}
	sort.Slice(c.Catalog, func(i, j int) bool { return c.Catalog[i].Server < c.Catalog[j].Server })
	run := r.t.finish()
	run.Delegations = r.agents.delegations()
	c.Runs = []Run{run}
	return c
}

// response reads one response object: its output items and usage.
func (r *responses) response(m map[string]any) {
	w := r.t.w
	if model, ok := m["model"].(string); ok && r.t.c.Model == "" {
		r.t.c.Model = model
	}
	r.functionTools(m["tools"])
	out, _ := m["output"].([]any)
	w.push("output")
	for i, it := range out {
		w.pushIdx(i)
		r.item(it)
		w.pop()
	}
	w.pop()
	r.t.usage.add(snakeUsage(m["usage"]))
}

// item reads one item: a message, a function call or its output, an MCP
// call or an MCP tool list. Other item types (reasoning, built-in tools)
// are passed over.
func (r *responses) item(v any) {
	t := r.t
	m, ok := v.(map[string]any)
	if !ok {
		t.w.typeError(v, `a response object {"output": [...]} or an item {"type": ...}`)
		return
	}
	typ, _ := m["type"].(string)
	switch typ {
	case "function_call":
		name, ok := t.toolName(m)
		if ok && r.agents.call(m, name) {
			t.w.spend(name)
		} else if ok {
			c := Call{Arguments: arguments(m["arguments"]), Agent: r.agents.current}
			c.Server, c.Tool = splitMCP(name)
			t.addCall(callID(m), c)
		}
	case "function_call_output", "function_call_result":
		if id := outputID(m); !r.agents.result(id, m["output"]) {
			res := itemResult(m["output"])
			t.result(id, "", res, typ == "function_call_result" && isMCPError(res))
		}
	case "mcp_call":
		r.mcpCall(m)
	case "hosted_tool_call":
		r.hostedCall(m)
	case "mcp_list_tools":
		r.listTools(m)
	case "message", "":
		role, _ := m["role"].(string)
		switch role {
		case "user":
			t.userTurn(responsesText(m["content"]))
		case "assistant":
			t.say(responsesText(m["content"]))
		}
	}
}

// callID is the id a function call's output names: call_id (callId in
// the Agents SDK's items), else id.
func callID(m map[string]any) string {
	if id, ok := m["call_id"].(string); ok && id != "" {
		return id
	}
	if id, ok := m["callId"].(string); ok && id != "" {
		return id
	}
	id, _ := m["id"].(string)
	return id
}

// mcpCall reads an mcp_call item: the call to a remote MCP server the API
// made, with its output or error.
func (r *responses) mcpCall(m map[string]any) {
	t := r.t
	name, ok := t.toolName(m)
	if !ok {
		return
	}
	id := callID(m)
	server, _ := m["server_label"].(string)
	t.addCall(id, Call{Server: server, Tool: name, Arguments: arguments(m["arguments"])})
	errV := m["error"]
	if e, ok := errV.(string); ok && e == "" {
		errV = nil
	}
	out, hasOut := m["output"]
	switch {
	case hasOut && out != nil:
		t.result(id, "", toolResult(out), errV != nil)
	case errV != nil:
		t.result(id, "", toolResult(jsonText(errV)), true)
	}
}

// jsonText is a string itself, any other value its JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// functionTools reads the function tools a response echoes from its
// request, {"type": "function", "name", "description", "parameters"}, as
// the catalog of no server: the first response's are kept.
func (r *responses) functionTools(v any) {
	tools, _ := v.([]any)
	if _, seen := r.catalog[""]; seen {
		return
	}
	var list []Tool
	for _, t := range tools {
		if raw, ok := functionTool(t); ok {
			list = append(list, ToolOf(raw))
		}
	}
	if list != nil {
		r.catalog[""] = list
	}
}

// functionTool converts a function tool definition {"type": "function",
// "name", "description", "parameters"} to a tools/list entry, parameters
// as its inputSchema, decoded (see ToolOf).
func functionTool(v any) (map[string]any, bool) {
	m, _ := v.(map[string]any)
	name, _ := m["name"].(string)
	if m["type"] != "function" || name == "" {
		return nil, false
	}
	raw := map[string]any{"name": name}
	if d, ok := m["description"].(string); ok {
		raw["description"] = d
	}
	if p, ok := m["parameters"]; ok && p != nil {
		raw["inputSchema"] = p
	}
	return raw, true
}

// listTools reads an mcp_list_tools item into the catalog of its server:
// the first list of each server is kept.
func (r *responses) listTools(m map[string]any) {
	w := r.t.w
	server, _ := m["server_label"].(string)
	tools, ok := m["tools"].([]any)
	if !ok {
		w.push("tools")
		w.typeError(m["tools"], `an array of tools {"name": ..., "input_schema": {...}}`)
		w.pop()
		return
	}
	if _, seen := r.catalog[server]; seen {
		return
	}
	list := []Tool{}
	w.push("tools")
	for i, v := range tools {
		w.pushIdx(i)
		if tool, ok := responsesTool(w, v); ok {
			list = append(list, tool)
		}
		w.pop()
	}
	w.pop()
	r.catalog[server] = list
}

// responsesTool converts a tool of mcp_list_tools to a tools/list entry:
// input_schema is renamed inputSchema, as the MCP server wrote it.
func responsesTool(w *walker, v any) (Tool, bool) {
	m, ok := v.(map[string]any)
	name, _ := m["name"].(string)
	if !ok || name == "" {
		w.typeError(v, `a tool {"name": ..., "input_schema": {...}} with a non-empty name`)
		return Tool{}, false
	}
	raw := map[string]any{"name": name}
	if d, ok := m["description"].(string); ok {
		raw["description"] = d
	}
	if s, ok := m["input_schema"]; ok {
		raw["inputSchema"] = s
	}
	if a, ok := m["annotations"]; ok && a != nil {
		raw["annotations"] = a
	}
	return ToolOf(raw), true
}

// responsesText is the text of a Responses message: a string, or its
// output_text, input_text and text parts joined.
func responsesText(v any) string {
	parts, ok := v.([]any)
	if !ok {
		return text(v)
	}
	var b []byte
	for _, p := range parts {
		p, _ := p.(map[string]any)
		switch p["type"] {
		case "output_text", "input_text", "text":
			s, _ := p["text"].(string)
			b = append(b, s...)
		}
	}
	return string(b)
}
