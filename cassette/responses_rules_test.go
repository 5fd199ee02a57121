package cassette

import (
	"strings"
	"testing"
)

// TestResponsesMCPCallRules: an mcp_call item's error fails the call, an
// empty error string does not; without output the error is the result,
// its JSON when it is not a string; the call id is call_id, else callId,
// else id.
func TestResponsesMCPCallRules(t *testing.T) {
	item := func(id, rest string) string {
		return `{"type": "mcp_call", ` + id + `, "server_label": "srv", "name": "t", "arguments": "{}"` + rest + `}`
	}
	doc := `{"object": "response", "output": [` + strings.Join([]string{
		item(`"id": "1"`, `, "output": "ok", "error": ""`),
		item(`"id": "2"`, `, "output": "partial", "error": "boom"`),
		item(`"id": "3"`, `, "output": null, "error": "timeout"`),
		item(`"id": "4"`, `, "error": {"code": 7}`),
		item(`"id": "5"`, `, "error": ""`),
		item(`"call_id": "", "callId": "6"`, `, "output": "by callId"`),
	}, ", ") + `]}`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		s := call.ID() + "=" + outcome(call)
		got = append(got, s)
	}
	want := `srv.t=ok|srv.t=partial (error)|srv.t=timeout (error)|srv.t={"code":7} (error)|srv.t=|srv.t=by callId`
	if strings.Join(got, "|") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestIsResponse: a response is an "output" array with "object":
// "response", or a non-empty one whose items all say their type; an
// object with a type of its own is none.
func TestIsResponse(t *testing.T) {
	for _, tc := range []struct {
		m    map[string]any
		want bool
	}{
		{map[string]any{"output": []any{}, "object": "response"}, true},
		{map[string]any{"output": []any{map[string]any{"type": "message"}}}, true},
		{map[string]any{"output": []any{}}, false},
		{map[string]any{"output": []any{map[string]any{"type": "message"}, map[string]any{}}}, false},
		{map[string]any{"output": []any{map[string]any{"type": "message"}}, "type": "function_call_result"}, false},
		{map[string]any{"output": "x", "object": "response"}, false},
	} {
		if got := isResponse(tc.m); got != tc.want {
			t.Errorf("isResponse(%v) = %v, want %v", tc.m, got, tc.want)
		}
	}
}
