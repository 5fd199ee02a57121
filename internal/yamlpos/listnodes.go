package yamlpos

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// listNodesChunk is the number of items a chunk of ListNodes holds: the
// caller keeps little of each item (a catalog's tool as text), so the
// nodes of the chunks parsed ahead are most of what is alive, and a chunk
// of a few items is enough to keep the workers busy.
const listNodesChunk = 8

// ListNodes parses a text whose root is a block mapping with a block list
// under key (at column 1, `tools:` of a catalog) item by item, as Read
// does with Options.Release (see split.go: the same cut, the same
// skeleton, the same items parsed in chunks on every core), and hands
// each item's node tree to hand, in order, its lines and columns those of
// the file; the nodes of an item are let go once hand returns (and those
// fastItem built are reused, see slab.go): hand keeps none of them. root is the
// root mapping of the rest of the text, in which the key's value is the
// empty (null) scalar the list's blank lines leave.
//
// ok is false when the text is not cut so (no such list, or anything the
// cut is not sure of: see split.go), when an item does not parse on its
// own (an alias to another item's anchor, a quote the cut split), and
// when hand returns false: the caller then reads the text whole, which
// words every error. ListNodes checks nothing else: a repeated key, a
// merge key or a value of any kind is the caller's to check.
func ListNodes(data []byte, key string, hand func(i int, item *yaml.Node) bool) (root *yaml.Node, ok bool) {
	if textError("", data, Options{}) != nil || budgetError("", data, Options{}) != nil {
		return nil, false
	}
	var l *list
	lists := cutLists(data)
	for i := range lists {
		if listKey(data, &lists[i]) != key {
			continue
		}
		if l != nil {
			return nil, false // the key twice: the whole parse words it
		}
		l = &lists[i]
	}
	if l == nil {
		return nil, false
	}
	one := []list{*l}
	var doc yaml.Node
	if err := yaml.Unmarshal(skeleton(data, one), &doc); err != nil || len(doc.Content) != 1 {
		return nil, false
	}
	root = doc.Content[0]
	if !placed(root, one) || hasAlias(root) {
		return nil, false
	}
	l = &one[0]
	items := newChunks(&splitDoc{data: data, lists: one}, l, listNodesChunk)
	defer items.stop()
	for i := range l.items {
		it := items.item(i)
		if it.n == nil {
			return nil, false
		}
		in := l.place(i, it.first, it.first+it.breaks)
		if !ownAliases(it.n, &in) {
			return nil, false
		}
		placeTree(it.n, &in)
		if !hand(i, it.n) {
			return nil, false
		}
	}
	return root, true
}

// listKey is the key whose value the list l is: the text of its key line
// up to the colon (cutLists takes only a plain key there).
func listKey(data []byte, l *list) string {
	end := l.start - 1 // the line break ending the key's line
	if end < 0 || end >= len(data) {
		return ""
	}
	start := bytes.LastIndexByte(data[:end], '\n') + 1
	line := data[start:end]
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return ""
	}
	return string(line[:colon])
}

// ownAliases reports whether every alias of an item parsed on its own
// names a node of the item (in the same stream, an alias may name an
// anchor of an item before it), its lines still the stream's.
func ownAliases(n *yaml.Node, in *itemPlace) bool {
	if n.Kind == yaml.AliasNode && (n.Alias == nil || n.Alias.Line < in.first || n.Alias.Line > in.endLine) {
		return false
	}
	for _, c := range n.Content {
		if !ownAliases(c, in) {
			return false
		}
	}
	return true
}

// placeTree gives the nodes of an item parsed on its own their places in
// the file, as Doc.place does.
func placeTree(n *yaml.Node, in *itemPlace) {
	if n.Line == in.endLine && n.Column == in.endCol {
		n.Line, n.Column = in.nextLine, in.nextCol
	} else {
		n.Line += in.off
	}
	for _, c := range n.Content {
		placeTree(c, in)
	}
}
