package engine

import "maps"

// The members of MCP results that the protocol's schema defines with a
// default (schema.ts of the 2025-06-18 and 2025-11-25 revisions): a server
// may leave them out, and a target that names one reads the default when
// it is absent, as a client of the protocol reads it. docs/suite.md lists
// them ("Defaults of the protocol").
var (
	// callDefaults are those of a CallToolResult (tools/call): isError,
	// "if not set, this is assumed to be false".
	callDefaults = map[string]any{"isError": false}
	// hintDefaults are those of a Tool's annotations (ToolAnnotations, in
	// tools/list): readOnlyHint false, destructiveHint true,
	// idempotentHint false, openWorldHint true.
	hintDefaults = map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}
)

// withDefaults is the result v of the MCP method with every default of the
// protocol that v leaves out filled in; v itself is not changed (the maps
// on the way to a filled member are copied). A result of another method,
// or not an object, is v.
func withDefaults(method string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	switch method {
	case "tools/call":
		return fill(m, callDefaults)
	case "tools/list":
		tools, ok := m["tools"].([]any)
		if !ok {
			return v
		}
		out := make([]any, len(tools))
		for i, t := range tools {
			out[i] = t
			tool, ok := t.(map[string]any)
			if !ok {
				continue
			}
			ann, ok := tool["annotations"].(map[string]any)
			if _, there := tool["annotations"]; there && !ok {
				continue // not an object: the conformance check says so
			}
			tool = maps.Clone(tool)
			tool["annotations"] = fill(ann, hintDefaults)
			out[i] = tool
		}
		m = maps.Clone(m)
		m["tools"] = out
		return m
	}
	return v
}

// fill is m with the members of defaults it lacks added, a copy when any
// is missing.
func fill(m, defaults map[string]any) map[string]any {
	var out map[string]any
	for k, d := range defaults {
		if _, ok := m[k]; ok {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
			if out == nil {
				out = map[string]any{}
			}
		}
		out[k] = d
	}
	if out == nil {
		return m
	}
	return out
}

// recordedResult is a recorded call's result as a target reads it: an MCP
// CallToolResult (an object with a content list) with the protocol's
// defaults filled in; any other shape (a framework's own tool output) as
// it was recorded.
func recordedResult(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if _, isList := m["content"].([]any); !isList {
		return v
	}
	return fill(m, callDefaults)
}
