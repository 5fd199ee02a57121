package expr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The work a JSON Schema from outside (a tool's inputSchema in a recording
// or catalog, a matcher's schema: in a suite) may ask of mcptest, and the
// size of a value it is asked to check. A schema over a compile limit does
// not compile; a value over a check limit, or a check that spends its
// steps, is not checked, with the reason (a *LimitError). Every schema
// mcptest compiles from outside goes through CompileBounded.
const (
	// MaxSchemaBytes is the largest schema compiled, as compact JSON.
	MaxSchemaBytes = 1 << 20
	// MaxSchemaDepth is the deepest nesting of objects and arrays in a
	// schema.
	MaxSchemaDepth = 64
	// MaxPatternInsts is the largest compiled program of one regular
	// expression of a schema (pattern, patternProperties), in instructions.
	MaxPatternInsts = 1000
	// MaxPatternInput is the longest string or member name of a value
	// checked against a schema that holds a regular expression, in bytes.
	MaxPatternInput = 16 << 10
	// MaxInstanceValues is the most JSON values (objects, arrays, members
	// and scalars) of a value checked.
	MaxInstanceValues = 1 << 16
	// MaxInstanceDepth is the deepest nesting of objects and arrays of a
	// value checked. The validator writes the location of each value and
	// subschema it applies as it descends, so a step deep in a value costs
	// its depth: a value 2,000 levels deep under a recursive schema ($ref)
	// took 23 s of CPU for a 12 KB recording.
	MaxInstanceDepth = 128
	// SchemaStepsBase and SchemaStepsPerValue make the steps one check may
	// take: base + per value of the value checked. A step is one subschema
	// applied to one value, eight members or items of a value a subschema
	// is applied to, eight values of an enum or const compared, or 64
	// instruction-bytes of a regular expression run.
	SchemaStepsBase     = 1 << 14
	SchemaStepsPerValue = 8
)

// LimitError is a check mcptest did not make, and why: a value over a
// limit, or a schema that took more steps than the value allows.
type LimitError struct{ Reason string }

func (e *LimitError) Error() string { return e.Reason }

// Schema is a compiled JSON Schema whose checks are bounded: enum and
// const are looked up in a set (numbers compared as exact decimals, as
// the validator does), and every subschema applied counts against the
// check's steps. Checks of one Schema run one at a time.
type Schema struct {
	s *jsonschema.Schema
	// patterns is set when the schema holds a regular expression (or a
	// draft-07 format: regex), so long strings are not checked.
	patterns bool

	mu    sync.Mutex
	steps int64
}

// budgetSpent is the panic a check that spent its steps unwinds with.
type budgetSpent struct{}

// CompileBounded compiles schema (decoded JSON: an object or a boolean)
// under the name url, draft 2020-12 unless its $schema says otherwise, with
// load answering references to other documents (nil refuses them). It
// refuses a schema over MaxSchemaBytes or MaxSchemaDepth and a regular
// expression over MaxPatternInsts.
func CompileBounded(schema any, url string, load func(string) (io.ReadCloser, error)) (*Schema, error) {
	if d := depthOver(schema, MaxSchemaDepth); d {
		return nil, &LimitError{Reason: fmt.Sprintf("the schema nests objects and arrays deeper than %d levels, the most mcptest compiles", MaxSchemaDepth)}
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSchemaBytes {
		return nil, &LimitError{Reason: fmt.Sprintf("the schema is %d bytes of JSON, over the %d mcptest compiles", len(data), MaxSchemaBytes)}
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if load == nil {
		load = func(u string) (io.ReadCloser, error) {
			return nil, fmt.Errorf("it refers to %s, which is not loaded", u)
		}
	}
	c.LoadURL = load
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	b := &Schema{s: s}
	if err := b.bound(s); err != nil {
		return nil, err
	}
	return b, nil
}

// depthOver reports whether v nests objects and arrays deeper than limit.
func depthOver(v any, limit int) bool {
	if limit < 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			if depthOver(c, limit-1) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if depthOver(c, limit-1) {
				return true
			}
		}
	}
	return false
}

// bound walks every subschema reachable from root: each gets the step
// counter, enum and const move into a set it looks up, and each regular
// expression is held to MaxPatternInsts.
func (b *Schema) bound(root *jsonschema.Schema) error {
	seen := map[*jsonschema.Schema]bool{}
	stack := []*jsonschema.Schema{root}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		ext := &boundExt{b: b}
		if s.Pattern != nil {
			n, err := patternInsts(s.Pattern)
			if err != nil {
				return err
			}
			ext.patternInsts, b.patterns = n, true
		}
		for re := range s.PatternProperties {
			n, err := patternInsts(re)
			if err != nil {
				return err
			}
			ext.memberInsts += n
			b.patterns = true
		}
		if s.Format == "regex" {
			b.patterns = true
		}
		if len(s.Enum) > 0 {
			ext.set, ext.keyword, ext.message = valueSet(s.Enum), "enum", enumMessage(s.Enum)
			s.Enum = nil
		} else if len(s.Constant) > 0 {
			ext.set, ext.keyword, ext.message = valueSet(s.Constant[:1]), "const", constMessage(s.Constant[0])
			s.Constant = nil
		}
		if s.Extensions == nil {
			s.Extensions = map[string]jsonschema.ExtSchema{}
		}
		s.Extensions["mcptest-bound"] = ext
		stack = append(stack, children(s)...)
	}
	return nil
}

// children is every subschema a schema applies.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
		s.UnevaluatedProperties, s.Items2020, s.Contains, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch x := v.(type) {
		case *jsonschema.Schema:
			out = append(out, x)
		case []*jsonschema.Schema:
			out = append(out, x...)
		}
	}
	return out
}

// patternInsts is the size of re's compiled program, or a LimitError.
func patternInsts(re *regexp.Regexp) (int, error) {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return 0, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return 0, err
	}
	if n := len(prog.Inst); n > MaxPatternInsts {
		return 0, &LimitError{Reason: fmt.Sprintf("the pattern %s compiles to %d instructions, over the %d mcptest runs", clipText(strconv.Quote(re.String()), 60), n, MaxPatternInsts)}
	}
	return len(prog.Inst), nil
}

// boundExt is what every subschema carries: the step counter, and the
// enum or const set it checks in place of the validator's linear scan.
type boundExt struct {
	b                         *Schema
	patternInsts, memberInsts int
	set                       map[string]bool
	keyword, message          string
}

func (e *boundExt) Validate(ctx jsonschema.ValidationContext, v any) error {
	cost := 1
	switch x := v.(type) {
	case map[string]any:
		cost += len(x) / 8
		if e.memberInsts > 0 {
			for k := range x {
				cost += len(k) * e.memberInsts / 64
			}
		}
	case []any:
		cost += len(x) / 8
	case string:
		cost += len(x) * e.patternInsts / 64
	}
	e.b.spend(int64(cost))
	if e.set == nil {
		return nil
	}
	if !e.set[e.b.key(v)] {
		return ctx.Error(e.keyword, "%s", e.message)
	}
	return nil
}

// spend takes n steps from the check in progress, unwinding it when none
// are left.
func (b *Schema) spend(n int64) {
	b.steps -= n
	if b.steps < 0 {
		panic(budgetSpent{})
	}
}

// key is v's canonical text, which equal JSON values share, its values
// charged to the check's steps.
func (b *Schema) key(v any) string {
	var sb strings.Builder
	n := 0
	writeKey(&sb, v, &n)
	b.spend(int64(n / 8))
	return sb.String()
}

// Validate checks v against the schema within its limits: nil, the
// validator's *jsonschema.ValidationError, or a *LimitError when the value
// is over a limit or the check spent its steps.
//
// A value holding a List is measured one element at a time and built
// (Materialize) only once it is within the limits, so a list of a million
// calls is refused for its size without a million calls' documents.
func (b *Schema) Validate(v any) (err error) {
	return b.validateSized(v, measure(v))
}

// validateSized is Validate of v, whose measure is sz.
func (b *Schema) validateSized(v any, sz sizes) (err error) {
	values, longest, depth := sz.values, sz.longest, sz.depth
	if values > MaxInstanceValues {
		return &LimitError{Reason: fmt.Sprintf("the value holds %d JSON values, over the %d mcptest checks against a schema", values, MaxInstanceValues)}
	}
	if depth > MaxInstanceDepth {
		return &LimitError{Reason: fmt.Sprintf("the value nests objects and arrays %d levels deep, over the %d mcptest checks against a schema", depth, MaxInstanceDepth)}
	}
	if b.patterns && longest > MaxPatternInput {
		return &LimitError{Reason: fmt.Sprintf("the value holds a string of %d bytes, over the %d mcptest checks against a schema with a pattern", longest, MaxPatternInput)}
	}
	if sz.lists {
		v = Materialize(v)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	steps := int64(SchemaStepsBase + SchemaStepsPerValue*values)
	b.steps = steps
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(budgetSpent); !ok {
				panic(r)
			}
			err = &LimitError{Reason: fmt.Sprintf("checking it took more than %d steps (%d + %d for each of its %d JSON values), the most mcptest spends on one value", steps, SchemaStepsBase, SchemaStepsPerValue, values)}
		}
	}()
	return b.s.Validate(v)
}

// Location is the compiled schema's location (its URL).
func (b *Schema) Location() string { return b.s.Location }

// sizes is what measure finds of a value: its JSON values (members and
// items included), the longest string or member name in it, how deep it
// nests objects and arrays (a scalar is 0 deep), and whether it holds a
// List.
type sizes struct {
	values, longest, depth int
	lists                  bool
}

// add counts e, an element at depth d of a list, measured as sz.
func (s *sizes) add(d int, sz sizes) {
	s.values, s.longest, s.depth = s.values+sz.values, max(s.longest, sz.longest), max(s.depth, d+sz.depth)
}

// measure is v's sizes, the elements of a List in it measured one at a
// time.
func measure(v any) sizes {
	var values, longest, depth int
	lists := false
	type at struct {
		v any
		d int
	}
	stack := []at{{v, 0}}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		values++
		switch y := x.v.(type) {
		case map[string]any:
			depth = max(depth, x.d+1)
			for k, c := range y {
				longest = max(longest, len(k))
				stack = append(stack, at{c, x.d + 1})
			}
		case []any:
			depth = max(depth, x.d+1)
			for _, c := range y {
				stack = append(stack, at{c, x.d + 1})
			}
		case List:
			s := sizes{values: values, longest: longest, depth: max(depth, x.d+1)}
			for i := range y.Len() {
				s.add(x.d+1, measure(y.At(i)))
			}
			values, longest, depth, lists = s.values, s.longest, s.depth, true
		case string:
			longest = max(longest, len(y))
		}
	}
	return sizes{values, longest, depth, lists}
}

// scanList is the first NaN or infinite number in l (firstNonFinite)
// and l's sizes (measure), building each element once.
func scanList(l List) (float64, bool, sizes) {
	sz := sizes{values: 1, depth: 1, lists: true}
	var f float64
	bad := false
	for i := range l.Len() {
		e := l.At(i)
		if !bad {
			f, bad = firstNonFinite(e)
		}
		sz.add(1, measure(e))
	}
	return f, bad, sz
}

// valueSet is the canonical keys of values.
func valueSet(values []any) map[string]bool {
	set := make(map[string]bool, len(values))
	for _, v := range values {
		var sb strings.Builder
		n := 0
		writeKey(&sb, v, &n)
		set[sb.String()] = true
	}
	return set
}

// writeKey writes v's canonical text: numbers as exact decimals (1, 1.0
// and 10e-1 alike), object members sorted; n counts the values written.
func writeKey(sb *strings.Builder, v any, n *int) {
	*n++
	switch x := v.(type) {
	case nil:
		sb.WriteString("n")
	case bool:
		if x {
			sb.WriteString("t")
		} else {
			sb.WriteString("f")
		}
	case string:
		sb.WriteString("s")
		sb.WriteString(strconv.Itoa(len(x)))
		sb.WriteByte(':')
		sb.WriteString(x)
	case json.Number:
		sb.WriteString(decimalKey(string(x)))
	case float64:
		sb.WriteString(decimalKey(strconv.FormatFloat(x, 'g', -1, 64)))
	case []any:
		sb.WriteString("[")
		for _, c := range x {
			writeKey(sb, c, n)
			sb.WriteByte(',')
		}
		sb.WriteString("]")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sb.WriteString("{")
		for _, k := range keys {
			writeKey(sb, k, n)
			writeKey(sb, x[k], n)
		}
		sb.WriteString("}")
	default:
		fmt.Fprintf(sb, "?%T:%v", v, v)
	}
}

// decimalKey is a JSON number's exact value as text: sign, significant
// digits without leading or trailing zeros, and the power of ten, so
// numbers the validator's big.Rat comparison holds equal share it.
func decimalKey(num string) string {
	sign := ""
	if strings.HasPrefix(num, "-") {
		sign, num = "-", num[1:]
	}
	mant, expText, _ := strings.Cut(strings.ToLower(num), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp := new(big.Int)
	if expText != "" {
		if _, ok := exp.SetString(strings.TrimPrefix(expText, "+"), 10); !ok {
			return "x" + num
		}
	}
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	return sign + trimmed + "e" + exp.String()
}

// enumMessage words a failed enum as the validator does, its values
// listed up to 20.
func enumMessage(values []any) string {
	for _, v := range values {
		switch v.(type) {
		case map[string]any, []any:
			return "enum failed"
		}
	}
	if len(values) == 1 {
		return fmt.Sprintf("value must be %#v", values[0])
	}
	shown := values[:min(len(values), 20)]
	list := make([]string, len(shown))
	for i, v := range shown {
		list[i] = clipText(fmt.Sprintf("%#v", v), 100)
	}
	msg := "value must be one of " + strings.Join(list, ", ")
	if len(values) > len(shown) {
		msg += fmt.Sprintf(", ... (%d values)", len(values))
	}
	return msg
}

// constMessage words a failed const as the validator does.
func constMessage(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return "const failed"
	}
	return clipText(fmt.Sprintf("value must be %#v", v), 200)
}

// clipText cuts s to at most n bytes, on a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n-3], "") + "..."
}

// IsLimit reports whether err is a limit mcptest put on a schema or check.
func IsLimit(err error) bool {
	var le *LimitError
	return errors.As(err, &le)
}
