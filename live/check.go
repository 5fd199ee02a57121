package live

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// toolKeys are the fields the MCP schema names for a tools/list entry. The
// schema lets a tool carry other fields (a later revision's), so a key
// outside them is accepted, unless it is a near miss of one of them
// (descripton): that is a typo, an error with a did-you-mean. Keys starting
// with "_" or "x-" are extensions.
var toolKeys = []string{"_meta", "annotations", "description", "execution", "icons", "inputSchema", "name", "outputSchema", "title"}

// catalogKeys are the members of a tools/list result and of the other
// lists a catalog file may hold. As for a tool, a key outside them is
// accepted unless it is a near miss of one of them (tols).
var catalogKeys = []string{"_meta", "capabilities", "instructions", "nextCursor", "prompts", "protocolVersion",
	"resourceTemplates", "resources", "serverInfo", "tools"}

// catalogYAML words the shared YAML reader's errors for a catalog file.
var catalogYAML = yamlpos.Options{Noun: "catalog", Kind: "catalog", Syntax: "invalid YAML or JSON",
	Empty: `the catalog is empty: expected a tools/list result {"tools": [...]} or an array of tools`}

// checkCatalog checks a catalog file node by node, so every problem is
// reported at once as file:line:col: the document must be a tools/list
// result or an array of tools, each tool a mapping with a non-empty name,
// a string description and mapping-valued schemas and annotations. The
// errors of a file that reads as a catalog carry its bytes, for the
// printer to show their lines; those of any other file do not (it may be
// anything named as a catalog).
func checkCatalog(file string, data []byte) diag.List {
	if isJSON(data) {
		return checkJSON(file, data)
	}
	root, errs := yamlpos.Parse(file, data, catalogYAML)
	if root == nil || len(errs) > 0 {
		return errs
	}
	return checkYAML(file, data, root)
}

// checkYAML checks the tree of a YAML catalog file (checkDoc); its errors
// carry its bytes when it reads as a catalog.
func checkYAML(file string, data []byte, root *yaml.Node) diag.List {
	errs := checkDoc(file, root)
	if root.Kind == yaml.SequenceNode || isCatalogMapping(root) {
		for _, e := range errs {
			e.Source = data
		}
	}
	return errs.Sorted()
}

// The words of the checks, which the YAML checks (checkDoc) and the JSON
// ones (checkJSON) both give.
const (
	msgMissingTools = `missing "tools": a tools/list result lists the server's tools under "tools"`
	msgNotAList     = `expected a list of tools`
	msgNotATool     = `: expected a tool mapping {name, description, inputSchema}`
	msgNoName       = `: missing "name": every tool has a name`
)

// valueShape is what a value is, as the checks of a tool's members tell
// values apart.
type valueShape struct {
	kind shapeKind
	text string // a string's
}

type shapeKind uint8

const (
	shapeMapping shapeKind = iota
	shapeSequence
	shapeString
	shapeNull
	// shapeScalar is any other value: a number, a boolean, a YAML alias or
	// a scalar of another tag.
	shapeScalar
)

// memberProblem is the problem of the member key of the tool named where,
// whose value is of shape v ("" when none), and whether key is one the
// checks know (a key they do not is checked by unknownKey). A member the
// MCP schema allows to be absent may be null, and is read as absent.
func memberProblem(where, key string, v valueShape) (msg string, known bool) {
	switch key {
	case "name":
		if v.kind != shapeString || strings.TrimSpace(v.text) == "" {
			return where + `.name: expected the tool's name, a non-empty string`, true
		}
	case "title", "description":
		if v.kind != shapeString && v.kind != shapeNull {
			return fmt.Sprintf("%s.%s: expected a string", where, key), true
		}
	case "inputSchema", "outputSchema", "annotations", "execution", "_meta":
		if v.kind != shapeMapping && (key == "inputSchema" || v.kind != shapeNull) {
			return fmt.Sprintf("%s.%s: expected a mapping (a JSON object)", where, key), true
		}
	case "icons":
	default:
		return "", false
	}
	return "", true
}

// duplicateMessage is the error for a key repeated in the mapping path
// names ("" for the root), first found at line:col.
func duplicateMessage(path, key string, line, col int) string {
	msg := fmt.Sprintf("duplicate key %q (first at %d:%d)", diag.ClipKey(key), line, col)
	if path != "" {
		msg = path + ": " + msg
	}
	return msg
}

// checkDoc checks the root value of a catalog file.
func checkDoc(file string, doc *yaml.Node) diag.List {
	errs := duplicateKeys(file, doc, rootPath(doc))
	tools := doc
	if doc.Kind == yaml.MappingNode {
		tools = nil
		for i := 0; i+1 < len(doc.Content); i += 2 {
			k := doc.Content[i]
			if k.Value == "tools" {
				tools = doc.Content[i+1]
			} else if e := unknownKey("", k.Value, catalogKeys); e != nil {
				e.Pos = nodePos(file, k)
				errs = append(errs, e)
			}
		}
		if tools == nil {
			return append(errs, &diag.Error{Pos: nodePos(file, doc), Kind: "catalog", Message: msgMissingTools})
		}
	}
	if tools.Kind != yaml.SequenceNode {
		return append(errs, &diag.Error{Pos: nodePos(file, tools), Kind: "catalog", Message: msgNotAList})
	}
	for i, t := range tools.Content {
		errs = append(errs, checkTool(file, fmt.Sprintf("tools[%d]", i), t)...)
	}
	return errs
}

// isCatalogMapping reports whether doc is a mapping with a key of a
// catalog, or a near miss of one (tols).
func isCatalogMapping(doc *yaml.Node) bool {
	if doc.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if k := doc.Content[i].Value; slices.Contains(catalogKeys, k) || diag.Suggest(k, catalogKeys) != "" {
			return true
		}
	}
	return false
}

func nodePos(file string, n *yaml.Node) diag.Pos {
	return diag.Pos{File: file, Line: n.Line, Col: n.Column}
}

// checkTool checks one entry of the tools array, named where in messages.
// A member the MCP schema allows to be absent may be null, and is read as
// absent; a key the schema does not name is accepted (the schema lets
// tools carry future fields) unless it is a near miss of one it names.
func checkTool(file, where string, t *yaml.Node) diag.List {
	if t.Kind != yaml.MappingNode {
		return diag.List{{Pos: nodePos(file, t), Kind: "catalog", Message: where + msgNotATool}}
	}
	var errs diag.List
	hasName := false
	for j := 0; j+1 < len(t.Content); j += 2 {
		k, v := t.Content[j], t.Content[j+1]
		hasName = hasName || k.Value == "name"
		msg, known := memberProblem(where, k.Value, nodeShape(v))
		switch {
		case msg != "":
			errs = append(errs, &diag.Error{Pos: nodePos(file, v), Kind: "catalog", Message: msg})
		case !known:
			if e := unknownKey(where, k.Value, toolKeys); e != nil {
				e.Pos = nodePos(file, k)
				errs = append(errs, e)
			}
		}
	}
	if !hasName {
		errs = append(errs, &diag.Error{Pos: nodePos(file, t), Kind: "catalog", Message: where + msgNoName})
	}
	return errs
}

// nodeShape is the shape of a YAML node.
func nodeShape(n *yaml.Node) valueShape {
	switch {
	case n.Kind == yaml.MappingNode:
		return valueShape{kind: shapeMapping}
	case n.Kind == yaml.SequenceNode:
		return valueShape{kind: shapeSequence}
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		return valueShape{kind: shapeString, text: n.Value}
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return valueShape{kind: shapeNull}
	}
	return valueShape{kind: shapeScalar}
}

// unknownKey returns the error for a key of the mapping named where ("" for
// the root) that valid does not list, when it is a near miss of one it
// does (descripton), for the caller to place; nil for a key that is no
// typo: an extension (_ or x-) or a field of a later revision.
func unknownKey(where, key string, valid []string) *diag.Error {
	if slices.Contains(valid, key) || strings.HasPrefix(key, "_") || strings.HasPrefix(key, "x-") {
		return nil
	}
	s := diag.Suggest(key, valid)
	if s == "" {
		return nil
	}
	msg := fmt.Sprintf("unexpected key %q: expected one of %s (or an `_` or `x-` extension key)", key, yamlpos.QuoteList(valid))
	if where != "" {
		msg = where + ": " + msg
	}
	return &diag.Error{Kind: "catalog", Message: msg, Hint: "did you mean `" + s + "`?"}
}

// duplicateKeys reports every key repeated in a mapping at n or below it,
// at the repetition and naming the first, as file:line:col; path names n in
// the messages. A repeated key is refused rather than read one way by the
// checks and another by the decoder (JSON lets the last one win). Aliases
// are not followed.
func duplicateKeys(file string, n *yaml.Node, path string) diag.List {
	d := dupWalk{file: file, root: path}
	d.walk(n)
	return d.errs
}

// dupWalk is one walk of duplicateKeys: the path to the node being walked
// is kept as its steps, and named only for an error.
type dupWalk struct {
	file, root string
	steps      []dupStep
	errs       diag.List
}

// dupStep is a step of a path: a mapping's key, or a sequence's index.
type dupStep struct {
	key   string
	index int
	item  bool
}

// path names the node being walked, as childPath and an index name it,
// within diag.PathBytes (diag.Path): its first and last steps.
func (d *dupWalk) path() string {
	return diag.Path(d.root, len(d.steps), func(i int) diag.Step {
		s := d.steps[i]
		return diag.Step{Key: s.key, Index: s.index, Item: s.item}
	})
}

func (d *dupWalk) walk(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		var first map[string]*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode {
				id := k.ShortTag() + "\x00" + k.Value
				if f, dup := first[id]; dup {
					d.errs = append(d.errs, &diag.Error{Pos: nodePos(d.file, k), Kind: "catalog", Message: duplicateMessage(d.path(), k.Value, f.Line, f.Column)})
				} else {
					if first == nil {
						first = make(map[string]*yaml.Node, len(n.Content)/2)
					}
					first[id] = k
				}
			}
			d.steps = append(d.steps, dupStep{key: k.Value})
			d.walk(n.Content[i+1])
			d.steps = d.steps[:len(d.steps)-1]
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.steps = append(d.steps, dupStep{index: i, item: true})
			d.walk(c)
			d.steps = d.steps[:len(d.steps)-1]
		}
	}
}

// rootPath names the document root in messages: a bare array of tools is
// named tools, as a tools/list result's array is.
func rootPath(doc *yaml.Node) string {
	if doc.Kind == yaml.SequenceNode {
		return "tools"
	}
	return ""
}

// childPath names the value of key under path: path.key, or
// path["key"] for a key that is not a plain identifier.
func childPath(path, key string) string {
	plain := key != ""
	for i, r := range key {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}
