package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxJSONDepth bounds the nesting of a JSON catalog, as encoding/json
// bounds what it unmarshals, so a file of 16 MiB of "[" cannot exhaust the
// stack.
const maxJSONDepth = 10000

// isJSON reports whether a catalog file is a JSON document, which is read
// with a JSON decoder: YAML would read a JSON file almost the same, but
// not quite (a surrogate-pair escape such as \ud83d\ude80 is refused, and
// a raw U+2028 inside a string is a line break that eats the spaces beside
// it).
func isJSON(data []byte) bool {
	return json.Valid(data)
}

// jsonTree decodes a JSON document into the node tree the YAML reader
// would give, so the same checks walk it, with every node's 1-based line
// and column (in characters) taken from where the JSON decoder found it.
// Strings are decoded by encoding/json.
func jsonTree(data []byte) (*yaml.Node, error) {
	t := &jsonTreeReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	t.dec.UseNumber()
	n, err := t.value(0)
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, nil
}

// jsonTreeReader reads the tokens of one JSON document with their offsets.
type jsonTreeReader struct {
	data []byte
	dec  *json.Decoder
	// at is how far positions have been counted: at sits on line line
	// (0-based) at column col (0-based, in characters). Offsets are asked
	// for in increasing order, so each byte is counted once and a
	// document on one line reads in linear time.
	at, line, col int
}

// next returns the offset where the next token starts: the decoder's
// offset past white space and the ',' or ':' before the token.
func (t *jsonTreeReader) next() int {
	i := int(t.dec.InputOffset())
	for i < len(t.data) && strings.IndexByte(" \t\r\n,:", t.data[i]) >= 0 {
		i++
	}
	return i
}

// pos returns the 1-based line and column of offset off, counting only the
// bytes since the offset asked before. A token starts on an ASCII byte, so
// the bytes between two of them hold whole UTF-8 sequences.
func (t *jsonTreeReader) pos(off int) (line, col int) {
	for t.at < off {
		seg := t.data[t.at:off]
		nl := bytes.IndexByte(seg, '\n')
		if nl < 0 {
			t.col += utf8.RuneCount(seg)
			t.at = off
			break
		}
		t.at += nl + 1
		t.line, t.col = t.line+1, 0
	}
	return t.line + 1, t.col + 1
}

// value reads the value whose token comes next, depth levels deep.
func (t *jsonTreeReader) value(depth int) (*yaml.Node, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("the document nests deeper than %d levels", maxJSONDepth)
	}
	off := t.next()
	tok, err := t.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := &yaml.Node{}
	n.Line, n.Column = t.pos(off)
	switch v := tok.(type) {
	case json.Delim:
		return t.container(n, v, depth)
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
	case json.Number:
		if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
			return nil, &jsonPosError{line: n.Line, col: n.Column, msg: fmt.Sprintf("the number %.40s is out of the range a JSON reader holds (a float64)", v)}
		}
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", v.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(v)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// container reads the members of the object or array opened by delim into
// n, through its closing delimiter.
func (t *jsonTreeReader) container(n *yaml.Node, delim json.Delim, depth int) (*yaml.Node, error) {
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	if delim == '{' {
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
	}
	for t.dec.More() {
		c, err := t.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, c)
	}
	if _, err := t.dec.Token(); err != nil { // the closing delimiter
		return nil, err
	}
	return n, nil
}

// jsonPosError is a problem of a JSON catalog found at a 1-based line and
// column.
type jsonPosError struct {
	line, col int
	msg       string
}

func (e *jsonPosError) Error() string { return e.msg }
