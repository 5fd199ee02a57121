package expr

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
)

// matcherKeys returns every matcher key, in the order messages list them.
func matcherKeys() []string {
	return []string{"!=", "<", "<=", "==", ">", ">=", "contains", "exact", "not", "regex", "schema"}
}

// Matcher is a parsed check of one value, such as {">=": 80} or
// {regex: "^ok"}. Build it with ParseMatcher or ParseShorthand; it is
// immutable and safe for concurrent use.
type Matcher struct {
	op string // the matcher key, for example "exact" or ">="
	// raw is the matcher as written, for Value; nil for a comparison
	// with a float64 operand, which want holds (see written): a suite of
	// thousands of tests keeps no map per matcher.
	raw any
	// want is the operand of exact, ==, != and contains, and of a
	// comparison as it was given.
	want   any
	bound  float64
	re     *regexp.Regexp
	schema *Schema
	inner  *Matcher // the operand of not
}

// MatcherError is a matcher that does not parse. Error renders it as
//
//	at /not/regex: regex does not compile (Go RE2 syntax): missing closing ): `(`
type MatcherError struct {
	// Pointer is the RFC 6901 JSON Pointer of the offending value, relative
	// to the matcher value: "" for the matcher itself, "/not/regex" for the
	// pattern of a regex inside a not.
	Pointer string
	// Msg says what was wrong and what was expected.
	Msg string
	// Hint is a did-you-mean or a way to write it instead, or "".
	Hint string
}

// Error renders "at pointer: message (hint)", without the pointer when it
// is the matcher itself and without the hint when there is none.
func (e *MatcherError) Error() string {
	s := e.Msg
	if e.Pointer != "" {
		s = "at " + e.Pointer + ": " + s
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// ParseMatcher reads a matcher decoded from YAML or JSON: a mapping with
// exactly one of the keys exact, schema, contains, regex, not, >=, >, <=,
// <, == and !=. The error is a *MatcherError.
func ParseMatcher(v any) (*Matcher, error) {
	m, err := parseMatcher(v, "", false)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ParseShorthand reads the value of a target written as a check of its own,
// as in `tool_selection.f1: {">=": 80}`. A mapping is a matcher, as for
// ParseMatcher; any other value (a scalar, a list or null) means exact.
// Value returns v as written either way. The error is a *MatcherError.
func ParseShorthand(v any) (*Matcher, error) {
	if _, ok := v.(map[string]any); !ok {
		v = copyValue(v)
		return &Matcher{op: "exact", raw: v, want: v}, nil
	}
	m, err := parseMatcher(v, "", true)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// JudgeFloor decides a suite floor (report.Judge): whether the figure
// actual (ok false: there is none) meets matcher, written as a check of its
// own (ParseShorthand), and why not. The error says the matcher does not
// parse.
func JudgeFloor(matcher, actual any, ok bool) (bool, string, error) {
	m, err := ParseShorthand(matcher)
	if err != nil {
		return false, "", err
	}
	passed, why := m.Match(actual, ok)
	return passed, why, nil
}

// Value returns the matcher as written, as a generic value such as
// map[string]any{">=": 80.0}, for reports. The result is a copy.
func (m *Matcher) Value() any {
	if m.raw == nil {
		return m.written()
	}
	return copyValue(m.raw)
}

// String renders the matcher as written, in compact JSON.
func (m *Matcher) String() string {
	return Render(m.written())
}

// written is the matcher as written: raw, or the comparison raw leaves
// to op and want.
func (m *Matcher) written() any {
	if m.raw == nil && comparison(m.op) {
		return map[string]any{m.op: m.want}
	}
	return m.raw
}

// rawCopy is what a Matcher keeps of the matcher obj, {key: val}, as
// written: a copy, or nil for a comparison with a float64 operand (see
// Matcher.raw).
func rawCopy(obj map[string]any, key string, val any) any {
	if _, exact := val.(float64); exact && comparison(key) {
		return nil
	}
	return copyValue(obj)
}

// comparison reports whether op compares numbers.
func comparison(op string) bool {
	switch op {
	case ">=", ">", "<=", "<":
		return true
	}
	return false
}

// parseMatcher parses v found at pointer ptr. shorthand allows the hint that
// an object meant as a value goes under exact.
func parseMatcher(v any, ptr string, shorthand bool) (*Matcher, *MatcherError) {
	obj, ok := v.(map[string]any)
	if !ok {
		e := &MatcherError{Pointer: ptr, Msg: `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got ` + describe(v)}
		if strings.HasSuffix(ptr, "/not") {
			e.Hint = "to forbid a value, write not: {exact: " + Render(v) + "}"
		}
		return nil, e
	}
	switch len(obj) {
	case 0:
		return nil, &MatcherError{Pointer: ptr, Msg: "empty matcher: expected one key, one of " + quoteList(matcherKeys())}
	case 1:
	default:
		keys := slices.Sorted(maps.Keys(obj))
		return nil, &MatcherError{
			Pointer: ptr,
			Msg:     fmt.Sprintf("a matcher has exactly one key, found %d: %s", len(keys), quoteList(keys)),
			Hint:    "write each check as an assertion of its own",
		}
	}
	var key string
	for k := range obj {
		key = k
	}
	val := obj[key]
	at := ptr + "/" + escapePointer(key)
	m := &Matcher{op: key, raw: rawCopy(obj, key, val)}
	switch key {
	case "exact", "==", "!=", "contains":
		m.want = copyValue(val)
	case ">=", ">", "<=", "<":
		f, ok := Number(val)
		if !ok {
			e := &MatcherError{Pointer: at, Msg: fmt.Sprintf("%q compares numbers, got %s", key, describe(val))}
			if s, isStr := val.(string); isStr {
				if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
					e.Hint = "write " + strings.TrimSpace(s) + " without quotes"
				}
			}
			return nil, e
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &MatcherError{Pointer: at, Msg: fmt.Sprintf("%q needs a finite number, got %s", key, FormatNumber(f))}
		}
		m.bound, m.want = f, val // val is a number: nothing to copy
	case "regex":
		s, ok := val.(string)
		if !ok {
			return nil, &MatcherError{Pointer: at, Msg: "regex needs a string pattern, got " + describe(val)}
		}
		re, err := regexp.Compile(s)
		if err != nil {
			e := &MatcherError{Pointer: at, Msg: "regex does not compile (Go RE2 syntax): " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
			var se *syntax.Error
			if errors.As(err, &se) && se.Code == syntax.ErrInvalidPerlOp {
				e.Hint = "RE2 has no lookahead, lookbehind or backreferences"
			}
			return nil, e
		}
		m.re = re
	case "schema":
		s, err := compileSchema(val, at)
		if err != nil {
			return nil, err
		}
		m.schema = s
	case "not":
		inner, err := parseMatcher(val, at, false)
		if err != nil {
			return nil, err
		}
		m.inner = inner
	default:
		e := &MatcherError{Pointer: at, Msg: fmt.Sprintf("unknown matcher %q: expected one of %s", key, quoteList(matcherKeys()))}
		if s := suggestKey(key); s != "" {
			e.Hint = "did you mean `" + s + "`?"
		} else if shorthand {
			e.Hint = "to expect this object as it is, write it under exact:"
		}
		return nil, e
	}
	return m, nil
}

// suggestKey returns the matcher key that a mistyped key most likely meant,
// or "".
func suggestKey(key string) string {
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "=>", "≥", "ge", "gte", "min":
		return ">="
	case "=<", "≤", "le", "lte", "max":
		return "<="
	case "gt":
		return ">"
	case "lt":
		return "<"
	case "=", "eq":
		return "=="
	case "<>", "=!", "≠", "ne", "neq":
		return "!="
	case "equals", "equal", "is":
		return "exact"
	case "match", "matches", "pattern", "regexp":
		return "regex"
	case "includes", "has":
		return "contains"
	}
	// A word is not a misspelt operator, nor an operator a misspelt word:
	// "id" is two edits from "!=" but means neither.
	s := diag.Suggest(key, matcherKeys())
	if s == "" || isWord(s) != isWord(key) {
		return ""
	}
	return s
}

// isWord reports whether s starts with a letter, as the named matchers do.
func isWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// Match checks actual, the value found at a target; present is false when
// the target has no value. It returns whether the check passed and, when
// it did not, a one-line message saying why. A missing value fails every
// matcher except not, which passes.
func (m *Matcher) Match(actual any, present bool) (passed bool, message string) {
	if m.op == "not" {
		if m.inner.Holds(actual, present) {
			return false, "matched `" + m.inner.String() + "`, which it must not"
		}
		return true, ""
	}
	if !present {
		return false, "no value at this target"
	}
	switch m.op {
	case "exact", "==":
		if Equal(actual, m.want) {
			return true, ""
		}
		return false, "got " + Render(actual) + ", expected exactly " + Render(m.want)
	case "!=":
		if !Equal(actual, m.want) {
			return true, ""
		}
		return false, "got " + Render(actual) + ", expected anything but " + Render(m.want)
	case ">=", ">", "<=", "<":
		a, ok := Number(actual)
		if !ok {
			return false, "expected a number, got " + describe(actual)
		}
		return compare(m.op, a, m.bound)
	case "contains":
		return m.matchContains(actual)
	case "regex":
		s, ok := actual.(string)
		if !ok {
			return false, "expected a string, got " + describe(actual)
		}
		if m.re.MatchString(s) {
			return true, ""
		}
		return false, Render(s) + " does not match the pattern `" + clip(m.re.String()) + "`"
	case "schema":
		return m.matchSchema(actual)
	}
	return false, "empty matcher: build it with ParseMatcher"
}

// Holds is Match without its message: whether actual passes. Equality,
// the comparisons and regex allocate nothing on either outcome, so a check
// tried against many values whose failures nobody reads (a trajectory
// step's arguments against every call to its tool) leaves no garbage;
// contains and schema answer as Match does.
func (m *Matcher) Holds(actual any, present bool) bool {
	if m.op == "not" {
		return !m.inner.Holds(actual, present)
	}
	if !present {
		return false
	}
	switch m.op {
	case "exact", "==":
		return Equal(actual, m.want)
	case "!=":
		return !Equal(actual, m.want)
	case ">=", ">", "<=", "<":
		a, ok := Number(actual)
		return ok && holds(m.op, a, m.bound)
	case "regex":
		s, ok := actual.(string)
		return ok && m.re.MatchString(s)
	}
	// reason dropped: contains and schema word their reason as they decide.
	ok, _ := m.Match(actual, present)
	return ok
}

func (m *Matcher) matchContains(actual any) (bool, string) {
	switch a := actual.(type) {
	case string:
		sub, ok := m.want.(string)
		if !ok {
			return false, "expected a list to contain " + Render(m.want) + ", got " + describe(actual)
		}
		if strings.Contains(a, sub) {
			return true, ""
		}
		return false, "substring `" + clip(sub) + "` not found in " + Render(a)
	case []any:
		if slices.ContainsFunc(a, func(e any) bool { return Equal(e, m.want) }) {
			return true, ""
		}
		return false, "no element equals `" + Render(m.want) + "`"
	case List:
		return m.listContains(a)
	}
	return false, "expected a string or a list, got " + describe(actual)
}

// listContains is contains over a list, one element built at a time.
func (m *Matcher) listContains(l List) (bool, string) {
	for i := range l.Len() {
		if Equal(l.At(i), m.want) {
			return true, ""
		}
	}
	return false, "no element equals `" + Render(m.want) + "`"
}

// compare checks actual against bound with op (>=, >, <=, <) and words the
// failure the way both the comparison matchers and schema bounds do.
func compare(op string, actual, bound float64) (bool, string) {
	if holds(op, actual, bound) {
		return true, ""
	}
	a, b := FormatNumber(actual), FormatNumber(bound)
	switch {
	case math.IsNaN(actual):
		return false, "NaN cannot be compared with " + b
	case op == ">=":
		return false, a + " is less than the minimum " + b
	case op == ">":
		return false, a + " is not greater than " + b
	case op == "<=":
		return false, a + " is greater than the maximum " + b
	case op == "<":
		return false, a + " is not less than " + b
	}
	return false, "unknown comparison " + strconv.Quote(op)
}

// holds reports whether actual op bound (>=, >, <=, <) is true; never for
// NaN or another op.
func holds(op string, actual, bound float64) bool {
	switch op {
	case ">=":
		return actual >= bound
	case ">":
		return actual > bound
	case "<=":
		return actual <= bound
	case "<":
		return actual < bound
	}
	return false
}

// quoteList renders keys as "a", "b", "c".
func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// escapePointer escapes one RFC 6901 reference token.
func escapePointer(token string) string {
	return pointerEscaper.Replace(token)
}

// pointerEscaper is built once: building a Replacer costs more than a
// suite's worth of tokens escaped with it.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
