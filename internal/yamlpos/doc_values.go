package yamlpos

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/diag"
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
	// Data is the text the document was read from; nil when Read held a
	// list (Options.Items), as Text says.
	Data []byte
	// Node is the root value node; nil when the document did not parse.
	Node *yaml.Node
	// Root is the decoded root value.
	Root any
	// Errs holds every problem of the document.
	Errs diag.List
	// Empty says the text holds no document (only comments, or nothing).
	Empty bool

	o Options
	// root holds the positions of the values, one node per value in the
	// shape of the values (see positions.go); n counts the values
	// recorded, nums the numbers as written.
	root node
	n    int
	nums []number
	// aliased counts the values reached through aliases; outerName,
	// outerPtr and outerPos are the name, pointer and position of the
	// alias of the document (not itself inside an alias's expansion)
	// being expanded; anchored counts the anchored nodes being converted
	// (see releases).
	aliased   int
	anchored  int
	outerPtr  string
	outerPos  diag.Pos
	outerName string
	// keys holds distinct strings of the document while it is
	// converted, see intern.
	keys map[string]string
	// split holds the lists of the root mapping cut into items, nil when
	// the document was parsed whole.
	split *splitDoc
	// packed is the text of a document whose list Read held, and fresh
	// the document as Read returned it (see pack.go).
	packed *packedText
	fresh  *Doc
}

// Read decodes data into a Doc (see Parse for the errors of the text),
// then turns its nodes into generic values, adding the errors of the
// values: a repeated key, a merge key (<<), a key that is not a string, a
// number that is not finite, a nesting deeper than MaxDepth and aliases
// expanding to more than MaxAliasValues values.
func Read(file string, data []byte, o Options) *Doc {
	if o.Release && len(data) >= o.splitMin() {
		if d := readSplit(file, data, o); d != nil {
			return d
		}
	}
	return readWhole(file, data, o)
}

// readWhole is Read parsing the whole text at once.
func readWhole(file string, data []byte, o Options) *Doc {
	d := &Doc{File: file, Data: data, o: o}
	d.Node, d.Errs, d.Empty = parse(file, data, o)
	if d.Node != nil {
		root := d.Node
		if o.Release {
			d.Node = nil
		}
		d.Root = d.convert(root, &d.root, nil, 0, false)
		d.keys = nil
	}
	return d
}

// Len is the number of values of the document, aliases expanded.
func (d *Doc) Len() int { return d.n }

func (d *Doc) pos(n *yaml.Node) diag.Pos {
	line, col := d.place(n)
	return diag.Pos{File: d.File, Line: line, Col: col}
}

func (d *Doc) errorf(n *yaml.Node, p *path, format string, args ...any) {
	d.Errs = append(d.Errs, &diag.Error{Pos: d.pos(n), Pointer: p.String(), Kind: d.o.kind(), Message: fmt.Sprintf(format, args...)})
}

// convert turns a node into a generic value, recording its position and
// those of the values within in at; p is the value's pointer, aliased
// says the node was reached through an alias.
func (d *Doc) convert(n *yaml.Node, at *node, p *path, depth int, aliased bool) any {
	if !d.enter(n, at, p, depth, aliased) {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return d.convert(n.Alias, at, p, depth+1, true)
	case yaml.MappingNode:
		return d.mapping(n, at, p, depth, aliased)
	case yaml.SequenceNode:
		return d.sequence(n, at, p, depth, aliased)
	case yaml.ScalarNode:
		if quotedStyle(n) {
			at.flags |= quoted
		}
		return d.scalar(n, at, p)
	}
	return nil
}

// enter counts the value of n and records its position in at; it
// reports false, with an error the first time, once the aliases have
// expanded to over MaxAliasValues values or below MaxDepth.
func (d *Doc) enter(n *yaml.Node, at *node, p *path, depth int, aliased bool) bool {
	if aliased {
		d.aliased++
	}
	if n.Kind == yaml.AliasNode && !aliased {
		d.outerName, d.outerPtr, d.outerPos = n.Value, p.String(), d.pos(n)
	}
	switch {
	case d.aliased > MaxAliasValues:
		if d.aliased == MaxAliasValues+1 {
			d.Errs = append(d.Errs, &diag.Error{Pos: d.outerPos, Pointer: d.outerPtr, Kind: d.o.kind(),
				Message: fmt.Sprintf("aliases expand the %s to over %d values (an alias bomb?); the limit is crossed expanding *%s here: write the values out, or alias less",
					d.o.noun(), MaxAliasValues, d.outerName)})
		}
		return false
	case depth > MaxDepth:
		if depth == MaxDepth+1 {
			d.errorf(n, p, "the %s nests its values over %d deep (a recursive alias?)", d.o.noun(), MaxDepth)
		}
		return false
	}
	if !at.setValue(d.place(n)) {
		d.n++
	}
	return true
}

func quotedStyle(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
}

func (d *Doc) sequence(n *yaml.Node, at *node, p *path, depth int, aliased bool) []any {
	s := make([]any, len(n.Content))
	at.kids = make([]node, len(n.Content))
	at.flags |= isSeq
	release := d.releases(n, aliased)
	for i, c := range n.Content {
		s[i] = d.convert(c, &at.kids[i], &path{up: p, idx: i}, depth+1, aliased)
		if release {
			n.Content[i] = nil
		}
	}
	d.released(n, aliased)
	return s
}

// releases reports whether the children of n may be dropped once
// converted: Options.Release is set and no alias can name n or a node
// within it (it is neither anchored nor inside an anchored node: an
// anchored node is only ever reached through an alias once it has been
// converted where it is written, and Release keeps its nodes).
func (d *Doc) releases(n *yaml.Node, aliased bool) bool {
	if !d.o.Release || aliased {
		return false
	}
	if n.Anchor != "" {
		d.anchored++
	}
	return d.anchored == 0
}

// released closes a node releases opened.
func (d *Doc) released(n *yaml.Node, aliased bool) {
	if d.o.Release && !aliased && n.Anchor != "" {
		d.anchored--
	}
}

func (d *Doc) mapping(n *yaml.Node, at *node, p *path, depth int, aliased bool) map[string]any {
	m := make(map[string]any, len(n.Content)/2)
	at.kids = make([]node, 0, len(n.Content)/2)
	at.flags &^= isSeq
	release := d.releases(n, aliased)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			d.errorf(k, p, "merge keys (<<) are not supported: write the keys out")
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, p, "a mapping key must be a plain string")
			continue
		}
		name := d.intern(k.Value)
		child := &path{up: p, key: name, idx: -1}
		if _, dup := m[name]; dup {
			d.errorf(k, child, "key %q is repeated: it was already set at line %d", name, at.keyLine(name))
			continue
		}
		at.kids = append(at.kids, node{name: name})
		kid := &at.kids[len(at.kids)-1]
		kid.setKey(d.place(k))
		if quotedStyle(k) {
			kid.flags |= quotedKey
		}
		if r := d.split.at(k, depth); r != nil && name == d.o.Items && d.split.held == nil {
			m[name] = d.hold(r, kid, child, depth+1)
		} else if r != nil {
			m[name] = d.items(r, kid, child, depth+1)
		} else {
			m[name] = d.convert(v, kid, child, depth+1, aliased)
		}
		if release {
			n.Content[i], n.Content[i+1] = nil, nil
		}
	}
	d.released(n, aliased)
	at.sortKids()
	return m
}

// maxInterned bounds how many distinct strings a Doc shares.
const maxInterned = 4096

// intern returns the first copy of the string s the document held, so a
// key or a value written on every item of a long list is kept once, not
// once an item (for the first maxInterned distinct strings).
func (d *Doc) intern(s string) string {
	if k, ok := d.keys[s]; ok {
		return k
	}
	if len(d.keys) < maxInterned {
		if d.keys == nil {
			d.keys = map[string]string{}
		}
		d.keys[s] = s
	}
	return s
}

func (d *Doc) scalar(n *yaml.Node, at *node, p *path) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	case "!!int", "!!float":
		num := number{text: n.Value}
		if n.ShortTag() == "!!int" && n.Decode(&num.i) == nil {
			num.exact = true
		}
		d.nums = append(d.nums, num)
		at.num = int32(len(d.nums))
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		d.errorf(n, p, "%q is not a finite number", n.Value)
		return nil
	}
	return d.intern(n.Value)
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
