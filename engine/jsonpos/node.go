package jsonpos

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// MaxDepth bounds the nesting Node reads, as encoding/json bounds what it
// unmarshals, so a document of 16 MiB of "[" cannot exhaust the stack.
const MaxDepth = 10000

// Lines gives the 1-based line and column (in characters) of offsets of
// Data asked in increasing order, counting each byte once, so a document
// on one line is placed in time linear in its bytes.
type Lines struct {
	Data []byte
	// at is how far positions have been counted: at sits on line line
	// (0-based) at column col (0-based, in characters).
	at, line, col int
}

// At returns the line and column of offset off, no lower than the offset
// asked before. A value starts on an ASCII byte, so the bytes between two
// of them hold whole UTF-8 sequences.
func (l *Lines) At(off int) (line, col int) {
	for l.at < off {
		seg := l.Data[l.at:off]
		nl := bytes.IndexByte(seg, '\n')
		if nl < 0 {
			l.col += utf8.RuneCount(seg)
			l.at = off
			break
		}
		l.at += nl + 1
		l.line, l.col = l.line+1, 0
	}
	return l.line + 1, l.col + 1
}

// Error is a problem of a document found at a 1-based line and column.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return e.Msg }

// Node reads data, a document json.Valid has accepted, into the node tree
// the YAML reader would give, so the same checks walk it: objects are
// mappings, arrays sequences, strings double-quoted !!str scalars (as
// encoding/json decodes them), numbers !!int or !!float with their
// literal, every node (keys too) with the line and column where it
// starts. A number beyond the float64 range is an *Error at it; a nesting
// deeper than MaxDepth an error.
func Node(data []byte) (*yaml.Node, error) {
	r := &treeReader{data: data, lines: Lines{Data: data}}
	n, _, err := r.value(Space(data, 0), 0)
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, nil
}

type treeReader struct {
	data  []byte
	lines Lines
}

// value reads the value starting at i, depth levels deep, and returns it
// with the offset just after it.
func (r *treeReader) value(i, depth int) (*yaml.Node, int, error) {
	if depth > MaxDepth {
		return nil, i, fmt.Errorf("the document nests deeper than %d levels", MaxDepth)
	}
	if i >= len(r.data) {
		return nil, i, fmt.Errorf("unexpected end of JSON input")
	}
	n := &yaml.Node{Kind: yaml.ScalarNode}
	n.Line, n.Column = r.lines.At(i)
	switch c := r.data[i]; c {
	case '{', '[':
		return r.container(n, i, depth)
	case '"':
		end := StringEnd(r.data, i)
		n.Tag, n.Value, n.Style = "!!str", String(r.data[i:end]), yaml.DoubleQuotedStyle
		return n, end, nil
	case 't', 'f':
		end := scalarEnd(r.data, i)
		n.Tag, n.Value = "!!bool", string(r.data[i:end])
		return n, end, nil
	case 'n':
		n.Tag, n.Value = "!!null", "null"
		return n, scalarEnd(r.data, i), nil
	}
	end := scalarEnd(r.data, i)
	lit := string(r.data[i:end])
	if _, err := strconv.ParseFloat(lit, 64); err != nil {
		return nil, end, &Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("the number %.40s is out of the range a JSON reader holds (a float64)", lit)}
	}
	n.Tag, n.Value = "!!int", lit
	if bytes.ContainsAny(r.data[i:end], ".eE") {
		n.Tag = "!!float"
	}
	return n, end, nil
}

// container reads the members of the object or array starting at i into
// n, and returns the offset after its closing bracket.
func (r *treeReader) container(n *yaml.Node, i, depth int) (*yaml.Node, int, error) {
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	closing := byte(']')
	if r.data[i] == '{' {
		n.Kind, n.Tag, closing = yaml.MappingNode, "!!map", '}'
	}
	i = Space(r.data, i+1)
	for i < len(r.data) && r.data[i] != closing {
		c, end, err := r.value(i, depth+1)
		if err != nil {
			return nil, end, err
		}
		n.Content = append(n.Content, c)
		i = Space(r.data, end)
		if i < len(r.data) && (r.data[i] == ',' || r.data[i] == ':') {
			i = Space(r.data, i+1)
		}
	}
	return n, i + 1, nil
}
