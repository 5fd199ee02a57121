package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"

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
		validate: func(name string, data []byte) (any, error) {
			return map[string]any{"valid": true, "errors": []any{}, "name": name}, nil
		},
		catalog: func(ctx context.Context, what string, tg live.Target) (any, error) {
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
	// The declared argv with another env is refused: NODE_OPTIONS or
	// LD_PRELOAD would repurpose it as surely as a flag.
	if text, isErr := callText(t, cs, "list_tools", map[string]any{"command": declared, "env": map[string]any{"NODE_OPTIONS": "--require /tmp/x.js"}}); !isErr || !strings.Contains(text, "another env") {
		t.Errorf("a declared argv with an env: %s", text)
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

// A stored file that is not a whole envelope (a null case, no run id, not
// JSON) is passed over by every reader, never a crash.
func TestStoreSkipsBrokenRuns(t *testing.T) {
	root := t.TempDir()
	runs := filepath.Join(root, ".mcptest", "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"nullcase.json": `{"schema_version":1,"run":{"id":"01NULLCASE","started_at":"2026-11-23T00:00:02Z"},"cases":[null]}`,
		"noid.json":     `{"schema_version":1,"run":{},"cases":[]}`,
		"garbage.json":  `{"schema_version":`,
		"good.json": `{"schema_version":1,"run":{"id":"01GOOD","started_at":"2026-11-23T00:00:01Z"},"verdict":"pass",` +
			`"cases":[{"name":"echo","kind":"tool","verdict":"pass","tools":[{"server":"s","tool":"echo","calls":1}]}],"servers":[{"name":"s","tools":["echo","sum"]}]}`,
	} {
		if err := os.WriteFile(filepath.Join(runs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := inMemory(t, Options{Root: root, Version: "test"})
	text, isErr := callText(t, cs, "list_runs", nil)
	if isErr || !strings.Contains(text, `"run_id":"01GOOD"`) || strings.Contains(text, "01NULLCASE") || !strings.Contains(text, `"total":1`) {
		t.Errorf("list_runs: %s", text)
	}
	text, isErr = callText(t, cs, "get_coverage", nil)
	if isErr || !strings.Contains(text, `"known":2,"covered":1,"percent":50`) || !strings.Contains(text, `"uncovered":[{"server":"s","tool":"sum","calls":0}]`) {
		t.Errorf("get_coverage: %s", text)
	}
	if text, isErr = callText(t, cs, "get_run", map[string]any{"run_id": "01NULLCASE"}); !isErr {
		t.Errorf("get_run of a broken file: %s", text)
	}
}

func TestCaseSlugsAreUnique(t *testing.T) {
	var cases []*report.CaseResult
	for _, n := range []string{"echo check", "echo-check", "проверка эха", "!!!", "Echo Check"} {
		cases = append(cases, &report.CaseResult{Name: n})
	}
	got := strings.Join(caseSlugs(cases), " ")
	if want := "echo-check echo-check-2 test test-2 echo-check-3"; got != want {
		t.Errorf("caseSlugs = %q, want %q", got, want)
	}
}
