package annotate

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestTextBounds: Text keeps MaxField characters when max is 0 or less,
// max otherwise, and clips one more; it drops the invisible format
// characters but leaves the bidi overrides and isolates to Clean.
func TestTextBounds(t *testing.T) {
	full := strings.Repeat("a", MaxField)
	for _, tc := range []struct {
		in      string
		max     int
		clipped bool
	}{
		{full, 0, false}, {full, -1, false}, {full + "a", 0, true}, {full + "a", -1, true},
		{"abc", 3, false}, {"abcd", 3, true},
	} {
		got := Text(tc.in, tc.max)
		if strings.HasSuffix(got, "…") != tc.clipped {
			t.Errorf("Text(%d characters, %d) = %q; clipped %v", len(tc.in), tc.max, got, tc.clipped)
		}
	}
	for r, dropped := range map[rune]bool{0x200b: true, 0x200f: true, 0xfeff: true, 0x206a: true, 0x3164: true, 0x115f: true, 0x1160: true, 0xffa0: true,
		0x202a: false, 0x202e: false, 0x2066: false, 0x2069: false, 0x202f: false, 'x': false} {
		if got := isInvisible(r); got != dropped {
			t.Errorf("isInvisible(%U) = %v, want %v", r, got, dropped)
		}
	}
}

// TestFenceRules: the fence is one backtick longer than the longest run
// inside, three at least; line breaks become LF; an HTML comment opener is
// broken; controls but LF and tab are shown as escapes.
func TestFenceRules(t *testing.T) {
	for _, tc := range []struct{ in, fence string }{
		{"plain", "```"}, {"a `` b", "```"}, {"a ``` b", "````"}, {"````` and `", "``````"},
	} {
		if got := Fence(tc.in); !strings.HasPrefix(got, tc.fence+"text\n") || !strings.HasSuffix(got, "\n"+tc.fence+"\n") {
			t.Errorf("Fence(%q) = %q, want fenced by %s", tc.in, got, tc.fence)
		}
	}
	got := Fence("a\r\nb\rc\td\x01<!-- m -->")
	if strings.ContainsAny(got, "\r\x01") || strings.Contains(got, "<!--") || !strings.Contains(got, "a\nb\nc\td") {
		t.Errorf("Fence = %q", got)
	}
}

// TestMarkerKeyRules: a marker key keeps letters, digits, ".", "_" and
// "/", turns anything else into "-", never holds "--", and is at most 200
// characters.
func TestMarkerKeyRules(t *testing.T) {
	for in, want := range map[string]string{
		"azAZ09._/": "azAZ09._/", "a b": "a-b", "a  --  b": "a-b", "`{@[:-->": "-", "suite.yml": "suite.yml",
	} {
		if got := MarkerKey(in); got != want {
			t.Errorf("MarkerKey(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MarkerKey(strings.Repeat("a", 201)); len([]rune(got)) != 201 || !strings.HasSuffix(got, "…") {
		t.Errorf("MarkerKey(201 characters) = %d characters", len([]rune(got)))
	}
}

// TestControlBounds: the characters Clean shows as escapes, at each end
// of their ranges (C0, DEL, C1, the line and paragraph separators, the
// bidi embeddings and overrides, the bidi isolates), and their neighbours
// it keeps.
func TestControlBounds(t *testing.T) {
	for r, control := range map[rune]bool{
		0x00: true, 0x1f: true, 0x20: false, 0x7e: false, 0x7f: true, 0x80: true, 0x9f: true, 0xa0: false,
		0x2027: false, 0x2028: true, 0x2029: true, 0x202a: true, 0x202e: true, 0x202f: false,
		0x2065: false, 0x2066: true, 0x2069: true, 0x206a: false,
	} {
		if got := isControl(r); got != control {
			t.Errorf("isControl(%U) = %v, want %v", r, got, control)
		}
	}
	if got := CleanMessage("a\x1b\nb\x7f"); got != "a\\u001b\nb\\u007f" {
		t.Errorf("CleanMessage = %q: want each line cleaned, the line break kept", got)
	}
}

// TestRunsLabel: an agent test says its runs, "1 run" for one; other
// kinds say none.
func TestRunsLabel(t *testing.T) {
	for _, tc := range []struct {
		c    report.CaseResult
		want string
	}{
		{report.CaseResult{Kind: report.KindAgent, Runs: 1}, "  (1 run)"},
		{report.CaseResult{Kind: report.KindAgent, Runs: 2}, "  (2 runs)"},
		{report.CaseResult{Kind: report.KindAgent, Runs: 0}, "  (0 runs)"},
		{report.CaseResult{Kind: report.KindScenario, Runs: 2}, ""},
	} {
		if got := runsLabel(&tc.c); got != tc.want {
			t.Errorf("runsLabel(%s, %d) = %q, want %q", tc.c.Kind, tc.c.Runs, got, tc.want)
		}
	}
}
