package expr

import (
	"cmp"
	"errors"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// schemaURL is the name a matcher's schema is compiled under. Nothing is
// ever fetched from it.
const schemaURL = "mem://matcher.json"

// compileSchema compiles the JSON Schema (draft 2020-12 unless it says
// otherwise) found at pointer ptr. References to other documents are
// refused, so compiling is offline and deterministic.
func compileSchema(v any, ptr string) (*Schema, *MatcherError) {
	switch v.(type) {
	case map[string]any, bool:
	default:
		return nil, &MatcherError{Pointer: ptr, Msg: "schema needs a JSON Schema object (or true or false), got " + describe(v)}
	}
	if f, bad := firstNonFinite(v); bad {
		return nil, &MatcherError{Pointer: ptr, Msg: "schema holds the number " + FormatNumber(f) + ", which JSON cannot hold"}
	}
	s, err := CompileBounded(v, schemaURL, func(u string) (io.ReadCloser, error) {
		return nil, &externalRefError{url: u}
	})
	var le *LimitError
	switch {
	case errors.As(err, &le):
		return nil, &MatcherError{Pointer: ptr, Msg: "invalid JSON Schema: " + le.Reason}
	case err != nil:
		return nil, schemaCompileError(err, ptr)
	}
	return s, nil
}

// schemaCompileError turns a compile failure into a MatcherError that points
// into the schema when the failure is a meta-schema violation.
func schemaCompileError(err error, ptr string) *MatcherError {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := deepestCause(ve)
		return &MatcherError{Pointer: ptr + unescapeLocation(leaf.InstanceLocation), Msg: "invalid JSON Schema: " + leafMessage(leaf)}
	}
	e := &MatcherError{Pointer: ptr, Msg: "invalid JSON Schema: " + trimLib(err.Error())}
	var ext *externalRefError
	if errors.As(err, &ext) {
		e.Hint = `put shared definitions under $defs and refer to them as "#/$defs/name"`
	}
	return e
}

// externalRefError is a schema that refers to another document, which a
// matcher never loads.
type externalRefError struct{ url string }

func (e *externalRefError) Error() string {
	return "it refers to " + e.url + ", which is not loaded: a matcher's schema must be self-contained"
}

// matchSchema validates actual and words the deepest failure in one line.
// A List is read once for its numbers and its size (scanList).
func (m *Matcher) matchSchema(actual any) (bool, string) {
	var f float64
	var bad bool
	var sz sizes
	if l, ok := actual.(List); ok {
		f, bad, sz = scanList(l)
	} else if f, bad = firstNonFinite(actual); !bad {
		sz = measure(actual)
	}
	if bad {
		return false, "the value holds the number " + FormatNumber(f) + ", which a JSON Schema cannot check"
	}
	err := m.schema.validateSized(actual, sz)
	if err == nil {
		return true, ""
	}
	var le *LimitError
	if errors.As(err, &le) {
		return false, "the value was not checked against the schema: " + le.Reason
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return false, "the schema could not be applied: " + trimLib(err.Error())
	}
	leaf := deepestCause(ve)
	msg := leafMessage(leaf)
	if loc := unescapeLocation(leaf.InstanceLocation); loc != "" {
		msg = "at " + loc + ": " + msg
	}
	return false, msg
}

// deepestCause returns the leaf of the error tree farthest from its root.
// Ties go to the leaf about the most nested part of the value, then to the
// first by instance location, keyword location and message: the validator
// visits properties in map order, so the order of causes is not stable.
func deepestCause(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	type leaf struct {
		depth int
		e     *jsonschema.ValidationError
	}
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError, depth int)
	walk = func(e *jsonschema.ValidationError, depth int) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, leaf{depth, e})
			return
		}
		for _, c := range e.Causes {
			walk(c, depth+1)
		}
	}
	walk(ve, 0)
	return slices.MinFunc(leaves, func(a, b leaf) int {
		return cmp.Or(
			cmp.Compare(b.depth, a.depth),
			cmp.Compare(strings.Count(b.e.InstanceLocation, "/"), strings.Count(a.e.InstanceLocation, "/")),
			cmp.Compare(a.e.InstanceLocation, b.e.InstanceLocation),
			cmp.Compare(a.e.KeywordLocation, b.e.KeywordLocation),
			cmp.Compare(a.e.Message, b.e.Message),
		)
	}).e
}

// leafMessage words one validator error. The numeric bounds read like the
// comparison matchers; additionalProperties lists its names in sorted order.
func leafMessage(e *jsonschema.ValidationError) string {
	keyword := e.KeywordLocation[strings.LastIndexByte(e.KeywordLocation, '/')+1:]
	var op string
	switch keyword {
	case "minimum":
		op = ">="
	case "exclusiveMinimum":
		op = ">"
	case "maximum":
		op = "<="
	case "exclusiveMaximum":
		op = "<"
	}
	if op != "" {
		// The validator says "must be >= 80 but found 50".
		f := strings.Fields(e.Message)
		if len(f) == 7 && f[0] == "must" && f[5] == "found" {
			bound, err1 := strconv.ParseFloat(f[3], 64)
			actual, err2 := strconv.ParseFloat(f[6], 64)
			if err1 == nil && err2 == nil {
				if ok, msg := compare(op, actual, bound); !ok {
					return msg
				}
			}
		}
	}
	if keyword == "additionalProperties" {
		if names, ok := strings.CutPrefix(e.Message, "additionalProperties "); ok {
			if names, ok := strings.CutSuffix(names, " not allowed"); ok {
				if list, ok := splitQuoted(names); ok {
					slices.Sort(list)
					return "additionalProperties " + strings.Join(list, ", ") + " not allowed"
				}
			}
		}
	}
	return e.Message
}

// splitQuoted splits the validator's list of single-quoted names,
// 'a', 'b\'c', into its items, quotes kept.
func splitQuoted(s string) ([]string, bool) {
	var items []string
	for s != "" {
		if s[0] != '\'' {
			return nil, false
		}
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '\'' {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, false
		}
		items = append(items, s[:end+1])
		s = s[end+1:]
		if s != "" {
			var ok bool
			if s, ok = strings.CutPrefix(s, ", "); !ok {
				return nil, false
			}
		}
	}
	return items, len(items) > 0
}

// unescapeLocation turns the validator's instance location, whose tokens
// are also URL path escaped, into a plain RFC 6901 pointer.
func unescapeLocation(loc string) string {
	if loc == "" {
		return ""
	}
	tokens := strings.Split(loc, "/")
	for i, t := range tokens {
		if u, err := url.PathUnescape(t); err == nil {
			tokens[i] = u
		}
	}
	return strings.Join(tokens, "/")
}

// trimLib drops the library's "jsonschema: " prefix from an error text and
// writes locations in the matcher's schema as plain fragments (#/$defs/a).
func trimLib(s string) string {
	return strings.ReplaceAll(strings.TrimPrefix(s, "jsonschema: "), schemaURL+"#", "#")
}
