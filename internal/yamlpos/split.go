package yamlpos

import (
	"bytes"
	"io"

	"gopkg.in/yaml.v3"
)

// A long suite is mostly one list (its tests:), and yaml.v3 builds the
// node tree of a whole file before one value is converted: about 13
// bytes of node a byte of YAML. With Options.Release, Read cuts each
// block sequence that is the value of a key of the root mapping into its
// items from the bytes, parses the rest of the file (the skeleton, the
// lists' lines left blank so every line keeps its number) and then each
// item as a document of its own (see items and chunks.go), a few chunks
// of items ahead of the conversion: the nodes of a few items are alive
// at a time, never the whole file's.
//
// The cut is made on lines: a list starts after a line `key:` at column
// 1 (nothing after the colon but a comment), its items start at the lines
// that hold `- ` at the indentation of the first, and it ends at the next
// line that starts at column 1 with anything but a comment (or, for a
// list at column 1, an item). A line that is not what it looks like (in
// a quoted or flow scalar spanning lines) leaves an item that does not
// parse, or a skeleton whose root mapping has no such key: and anything
// the cut is not sure of sends the whole text to the whole-file parse, so
// the values, positions and errors are always those of the whole-file
// parse (FuzzSplitRead holds them equal):
//
//   - text that is not plain UTF-8 with LF or CRLF line ends (a byte order
//     mark, UTF-16, a lone CR, NEL, LS or PS, which yaml.v3 counts as line
//     breaks), a tab starting a line's text, a directive, a document
//     marker;
//   - a skeleton that does not parse, has any error, has an alias (it may
//     name the root, or an anchor of an item), or whose root is not a
//     block mapping with the keys where the cut found them;
//   - an item that does not parse on its own (an alias to an anchor of
//     the skeleton, a quote or bracket the cut split), is not one block
//     sequence entry at the indentation of the list, has an alias to a
//     node of another item, or, when it is long enough to reach yaml.v3's
//     depth limit, nests deeper than Read allows.
//
// A syntax error anywhere is thus always worded by the whole-file parse.

// splitMin is the size from which Read parses lists item by item. Below
// it, a text parses in a few milliseconds whole; from it, the items'
// chunks are parsed on every core the process may use (chunks.go), most
// items without yaml.v3's scanner (fast.go): a 745 KB suite of 2,000
// tests loads in about 75 ms instead of 160 ms on two cores, and its node
// tree is never built whole.
const splitMin = 64 << 10

// splitDoc is a document whose lists are parsed item by item.
type splitDoc struct {
	data  []byte
	lists []list
	// failed says an item could not be parsed on its own: the document
	// is read again whole.
	failed bool
	// in is the item being converted, see place.
	in itemPlace
	// held is the list Options.Items names, converted by Doc.Items; nil
	// when there is none. Once Read returns, data is nil and packed holds
	// the held list's text (see pack.go).
	held   *heldList
	packed *packedText
}

// itemPlace says where the nodes of an item parsed on its own are in the
// file: off lines down, except a node at the end of the item's text (an
// empty value, which yaml.v3 places at the token after it), which is at
// the token after the item in the file: the dash of the next item, or
// the first character of the line after the list.
type itemPlace struct {
	// off is added to the lines of the stream; first is the item's first
	// line in the stream, 0 outside an item.
	off, first        int
	endLine, endCol   int
	nextLine, nextCol int
}

// place returns the line and column in the file of a node being
// converted.
func (d *Doc) place(n *yaml.Node) (int, int) {
	if d.split == nil || d.split.in.first == 0 {
		return n.Line, n.Column
	}
	in := &d.split.in
	switch {
	case n.Line == in.endLine && n.Column == in.endCol:
		return in.nextLine, in.nextCol
	case n.Line < in.first || n.Line > in.endLine:
		// A node of another item, named by an alias: the whole parse
		// places it.
		d.split.failed = true
	}
	return n.Line + in.off, n.Column
}

// list is a block sequence, the value of a key of the root mapping, cut
// into items.
type list struct {
	// keyLine is the line of the key (1-based).
	keyLine int
	// indent is the number of spaces before the dash of each item; -1
	// until the first item is found.
	indent int
	// start and end are the offsets of the list's lines: from the line
	// after the key's to the line before the next key's; endLine is the
	// line at end, 0 when the list ends the text.
	start, end, endLine int
	items               []item
	// parsed says every item was parsed; held that the list is left for
	// Doc.Items.
	parsed, held bool
}

// item is the offset of the line where an item starts, and its line
// (1-based); an item ends where the next starts, the last where its
// list ends.
type item struct {
	start, line int
}

// deepText is the length under which an item cannot nest as deep as
// yaml.v3's limit of 10,000 indentation levels (each level takes a column
// of its own).
const deepText = 9000

// readSplit is Read parsing the lists of the root mapping item by item;
// nil when the text has no such list or the cut is not sure of it (see
// above): Read then parses it whole.
func readSplit(file string, data []byte, o Options) *Doc {
	lists := cutLists(data)
	if len(lists) == 0 || textError(file, data, o) != nil || budgetError(file, data, o) != nil {
		return nil
	}
	// The skeleton is parsed as an item is: its errors are the whole
	// parse's to word.
	var doc yaml.Node
	if err := yaml.Unmarshal(skeleton(data, lists), &doc); err != nil || len(doc.Content) != 1 {
		return nil
	}
	root := doc.Content[0]
	if !placed(root, lists) || hasAlias(root) {
		return nil
	}
	d := &Doc{File: file, Data: data, o: o, split: &splitDoc{data: data, lists: lists}}
	d.Root = d.convert(root, &d.root, nil, 0, false)
	if d.split.failed {
		return nil
	}
	for _, l := range lists {
		if !l.parsed && !l.held {
			// Not converted (a repeated key, or past the alias limit): its
			// items may hold a syntax error only the whole parse words.
			return nil
		}
	}
	switch {
	case d.split.held == nil:
		d.split, d.keys = nil, nil
	case o.packs(len(d.split.held.l.items), len(data)):
		d.keepPacked()
	}
	return d
}

// at returns the list that is the value of the key k of the mapping
// being converted at depth, nil when there is none.
func (s *splitDoc) at(k *yaml.Node, depth int) *list {
	if s == nil || depth != 0 || k.Column != 1 {
		return nil
	}
	for i := range s.lists {
		if s.lists[i].keyLine == k.Line {
			return &s.lists[i]
		}
	}
	return nil
}

// items converts the list l, parsing one item at a time, as convert
// converts a sequence node; at, p and depth are the list's.
//
// The items are parsed in chunks (chunks.go), each item on its own: by
// fastItem, or by yaml.v3 reading the chunk's other items as a stream of
// documents, each item's lines, then a line "---" (none after an item
// that ends the text). Lines count on across the stream: the item that
// starts on line first of the stream ends with the marker on line first
// + breaks (its line breaks); yaml.v3 places the end of a text there too,
// at column 1 of the line after the last line break, or after the last
// line when the text ends without a break.
func (d *Doc) items(l *list, at *node, p *path, depth int) any {
	if !d.enterList(l, at, p, depth) {
		return nil
	}
	s := make([]any, len(l.items))
	if !d.eachItem(l, at, p, depth, s, nil) {
		return nil
	}
	return s
}

// enterList counts the list l, converted at at, as a value and records
// its position (see enter): the position of its first item's dash, where
// yaml.v3 places a block sequence. It reports false past the limits.
func (d *Doc) enterList(l *list, at *node, p *path, depth int) bool {
	seq := yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: l.items[0].line, Column: l.indent + 1}
	if !d.enter(&seq, at, p, depth, false) {
		return false
	}
	at.flags |= isSeq
	at.kids = make([]node, len(l.items))
	return true
}

// eachItem parses and converts the items of l in order into s and the
// kids of at, the list's (see items); with hand, it hands each item to
// it once converted, then drops the item's value and the positions
// within it (Doc.Items). It reports false when an item could not be read
// on its own (d.split.failed) or hand said stop.
func (d *Doc) eachItem(l *list, at *node, p *path, depth int, s []any, hand func(int, any) bool) bool {
	l.parsed = true
	items := newChunks(d.split, l, d.o.chunkSize())
	defer items.stop()
	for i := range l.items {
		it := items.item(i)
		if it.n == nil {
			d.split.failed = true
			return false
		}
		nums := len(d.nums)
		d.split.in = l.place(i, it.first, it.first+it.breaks)
		s[i] = d.convert(it.n, &at.kids[i], &path{up: p, idx: i}, depth+1, false)
		d.split.in = itemPlace{}
		if d.split.failed {
			return false
		}
		if hand != nil {
			more := hand(i, s[i])
			s[i] = nil
			at.kids[i].drop()
			d.nums = d.nums[:nums]
			if !more {
				return false
			}
		}
	}
	return true
}

// text is the text of item i of l in data, which starts at offset base
// of the file's text: its lines, up to the next item's or the end of the
// list.
func (l *list) text(data []byte, base, i int) []byte {
	return data[l.items[i].start-base : l.itemEnd(i)-base]
}

// place says where the nodes of item i of l, which the stream holds from
// line first to the marker on line marker, are in the file.
func (l *list) place(i int, first, marker int) itemPlace {
	line := l.items[i].line
	in := itemPlace{off: line - first, first: first, endLine: marker, endCol: 1}
	switch {
	case i+1 < len(l.items):
		in.nextLine, in.nextCol = l.items[i+1].line, l.indent+1
	case l.endLine > 0:
		in.nextLine, in.nextCol = l.endLine, 1
	default:
		// The item ends the text, and the stream.
		in.nextLine, in.nextCol = marker+in.off, 1
	}
	return in
}

// decode decodes the next item of l from dec, which starts on line first
// of the stream and is size bytes long, and returns its value node; nil
// when the item does not parse, or is not exactly one entry of a block
// sequence at the list's indentation.
func (l *list) decode(dec *yaml.Decoder, first, size int) *yaml.Node {
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || seq.Style != 0 || seq.Tag != "!!seq" || seq.Anchor != "" ||
		len(seq.Content) != 1 || seq.Line != first || seq.Column != l.indent+1 {
		return nil
	}
	if size >= deepText && deeper(seq.Content[0], MaxDepth-2) {
		return nil
	}
	return seq.Content[0]
}

// itemStream reads items of a list as a stream of documents, each
// followed by a line "---" but an item that ends the text.
type itemStream struct {
	// data is the text from offset base of the file's.
	data []byte
	base int
	l    *list
	// items are the indexes of the items served, in order; next counts
	// the pieces served: items[k] is piece 2k, its marker piece 2k+1.
	// cur is what remains of the piece being served.
	items []int
	next  int
	cur   []byte
}

func (r *itemStream) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.next == 2*len(r.items) {
			return 0, io.EOF
		}
		i := r.items[r.next/2]
		switch text := r.l.text(r.data, r.base, i); {
		case r.next%2 == 0:
			r.cur = text
		case i+1 == len(r.l.items) && r.l.endLine == 0:
			// The item ends the text: so does the stream, where yaml.v3
			// places its end as in the file.
		case bytes.HasSuffix(text, []byte{'\n'}):
			r.cur = []byte("---\n")
		default:
			r.cur = []byte("\n---\n")
		}
		r.next++
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// placed reports whether root is a block mapping with a key at column 1
// of each list's key line, whose value is the empty scalar the blank lines
// of the skeleton leave.
func placed(root *yaml.Node, lists []list) bool {
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return false
	}
	for _, l := range lists {
		found := false
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			if k.Line == l.keyLine && k.Column == 1 {
				found = v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "" && v.Style == 0 && v.Anchor == ""
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// hasAlias reports whether the tree at n holds an alias.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// deeper reports whether the tree at n nests more than max levels.
func deeper(n *yaml.Node, max int) bool {
	if max < 0 {
		return true
	}
	for _, c := range n.Content {
		if deeper(c, max-1) {
			return true
		}
	}
	return false
}

// skeleton is data with the lines of the lists left blank.
func skeleton(data []byte, lists []list) []byte {
	out := make([]byte, 0, len(data)/8)
	prev := 0
	for _, l := range lists {
		out = append(out, data[prev:l.start]...)
		for range bytes.Count(data[l.start:l.end], []byte{'\n'}) {
			out = append(out, '\n')
		}
		prev = l.end
	}
	return append(out, data[prev:]...)
}

// plainText reports whether data is UTF-8 without a byte order mark,
// whose line breaks are all LF or CRLF: yaml.v3 also breaks lines at a
// lone CR, NEL, LS and PS.
func plainText(data []byte) bool {
	if isUTF16(data) || bytes.HasPrefix(data, []byte(utf8BOM)) {
		return false
	}
	for _, b := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.Contains(data, []byte(b)) {
			return false
		}
	}
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			return true
		}
		if i+1 == len(rest) || rest[i+1] != '\n' {
			return false
		}
		rest = rest[i+1:]
	}
}

// cutter finds the lists of a text line by line.
type cutter struct {
	lists []list
	// cur is the list being cut, nil outside one.
	cur *list
}

// cutLists returns the block sequences of data that are values of keys at
// column 1, each cut into items; nil when there is none or the text holds
// what the cut is not sure of.
func cutLists(data []byte) []list {
	if !plainText(data) {
		return nil
	}
	var c cutter
	line := 0
	for off := 0; off < len(data); {
		line++
		end, next := len(data), len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end, next = off+i, off+i+1
		}
		if !c.line(bytes.TrimSuffix(data[off:end], []byte{'\r'}), off, next, line) {
			return nil
		}
		off = next
	}
	c.close(0)
	return c.lists
}

// line takes the line text, which starts at offset off and whose next
// line starts at next; false when the text holds what the cut is not sure
// of.
func (c *cutter) line(text []byte, off, next, line int) bool {
	if bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) || bytes.HasPrefix(text, []byte("%")) {
		return false
	}
	rest := bytes.TrimLeft(text, " ")
	indent := len(text) - len(rest)
	if len(rest) > 0 && rest[0] == '\t' {
		return false
	}
	entry := len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ')
	if c.cur != nil && (indent > 0 || (entry && c.cur.indent <= 0) || len(rest) == 0 || rest[0] == '#') {
		c.inList(indent, len(rest) == 0 || rest[0] == '#', entry, off, next, line)
		return true
	}
	c.close(line)
	if indent == 0 && keyLine(rest) {
		c.cur = &list{keyLine: line, indent: -1, start: next, end: next}
	}
	return true
}

// inList takes a line of the current list: blank says it holds only
// spaces or a comment, entry that it starts with a dash and a space.
func (c *cutter) inList(indent int, blank, entry bool, off, next, line int) {
	l := c.cur
	switch {
	case blank:
	case l.indent < 0 && !entry, indent < l.indent:
		// Not a block sequence, or a line less indented than its items:
		// the lines stay in the skeleton.
		c.cur = nil
		return
	case entry && (l.indent < 0 || indent == l.indent):
		l.indent = indent
		l.items = append(l.items, item{start: off, line: line})
	}
	l.end = next
}

// close ends the current list at line endLine (0 for the end of the
// text), kept when it has items.
func (c *cutter) close(endLine int) {
	if c.cur != nil && len(c.cur.items) > 0 {
		c.cur.endLine = endLine
		c.lists = append(c.lists, *c.cur)
	}
	c.cur = nil
}

// keyLine reports whether the text of a line at column 1 is a key and
// nothing else: letters, digits, `_`, `.` and `-` (not first) then a
// colon, then only spaces and a comment.
func keyLine(rest []byte) bool {
	i := 0
	for i < len(rest) && (isWordByte(rest[i]) || (i > 0 && (rest[i] == '.' || rest[i] == '-'))) {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ':' {
		return false
	}
	after := rest[i+1:]
	if len(after) > 0 && after[0] != ' ' {
		return false
	}
	after = bytes.TrimLeft(after, " ")
	return len(after) == 0 || after[0] == '#'
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
