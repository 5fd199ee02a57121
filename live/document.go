package live

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/gate/security"
)

// Document is the document `mcptest tools|resources|prompts|capabilities
// --format json` prints and the mcp-server's list verbs return: the list,
// and for tools the description-poisoning warnings, a key absent when the
// catalog is clean.
func Document(what string, cat *Catalog) any {
	doc := listDocument(what, cat)
	if what == "tools" {
		if w := cat.DescriptionWarnings(); len(w) > 0 {
			doc = struct {
				Tools    []toolDoc          `json:"tools"`
				Warnings []security.Finding `json:"warnings"`
			}{toolDocs(cat), w}
		}
	}
	return doc
}

// listDocument is the JSON document of one list: the MCP result shape.
func listDocument(what string, cat *Catalog) any {
	switch what {
	case "tools":
		return struct {
			Tools []toolDoc `json:"tools"`
		}{toolDocs(cat)}
	case "resources":
		return struct {
			Resources         []*mcp.Resource         `json:"resources"`
			ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates"`
		}{orEmpty(cat.Resources), orEmpty(cat.ResourceTemplates)}
	case "prompts":
		return struct {
			Prompts []*mcp.Prompt `json:"prompts"`
		}{orEmpty(cat.Prompts)}
	}
	return struct {
		ProtocolVersion string                  `json:"protocolVersion,omitempty"`
		ServerInfo      *mcp.Implementation     `json:"serverInfo,omitempty"`
		Capabilities    *mcp.ServerCapabilities `json:"capabilities"`
		Instructions    string                  `json:"instructions,omitempty"`
	}{cat.ProtocolVersion, cat.ServerInfo, cat.Capabilities, cat.Instructions}
}

// toolDoc is a tool as printed: the typed tool with its annotations as the
// server wrote them, so a hint it left out is absent (the SDK's typed
// annotations print it as false) and one that is not a boolean is shown as
// it is (the typed tool has no annotations then).
type toolDoc struct {
	*mcp.Tool
	Annotations any `json:"annotations,omitempty"`
}

func toolDocs(cat *Catalog) []toolDoc {
	raw := cat.RawTools()
	out := make([]toolDoc, len(cat.Tools))
	for i, t := range cat.Tools {
		out[i] = toolDoc{Tool: t, Annotations: raw[i]["annotations"]}
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
