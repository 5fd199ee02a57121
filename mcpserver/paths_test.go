package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine"
)

// callWithin calls a verb and fails the test when no answer comes within
// 10 s (a read that hangs on a FIFO or /dev/zero).
func callWithin(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// escapeWorkspace lays out a workspace with ways out: a directory link and
// a file link to an outside directory holding a valid cassette, a suite
// and an envelope, and a FIFO. It returns the workspace and the outside
// directory.
func escapeWorkspace(t testing.TB) (ws, out string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or unprivileged symbolic links")
	}
	base := t.TempDir()
	ws, out = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws, out, filepath.Join(ws, ".mcptest", "runs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cas, err := os.ReadFile("../examples/selection-f1/cassettes/search-then-shell.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(out, "exists.json"): string(cas),
		filepath.Join(out, "suite.yml"):   "servers:\n  s: {command: [x]}\n",
		filepath.Join(out, "run.json"):    `{"schema_version":1,"run":{"id":"01OUTSIDE","started_at":"2026-11-23T00:00:09Z"},"verdict":"pass","cases":[]}`,
		filepath.Join(ws, "inside.json"):  string(cas),
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link":                    out,
		"rel":                     "../outside",
		"abs.json":                filepath.Join(out, "exists.json"),
		"abs.yml":                 filepath.Join(out, "suite.yml"),
		".mcptest/runs/out.json":  filepath.Join(out, "run.json"),
		".mcptest/runs/zero.json": "/dev/zero",
		"alias.json":              "inside.json",
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, fifo := range []string{"fifo.json", ".mcptest/runs/fifo.json", ".mcptest/doctor.json"} {
		if err := syscall.Mkfifo(filepath.Join(ws, fifo), 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	return ws, out
}

// parseValidate is Options.Validate with the real suite loader, which
// resolves cassette: and catalog: paths.
func parseValidate(calls *int) func(string, []byte) (any, error) {
	return func(name string, data []byte) (any, error) {
		*calls++
		_, err := engine.ParseSuite(name, data)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		return map[string]any{"valid": err == nil, "errors": msg}, nil
	}
}

// validate_suite refuses a suite naming a file outside the workspace before
// the loader resolves it: the answer is the same whether the outside file
// exists or not, and the loader never sees the suite.
func TestValidateSuiteRefusesOutsidePaths(t *testing.T) {
	ws, out := escapeWorkspace(t)
	calls := 0
	cs := inMemory(t, Options{Root: ws, Version: "test", validate: parseValidate(&calls)})
	suite := func(key, p string) string {
		if key == "catalog" {
			return "servers:\n  s: {command: [x]}\ntool_quality:\n  - name: q\n    catalog: " + strconv.Quote(p) + "\n"
		}
		if key == "arguments" {
			return "agents:\n  - name: a\n    cassette: inside.json\n    arguments: {catalog: " + strconv.Quote(p) + "}\n"
		}
		return "servers:\n  s: {command: [x]}\nagents:\n  - name: a\n    cassette: " + strconv.Quote(p) + "\n"
	}
	for _, pair := range [][2]string{
		{filepath.Join(out, "exists.json"), filepath.Join(out, "missing.json")},
		{"../outside/exists.json", "../outside/missing.json"},
		{"link/exists.json", "link/missing.json"},
		{"rel/exists.json", "rel/missing.json"},
		{"link/exi*.json", "link/mis*.json"},
		{"l*/exists.json", "l*/missing.json"},
		{"link", "link/nodir"},
		{"abs.json", "link/../link/missing.json"},
		{"/etc/passwd", "/etc/no-such-file"},
		{"*.json", "link/*.json"},
	} {
		for _, key := range []string{"cassette", "catalog", "arguments"} {
			var answers []string
			for _, p := range pair {
				text, isErr := callText(t, cs, "validate_suite", map[string]any{"suite": suite(key, p)})
				if !isErr || !strings.Contains(text, "outside the workspace") {
					t.Errorf("%s %s: %s; want a refusal", key, p, text)
				}
				answers = append(answers, strings.ReplaceAll(text, `"`+p+`"`, "PATH"))
			}
			if answers[0] != answers[1] {
				t.Errorf("%s: an existing and a missing outside file are answered differently:\n%s\n%s", key, answers[0], answers[1])
			}
		}
	}
	if calls != 0 {
		t.Errorf("the loader saw %d suites naming outside files", calls)
	}
	for _, p := range []string{"inside.json", "alias.json", "ins*.json", "[i]nside.json", filepath.Join(ws, "inside.json")} {
		if text, _ := callText(t, cs, "validate_suite", map[string]any{"suite": suite("cassette", p)}); strings.Contains(text, "outside the workspace") {
			t.Errorf("%s inside the workspace: %s", p, text)
		}
	}
}

// The readers never leave the workspace nor hang on what is planted in
// it: a FIFO or a link to /dev/zero among the runs, a FIFO cassette, a
// FIFO doctor.json, a link to an outside envelope or cassette.
func TestReadersStayInsideAndBounded(t *testing.T) {
	ws, _ := escapeWorkspace(t)
	cs := inMemory(t, Options{Root: ws, Version: "test"})
	if text, isErr := callWithin(t, cs, "list_runs", nil); isErr || strings.Contains(text, "01OUTSIDE") || !strings.Contains(text, `"total":0`) {
		t.Errorf("list_runs: %s", text)
	}
	text, isErr := callWithin(t, cs, "list_cassettes", nil)
	if isErr || !strings.Contains(text, `"name":"inside.json"`) || !strings.Contains(text, `"name":"alias.json"`) || strings.Contains(text, "abs.json") || strings.Contains(text, "link/") {
		t.Errorf("list_cassettes: %s", text)
	}
	for _, name := range []string{"abs.json", "link/exists.json", "rel/exists.json", "../outside/exists.json"} {
		if text, isErr := callWithin(t, cs, "get_cassette", map[string]any{"name": name}); !isErr || !strings.Contains(text, "outside the workspace") {
			t.Errorf("get_cassette %s: %s", name, text)
		}
	}
	if text, isErr := callWithin(t, cs, "get_cassette", map[string]any{"name": "fifo.json"}); !isErr || !strings.Contains(text, "named pipe") {
		t.Errorf("get_cassette of a FIFO: %s", text)
	}
	if text, isErr := callWithin(t, cs, "get_cassette", map[string]any{"name": "alias.json"}); isErr || !strings.Contains(text, "mcptest_cassette") {
		t.Errorf("get_cassette through a link inside: %s", text)
	}
	if text, isErr := callWithin(t, cs, "get_doctor_report", nil); !isErr || !strings.Contains(text, "named pipe") {
		t.Errorf("get_doctor_report of a FIFO: %s", text)
	}
}

// The writers never leave the workspace: the cassette record_cassette
// writes, the suite trigger_run runs, the inline suite run_tool_test
// stores, all refused before anything is created outside.
func TestWritersStayInside(t *testing.T) {
	ws, out := escapeWorkspace(t)
	calls := 0
	cs := inMemory(t, Options{Root: ws, Version: "test", EnableWrites: true, validate: parseValidate(&calls), newRunID: func() string { return "01INLINE" }})
	for _, output := range []string{"link/new/c.json", "rel/c.json", "abs.json", "../outside/c.json"} {
		if text, isErr := callWithin(t, cs, "record_cassette", map[string]any{"command": []string{"x"}, "output": output}); !isErr || !strings.Contains(text, "outside the workspace") {
			t.Errorf("record_cassette to %s: %s", output, text)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "new")); err == nil {
		t.Error("record_cassette created a directory outside the workspace")
	}
	for _, config := range []string{"abs.yml", "link/suite.yml", "../outside/suite.yml"} {
		if text, isErr := callWithin(t, cs, "trigger_run", map[string]any{"config": config}); !isErr || !strings.Contains(text, "outside the workspace") {
			t.Errorf("trigger_run %s: %s", config, text)
		}
	}
	if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": "servers:\n  s: {command: [x]}\nagents:\n  - name: a\n    cassette: link/exists.json\n"}); !isErr || !strings.Contains(text, "outside the workspace") {
		t.Errorf("run_tool_test naming an outside cassette: %s", text)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mcptest", "inline", "01INLINE.yml")); err == nil {
		t.Error("run_tool_test stored a suite it refused")
	}
	// .mcptest itself a link out: the inline suite is not written there.
	os.RemoveAll(filepath.Join(ws, ".mcptest"))
	if err := os.Symlink(out, filepath.Join(ws, ".mcptest")); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": "servers:\n  s: {command: [x]}\n"}); !isErr || !strings.Contains(text, "outside the workspace") {
		t.Errorf("run_tool_test with .mcptest leading out: %s", text)
	}
	if _, err := os.Stat(filepath.Join(out, "inline")); err == nil {
		t.Error("run_tool_test wrote its inline suite outside the workspace")
	}
}
