package gate

import (
	"slices"
	"testing"
)

// TestMatchIDRules: a member with a server prefix matches that server's
// tool only, and a call without a server only when the tool's own name is
// the whole member; a bare member matches the tool on any server.
func TestMatchIDRules(t *testing.T) {
	for _, tc := range []struct {
		member, server, tool string
		want                 bool
	}{
		{"brave.web_search", "brave", "web_search", true},
		{"brave.web_search", "google", "web_search", false},
		{"brave.web_search", "brave", "search", false},
		{"brave.web_search", "", "web_search", false},
		{"brave.web_search", "", "brave.web_search", true},
		{"web_search", "brave", "web_search", true},
		{"web_search", "", "web_search", true},
		{"web_search", "", "search", false},
	} {
		if got := MatchID(tc.member, tc.server, tc.tool); got != tc.want {
			t.Errorf("MatchID(%q, %q, %q) = %v, want %v", tc.member, tc.server, tc.tool, got, tc.want)
		}
	}
}

// TestRunsOf: the runs are named from two runs on; one run, or none, says
// nothing.
func TestRunsOf(t *testing.T) {
	for _, tc := range []struct {
		k, runs int
		want    string
	}{
		{1, 1, ""}, {0, 0, ""}, {1, 2, " (in 1 of 2 runs)"}, {3, 5, " (in 3 of 5 runs)"},
	} {
		if got := runsOf(tc.k, tc.runs); got != tc.want {
			t.Errorf("runsOf(%d, %d) = %q, want %q", tc.k, tc.runs, got, tc.want)
		}
	}
}

// TestTally: names are counted, listed in the order first seen.
func TestTally(t *testing.T) {
	var tl tally
	for _, n := range []string{"b", "a", "b", "c", "b"} {
		tl.add(n)
	}
	if !slices.Equal(tl.order, []string{"b", "a", "c"}) || tl.n["b"] != 3 || tl.n["a"] != 1 {
		t.Errorf("tally %v %v", tl.order, tl.n)
	}
}
