package live

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/yamlpos"
)

// A YAML catalog is read tool by tool: yamlpos.ListNodes cuts its root
// mapping's tools: list into items from the bytes and hands each item's
// node tree over in turn, placed in the file, so memory holds the nodes of
// a few tools, never the tree of the whole document (yaml.v3 builds about
// 13 bytes of node a byte of YAML). Each tool is checked as checkTool and
// duplicateKeys check it in the whole tree, decoded as the whole tree's
// decoding decodes it (yaml.v3, then JSON) and kept as text (toolTexts).
//
// This reading only ever accepts: anything it is not sure of, and any
// problem at all, sends the text to the whole-document reader, which
// words every error as before and reads what this one gives up on (an
// alias, a tools: list the cut cannot take, a catalog that is a bare list
// of tools). A catalog it reads is thus read exactly as the whole reader
// reads it (TestYAMLCatalogAgreesWithTree draws catalogs and holds both
// readers to the same tools or the same errors).

// readYAMLTools reads a YAML catalog tool by tool; false when the whole
// reader must read it.
func readYAMLTools(file string, data []byte) (*Catalog, bool) {
	c := &Catalog{}
	b := toolTexts{c: c}
	root, ok := yamlpos.ListNodes(data, "tools", func(i int, n *yaml.Node) bool {
		where := fmt.Sprintf("tools[%d]", i)
		if hasAliasNode(n) || len(checkTool(file, where, n)) > 0 || len(duplicateKeys(file, n, where)) > 0 {
			return false
		}
		var v any
		if n.Decode(&v) != nil {
			return false
		}
		js, err := json.Marshal(v)
		if err != nil {
			return false
		}
		return b.addAt(i, js, 0) == nil
	})
	if !ok || len(duplicateKeys(file, root, "")) > 0 {
		return nil, false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i].Value; k != "tools" && unknownKey("", k, catalogKeys) != nil {
			return nil, false
		}
	}
	// The other members, decoded as the whole document's are.
	var doc any
	if root.Decode(&doc) != nil {
		return nil, false
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, false
	}
	var l catalogLists
	if json.Unmarshal(js, &l) != nil {
		return nil, false
	}
	c.ProtocolVersion, c.ServerInfo, c.Instructions = l.ProtocolVersion, l.ServerInfo, l.Instructions
	c.Resources, c.ResourceTemplates, c.Prompts = l.Resources, l.ResourceTemplates, l.Prompts
	if c.Tools == nil {
		c.Tools = []*mcp.Tool{}
	}
	withCapabilities(c)
	return c, true
}

// hasAliasNode reports whether the tree at n holds an alias: yaml.v3
// counts the aliases of the whole document against its values when it
// decodes (refusing "excessive aliasing"), so a tool with one is read by
// the whole reader.
func hasAliasNode(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAliasNode(c) {
			return true
		}
	}
	return false
}
