package cassette

import (
	"strings"
	"testing"
)

// TestLostShapeBounds: call-shaped data is looked for down to a depth of
// 64 (not 65); a UIMessage tool part is a "tool-<name>" part other than
// the ModelMessage part types "tool-call" and "tool-result", with a
// toolCallId and a state.
func TestLostShapeBounds(t *testing.T) {
	nest := func(depth int) string {
		// The value of "b" is at depth 1.
		return `{"a": 1, "b": ` + strings.Repeat(`{"x": `, depth-1) + `{"type": "tool_use", "name": "t"}` + strings.Repeat(`}`, depth-1) + `}`
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"depth 64", nest(64), `holds a "tool_use" block naming the tool "t"`},
		{"depth 65", nest(65), ""},
		{"a tool part", `{"parts": [{"type": "tool-search", "toolCallId": "1", "state": "done"}]}`, `holds a "tool-search" part naming the tool "search"`},
		{"a tool-result part", `{"parts": [{"type": "tool-result", "toolCallId": "1", "state": "done"}]}`, ""},
		{"a tool-call part without a name", `{"parts": [{"type": "tool-call", "toolCallId": "1", "state": "done"}]}`, ""},
		{"no state", `{"parts": [{"type": "tool-search", "toolCallId": "1"}]}`, ""},
		{"no toolCallId", `{"parts": [{"type": "tool-search", "state": "done"}]}`, ""},
	} {
		_, err := Read("f.json", []byte(tc.doc))
		switch {
		case err == nil:
			t.Errorf("%s: read", tc.name)
		case tc.want == "" && strings.Contains(err.Error(), "holds a"):
			t.Errorf("%s: %v, want no call-shaped data found", tc.name, err)
		case tc.want != "" && !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
