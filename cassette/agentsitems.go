package cassette

import (
	"regexp"
	"strings"
)

// The OpenAI Agents SDK for JS keeps a run's items (result.history,
// result.rawResponses) in the Responses API's shape with its own
// camelCase names: a function_call says its callId, its output is a
// "function_call_result" item, usage counts inputTokens. The Python SDK's
// result.to_input_list() keeps the API's own snake_case items
// (function_call with call_id, function_call_output). A handoff is a
// call to the function transfer_to_<agent>, whose result names the agent
// taking over ({"assistant": "<agent>"}). The Responses reader reads these
// too (responses.go); what is the SDK's own is here.

// handoffs follows the handoffs of an Agents SDK run read from its items.
type handoffs struct {
	// current is the agent that took over last, "" before any handoff
	// (the items do not name the first agent).
	current string
	// pending is the handoff of each call id still without its result.
	pending map[string]int
	// transfers are the call ids whose output is a transfer message.
	transfers map[string]bool
	// edges are the handoffs seen, from the agent handing off: the first
	// handoff has none (the items do not name the first agent), and is no
	// edge.
	edges []handoff
}

// handoff is one handoff of an Agents SDK run.
type handoff struct{ from, to string }

// transferPrefix starts the function name of an Agents SDK handoff.
const transferPrefix = "transfer_to_"

// call reports whether the function call m, of the function name, is an
// Agents SDK handoff: a transfer_to_ function called with a callId, as the
// SDK for JS writes its items, or with a call_id (the Python SDK's
// to_input_list(), the Responses API's own spelling) whose output in the
// same recording is the SDK's transfer message (transfers, see
// transferIDs): a function of that name with any other output is a tool
// like any other. A handoff is no tool call, and the agent it names makes
// the calls that follow.
func (h *handoffs) call(m map[string]any, name string) bool {
	id, _ := m["callId"].(string)
	if snake, _ := m["call_id"].(string); id == "" && h.transfers[snake] {
		id = snake
	}
	to, ok := strings.CutPrefix(name, transferPrefix)
	if id == "" || !ok || to == "" {
		return false
	}
	if h.pending == nil {
		h.pending = map[string]int{}
	}
	h.pending[id] = len(h.edges)
	h.edges = append(h.edges, handoff{from: h.current, to: to})
	h.current = to
	return true
}

// transferIDs returns the call ids whose output, in the items or response
// objects v holds, is an Agents SDK transfer message: the ids of the
// handoffs among the function calls that name them in snake case; nil
// for none (most elements of a list: the list reader asks of each).
func transferIDs(v any) map[string]bool {
	var ids map[string]bool
	var items func(v any)
	items = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				items(e)
			}
		case map[string]any:
			if out, ok := v["output"].([]any); ok && v["type"] == nil {
				items(out) // a response object
				return
			}
			if v["type"] == "function_call_output" || v["type"] == "function_call_result" {
				if _, ok := transferTarget(v["output"]); ok {
					if ids == nil {
						ids = map[string]bool{}
					}
					ids[outputID(v)] = true
				}
			}
		}
	}
	items(v)
	return ids
}

// isHandoffItem reports whether m is an item of an Agents SDK handoff: a
// function_call of a transfer_to_ function with a call id, or the output
// of one (a function_call_result or function_call_output holding a
// transfer message). It is no call-shaped data: a run whose only such
// items are its handoffs made no tool call.
func isHandoffItem(m map[string]any) bool {
	name, _ := m["name"].(string)
	switch m["type"] {
	case "function_call":
		return strings.HasPrefix(name, transferPrefix) && callID(m) != ""
	case "function_call_result", "function_call_output":
		_, ok := transferTarget(m["output"])
		return ok
	}
	return false
}

// pyTransfer is the transfer message of the Python SDK before 0.1, a
// Python dict's repr: {'assistant': 'sum_agent'}.
var pyTransfer = regexp.MustCompile(`^\{'assistant': '([^']+)'\}$`)

// transferTarget reads the output of a handoff's call, the SDK's transfer
// message naming the agent taking over: {"assistant": "<agent>"} as JSON
// text (the Python SDK's and the JS SDK's), in a text content item (the JS
// SDK's function_call_result), or as a Python dict's repr (the Python SDK
// before 0.1). It reports whether the output is one.
func transferTarget(output any) (string, bool) {
	text := responsesText(output)
	if m, ok := output.(map[string]any); ok {
		text, _ = m["text"].(string)
	}
	text = strings.TrimSpace(text)
	if g := pyTransfer.FindStringSubmatch(text); g != nil {
		return g[1], true
	}
	v, _ := decodeAny([]byte(text))
	named, _ := v.(map[string]any)
	a, _ := named["assistant"].(string)
	return a, a != "" && len(named) == 1
}

// result reads the output of the call id when it is a handoff's, whose
// transfer message names the agent taking over exactly (the function name
// has it in snake case), and reports whether it was.
func (h *handoffs) result(id string, output any) bool {
	i, ok := h.pending[id]
	if !ok {
		return false
	}
	delete(h.pending, id)
	if a, ok := transferTarget(output); ok {
		snake := h.edges[i].to
		if h.current == snake {
			h.current = a
		}
		h.edges[i].to = a
		if i+1 < len(h.edges) && h.edges[i+1].from == snake {
			h.edges[i+1].from = a
		}
	}
	return true
}

// delegations are the handoffs from a known agent, each once.
func (h *handoffs) delegations() []Delegation {
	var out []Delegation
	seen := map[Delegation]bool{}
	for _, e := range h.edges {
		d := Delegation{From: e.from, To: e.to}
		if d.From != "" && d.From != d.To && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// outputID is the call id a function call's output names: call_id, or
// callId in the Agents SDK's items.
func outputID(m map[string]any) string {
	if id, ok := m["call_id"].(string); ok && id != "" {
		return id
	}
	id, _ := m["callId"].(string)
	return id
}

// itemResult makes a CallToolResult of a function call's output: a
// string (the Responses API's) is its text; the Agents SDK's content item
// ({"type": "text", "text"}) or list of input items ({"type":
// "input_text", "text"}) is the content, input_text read as text.
func itemResult(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return toolResult([]any{contentItem(v)})
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = e
			if m, ok := e.(map[string]any); ok {
				out[i] = contentItem(m)
			}
		}
		return toolResult(out)
	case string:
		if content, ok := mcpContentText(v); ok {
			return toolResult(content)
		}
	}
	return toolResult(v)
}

// mcpContentTypes are the types of MCP content items.
var mcpContentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource": true, "resource_link": true}

// mcpContentText reads the output the Python Agents SDK gives the model
// for an MCP tool: the JSON of the result's one content item
// ({"type": "text", "text": ..., "annotations": null, "meta": null}) or of
// the list of them. It returns the content and reports whether s is one.
func mcpContentText(s string) ([]any, bool) {
	v, ok := decodeAny([]byte(s))
	if !ok {
		return nil, false
	}
	items, isList := v.([]any)
	if !isList {
		items = []any{v}
	}
	for _, e := range items {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		if !mcpContentTypes[typ] || typ == "text" && m["text"] == nil {
			return nil, false
		}
	}
	return items, len(items) > 0
}

// contentItem is an MCP content item of an Agents SDK output item:
// input_text and output_text are text, any other kept as it is.
func contentItem(m map[string]any) any {
	if m["type"] == "input_text" || m["type"] == "output_text" {
		return map[string]any{"type": "text", "text": m["text"]}
	}
	return m
}

// snakeUsage is a usage object in the naming usageSum reads: the Agents
// SDK's camelCase one (inputTokens, outputTokens, totalTokens,
// inputTokensDetails with cachedTokens, an object or a list of them)
// renamed; any other as it is.
func snakeUsage(v any) any {
	m, ok := v.(map[string]any)
	if !ok || m["inputTokens"] == nil && m["outputTokens"] == nil {
		return v
	}
	out := map[string]any{"input_tokens": m["inputTokens"], "output_tokens": m["outputTokens"]}
	if m["totalTokens"] != nil {
		out["total_tokens"] = m["totalTokens"]
	}
	details, _ := m["inputTokensDetails"].([]any)
	if d, ok := m["inputTokensDetails"].(map[string]any); ok {
		details = []any{d}
	}
	var cached float64
	found := false
	for _, d := range details {
		d, _ := d.(map[string]any)
		if n, ok := d["cachedTokens"].(float64); ok {
			cached += n
			found = true
		}
	}
	if found {
		out["input_tokens_details"] = map[string]any{"cached_tokens": cached}
	}
	return out
}

// mcpErrorPattern is the message the MCP TypeScript SDK's client gives a
// JSON-RPC error (McpError: "MCP error -32602: ..."), which the Agents SDK
// hands the model as the tool's output, with nothing else to say the call
// failed.
var mcpErrorPattern = regexp.MustCompile(`^MCP error -?[0-9]+: `)

// isMCPError reports whether the CallToolResult res is such a message
// alone.
func isMCPError(res any) bool {
	m, _ := res.(map[string]any)
	content, _ := m["content"].([]any)
	if len(content) != 1 {
		return false
	}
	item, _ := content[0].(map[string]any)
	text, _ := item["text"].(string)
	return item["type"] == "text" && mcpErrorPattern.MatchString(text)
}

// hostedCall reads an Agents SDK hosted_tool_call item, a tool the
// Responses API ran: the API's own item is its providerData (with the
// output beside it), an mcp_call a call of a remote MCP server and
// mcp_list_tools its catalog; other hosted tools (web search, ...) are
// passed over, as their Responses items are.
func (r *responses) hostedCall(m map[string]any) {
	pd, _ := m["providerData"].(map[string]any)
	w := r.t.w
	if name, _ := m["name"].(string); name != "" {
		w.spend(name) // the item's type, read from providerData
	}
	w.push("providerData")
	defer w.pop()
	switch pd["type"] {
	case "mcp_call":
		item := make(map[string]any, len(pd)+1)
		for k, v := range pd {
			item[k] = v
		}
		if out, ok := m["output"]; ok {
			item["output"] = out
		}
		r.mcpCall(item)
	case "mcp_list_tools":
		r.listTools(pd)
	}
}
