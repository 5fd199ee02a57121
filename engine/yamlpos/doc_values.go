package yamlpos

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/engine/diag"
)

// MaxAliasValues bounds how many values the aliases of a document may
// expand to, all aliases together: a document of plain values is bounded
// by its size alone, and an alias bomb (each alias naming a list of
// aliases) is refused before it expands.
const MaxAliasValues = 100_000

// MaxDepth bounds how deep the values of a document nest, aliases
// expanded.
const MaxDepth = 200

// Doc is a document decoded into generic values (map[string]any, []any,
// string, float64, bool, nil) with the position of every value and every
// mapping key, by RFC 6901 pointer.
type Doc struct {
	// File names the document in positions.
	File string
	// Data is the text the document was read from.
	Data []byte
	// Node is the root value node; nil when the document did not parse.
	Node *yaml.Node
	// Root is the decoded root value.
	Root any
	// Errs holds every problem of the document.
	Errs diag.List
	// Empty says the text holds no document (only comments, or nothing).
	Empty bool

	o      Options
	values map[string]diag.Pos
	keys   map[string]diag.Pos
	// quoted marks the quoted scalars by pointer; a quoted key is marked
	// under "key:" + pointer.
	quoted map[string]bool
	// numbers holds each number as written, by pointer; ints the exact
	// value of each integer that fits an int64 (the tree holds float64).
	numbers map[string]string
	ints    map[string]int64
	// aliased counts the values reached through aliases; outer is the
	// alias of the document (not itself inside an alias's expansion)
	// being expanded, and outerPtr its pointer.
	aliased  int
	outer    *yaml.Node
	outerPtr string
}

// Read decodes data into a Doc (see Parse for the errors of the text),
// then turns its nodes into generic values, adding the errors of the
// values: a repeated key, a merge key (<<), a key that is not a string, a
// number that is not finite, a nesting deeper than MaxDepth and aliases
// expanding to more than MaxAliasValues values.
func Read(file string, data []byte, o Options) *Doc {
	d := &Doc{File: file, Data: data, o: o, values: map[string]diag.Pos{}, keys: map[string]diag.Pos{}, quoted: map[string]bool{},
		numbers: map[string]string{}, ints: map[string]int64{}}
	d.Node, d.Errs, d.Empty = parse(file, data, o)
	if d.Node != nil {
		d.Root = d.convert(d.Node, "", 0, false)
	}
	return d
}

// Len is the number of values of the document, aliases expanded.
func (d *Doc) Len() int { return len(d.values) }

func (d *Doc) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: d.File, Line: n.Line, Col: n.Column}
}

func (d *Doc) errorf(n *yaml.Node, ptr, format string, args ...any) {
	d.Errs = append(d.Errs, &diag.Error{Pos: d.pos(n), Pointer: ptr, Kind: d.o.kind(), Message: fmt.Sprintf(format, args...)})
}

// convert turns a node into a generic value, recording positions; aliased
// says the node was reached through an alias.
func (d *Doc) convert(n *yaml.Node, ptr string, depth int, aliased bool) any {
	if aliased {
		d.aliased++
	}
	if n.Kind == yaml.AliasNode && !aliased {
		d.outer, d.outerPtr = n, ptr
	}
	switch {
	case d.aliased > MaxAliasValues:
		if d.aliased == MaxAliasValues+1 {
			d.errorf(d.outer, d.outerPtr, "aliases expand the %s to over %d values (an alias bomb?); the limit is crossed expanding *%s here: write the values out, or alias less",
				d.o.noun(), MaxAliasValues, d.outer.Value)
		}
		return nil
	case depth > MaxDepth:
		if depth == MaxDepth+1 {
			d.errorf(n, ptr, "the %s nests its values over %d deep (a recursive alias?)", d.o.noun(), MaxDepth)
		}
		return nil
	}
	d.values[ptr] = d.pos(n)
	switch n.Kind {
	case yaml.AliasNode:
		return d.convert(n.Alias, ptr, depth+1, true)
	case yaml.MappingNode:
		return d.mapping(n, ptr, depth, aliased)
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = d.convert(c, ptr+"/"+strconv.Itoa(i), depth+1, aliased)
		}
		return s
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			d.quoted[ptr] = true
		}
		return d.scalar(n, ptr)
	}
	return nil
}

func (d *Doc) mapping(n *yaml.Node, ptr string, depth int, aliased bool) map[string]any {
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			d.errorf(k, ptr, "merge keys (<<) are not supported: write the keys out")
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, ptr, "a mapping key must be a plain string")
			continue
		}
		child := ptr + "/" + EscapePointer(k.Value)
		if _, dup := m[k.Value]; dup {
			d.errorf(k, child, "key %q is repeated: it was already set at line %d", k.Value, d.keys[child].Line)
			continue
		}
		d.keys[child] = d.pos(k)
		if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			d.quoted["key:"+child] = true
		}
		m[k.Value] = d.convert(v, child, depth+1, aliased)
	}
	return m
}

func (d *Doc) scalar(n *yaml.Node, ptr string) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	case "!!int", "!!float":
		d.numbers[ptr] = n.Value
		var i int64
		if n.ShortTag() == "!!int" && n.Decode(&i) == nil {
			d.ints[ptr] = i
		}
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		d.errorf(n, ptr, "%q is not a finite number", n.Value)
		return nil
	}
	return n.Value
}

// At returns the position of the value at ptr, falling back to the nearest
// enclosing value.
func (d *Doc) At(ptr string) diag.Pos {
	for {
		if p, ok := d.values[ptr]; ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return diag.Pos{File: d.File, Line: 1, Col: 1}
		}
		ptr = ptr[:i]
	}
}

// KeyAt returns the position of the key that names the value at ptr, or
// the value's own position for array items and the root.
func (d *Doc) KeyAt(ptr string) diag.Pos {
	if p, ok := d.keys[ptr]; ok {
		return p
	}
	return d.At(ptr)
}

// IsKey reports whether ptr names the value of a mapping key.
func (d *Doc) IsKey(ptr string) bool {
	_, ok := d.keys[ptr]
	return ok
}

// Quoted reports whether the scalar at ptr was written in quotes.
func (d *Doc) Quoted(ptr string) bool { return d.quoted[ptr] }

// QuotedKey reports whether the key that names the value at ptr was
// written in quotes.
func (d *Doc) QuotedKey(ptr string) bool { return d.quoted["key:"+ptr] }

// Number returns the number at ptr as it was written.
func (d *Doc) Number(ptr string) (string, bool) {
	s, ok := d.numbers[ptr]
	return s, ok
}

// Int returns the exact value of the integer at ptr when it fits an int64
// (Root holds every number as a float64).
func (d *Doc) Int(ptr string) (int64, bool) {
	i, ok := d.ints[ptr]
	return i, ok
}

// EscapePointer escapes a key as a segment of an RFC 6901 pointer.
func EscapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// UnescapePointer is the key an RFC 6901 pointer segment names.
func UnescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// Count is the number of values the tree at n holds as Read counts them
// (Doc.Len), without decoding them: every node but mapping keys, aliases
// expanded, within Read's bounds on aliases and depth. For a tree with
// keys Read refuses (repeated, merge or non-string keys) it counts their
// values too.
func Count(n *yaml.Node) int {
	c := counter{}
	c.count(n, 0, false, false)
	return c.n
}

type counter struct{ n, aliased int }

// count mirrors Doc.convert; same says n's value has the pointer of the
// alias that named it, so is not counted again.
func (c *counter) count(n *yaml.Node, depth int, aliased, same bool) {
	if aliased {
		c.aliased++
	}
	if c.aliased > MaxAliasValues || depth > MaxDepth {
		return
	}
	if !same {
		c.n++
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.count(n.Alias, depth+1, true, true)
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			c.count(n.Content[i], depth+1, aliased, false)
		}
	case yaml.SequenceNode:
		for _, v := range n.Content {
			c.count(v, depth+1, aliased, false)
		}
	}
}
