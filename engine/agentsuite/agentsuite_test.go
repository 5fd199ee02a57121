package agentsuite

import (
	"slices"
	"testing"
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
