package yamlpos

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// MaxJSONDepth bounds the nesting ParseJSON reads, as encoding/json bounds what it
// unmarshals, so a document of 16 MiB of "[" cannot exhaust the stack.
const MaxJSONDepth = jsonpos.MaxDepth

// ParseJSON reads data, a document json.Valid has accepted, into the node
// tree Parse would give for it, so the same checks walk it: objects are
// mappings, arrays sequences, strings double-quoted !!str scalars (as
// encoding/json decodes them), numbers !!int or !!float with their
// literal, every node (keys too) with the line and column where it
// starts. A number beyond the float64 range is an *Error at it; a nesting
// deeper than MaxJSONDepth an error.
func ParseJSON(data []byte) (*yaml.Node, error) {
	r := &jsonReader{data: data, lines: jsonpos.Lines{Data: data}}
	n, _, err := r.value(jsonpos.Space(data, 0), 0)
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, nil
}

type jsonReader struct {
	data  []byte
	lines jsonpos.Lines
}

// value reads the value starting at i, depth levels deep, and returns it
// with the offset just after it.
func (r *jsonReader) value(i, depth int) (*yaml.Node, int, error) {
	if depth > MaxJSONDepth {
		return nil, i, fmt.Errorf("the document nests deeper than %d levels", MaxJSONDepth)
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
		end := jsonpos.StringEnd(r.data, i)
		n.Tag, n.Value, n.Style = "!!str", jsonpos.String(r.data[i:end]), yaml.DoubleQuotedStyle
		return n, end, nil
	case 't', 'f':
		end := jsonpos.ScalarEnd(r.data, i)
		n.Tag, n.Value = "!!bool", string(r.data[i:end])
		return n, end, nil
	case 'n':
		n.Tag, n.Value = "!!null", "null"
		return n, jsonpos.ScalarEnd(r.data, i), nil
	}
	end := jsonpos.ScalarEnd(r.data, i)
	lit := string(r.data[i:end])
	if !jsonpos.FitsFloat64(r.data[i:end]) {
		return nil, end, &jsonpos.Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("the number %.40s is out of the range a JSON reader holds (a float64)", lit)}
	}
	n.Tag, n.Value = "!!int", lit
	if bytes.ContainsAny(r.data[i:end], ".eE") {
		n.Tag = "!!float"
	}
	return n, end, nil
}

// container reads the members of the object or array starting at i into
// n, and returns the offset after its closing bracket.
func (r *jsonReader) container(n *yaml.Node, i, depth int) (*yaml.Node, int, error) {
	n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	closing := byte(']')
	if r.data[i] == '{' {
		n.Kind, n.Tag, closing = yaml.MappingNode, "!!map", '}'
	}
	i = jsonpos.Space(r.data, i+1)
	for i < len(r.data) && r.data[i] != closing {
		c, end, err := r.value(i, depth+1)
		if err != nil {
			return nil, end, err
		}
		n.Content = append(n.Content, c)
		i = jsonpos.Space(r.data, end)
		if i < len(r.data) && (r.data[i] == ',' || r.data[i] == ':') {
			i = jsonpos.Space(r.data, i+1)
		}
	}
	return n, i + 1, nil
}
