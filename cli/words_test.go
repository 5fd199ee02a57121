package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitWords: a command line (the Action's args input) is split as a
// shell splits it: on spaces,
// tabs and line breaks, runs of them counting as one; '...' and "..."
// keep what they quote whole (the other quote, spaces) and join what they
// touch; an empty quoted word is a word; an unclosed quote is an error.
func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{" a  b ", []string{"a", "b"}},
		{"a\tb\nc\rd", []string{"a", "b", "c", "d"}},
		{`--filter "triage agent" 'x y'`, []string{"--filter", "triage agent", "x y"}},
		{`x"y z"w`, []string{"xy zw"}},
		{`'it"s' "it's"`, []string{`it"s`, "it's"}},
		{`"" a`, []string{"", "a"}},
		{`a ''`, []string{"a", ""}},
	} {
		got, err := SplitWords(tc.in)
		if err != nil || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`"a`, `a 'b`, `'`} {
		if got, err := SplitWords(bad); err == nil || !strings.Contains(err.Error(), "unclosed") {
			t.Errorf("SplitWords(%q) = %q, %v; want an unclosed quote error", bad, got, err)
		}
	}
}
