package live

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/jsonpos"
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
		js, ok := appendNodeJSON(b.js[:0], n)
		if !ok {
			var v any
			if n.Decode(&v) != nil {
				return false
			}
			var err error
			if js, err = json.Marshal(v); err != nil {
				return false
			}
		}
		b.js = js
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

// appendNodeJSON appends the JSON of what yaml.v3 decodes the tree at n
// to, for the trees most tools are (mappings with string keys, sequences,
// strings, decimal numbers, booleans and nulls as JSON writes them),
// without decoding it: the numbers as written, which AppendCanonical
// then writes as the float64 they decode to. false for any other tree (a
// tag of another kind, a number YAML writes another way, a key that is
// not a string), which is decoded.
func appendNodeJSON(dst []byte, n *yaml.Node) ([]byte, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		dst = append(dst, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return dst, false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jsonpos.AppendString(dst, k.Value), ':')
			var ok bool
			if dst, ok = appendNodeJSON(dst, n.Content[i+1]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, c := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendNodeJSON(dst, c); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return jsonpos.AppendString(dst, n.Value), true
		case "!!null":
			return append(dst, "null"...), true
		case "!!bool":
			switch n.Value {
			case "true", "True", "TRUE":
				return append(dst, "true"...), true
			case "false", "False", "FALSE":
				return append(dst, "false"...), true
			}
		case "!!int", "!!float":
			if jsonNumber(n.Value, n.ShortTag() == "!!int") {
				return append(dst, n.Value...), true
			}
		}
	}
	return dst, false
}

// jsonNumber reports whether v is a number as JSON writes it, which YAML
// reads as the same float64 (an integer: of at most 18 digits, which
// yaml.v3 reads as an int, and not -0).
func jsonNumber(v string, integer bool) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		return i - start
	}
	n := digits()
	if n == 0 || n > 1 && v[i-n] == '0' {
		return false
	}
	if integer {
		// -0 is the int 0, written 0.
		return i == len(v) && n <= 18 && v != "-0"
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
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
