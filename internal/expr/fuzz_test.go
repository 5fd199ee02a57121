package expr_test

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

// FuzzParsePath checks that ParsePath never panics, that every error is a
// *SyntaxError pointing inside the input, and that a parsed path's String
// parses back to an equal path.
func FuzzParsePath(f *testing.F) {
	for _, tc := range validPaths() {
		f.Add(tc.in)
	}
	for _, tc := range invalidPaths() {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := expr.ParsePath(s)
		if err != nil {
			se, ok := err.(*expr.SyntaxError)
			if !ok {
				t.Fatalf("ParsePath(%q) error %T, want *SyntaxError", s, err)
			}
			if n := len([]rune(s)); se.Offset < 0 || se.Offset > n {
				t.Fatalf("ParsePath(%q) Offset %d outside 0..%d", s, se.Offset, n)
			}
			_ = se.Error()
			return
		}
		text := p.String()
		again, err := expr.ParsePath(text)
		if err != nil {
			t.Fatalf("ParsePath(%q).String() = %q does not parse: %v", s, text, err)
		}
		if !slices.Equal(again.Segments(), p.Segments()) {
			t.Fatalf("ParsePath(%q) = %+v, but its String %q parses to %+v", s, p.Segments(), text, again.Segments())
		}
		if again.String() != text {
			t.Fatalf("String is not canonical: %q then %q", text, again.String())
		}
		p.Lookup(map[string]any{"a": []any{map[string]any{"b": 1.0}}})
	})
}

// FuzzMatcher decodes JSON text as a matcher and checks that ParseMatcher
// and ParseShorthand never panic, that errors are *MatcherError, and that a
// parsed matcher matches a few fixed values without panicking and says why
// whenever it fails.
func FuzzMatcher(f *testing.F) {
	for _, tc := range matchCases() {
		f.Add(tc.matcher)
	}
	for _, tc := range parseErrorCases() {
		f.Add(tc.matcher)
	}
	actuals := []any{
		nil, true, 0.0, 50.0, -1.5, 1e300, math.NaN(), math.Inf(1), "", "abc", "status: operational",
		[]any{}, []any{1.0, "x", nil}, map[string]any{}, map[string]any{"id": 1.0, "name": "n", "tags": []any{"a"}},
	}
	f.Fuzz(func(t *testing.T, text string) {
		var v any
		if json.Unmarshal([]byte(text), &v) != nil {
			return
		}
		for _, parse := range []func(any) (*expr.Matcher, error){expr.ParseMatcher, expr.ParseShorthand} {
			m, err := parse(v)
			if err != nil {
				if _, ok := err.(*expr.MatcherError); !ok {
					t.Fatalf("parse(%s) error %T, want *MatcherError", text, err)
				}
				_ = err.Error()
				continue
			}
			for _, a := range actuals {
				for _, present := range []bool{true, false} {
					pass, msg := m.Match(a, present)
					if !pass && msg == "" {
						t.Fatalf("%s.Match(%v, %v) failed without a message", text, a, present)
					}
					if m.Holds(a, present) != pass {
						t.Fatalf("%s: Holds(%v, %v) is %v, Match %v", text, a, present, !pass, pass)
					}
				}
			}
			if _, err := expr.ParseShorthand(m.Value()); err != nil {
				t.Fatalf("Value() of %s does not parse again: %v", text, err)
			}
		}
	})
}
