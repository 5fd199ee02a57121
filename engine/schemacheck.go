package engine

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/expr"
)

// Compiling the suite schema for its validator cost a run about 8 ms of
// CPU and 4 MB before its first case could start (a third of the README's
// quickstart), for every suite beyond the shape fastTest knows: one with
// agents:, scenarios:, a model or a schema matcher. Most suites a run
// reads are valid, and saying so needs only the keywords the schema
// uses. schemaCheck reads those keywords from the schema document itself
// (so it follows the schema as it changes) and checks a document against
// them; like fastTest it only ever says "valid", for documents the
// validator finds valid too (TestSchemaCheckAgrees, FuzzValidSuite), and
// anything it does not know sends the document to the validator, which
// then words every error.

// checkNode is one schema of the suite schema, compiled from its
// keywords. A nil *checkNode accepts everything.
type checkNode struct {
	never bool // the schema false
	// types is the set of JSON types the schema allows (typeNull...),
	// 0 for any.
	types uint8
	// props are the properties' schemas; closed is additionalProperties
	// false, addl its schema otherwise.
	props    map[string]*checkNode
	closed   bool
	addl     *checkNode
	required []string
	names    *checkNode // propertyNames
	minProps int
	maxProps int // -1: no bound
	items    *checkNode
	minItems int
	unique   bool
	minLen   int
	// minimum, maximum and exclusiveMaximum, NaN when the schema has none.
	min, max, exclMax float64
	enum              []any
	hasConst          bool
	constant          any
	anyOf             []*checkNode
	ifS, thenS, elseS *checkNode
	ref               *checkNode
}

const (
	typeNull uint8 = 1 << iota
	typeBool
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBool, "number": typeNumber, "integer": typeInteger,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// annotations are the keywords that say nothing of validity. The root's
// $schema and $id are taken off before it is compiled (suiteCheck): one
// below the root would move what references resolve against, and is not
// known.
var annotations = map[string]bool{
	"$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "x-mcptest-status": true, "$defs": true,
}

// suiteCheck is the suite schema compiled for schemaCheck, nil when it
// uses a keyword schemaCheck does not know (every document then goes to
// the validator).
var suiteCheck = sync.OnceValue(func() *checkNode {
	var doc map[string]any
	if err := json.Unmarshal(schema.SuiteJSON, &doc); err != nil || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		return nil
	}
	delete(doc, "$schema")
	delete(doc, "$id")
	c := checkCompiler{root: doc, defs: map[string]*checkNode{}}
	n, ok := c.compile(doc)
	if !ok {
		return nil
	}
	return n
})

// checkCompiler compiles a schema document's schemas, each $defs entry
// once (the references among them may be cycles).
type checkCompiler struct {
	root map[string]any
	defs map[string]*checkNode
}

// compile compiles the schema s, reporting false for a keyword or a
// reference it does not know.
func (c *checkCompiler) compile(s any) (*checkNode, bool) {
	n := &checkNode{maxProps: -1, min: math.NaN(), max: math.NaN(), exclMax: math.NaN()}
	switch s := s.(type) {
	case bool:
		n.never = !s
		return n, true
	case map[string]any:
		for k, v := range s {
			if annotations[k] {
				continue
			}
			if !c.keyword(n, k, v) {
				return nil, false
			}
		}
		return n, true
	}
	return nil, false
}

// keyword compiles the keyword k of value v into n.
func (c *checkCompiler) keyword(n *checkNode, k string, v any) bool {
	var ok bool
	switch k {
	case "type":
		return c.types(n, v)
	case "properties":
		props, isMap := v.(map[string]any)
		n.props = make(map[string]*checkNode, len(props))
		for name, p := range props {
			if n.props[name], ok = c.compile(p); !ok {
				return false
			}
		}
		return isMap
	case "additionalProperties":
		if b, isBool := v.(bool); isBool && !b {
			n.closed = true
			return true
		}
		n.addl, ok = c.compile(v)
	case "propertyNames":
		n.names, ok = c.compile(v)
	case "items":
		n.items, ok = c.compile(v)
	case "anyOf":
		return c.list(&n.anyOf, v)
	case "if":
		n.ifS, ok = c.compile(v)
	case "then":
		n.thenS, ok = c.compile(v)
	case "else":
		n.elseS, ok = c.compile(v)
	case "$ref":
		n.ref, ok = c.def(v)
	default:
		return valueKeyword(n, k, v)
	}
	return ok
}

// valueKeyword compiles a keyword whose value holds no schema: a bound, a
// list of names, the values allowed.
func valueKeyword(n *checkNode, k string, v any) bool {
	var ok bool
	switch k {
	case "required":
		n.required, ok = stringList(v)
	case "minProperties":
		n.minProps, ok = count(v)
	case "maxProperties":
		n.maxProps, ok = count(v)
	case "minItems":
		n.minItems, ok = count(v)
	case "uniqueItems":
		n.unique, ok = v.(bool)
	case "minLength":
		n.minLen, ok = count(v)
	case "minimum":
		n.min, ok = v.(float64)
	case "maximum":
		n.max, ok = v.(float64)
	case "exclusiveMaximum":
		n.exclMax, ok = v.(float64)
	case "enum":
		n.enum, ok = v.([]any)
	case "const":
		n.hasConst, n.constant, ok = true, v, true
	}
	return ok
}

// types compiles a type keyword: one name or a list of them.
func (c *checkCompiler) types(n *checkNode, v any) bool {
	names, ok := stringList(v)
	if s, one := v.(string); one {
		names, ok = []string{s}, true
	}
	for _, name := range names {
		bit, known := typeBits[name]
		if !known {
			return false
		}
		n.types |= bit
	}
	return ok && len(names) > 0
}

// list compiles a list of schemas into *out.
func (c *checkCompiler) list(out *[]*checkNode, v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, s := range l {
		n, ok := c.compile(s)
		if !ok {
			return false
		}
		*out = append(*out, n)
	}
	return true
}

// def returns the schema a reference "#/$defs/NAME" names, compiled once.
func (c *checkCompiler) def(v any) (*checkNode, bool) {
	ref, _ := v.(string)
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || strings.ContainsAny(name, "/~%") {
		return nil, false
	}
	if n, seen := c.defs[name]; seen {
		return n, true
	}
	defs, _ := c.root["$defs"].(map[string]any)
	s, found := defs[name]
	if !found {
		return nil, false
	}
	// A placeholder first, filled in place, so a reference back to this
	// definition from inside it finds it.
	n := &checkNode{}
	c.defs[name] = n
	compiled, ok := c.compile(s)
	if !ok {
		return nil, false
	}
	*n = *compiled
	return n, true
}

// stringList reads a list of strings.
func stringList(v any) ([]string, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(l))
	for i, s := range l {
		if out[i], ok = s.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// count reads a non-negative whole number.
func count(v any) (int, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// check reports whether the document v is valid against n, the suite
// schema; false for a nil n (a schema schemaCheck could not compile).
func (n *checkNode) check(v any) bool { return n != nil && n.valid(v) }

// validItem reports whether a suite of the one item v in its section key
// is valid against n, the suite schema; false for a nil n.
func (n *checkNode) validItem(key string, v any) bool {
	return n.check(map[string]any{key: []any{v}})
}

// valid reports whether v is valid against n. v holds the values a
// suite's document is read into (nil, bool, float64, string, []any and
// map[string]any); any other value is not known valid. A nil n is a
// keyword's absent schema and accepts everything; at the root, nil is a
// schema that could not be compiled, and check refuses everything.
func (n *checkNode) valid(v any) bool {
	if n == nil {
		return true
	}
	if n.never {
		return false
	}
	t, ok := jsonTypeOf(v)
	if !ok {
		return false
	}
	if n.types != 0 && n.types&t == 0 {
		return false
	}
	if n.hasConst && !expr.Equal(v, n.constant) {
		return false
	}
	if n.enum != nil && !oneOf(v, n.enum) {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		if !n.validObject(v) {
			return false
		}
	case []any:
		if !n.validArray(v) {
			return false
		}
	case string:
		if utf8.RuneCountInString(v) < n.minLen {
			return false
		}
	case float64:
		if v < n.min || v > n.max || v >= n.exclMax {
			return false
		}
	}
	return n.validApplied(v)
}

// validApplied checks the keywords that apply other schemas to v itself.
func (n *checkNode) validApplied(v any) bool {
	if n.ref != nil && !n.ref.valid(v) {
		return false
	}
	if len(n.anyOf) > 0 {
		any1 := false
		for _, s := range n.anyOf {
			if s.valid(v) {
				any1 = true
				break
			}
		}
		if !any1 {
			return false
		}
	}
	if n.ifS != nil {
		if n.ifS.valid(v) {
			return n.thenS.valid(v)
		}
		return n.elseS.valid(v)
	}
	return true
}

func (n *checkNode) validObject(m map[string]any) bool {
	if len(m) < n.minProps || n.maxProps >= 0 && len(m) > n.maxProps {
		return false
	}
	for _, r := range n.required {
		if _, has := m[r]; !has {
			return false
		}
	}
	for k, v := range m {
		if n.names != nil && !n.names.valid(k) {
			return false
		}
		p, declared := n.props[k]
		switch {
		case declared:
			if !p.valid(v) {
				return false
			}
		case n.closed:
			return false
		case n.addl != nil:
			if !n.addl.valid(v) {
				return false
			}
		}
	}
	return true
}

func (n *checkNode) validArray(l []any) bool {
	if len(l) < n.minItems {
		return false
	}
	for i, v := range l {
		if !n.items.valid(v) {
			return false
		}
		if n.unique && oneOf(v, l[:i]) {
			return false
		}
	}
	return true
}

// jsonTypeOf is v's JSON type as a type bit: a whole number is both a
// number and an integer.
func jsonTypeOf(v any) (uint8, bool) {
	switch v := v.(type) {
	case nil:
		return typeNull, true
	case bool:
		return typeBool, true
	case float64:
		if v == math.Trunc(v) {
			return typeNumber | typeInteger, true
		}
		return typeNumber, true
	case string:
		return typeString, true
	case []any:
		return typeArray, true
	case map[string]any:
		return typeObject, true
	}
	return 0, false
}

// oneOf reports whether v equals an item of l as JSON values.
func oneOf(v any, l []any) bool {
	for _, item := range l {
		if expr.Equal(v, item) {
			return true
		}
	}
	return false
}
