package cassette

import (
	"testing"
)

// TestSplitMCPBounds: mcp__<server>__<tool> splits when both the server
// and the tool are non-empty; any other name is a bare tool.
func TestSplitMCPBounds(t *testing.T) {
	for name, want := range map[string][2]string{
		"mcp__srv__tool": {"srv", "tool"},
		"mcp__s__t":      {"s", "t"},
		"mcp__srv__a__b": {"srv", "a__b"},
		"mcp____tool":    {"", "mcp____tool"},
		"mcp__srv__":     {"", "mcp__srv__"},
		"mcp__srvtool":   {"", "mcp__srvtool"},
		"srv__tool":      {"", "srv__tool"},
		"mcp_srv__tool":  {"", "mcp_srv__tool"},
	} {
		if s, tool := splitMCP(name); s != want[0] || tool != want[1] {
			t.Errorf("splitMCP(%q) = %q, %q; want %q, %q", name, s, tool, want[0], want[1])
		}
	}
}

// TestFirstCountBounds: a count is the first key holding an integer
// from 0; a negative or fractional one is passed over; past 2^53 it is
// 2^53.
func TestFirstCountBounds(t *testing.T) {
	for _, tc := range []struct {
		m    map[string]any
		want int64
		ok   bool
	}{
		{map[string]any{"a": 0.0, "b": 5.0}, 0, true},
		{map[string]any{"a": -1.0, "b": 5.0}, 5, true},
		{map[string]any{"a": 2.5, "b": 5.0}, 5, true},
		{map[string]any{"a": "7", "b": 5.0}, 5, true},
		{map[string]any{"a": 1e300}, maxCount, true},
		{map[string]any{"a": float64(maxCount)}, maxCount, true},
		{map[string]any{"a": -1.0}, 0, false},
		{map[string]any{}, 0, false},
	} {
		if got, ok := firstCount(tc.m, "a", "b"); got != tc.want || ok != tc.ok {
			t.Errorf("firstCount(%v) = %d, %v; want %d, %v", tc.m, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTranscriptTurns: user messages in a row are one turn; a turn the
// agent never answered is dropped at the end; the first user message is
// the prompt.
func TestTranscriptTurns(t *testing.T) {
	c, err := Read("t.json", []byte(`{"messages": [
		{"role": "user", "content": "one"}, {"role": "user", "content": "one more"},
		{"role": "assistant", "content": "answer one"},
		{"role": "user", "content": "two"}, {"role": "assistant", "content": "answer two"},
		{"role": "user", "content": "never answered"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	turns := c.Runs[0].Turns
	if len(turns) != 2 || turns[0].FinalResponse != "answer one" || turns[1].FinalResponse != "answer two" || c.Prompt != "one" {
		t.Errorf("turns %+v, prompt %q", turns, c.Prompt)
	}
}
