package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/live"
)

// inMemory connects a Go SDK client to a front door over in-memory
// transports, for the checks that need no real server.
func inMemory(t *testing.T, opt Options) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	go func() { _ = Serve(ctx, opt, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestGatesInMemory(t *testing.T) {
	root := t.TempDir()
	declared := []string{"node", "declared.js", "--flag"}
	b, _ := json.Marshal(declared)
	if err := os.WriteFile(filepath.Join(root, "mcptest.yml"), []byte("servers:\n  s:\n    command: "+string(b)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []string
	opt := Options{
		Root: root, Version: "test",
		Validate: func(name string, data []byte) (any, error) {
			return map[string]any{"valid": true, "errors": []any{}, "name": name}, nil
		},
		Catalog: func(ctx context.Context, what string, tg live.Target) (any, error) {
			asked = append(asked, what+" "+strings.Join(tg.Command, " "))
			return map[string]any{"tools": []any{}}, nil
		},
	}
	cs := inMemory(t, opt)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Meta["writesEnabled"] != false {
			t.Errorf("%s: _meta %v", tl.Name, tl.Meta)
		}
	}
	if text, isErr := callText(t, cs, "list_tools", map[string]any{"command": declared}); isErr || len(asked) != 1 {
		t.Errorf("a declared argv: %s (asked %v)", text, asked)
	}
	for _, argv := range [][]string{{"node", "declared.js"}, {"node", "other.js", "--flag"}} {
		text, isErr := callText(t, cs, "list_tools", map[string]any{"command": argv})
		if !isErr || !strings.Contains(text, "--enable-writes") || !strings.Contains(text, "servers:") {
			t.Errorf("%v: %s", argv, text)
		}
	}
	if text, isErr := callText(t, cs, "run_tool_test", map[string]any{"suite": "x"}); !isErr || !strings.Contains(text, "--enable-writes") {
		t.Errorf("run_tool_test without writes: %s", text)
	}
	if text, _ := callText(t, cs, "validate_suite", map[string]any{"suite": "servers: {}"}); !strings.Contains(text, `"valid":true`) {
		t.Errorf("validate_suite: %s", text)
	}
	if text, isErr := callText(t, cs, "list_runs", nil); isErr || !strings.Contains(text, `"runs":[]`) {
		t.Errorf("list_runs of an empty store: %s", text)
	}

	opt.EnableWrites = true
	cs = inMemory(t, opt)
	if text, isErr := callText(t, cs, "list_tools", map[string]any{"command": []string{"anything"}}); isErr {
		t.Errorf("writes enabled, any argv: %s", text)
	}
}
