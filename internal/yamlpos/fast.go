package yamlpos

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// Most of the time of reading a long suite goes to yaml.v3's scanner and
// parser, and most items of a long list are written in a few plain
// shapes: block mappings and lists of plain words, quoted strings and
// one-line flow collections. fastItem builds the nodes yaml.v3 builds for
// an item in those shapes, and gives up (nil) on anything else, which
// yaml.v3 then parses:
//
//   - any byte outside printable ASCII but the line feed (a tab, a
//     carriage return, UTF-8, a control character);
//   - a comment, an anchor, an alias, a tag, a directive, a complex key,
//     a block scalar, an escape in a double-quoted string, a quote in a
//     quoted one, a space ending a line;
//   - a plain scalar that does not start with a letter, `_` or `/`, or
//     holds a colon or `#` (in a flow collection: anything but letters,
//     digits, spaces, `_`, `.`, `/` and `-`), or is null or a boolean,
//     unless it is a decimal integer of at most 18 digits without a
//     leading zero;
//   - an empty value, a value that spans lines (but a block collection
//     under its key), a block list at the indentation of its key, a flow
//     collection that spans lines or ends with a comma, a key of more
//     than 1,000 bytes;
//   - a nesting deeper than MaxDepth.
//
// FuzzFastItem holds the nodes it builds equal to yaml.v3's.

// fast reads the text of one item; lines are the offsets of its lines'
// starts, their ends being the byte before the next start.
type fast struct {
	text  []byte
	lines []int
	depth int
	// slab hands out the nodes; nil allocates each on its own.
	slab *nodeSlab
}

// maxFastKey bounds a key's length: yaml.v3 refuses an implicit key over
// 1,024 characters.
const maxFastKey = 1000

// fastItem returns the value node of the block sequence entry that text
// holds, its dash at column indent+1 of its first line, as yaml.v3 parses
// it from a stream where the text starts at line 1; nil when the text is
// not of the shapes above.
func fastItem(text []byte, indent int) *yaml.Node {
	return fastItemIn(text, indent, nil)
}

// fastItemIn is fastItem taking its nodes from slab (nil: each allocated
// on its own).
func fastItemIn(text []byte, indent int, slab *nodeSlab) *yaml.Node {
	f := fast{text: text, slab: slab}
	if !f.split() {
		return nil
	}
	line := f.line(0)
	if len(line) < indent+2 || line[indent] != '-' || line[indent+1] != ' ' {
		return nil
	}
	if !bytes.Equal(line[:indent], bytes.Repeat([]byte{' '}, indent)) {
		return nil
	}
	n, next, ok := f.entry(0, indent)
	if !ok {
		return nil
	}
	if next, _ = f.next(next); next != len(f.lines) {
		return nil
	}
	return n
}

// split records the lines of the text, refusing any byte but printable
// ASCII and the line feed, and a line that ends with a space but holds
// something else.
func (f *fast) split() bool {
	f.lines = append(f.lines, 0)
	for i, b := range f.text {
		switch {
		case b == '\n':
			if i > 0 && f.text[i-1] == ' ' && !f.blank(len(f.lines)-1) {
				return false
			}
			if i+1 < len(f.text) {
				f.lines = append(f.lines, i+1)
			}
		case b < ' ' || b > '~':
			return false
		}
	}
	n := len(f.text)
	return n == 0 || f.text[n-1] != ' ' || f.blank(len(f.lines)-1)
}

// line returns the text of line i without its line feed.
func (f *fast) line(i int) []byte {
	end := len(f.text)
	if i+1 < len(f.lines) {
		end = f.lines[i+1]
	}
	return bytes.TrimSuffix(f.text[f.lines[i]:end], []byte{'\n'})
}

// blank reports whether line i holds nothing but spaces.
func (f *fast) blank(i int) bool {
	return len(bytes.TrimLeft(f.line(i), " ")) == 0
}

// next returns the first line from i that is not blank, and its
// indentation; len(f.lines) and -1 when there is none.
func (f *fast) next(i int) (int, int) {
	for ; i < len(f.lines); i++ {
		if !f.blank(i) {
			line := f.line(i)
			return i, len(line) - len(bytes.TrimLeft(line, " "))
		}
	}
	return i, -1
}

// newNode makes a node at line i (0-based), byte col (0-based).
func (f *fast) newNode(kind yaml.Kind, tag string, i, col int) *yaml.Node {
	n := f.slab.node()
	*n = yaml.Node{Kind: kind, Tag: tag, Line: i + 1, Column: col + 1}
	return n
}

// enter counts a level of nesting; false past MaxDepth.
func (f *fast) enter() bool {
	f.depth++
	return f.depth <= MaxDepth
}

// entry reads the block sequence entry whose dash is at column col of line
// i; it returns the entry's value node and the line after it.
func (f *fast) entry(i, col int) (*yaml.Node, int, bool) {
	line := f.line(i)
	at := spaces(line, col+2)
	if at == len(line) {
		return nil, 0, false
	}
	if _, ok := f.key(line, at); ok {
		return f.mapping(i, at)
	}
	return f.inline(i, at)
}

// inline reads a value that takes the rest of line i from col.
func (f *fast) inline(i, col int) (*yaml.Node, int, bool) {
	line := f.line(i)
	n, end, ok := f.value(line, i, col, false)
	if !ok || end != len(line) {
		return nil, 0, false
	}
	return n, i + 1, true
}

// mapping reads a block mapping whose first key is at column col of line
// i; it returns the mapping and the line after it.
func (f *fast) mapping(i, col int) (*yaml.Node, int, bool) {
	if !f.enter() {
		return nil, 0, false
	}
	defer func() { f.depth-- }()
	m := f.newNode(yaml.MappingNode, "!!map", i, col)
	for {
		line := f.line(i)
		k, ok := f.key(line, col)
		if !ok {
			return nil, 0, false
		}
		v, next, ok := f.mappingValue(i, col, k.end)
		if !ok {
			return nil, 0, false
		}
		m.Content = append(m.Content, f.scalar(k, i), v)
		next, indent := f.next(next)
		switch {
		case indent < col:
			return m, next, true
		case indent > col:
			return nil, 0, false
		}
		i = next
	}
}

// mappingValue reads the value after the colon of a key at column col of
// line i, the colon at offset colon: the rest of the line, or the block
// collection under the key, more indented than it.
func (f *fast) mappingValue(i, col, colon int) (*yaml.Node, int, bool) {
	if line := f.line(i); colon+1 < len(line) {
		return f.inline(i, spaces(line, colon+1))
	}
	next, indent := f.next(i + 1)
	if indent <= col {
		return nil, 0, false
	}
	under := f.line(next)
	if under[indent] == '-' && (len(under) == indent+1 || under[indent+1] == ' ') {
		return f.sequence(next, indent)
	}
	if _, ok := f.key(under, indent); ok {
		return f.mapping(next, indent)
	}
	return nil, 0, false
}

// sequence reads a block sequence whose first dash is at column col of
// line i; it returns the sequence and the line after it.
func (f *fast) sequence(i, col int) (*yaml.Node, int, bool) {
	if !f.enter() {
		return nil, 0, false
	}
	defer func() { f.depth-- }()
	s := f.newNode(yaml.SequenceNode, "!!seq", i, col)
	for {
		line := f.line(i)
		if len(line) < col+2 || line[col] != '-' || line[col+1] != ' ' {
			return nil, 0, false
		}
		v, next, ok := f.entry(i, col)
		if !ok {
			return nil, 0, false
		}
		s.Content = append(s.Content, v)
		next, indent := f.next(next)
		switch {
		case indent < col:
			return s, next, true
		case indent > col:
			return nil, 0, false
		}
		i = next
	}
}

// scalarText is a scalar read from a line: its value and style, where it
// starts and the offset after it.
type scalarText struct {
	value      string
	style      yaml.Style
	tag        string
	start, end int
}

// scalar makes the node of s, read from line i.
func (f *fast) scalar(s scalarText, i int) *yaml.Node {
	n := f.newNode(yaml.ScalarNode, s.tag, i, s.start)
	n.Value, n.Style = s.value, s.style
	return n
}

// key reads a key of a mapping at col of line: a plain word or a quoted
// string, followed by a colon and then a space or the end of the line;
// end is the offset of the colon.
func (f *fast) key(line []byte, col int) (scalarText, bool) {
	var k scalarText
	var ok bool
	switch line[col] {
	case '"', '\'':
		k, ok = quotedScalar(line, col)
	default:
		k, ok = plain(line, col, true)
	}
	if !ok || k.end-k.start > maxFastKey || k.end >= len(line) || line[k.end] != ':' ||
		(k.end+1 < len(line) && line[k.end+1] != ' ') {
		return scalarText{}, false
	}
	return k, true
}

// value reads a value at col of line i (a flow collection, a quoted
// string or a plain scalar); flow says it is inside a flow collection.
// It returns the node and the offset after the value.
func (f *fast) value(line []byte, i, col int, flow bool) (*yaml.Node, int, bool) {
	if col >= len(line) {
		return nil, 0, false
	}
	var s scalarText
	var ok bool
	switch line[col] {
	case '{', '[':
		return f.flow(line, i, col, line[col] == '{')
	case '"', '\'':
		s, ok = quotedScalar(line, col)
	default:
		s, ok = plain(line, col, flow)
	}
	if !ok {
		return nil, 0, false
	}
	return f.scalar(s, i), s.end, true
}

// flow reads a one-line flow collection whose bracket (mapping: brace)
// is at col.
func (f *fast) flow(line []byte, i, col int, mapping bool) (*yaml.Node, int, bool) {
	if !f.enter() {
		return nil, 0, false
	}
	defer func() { f.depth-- }()
	kind, tag, closing := yaml.SequenceNode, "!!seq", byte(']')
	if mapping {
		kind, tag, closing = yaml.MappingNode, "!!map", '}'
	}
	n := f.newNode(kind, tag, i, col)
	n.Style = yaml.FlowStyle
	at := spaces(line, col+1)
	if at < len(line) && line[at] == closing {
		return n, at + 1, true
	}
	for {
		if mapping {
			if at >= len(line) {
				return nil, 0, false
			}
			k, ok := f.key(line, at)
			if !ok {
				return nil, 0, false
			}
			n.Content = append(n.Content, f.scalar(k, i))
			at = spaces(line, k.end+1)
		}
		v, end, ok := f.value(line, i, at, true)
		if !ok {
			return nil, 0, false
		}
		n.Content = append(n.Content, v)
		if at, ok = after(line, end, closing); !ok {
			return nil, 0, false
		}
		if line[at-1] == closing {
			return n, at, true
		}
	}
}

// after reads what follows an entry of a flow collection from end: spaces,
// then the closing bracket (the offset after it) or a comma and spaces
// (the offset of the next entry, which must not be the closing bracket).
func after(line []byte, end int, closing byte) (int, bool) {
	at := spaces(line, end)
	switch {
	case at >= len(line):
		return 0, false
	case line[at] == closing:
		return at + 1, true
	case line[at] != ',':
		return 0, false
	}
	at = spaces(line, at+1)
	if at >= len(line) || line[at] == closing || line[at] == ',' {
		return 0, false
	}
	return at, true
}

// spaces returns the offset of the first byte from at that is not a
// space.
func spaces(line []byte, at int) int {
	for at < len(line) && line[at] == ' ' {
		at++
	}
	return at
}

// quotedScalar reads a string quoted with the quote at col: double-quoted
// without a backslash, or single-quoted without a quote inside.
func quotedScalar(line []byte, col int) (scalarText, bool) {
	q := line[col]
	for at := col + 1; at < len(line); at++ {
		switch line[at] {
		case q:
			style := yaml.DoubleQuotedStyle
			if q == '\'' {
				style = yaml.SingleQuotedStyle
			}
			return scalarText{value: string(line[col+1 : at]), style: style, tag: "!!str", start: col, end: at + 1}, true
		case '\\':
			if q == '"' {
				return scalarText{}, false
			}
		}
	}
	return scalarText{}, false
}

// plain reads a plain scalar at col: in a flow collection (or as a key)
// up to a comma, a bracket, a brace or a colon, elsewhere to the end of
// the line, its trailing spaces not its own.
func plain(line []byte, col int, flow bool) (scalarText, bool) {
	end := col
	for end < len(line) && plainByte(line[end], flow) {
		end++
	}
	for end > col && line[end-1] == ' ' {
		end--
	}
	s := scalarText{value: string(line[col:end]), start: col, end: end}
	if end == col || (!flow && end < len(line)) {
		return scalarText{}, false
	}
	s.tag = plainTag(s.value)
	return s, s.tag != ""
}

// plainByte reports whether b may be part of a plain scalar fastItem
// reads: in a flow collection a letter, a digit, a space, `_`, `.`, `/`
// or `-`; elsewhere anything but a colon and `#`.
func plainByte(b byte, flow bool) bool {
	switch {
	case !flow:
		return b != ':' && b != '#'
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return b == ' ' || b == '_' || b == '.' || b == '/' || b == '-'
}

// plainTag is the tag yaml.v3 resolves a plain scalar to, for the plain
// scalars fastItem reads; "" for the others.
func plainTag(v string) string {
	switch c := v[0]; {
	case c >= '1' && c <= '9' && len(v) <= 18 && digits(v):
		return "!!int"
	case v == "0":
		return "!!int"
	case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '/'):
		return ""
	}
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return ""
	}
	return "!!str"
}

// digits reports whether v is all decimal digits.
func digits(v string) bool {
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}
