//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
)

// handshakeUpstream is a server `mcptest record` stands in front of in
// TestProcessRecordHandshakes: server-everything (the MCP TypeScript SDK
// 1.x, protocol 2025-11-25) and the Go SDK's server of `mcptest mock`
// (2026-07-28, sessionless requests), with the revision it negotiates.
type handshakeUpstream struct {
	name     string
	argv     []string
	revision string
	// answer is in the text of a get-sum {a: 2, b: 3} call's answer.
	answer string
}

// handshakeClients are the client libraries of .ci/node-frameworks that
// cmd/mcptest/testdata/handshakes/client.mjs opens a session with.
var handshakeClients = []string{"ai-sdk-mcp-1", "ai-sdk-mcp-2", "mcp-sdk-1", "mcp-client-2"}

// TestProcessRecordHandshakes opens one session through the built
// binary's `mcptest record`, over stdio and over streamable HTTP
// (--listen), in front of two real upstreams, with each client library an
// agent uses: @ai-sdk/mcp 1 and 2 (the AI SDK 6's and 7's: 2 asks
// server/discover with a one-second timeout, then initializes on the same
// connection), the MCP TypeScript SDK's 1.x and 2.x clients, and the Go
// SDK's client asking each protocol revision it speaks. Each session
// lists the tools and calls get-sum: the client gets the upstream's
// answer, record exits 0, and the cassette holds the session as one run
// with its call. The Go client's negotiated revision is never newer than
// the upstream's.
func TestProcessRecordHandshakes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary, node and real servers")
	}
	node, modules := frameworkNode(t)
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "handshakes", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(catalog, []byte(`{"tools": [{"name": "get-sum", "description": "Adds two numbers.", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	upstreams := []handshakeUpstream{
		{name: "everything", argv: []string{everythingBin(t), "stdio"}, revision: "2025-11-25", answer: "The sum of 2 and 3 is 5."},
		{name: "go-sdk-mock", argv: []string{processBin(t), "mock", "--tools-from", catalog}, revision: "2026-07-28", answer: `{\"arguments\":{\"a\":2,\"b\":3},\"tool\":\"get-sum\"}`},
	}
	for _, up := range upstreams {
		for _, transport := range []string{"stdio", "http"} {
			for _, client := range handshakeClients {
				t.Run(up.name+"/"+transport+"/"+client, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "rec.json")
					argv := []string{node, "client.mjs", client, "get-sum", `{"a":2,"b":3}`}
					text := handshakeRecord(t, dir, out, up, transport, func(target []string) string {
						cmd := exec.Command(argv[0], append(argv[1:], target...)...)
						cmd.Dir = dir
						cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
						got, err := cmd.CombinedOutput()
						if err != nil {
							t.Fatalf("node client.mjs %s: %v\n%s", client, err, got)
						}
						return string(got)
					})
					if !strings.Contains(text, up.answer) {
						t.Errorf("%s got %q, want the upstream's answer %q", client, text, up.answer)
					}
				})
			}
			for _, asked := range mcp.SupportedProtocolVersions() {
				t.Run(up.name+"/"+transport+"/go-sdk-"+asked, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "rec.json")
					handshakeRecord(t, dir, out, up, transport, func(target []string) string {
						return goHandshake(t, target, asked, up.revision)
					})
				})
			}
		}
	}
}

// handshakeRecord runs `mcptest record --output out` in front of up, over
// transport, and session (the client, handed the record command's argv
// over stdio or the proxy's URL as `--url URL` over HTTP); it checks the
// cassette holds the session as one run calling get-sum {a: 2, b: 3}, and
// returns what session returned.
func handshakeRecord(t *testing.T, dir, out string, up handshakeUpstream, transport string, session func(target []string) string) string {
	t.Helper()
	args := append([]string{"record", "--append", "--output", out, "--name", up.name, "--"}, up.argv...)
	var text string
	if transport == "stdio" {
		text = session(append([]string{processBin(t)}, args...))
	} else {
		p := startProc(t, procSpec{args: append([]string{"record", "--listen", "127.0.0.1:0", "--output", out, "--name", up.name, "--"}, up.argv...), dir: dir})
		addr := regexp.MustCompile(`point the agent at (http://\S+)`)
		p.waitFor(time.Minute, "the proxy's address", func() bool { return addr.MatchString(p.stderr.String()) })
		text = session([]string{"--url", addr.FindStringSubmatch(p.stderr.String())[1]})
		p.signal(syscall.SIGINT)
		if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
			t.Fatalf("record --listen: exit %d, signal %v\n%s", code, sig, p.stderr.String())
		}
		if !strings.Contains(p.stderr.String(), "recorded 1 call in 1 session: appended 1 run") {
			t.Errorf("record --listen says:\n%s", p.stderr.String())
		}
	}
	c, err := cassette.ReadFile(out)
	if err != nil {
		t.Fatalf("the recording: %v", err)
	}
	if len(c.Runs) != 1 || len(callsOf(&c.Runs[0])) != 1 || callsOf(&c.Runs[0])[0].Tool != "get-sum" {
		t.Fatalf("the recording holds %+v, want one run calling get-sum", c.Runs)
	}
	if args, _ := json.Marshal(callsOf(&c.Runs[0])[0].Arguments); string(args) != `{"a":2,"b":3}` {
		t.Errorf("get-sum recorded with %s", args)
	}
	return text
}

// goHandshake opens a session with the Go SDK's client asking revision
// asked, through the record command target (argv, or --url URL), lists the
// tools and calls get-sum: the answer's text. The revision negotiated is
// no newer than the one asked or the upstream's.
func goHandshake(t *testing.T, target []string, asked, upstream string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var tr mcp.Transport
	if target[0] == "--url" {
		tr = &mcp.StreamableClientTransport{Endpoint: target[1]}
	} else {
		cmd := exec.Command(target[0], target[1:]...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
		tr = &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "handshake-go", Version: "v1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: asked})
	if err != nil {
		t.Fatalf("connect asking %s: %v", asked, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got > asked || got > upstream {
		t.Errorf("asked %s over an upstream of %s: negotiated %s", asked, upstream, got)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res := callTool(t, ctx, cs, "get-sum", map[string]any{"a": 2, "b": 3})
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return strings.Join(text, " ")
}

// TestProcessRecordDiscoverAtOnce starts the built binary's `record` in
// front of a server that does not start until the test lets it (it waits
// on a FIFO): the client's server/discover is answered while the upstream
// is still starting, claiming the 2025 revisions only and no capability;
// the initialize the client sends after it opens the session once the
// upstream answered; a server/discover then claims the upstream's
// revision, capabilities and name; the call is recorded as one run.
func TestProcessRecordDiscoverAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "start")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "rec.json")
	p := startProc(t, procSpec{args: []string{"record", "--output", out, "--", "sh", "-c", `read go < "$0" && exec "$1" stdio`, fifo, server}, dir: dir, pipes: true})
	lines := bufio.NewReader(p.out)
	exchange := func(msg string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(p.in, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(msg, `"method":"notifications/`) {
			return nil
		}
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("%v\n%s", err, p.stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		res, _ := m["result"].(map[string]any)
		if res == nil {
			t.Fatalf("%s answered %s", msg, line)
		}
		return res
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`
	res := exchange(discover)
	if vs := strings.Fields(strings.Trim(jsonText(res["supportedVersions"]), "[]")); len(vs) == 0 || slices.Contains(vs, `"2026-07-28"`) || jsonText(res["capabilities"]) != "{}" {
		t.Errorf("the discover while the upstream starts claims %s", jsonText(res))
	}
	// The initialize goes first, then the upstream may start.
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	line, err := lines.ReadString('\n')
	if err != nil || !strings.Contains(line, `"protocolVersion":"2025-11-25"`) || !strings.Contains(line, `"name":"mcp-servers/everything"`) {
		t.Fatalf("the initialize after a discover: %q, %v\n%s", line, err, p.stderr.String())
	}
	exchange(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	res = exchange(strings.Replace(discover, `"id":1`, `"id":3`, 1))
	if got := jsonText(res["supportedVersions"]); !strings.HasPrefix(got, `["2025-11-25",`) || strings.Contains(got, "2026") {
		t.Errorf("the discover after the upstream answered claims the revisions %s", got)
	}
	if got := jsonText(res["capabilities"]); got != `{"prompts":{},"resources":{},"tools":{}}` {
		t.Errorf("the discover after the upstream answered claims %s (server-everything also has completions and logging, which the proxy does not forward)", got)
	}
	if got := jsonText(res["_meta"]); !strings.Contains(got, `"name":"mcp-servers/everything"`) {
		t.Errorf("the discover after the upstream answered names %s", got)
	}
	if got := jsonText(exchange(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":3}}}`)); !strings.Contains(got, "The sum of 2 and 3 is 5.") {
		t.Errorf("tools/call answered %s", got)
	}
	p.in.Close()
	if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
		t.Fatalf("record: exit %d, signal %v\n%s", code, sig, p.stderr.String())
	}
	if want := "recorded 1 call in 1 session: appended 1 run, skipped 0 connections"; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("record says %q, want %q", p.stderr.String(), want)
	}
}

func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// callsOf lists the run's calls, for a test that indexes them.
func callsOf(r *cassette.Run) []*cassette.Call {
	var out []*cassette.Call
	for _, c := range r.Calls() {
		out = append(out, c)
	}
	return out
}
