package expr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SegKind says how a Segment steps into a value.
type SegKind int

// The kinds of Segment. The zero SegKind is not a valid kind.
const (
	// Field is a bare name after a dot (or at the start): tool_selection.
	Field SegKind = iota + 1
	// Index is a list position in brackets: [0].
	Index
	// Key is a quoted object key in brackets: ["api-key"].
	Key
)

// String names the kind: "field", "index" or "key".
func (k SegKind) String() string {
	switch k {
	case Field:
		return "field"
	case Index:
		return "index"
	case Key:
		return "key"
	}
	return "SegKind(" + strconv.Itoa(int(k)) + ")"
}

// Segment is one step of a Path. Name is set for Field and Key, Index for
// Index.
type Segment struct {
	Kind  SegKind
	Name  string
	Index int
}

// Path is a parsed target such as result.content[0].text. The zero Path has
// no segments; ParsePath never returns it.
type Path struct {
	segs []Segment
}

// Segments returns a copy of the steps of the path, first to last.
func (p Path) Segments() []Segment {
	return append([]Segment(nil), p.segs...)
}

// String renders the path canonically: fields joined by '.', [n] for
// indexes and ["key"] for keys, quoted as strconv.Quote does. ParsePath
// reads it back to an equal path.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.segs {
		switch s.Kind {
		case Field:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case Index:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case Key:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.Name))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// Lookup follows the path through doc, a decoded JSON or YAML value. Field
// and Key steps index a map[string]any, Index steps a []any or a List
// (whose element is built alone). ok is false when a step is missing, out
// of range or meets a value of another type.
func (p Path) Lookup(doc any) (v any, ok bool) {
	v = doc
	for _, s := range p.segs {
		switch s.Kind {
		case Field, Key:
			m, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			if v, ok = m[s.Name]; !ok {
				return nil, false
			}
		case Index:
			switch l := v.(type) {
			case []any:
				if s.Index < 0 || s.Index >= len(l) {
					return nil, false
				}
				v = l[s.Index]
			case List:
				if s.Index < 0 || s.Index >= l.Len() {
					return nil, false
				}
				v = l.At(s.Index)
			default:
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

// SyntaxError is a target that does not parse. Error renders it as
//
//	unexpected "]" at column 4 in target "a.b]": expected .field, [index], ["key"] or the end of the target
type SyntaxError struct {
	// Input is the target as written.
	Input string
	// Offset is the 0-based rune offset in Input where the problem is; it
	// equals the rune length of Input when the target ends too early.
	Offset int
	// Msg says what was found, for example `unexpected "]"`.
	Msg string
	// Expected says what would have been valid there; it may be empty.
	Expected string
}

// Error renders the problem with its 1-based column in the target.
func (e *SyntaxError) Error() string {
	s := fmt.Sprintf("%s at column %d in target %s", e.Msg, e.Offset+1, strconv.Quote(e.Input))
	if e.Expected != "" {
		s += ": " + e.Expected
	}
	return s
}

// ParsePath parses a target:
//
//	path   := ident ( '.' ident | '[' int ']' | '[' quoted ']' )*
//	ident  := [A-Za-z_][A-Za-z0-9_-]*
//	quoted := "..." or '...', with Go escapes such as \" \' \\ \n \u00e9
//
// Whitespace is allowed only inside quotes. The error is a *SyntaxError.
func ParsePath(s string) (Path, error) {
	p := pathParser{s: s}
	segs, err := p.parse()
	if err != nil {
		return Path{}, err
	}
	return Path{segs: segs}, nil
}

// pathParser reads a target byte by byte; pos is a byte offset into s.
type pathParser struct {
	s   string
	pos int
}

const afterSegment = `expected .field, [index], ["key"] or the end of the target`

func (p *pathParser) parse() ([]Segment, error) {
	if p.s == "" {
		return nil, p.errAt(0, "empty target", "expected a field name, such as result.content[0].text")
	}
	if !isIdentStart(p.s[0]) {
		return nil, p.unexpected(0, "a target starts with a field name, such as result or tool_selection")
	}
	segs := []Segment{{Kind: Field, Name: p.ident()}}
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == '.':
			p.pos++
			if p.pos == len(p.s) {
				return nil, p.errAt(p.pos, "unexpected end", `expected a field name after "."`)
			}
			if !isIdentStart(p.s[p.pos]) {
				want := `expected a field name after "."`
				if c := p.s[p.pos]; c == '[' || isDigit(c) {
					want += `; an index or key follows without a dot, as in a[0] or a["key"]`
				}
				return nil, p.unexpected(p.pos, want)
			}
			segs = append(segs, Segment{Kind: Field, Name: p.ident()})
		case c == '[':
			seg, err := p.bracket()
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
		default:
			return nil, p.unexpected(p.pos, afterSegment)
		}
	}
	return segs, nil
}

// ident reads [A-Za-z_][A-Za-z0-9_-]* at pos; the first byte is known to
// start an identifier.
func (p *pathParser) ident() string {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && isIdentPart(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// bracket reads [int] or [quoted] with pos on the '['.
func (p *pathParser) bracket() (Segment, error) {
	open := p.pos
	p.pos++
	const want = `expected an index such as [0] or a quoted key such as ["name"]`
	if p.pos == len(p.s) {
		return Segment{}, p.errAt(p.pos, "unexpected end", want)
	}
	var seg Segment
	switch c := p.s[p.pos]; {
	case isDigit(c):
		start := p.pos
		for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
			p.pos++
		}
		n, err := strconv.Atoi(p.s[start:p.pos])
		if err != nil {
			return Segment{}, p.errAt(start, "index "+p.s[start:p.pos]+" is too large", "")
		}
		seg = Segment{Kind: Index, Index: n}
	case c == '-':
		start := p.pos
		p.pos++
		for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
			p.pos++
		}
		return Segment{}, p.errAt(start, "negative index "+strconv.Quote(p.s[start:p.pos]),
			"indexes count from 0 at the start of the list")
	case c == '"' || c == '\'':
		name, err := p.quoted()
		if err != nil {
			return Segment{}, err
		}
		seg = Segment{Kind: Key, Name: name}
	case isIdentStart(c):
		start := p.pos
		name := p.ident()
		return Segment{}, p.errAt(start, "unquoted key "+strconv.Quote(name),
			fmt.Sprintf("a key in brackets is quoted, as in [%q]", name))
	default:
		return Segment{}, p.unexpected(p.pos, want)
	}
	if p.pos == len(p.s) {
		return Segment{}, p.errAt(p.pos, "unexpected end",
			fmt.Sprintf(`expected "]" to close the "[" at column %d`, p.column(open)))
	}
	if p.s[p.pos] != ']' {
		return Segment{}, p.unexpected(p.pos,
			fmt.Sprintf(`expected "]" to close the "[" at column %d`, p.column(open)))
	}
	p.pos++
	return seg, nil
}

// quoted reads a single- or double-quoted key with pos on the opening quote
// and decodes its escapes the way strconv.Unquote does. Inside single quotes
// \" is also accepted, and inside double quotes \'.
func (p *pathParser) quoted() (string, error) {
	open := p.pos
	q := p.s[open]
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.errAt(len(p.s), "unexpected end",
				fmt.Sprintf("the key quoted at column %d is never closed; end it with %c", p.column(open), q))
		}
		c := p.s[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(p.s) && (p.s[p.pos+1] == '"' || p.s[p.pos+1] == '\''):
			b.WriteByte(p.s[p.pos+1])
			p.pos += 2
		case c >= utf8.RuneSelf:
			// Copy the bytes as they are, so that invalid UTF-8 survives a
			// round trip through String.
			_, size := utf8.DecodeRuneInString(p.s[p.pos:])
			b.WriteString(p.s[p.pos : p.pos+size])
			p.pos += size
		default:
			r, multibyte, tail, err := strconv.UnquoteChar(p.s[p.pos:], q)
			if err != nil {
				if p.pos+1 == len(p.s) { // a lone backslash at the very end
					return "", p.errAt(len(p.s), "unexpected end",
						fmt.Sprintf("the key quoted at column %d is never closed; end it with %c", p.column(open), q))
				}
				esc := p.s[p.pos:min(p.pos+2, len(p.s))]
				return "", p.errAt(p.pos, "invalid escape "+strconv.Quote(esc),
					`inside quotes write \" for a quote, \\ for a backslash, or a Go escape such as \n or \u00e9`)
			}
			if r < utf8.RuneSelf || !multibyte {
				b.WriteByte(byte(r))
			} else {
				b.WriteRune(r)
			}
			p.pos = len(p.s) - len(tail)
		}
	}
}

// unexpected reports the character at byte offset pos.
func (p *pathParser) unexpected(pos int, expected string) *SyntaxError {
	r, size := utf8.DecodeRuneInString(p.s[pos:])
	found := strconv.Quote(p.s[pos : pos+size])
	msg := "unexpected " + found
	if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
		msg = "unexpected whitespace " + found
		expected = "whitespace is allowed only inside quoted keys"
	}
	return p.errAt(pos, msg, expected)
}

// errAt builds a SyntaxError at byte offset pos.
func (p *pathParser) errAt(pos int, msg, expected string) *SyntaxError {
	return &SyntaxError{Input: p.s, Offset: utf8.RuneCountInString(p.s[:pos]), Msg: msg, Expected: expected}
}

// column is the 1-based rune column of byte offset pos.
func (p *pathParser) column(pos int) int {
	return utf8.RuneCountInString(p.s[:pos]) + 1
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || isDigit(c) || c == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
