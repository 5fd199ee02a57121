package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/report"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writeToolSuite writes a suite whose servers: block is servers (YAML, one
// level indented) and whose tools: section is tools.
func writeToolSuite(t *testing.T, servers, tools string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suite.yml")
	suite := "servers:\n" + servers + "tools:\n" + tools
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runEnvelope(t *testing.T, args ...string) (*report.Envelope, int) {
	t.Helper()
	stdout, stderr, code := mcptest(t, nil, append([]string{"run", "--reporter", "json"}, args...)...)
	var env report.Envelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatalf("exit %d: %v\nstderr:\n%s", code, err, stderr)
	}
	return &env, code
}

// TestToolTestsAgainstMock calls tools of `mcptest mock` (which answers a
// call with its own name and arguments): the short and long expect: forms,
// message:, max_duration_ms, and the agent reporter's repro of a live case.
func TestToolTestsAgainstMock(t *testing.T) {
	bin := mcptestBin(t)
	catalog, _ := filepath.Abs("testdata/live/catalog.yml")
	suite := writeToolSuite(t, "  docs:\n    command: ["+quoteYAML(bin)+", mock, --tools-from, "+quoteYAML(catalog)+"]\n", `
  - name: search echoes its query
    server: docs
    tool: search_docs
    args: {query: revenue}
    expect:
      - target: result.isError
        matcher: {not: {exact: true}}
      - result.content[0].text: {contains: '"query":"revenue"'}
    max_duration_ms: 20000
  - name: fetch names the wrong tool
    tool: fetch_doc
    args: {id: "42"}
    expect:
      assertions:
        - target: result.content[0].text
          matcher: {contains: '"tool":"search_docs"'}
          message: fetch_doc must delegate to search
  - name: an unknown tool fails
    server: docs
    tool: no_such_tool
`)
	env, code := runEnvelope(t, "--config", suite)
	if code != ExitFail || env.Run.Mode != "live" {
		t.Fatalf("exit %d, mode %s", code, env.Run.Mode)
	}
	verdicts := []report.Verdict{}
	for _, c := range env.Cases {
		if c.Kind != report.KindTool {
			t.Errorf("%s: kind %s", c.Name, c.Kind)
		}
		verdicts = append(verdicts, c.Verdict)
	}
	if want := []report.Verdict{report.Pass, report.Fail, report.Fail}; strings.Join(vs(verdicts), " ") != strings.Join(vs(want), " ") {
		t.Fatalf("verdicts %v, want %v", verdicts, want)
	}
	if fl := env.Cases[0].Floors; len(fl) != 1 || !fl[0].Passed {
		t.Errorf("max_duration_ms floor: %+v", fl)
	}
	a := env.Cases[1].Assertions
	if len(a) != 1 || !strings.Contains(a[0].Message, "(fetch_doc must delegate to search)") {
		t.Errorf("long form with message: %+v", a)
	}
	if f := env.Cases[2].Findings; len(f) != 1 || !strings.Contains(f[0].Message, `tools/call "no_such_tool"`) {
		t.Errorf("unknown tool: %+v", f)
	}

}

// TestToolTestLatencyBudget: max_duration_ms fails a call that answers
// slower, over streamable HTTP.
func TestToolTestLatencyBudget(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		time.Sleep(120 * time.Millisecond)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer ts.Close()
	suite := writeToolSuite(t, "  slow:\n    url: "+quoteYAML(ts.URL)+"\n", `
  - name: within a generous budget
    tool: slow
    max_duration_ms: 10000
  - name: over a tight budget
    tool: slow
    expect:
      - result.content[0].text: done
    max_duration_ms: 50
`)
	stdout, _, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "agent")
	if code != ExitFail || !strings.HasPrefix(stdout, "VERDICT fail 1/2 passed") ||
		!strings.Contains(stdout, "FAIL over a tight budget\nassert: floor max_duration_ms: ") || !strings.Contains(stdout, "ms, over the 50 ms budget (max_duration_ms)") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

func vs(v []report.Verdict) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = string(x)
	}
	return out
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// everythingBin is the server-everything installed by .ci/run; locally the
// test skips without it, under CI=true it fails.
func everythingBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mcp-server-everything is not installed: .ci/run installs it with `npm ci --prefix .ci/node`")
		}
		t.Skip("mcp-server-everything is not installed; run `npm ci --prefix .ci/node`")
	}
	return bin
}

// TestToolTestsAgainstEverything calls server-everything's echo and
// get-sum tools over stdio.
func TestToolTestsAgainstEverything(t *testing.T) {
	bin := everythingBin(t)
	suite := writeToolSuite(t, "  everything:\n    command: ["+quoteYAML(bin)+"]\n", `
  - name: echo says hello
    tool: echo
    args: {message: hello}
    expect:
      - result.content[0].text: {exact: "Echo: hello"}
      - result.isError: {not: {exact: true}}
    max_duration_ms: 20000
  - name: get-sum adds
    tool: get-sum
    args: {a: 2, b: 3}
    expect:
      - result.content[0].text: {contains: "5"}
  - name: echo says goodbye
    tool: echo
    args: {message: hello}
    expect:
      assertions:
        - target: result.content[0].text
          matcher: {exact: "Echo: goodbye"}
          message: the echo must be the message
`)
	env, code := runEnvelope(t, "--config", suite)
	if code != ExitFail || env.Totals.Passed != 2 || env.Totals.Failed != 1 || env.Run.Mode != "live" {
		out, _ := json.MarshalIndent(env.Cases, "", "  ")
		t.Fatalf("exit %d totals %+v mode %s\n%s", code, env.Totals, env.Run.Mode, out)
	}
	stdout, _, _ := mcptest(t, nil, "run", "--config", suite, "--reporter", "agent")
	want := "FAIL echo says goodbye\nassert: assertion #0 (`result.content[0].text`) failed: "
	if !strings.HasPrefix(stdout, "VERDICT fail 2/3 passed (1 failed, 0 inconclusive, 0 cached, ") || !strings.Contains(stdout, want) || !strings.Contains(stdout, "\nactual: \"Echo: hello\"\n") {
		t.Errorf("agent report:\n%s", stdout)
	}
}

// A call that answers isError fails a test that never asserts on
// result.isError (an unknown tool, rejected arguments), quoting the error;
// a test that expects the error passes.
func TestToolTestIsErrorFails(t *testing.T) {
	bin := everythingBin(t)
	suite := writeToolSuite(t, "  everything:\n    command: ["+quoteYAML(bin)+"]\n", `
  - name: missing tool
    tool: no-such-tool
  - name: rejected arguments
    tool: get-sum
    args: {a: "x"}
    expect:
      - result.content: {schema: {type: array}}
  - name: expected error
    tool: get-sum
    args: {a: "x"}
    expect:
      - result.isError: {exact: true}
  - name: valid arguments
    tool: no-such-tool
    expect:
      - result.isError: {not: {exact: true}}
`)
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != ExitFail || !strings.Contains(stdout, "FAIL  missing tool") || !strings.Contains(stdout, `answered isError: true: "MCP error -32602: Tool no-such-tool not found"`) ||
		!strings.Contains(stdout, "FAIL  rejected arguments") || !strings.Contains(stdout, "PASS  expected error") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	// A test that asserts the call succeeds (generate suite's "valid
	// arguments") shows the server's error text when it did not.
	_, after, _ := strings.Cut(stdout, "FAIL  valid arguments")
	if !strings.Contains(after, `answered isError: true: "MCP error -32602: Tool no-such-tool not found"`) {
		t.Errorf("the failed result.isError assertion does not quote the server's error:\n%s", stdout)
	}
}
