package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordSession runs `mcptest record ARGS...` as the stdio server of a real
// MCP client (the official Go SDK), lets calls drive the session, then
// closes it so the proxy writes the cassette.
func recordSession(t *testing.T, args []string, calls func(ctx context.Context, cs *mcp.ClientSession)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(mcptestBin(t), append([]string{"record"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "record-test", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect through the proxy: %v\n%s", err, stderr.String())
	}
	calls(ctx, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Fatalf("mcptest record did not exit cleanly: %v\n%s", cmd.ProcessState, stderr.String())
	}
}

func callTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// TestRecordEverything records two client sessions against
// server-everything through the stdio proxy into one cassette (a multi-run
// cassette), then gates that cassette with mcptest run.
func TestRecordEverything(t *testing.T) {
	server := everythingBin(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cassettes", "echo.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	for i, msg := range []string{"hello", "again"} {
		recordSession(t, []string{"--output", out, "--append", "--name", "everything", "--agent", "record-test", "--", server}, func(ctx context.Context, cs *mcp.ClientSession) {
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) < 3 {
				t.Fatalf("tools/list through the proxy: %v (%d tools)", err, len(tools.Tools))
			}
			res := callTool(t, ctx, cs, "echo", map[string]any{"message": msg})
			if text := res.Content[0].(*mcp.TextContent).Text; text != "Echo: "+msg {
				t.Errorf("session %d: the proxy answered %q", i+1, text)
			}
			callTool(t, ctx, cs, "get-sum", map[string]any{"a": 2, "b": 3})
		})
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version int                        `json:"mcptest_cassette"`
		Agent   string                     `json:"agent"`
		Catalog map[string]json.RawMessage `json:"catalog"`
		Runs    []struct {
			Turns []struct {
				Calls []map[string]any `json:"calls"`
			} `json:"turns"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || doc.Agent != "record-test" || doc.Catalog["everything"] == nil || len(doc.Runs) != 2 {
		t.Fatalf("cassette: version %d agent %q catalog %v runs %d", doc.Version, doc.Agent, doc.Catalog != nil, len(doc.Runs))
	}
	for _, r := range doc.Runs {
		calls := r.Turns[0].Calls
		if len(calls) != 2 || calls[0]["tool"] != "echo" || calls[0]["server"] != "everything" || calls[0]["is_error"] != false || calls[0]["duration_ms"] == nil || calls[0]["result"] == nil {
			t.Errorf("recorded calls: %v", calls)
		}
	}

	suite := filepath.Join(dir, "suite.yml")
	os.WriteFile(suite, []byte(`
agents:
  - name: echo
    runs: 2
    equal_function_sets:
      classes:
        - {name: echo, members: [everything.echo]}
        - {name: sum, members: [everything.get-sum]}
      expect:
        - tool_selection.f1: {">=": 100}
    expect:
      - calls[0].result.content[0].text: {regex: "^Echo: "}
      - calls[1].arguments.a: 2
      - tool_names: {exact: [echo, get-sum]}
`), 0o644)
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "agent")
	if code != ExitOK || !strings.HasPrefix(stdout, "VERDICT pass 1/1 passed") {
		t.Errorf("gating the recorded cassette: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestRecordRedacts records a session against `mcptest mock` (which
// accepts any arguments): secrets in arguments are redacted in the
// cassette, and an error result is recorded with is_error.
func TestRecordRedacts(t *testing.T) {
	catalog, _ := filepath.Abs("testdata/live/catalog.yml")
	out := filepath.Join(t.TempDir(), "c.json")
	recordSession(t, []string{"--output", out, "--", mcptestBin(t), "mock", "--tools-from", catalog}, func(ctx context.Context, cs *mcp.ClientSession) {
		callTool(t, ctx, cs, "search_docs", map[string]any{"query": "revenue", "api_key": "sk-live-0123456789abcdef0123456789"})
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
			t.Error("an unknown tool was answered")
		}
	})
	data, _ := os.ReadFile(out)
	s := string(data)
	if strings.Contains(s, "sk-live-0123456789abcdef") || !strings.Contains(s, "[REDACTED]") {
		t.Errorf("the secret was not redacted:\n%s", s)
	}
	if !strings.Contains(s, `"server": "target"`) || !strings.Contains(s, `"search_docs"`) {
		t.Errorf("cassette:\n%s", s)
	}
	if _, _, code := mcptest(t, nil, "validate", out); code != ExitOK {
		t.Errorf("the recorded cassette does not validate")
	}
}

// TestRecordStreamableHTTP records over streamable HTTP on both sides: the
// agent's two sessions reach the proxy at --listen, the proxy reaches the
// server at --url; each session is one run of the cassette.
func TestRecordStreamableHTTP(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "upper", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "upper", Description: "Upper-case a word."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Word string `json:"word"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Word)}}}, nil, nil
	})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer upstream.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listening := make(chan string, 1)

	out := filepath.Join(t.TempDir(), "upper.json")
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		c := &Command{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" },
			listening: func(addr string) { listening <- addr }}
		done <- c.MainContext(ctx, []string{"record", "--listen", "127.0.0.1:0", "--output", out, "--url", upstream.URL})
	}()
	var addr string
	select {
	case addr = <-listening:
	case code := <-done:
		t.Fatalf("record exited %d before listening: %s", code, stderr.String())
	}
	// Three sessions: two call upper, the third lists the tools and calls
	// nothing (an agent that answered without a tool), which is a run too.
	for _, word := range []string{"one", "two", ""} {
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if word == "" {
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			cs.Close()
			continue
		}
		res := callTool(t, ctx, cs, "upper", map[string]any{"word": word})
		if got := res.Content[0].(*mcp.TextContent).Text; got != strings.ToUpper(word) {
			t.Errorf("answered %q", got)
		}
		cs.Close()
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("record exit %d: %s", code, stderr.String())
	}
	data, _ := os.ReadFile(out)
	var doc struct {
		Runs []struct {
			Turns []struct {
				Calls []struct {
					Tool      string         `json:"tool"`
					Arguments map[string]any `json:"arguments"`
				} `json:"calls"`
			} `json:"turns"`
		} `json:"runs"`
	}
	json.Unmarshal(data, &doc)
	if len(doc.Runs) != 3 || doc.Runs[1].Turns[0].Calls[0].Arguments["word"] != "two" || len(doc.Runs[2].Turns[0].Calls) != 0 ||
		!strings.Contains(string(data), `"upper"`) {
		t.Errorf("cassette, want 3 runs (the last with no call) and the catalog:\n%s", data)
	}
}

// TestRecordInspector records real sessions of the official MCP Inspector
// CLI (npm @modelcontextprotocol/inspector, pinned in .ci/node) against
// server-everything through `mcptest record`, then gates the cassette. The
// Inspector takes --config, --server and a `--` for itself, so the proxy's
// flags are given in Go's single-dash form and its server comes from the
// suite.yml in the working directory; gate.yml gates the recording.
func TestRecordInspector(t *testing.T) {
	server := everythingBin(t)
	inspector, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", "mcp-inspector"))
	if _, err := os.Stat(inspector); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mcp-inspector is not installed: .ci/run installs it with `npm ci --prefix .ci/node`")
		}
		t.Skip("mcp-inspector is not installed; run `npm ci --prefix .ci/node`")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(`servers:
  everything:
    command: [`+quoteYAML(server)+`]
`), 0o644)
	os.WriteFile(filepath.Join(dir, "gate.yml"), []byte(`agents:
  - name: inspector echo
    runs: 2
    cassette: inspector.json
    expect:
      - tool_names: {exact: [echo]}
      - calls[0].result.content[0].text: {regex: "^Echo: (hi|there)$"}
`), 0o644)
	// The first session names the server from the suite, the second gives
	// its command as -command and -arg (the Inspector keeps -- for itself).
	for i, msg := range []string{"hi", "there"} {
		target := []string{"-server=everything"}
		if i == 1 {
			target = []string{"-command=" + server, "-arg=stdio"}
		}
		args := append([]string{"--cli", mcptestBin(t), "record", "-output=inspector.json", "-append"}, target...)
		cmd := exec.Command(inspector, append(args, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message="+msg)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"text": "Echo: `+msg+`"`) {
			t.Fatalf("inspector: %v\n%s", err, out)
		}
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", filepath.Join(dir, "gate.yml"), "--reporter", "agent")
	if code != ExitOK || !strings.HasPrefix(stdout, "VERDICT pass 1/1 passed") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	env, _ := runEnvelope(t, "--config", filepath.Join(dir, "gate.yml"))
	if env.Cases[0].Runs != 2 {
		t.Errorf("%d runs recorded, want 2", env.Cases[0].Runs)
	}
}
