package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// member is one member of a JSON object: its key and where its value sits
// in the document (start and end offsets).
type member struct {
	key        string
	start, end int
}

// object is a JSON object of a document: where its braces sit and its
// members in the order the file has them.
type object struct {
	open, close int // offsets of '{' and '}'
	members     []member
}

// get returns the member named key.
func (o object) get(key string) (member, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// editError is a refusal of readObject: what was wrong and the offset in
// the document where it was found.
type editError struct {
	offset int
	err    error
}

func (e *editError) Error() string { return e.err.Error() }
func (e *editError) Unwrap() error { return e.err }

// readObject reads the JSON object that is the whole of data[start:end]
// (white space around it allowed). It refuses what an edit could not keep
// meaning the same: anything but an object, and a key given twice (JSON
// readers disagree on which one wins). Its errors are *editError, placed
// in data.
func readObject(data []byte, start, end int) (object, error) {
	o, err := scanObject(data, start, end)
	if err == nil {
		return o, nil
	}
	var ee *editError
	if !errors.As(err, &ee) {
		ee = &editError{offset: end, err: err}
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// A Decoder's offsets differ by path; Unmarshal's count the
		// bytes read up to and including the one refused.
		at := start + int(se.Offset)
		var whole *json.SyntaxError
		if errors.As(json.Unmarshal(data[start:end], new(any)), &whole) {
			at = start + int(whole.Offset) - 1
		}
		ee = &editError{offset: at, err: fmt.Errorf("not a JSON object: %w", err)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		ee = &editError{offset: end, err: fmt.Errorf("not a JSON object: %w", err)}
	}
	return object{}, ee
}

// tokenAt is the offset of the next token of data at or after i: past
// white space and the separators ',' and ':'.
func tokenAt(data []byte, i int) int {
	for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
		i++
	}
	return i
}

// scanObject is readObject without the wording of syntax errors.
func scanObject(data []byte, start, end int) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data[start:end]))
	tok, err := dec.Token()
	if err != nil {
		return object{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return object{}, &editError{tokenAt(data, start), fmt.Errorf("expected a JSON object {...}, found %s", describeToken(tok))}
	}
	o := object{open: start + int(dec.InputOffset()) - 1}
	seen := map[string]bool{}
	for dec.More() {
		at := tokenAt(data, start+int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return object{}, &editError{at, fmt.Errorf("the key %q is given twice (JSON readers disagree on which one counts)", key)}
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return object{}, err
		}
		valueEnd := start + int(dec.InputOffset())
		o.members = append(o.members, member{key, valueEnd - len(raw), valueEnd})
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	o.close = start + int(dec.InputOffset()) - 1
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return object{}, &editError{tokenAt(data, o.close+1), fmt.Errorf("expected the end of the document after the object")}
	}
	return o, nil
}

// describeToken names a JSON token for a message.
func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		return fmt.Sprintf("%q", v.String())
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// layout is how a file lays out its objects: one indent unit a level, or
// everything on one line.
type layout struct {
	multiline bool
	unit      string
}

// layoutOf reads the layout of the document whose root object is root:
// the white space before its first key, "  " a level for an empty one.
func layoutOf(data []byte, root object) layout {
	if len(root.members) == 0 {
		return layout{true, "  "}
	}
	gap := string(data[root.open+1 : root.members[0].start])
	gap = gap[:strings.IndexByte(gap, '"')] // the white space before the first key
	nl := strings.LastIndexByte(gap, '\n')
	if nl < 0 {
		return layout{false, ""}
	}
	return layout{true, gap[nl+1:]}
}

// render is value as the file lays it out at depth levels.
func (l layout) render(value any, depth int) []byte {
	if !l.multiline {
		b, _ := json.Marshal(value)
		return spaceCompact(b)
	}
	b, _ := json.MarshalIndent(value, strings.Repeat(l.unit, depth), l.unit)
	return b
}

// spaceCompact puts a space after each ':' and ',' outside strings, as a
// one-line file written by hand has them.
func spaceCompact(b []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for _, c := range b {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// setMember returns data with the member key of obj (an object depth
// levels deep) set to value: its value replaced where it is, or a new
// last member. Every other byte of the file stays as it was.
func setMember(data []byte, obj object, depth int, l layout, key string, value []byte) []byte {
	if m, ok := obj.get(key); ok {
		return splice(data, m.start, m.end, value)
	}
	k, _ := json.Marshal(key)
	line := append(append(k, ": "...), value...)
	if len(obj.members) == 0 {
		inner := append([]byte("{"), line...)
		if l.multiline {
			inner = append([]byte("{\n"+strings.Repeat(l.unit, depth+1)), line...)
			inner = append(inner, "\n"+strings.Repeat(l.unit, depth)...)
		}
		return splice(data, obj.open, obj.close+1, append(inner, '}'))
	}
	last := obj.members[len(obj.members)-1].end
	sep := ", "
	if l.multiline {
		sep = ",\n" + strings.Repeat(l.unit, depth+1)
	}
	return splice(data, last, last, append([]byte(sep), line...))
}

// splice is data with data[start:end] replaced by with.
func splice(data []byte, start, end int, with []byte) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(with))
	out = append(out, data[:start]...)
	out = append(out, with...)
	return append(out, data[end:]...)
}
