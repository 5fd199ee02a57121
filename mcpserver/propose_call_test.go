package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProposeAssertionsCalls runs propose_assertions against a server
// over streamable HTTP that counts the calls of each tool: a read-only
// tool is called twice (once with single_call) and the leaf that changed
// between the calls is excluded; a mutating tool is called once, with a
// note; a destructive one is refused without a call unless
// execute_destructive, then called once; a tool the server lacks is
// refused with the names it has, and no tool is refused before any
// call. The arguments given are the calls' and the proposal's ({} for
// none), and the proposal reads back as a suite's tools: entry.
func TestProposeAssertionsCalls(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	var args []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v1"}, nil)
	yes := true
	for _, tl := range []*mcp.Tool{
		{Name: "get_status", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "create_note"},
		{Name: "wipe", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
	} {
		tl.InputSchema = map[string]any{"type": "object"}
		srv.AddTool(tl, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			calls[tl.Name]++
			args = append(args, string(req.Params.Arguments))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
				StructuredContent: map[string]any{"status": "up", "serial": calls[tl.Name]}}, nil
		})
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	cs := inMemory(t, Options{Root: t.TempDir(), EnableWrites: true})

	for _, c := range []struct {
		in       map[string]any
		calls    int
		volatile []string
		want     []string
		refused  string
	}{
		{in: map[string]any{"tool": "get_status"}, calls: 2, volatile: []string{"result.structuredContent.serial"},
			want: []string{`args: {}`, `target: "result.structuredContent.status"`, "1 leaves differed"}},
		{in: map[string]any{"tool": "get_status", "args": map[string]any{"q": 1}, "single_call": true}, calls: 1,
			want: []string{`args: {"q":1}`, "one observation"}},
		{in: map[string]any{"tool": "create_note"}, calls: 1, want: []string{"classified mutating: called once", "one observation"}},
		{in: map[string]any{"tool": "wipe"}, refused: "classified destructive (annotations or name): refused"},
		{in: map[string]any{"tool": "wipe", "execute_destructive": true}, calls: 1, want: []string{"classified destructive: called once"}},
		{in: map[string]any{"tool": "nope"}, refused: `no tool "nope" (it has: `},
		{in: map[string]any{"tool": ""}, refused: "tool is required"},
	} {
		c.in["url"] = ts.URL
		mu.Lock()
		before := map[string]int{}
		args = nil
		for k, v := range calls {
			before[k] = v
		}
		mu.Unlock()
		text, isErr := callWithin(t, cs, "propose_assertions", c.in)
		mu.Lock()
		made := 0
		for k, v := range calls {
			made += v - before[k]
		}
		got := append([]string(nil), args...)
		mu.Unlock()
		if c.refused != "" {
			if !isErr || !strings.Contains(text, c.refused) || made != 0 {
				t.Errorf("propose_assertions %v: %s after %d calls, want refused with %q and no call", c.in, text, made, c.refused)
			}
			continue
		}
		var out proposeOut
		if err := json.Unmarshal([]byte(text), &out); isErr || err != nil {
			t.Fatalf("propose_assertions %v: %s", c.in, text)
		}
		if made != c.calls || out.CallsMade != c.calls {
			t.Errorf("propose_assertions %v: %d calls made, %d said, want %d", c.in, made, out.CallsMade, c.calls)
		}
		wantArgs := `{}`
		if a, ok := c.in["args"]; ok {
			b, _ := json.Marshal(a)
			wantArgs = string(b)
		}
		for _, a := range got {
			if a != wantArgs {
				t.Errorf("propose_assertions %v: called with %s, want %s", c.in, a, wantArgs)
			}
		}
		if strings.Join(out.ExcludedVolatile, ",") != strings.Join(c.volatile, ",") {
			t.Errorf("propose_assertions %v: volatile %q, want %q", c.in, out.ExcludedVolatile, c.volatile)
		}
		all := out.Test + strings.Join(out.Notes, "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("propose_assertions %v: no %q in\n%s", c.in, w, all)
			}
		}
		mustValidate(t, "servers:\n  target: {command: [x]}\ntools:\n"+out.Test)
	}
}

// TestWritesAnnotationRules: annotations decide whether a tool may
// write: read-only does not, unless it is also destructive (a tool that
// contradicts itself is taken to write); not read-only may write
// whatever its name, destructiveHint false included.
func TestWritesAnnotationRules(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name string
		ann  *mcp.ToolAnnotations
		want bool
	}{
		{"delete_all", &mcp.ToolAnnotations{ReadOnlyHint: true}, false},
		{"delete_all", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no}, false},
		{"get_status", &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, true},
		{"get_status", &mcp.ToolAnnotations{}, true},
		{"get_status", &mcp.ToolAnnotations{DestructiveHint: &no}, true},
		{"get_status", nil, false},
	} {
		if got := Writes(&mcp.Tool{Name: c.name, Annotations: c.ann}); got != c.want {
			t.Errorf("Writes(%s, %+v) = %v, want %v", c.name, c.ann, got, c.want)
		}
	}
}

// TestClipRules: clip keeps a string of at most n bytes and cuts a longer
// one to n bytes and an ellipsis.
func TestClipRules(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 0, ""}, {"abc", 3, "abc"}, {"abcd", 3, "abc…"}, {"abc", 4, "abc"}, {"a", 0, "…"},
	} {
		if got := clip(c.s, c.n); got != c.want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
