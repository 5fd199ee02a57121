package agentsuite

import (
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCommonFacts checks which words of the final responses become
// expect: lines: numbers and codes every response states, in the first
// response's order, never plain words.
func TestCommonFacts(t *testing.T) {
	for _, tc := range []struct {
		responses []string
		want      []string
	}{
		{[]string{"Booked HAT083, confirmation HATHAT.", "Booked HAT136, confirmation HATHAT."}, []string{"HATHAT"}},
		{[]string{"Q3 revenue grew 12% to 4.2M.", "In Q3 revenue grew 12% (4.2M)."}, []string{"Q3", "12%", "4.2M"}},
		{[]string{"Paris is sunny.", "Paris is sunny."}, nil}, // a capitalised word is not a fact
		{[]string{"Due 2026-11-20, ticket A1, B2, C3, D4.", "Due 2026-11-20, ticket A1, B2, C3, D4."}, []string{"2026-11-20", "A1", "B2"}},
		{[]string{""}, nil},
		{nil, nil},
	} {
		if got := commonFacts(tc.responses); !slices.Equal(got, tc.want) {
			t.Errorf("commonFacts(%q) = %q, want %q", tc.responses, got, tc.want)
		}
	}
}

// TestQuoteReadsBack: every recorded name or fact written into the
// proposal reads back as itself. A NEL (U+0085) written as it is was read
// by the YAML parser as a line break, so the class "c\u0085d" became
// "c d" and the proposal failed on its own recording.
func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"c\u0085d", "a\u2028b\u2029", "e\ufefff", "z\u200dj", "\u00a0x", "q\"uote\\x", "t\tab\r\n",
		"*alias", "&a !t {x: y}", "#h", "- d", "\x1b[31m", "\u202e", "é\u0301", "\U0001F600", "\U000E0001", "\x7f\u0080\u009f"} {
		var got string
		if err := yaml.Unmarshal([]byte("v: "+quote(s)), &struct{ V *string }{&got}); err != nil || got != s {
			t.Errorf("quote(%q) = %s reads back as %q, %v", s, quote(s), got, err)
		}
	}
}
