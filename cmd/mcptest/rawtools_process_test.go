//go:build linux

package main

// A live server whose tools/list the SDK cannot decode as typed tools (an
// annotation hint that is not a boolean) or decodes into hints the server
// never sent ("annotations": {}): the live commands read the tools as the
// server wrote them, as they read a catalog file.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolsServerEnv, set for the test binary, makes it a stdio MCP server
// whose tools/list result is {"tools": FILE}, the file's bytes as they
// are.
const toolsServerEnv = "MCPTEST_TEST_TOOLS_SERVER"

// oddTools are tools as a careless server writes them: a string hint, an
// empty annotations object, a number hint, and a tool a lint passes.
const oddTools = `[
 {"name": "delete_file", "description": "Delete the file at a path in the workspace; it cannot be undone.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "The file to delete."}}, "required": ["path"]}, "annotations": {"readOnlyHint": "yes"}},
 {"name": "list_files", "description": "List the files under a directory of the workspace, one path a line.", "inputSchema": {"type": "object", "properties": {"dir": {"type": "string", "description": "The directory to list."}}}, "annotations": {}},
 {"name": "stat_file", "description": "Return the size and modification time of a file in the workspace.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "The file to stat."}}}, "annotations": {"destructiveHint": 0, "title": "Stat"}},
 {"name": "read_file", "description": "Read the text of a file in the workspace, at most one megabyte of it.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "The file to read."}}}, "annotations": {"readOnlyHint": true}}
]`

// answer is the fake server's answer to one request: its result, or nil
// for a method it does not have.
func answer(method string, params json.RawMessage, tools []byte) any {
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(params, &p)
		return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "odd-tools", "version": "1"}}
	case "tools/list":
		return map[string]json.RawMessage{"tools": tools}
	case "ping":
		return map[string]any{}
	}
	return nil
}

// reply is the JSON-RPC line answering msg, or nil for a notification.
func reply(msg []byte, tools []byte) []byte {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &req) != nil || req.ID == nil || req.Method == "" {
		return nil
	}
	res := answer(req.Method, req.Params, tools)
	var out []byte
	if res == nil {
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no method " + req.Method}})
	} else {
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": res})
	}
	return out
}

// runToolsServer is the stdio server toolsServerEnv starts.
func runToolsServer(file string) int {
	tools, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if out := reply(line, tools); out != nil {
			os.Stdout.Write(append(out, '\n'))
		}
		if err != nil {
			return 0
		}
	}
}

// oddHTTPServer is the same server over streamable HTTP, answering each
// request as an event stream when sse is set, as JSON otherwise.
func oddHTTPServer(t *testing.T, sse bool) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var msg json.RawMessage
		if json.NewDecoder(r.Body).Decode(&msg) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		out := reply(msg, []byte(oddTools))
		if out == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", out)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestProcessLiveToolsAsWritten: tools, doctor --lint-descriptions and
// security against live servers (stdio, HTTP answering JSON, HTTP
// answering an event stream) that send a non-boolean hint and an empty
// annotations object: each command reads the four tools, the lint reports
// DESC-011 for the two malformed hints, and the printed document holds the
// annotations as sent (no readOnlyHint the server did not send).
func TestProcessLiveToolsAsWritten(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(oddTools), 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string][]string{
		"stdio":     {"--", self},
		"http json": {"--url", oddHTTPServer(t, false)},
		"http sse":  {"--url", oddHTTPServer(t, true)},
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			run := func(args ...string) (string, int) {
				cmd := exec.Command(processBin(t), append(args, target...)...)
				cmd.Env = append(os.Environ(), toolsServerEnv+"="+file)
				out, err := cmd.Output()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
					out = append(out, ee.Stderr...)
				}
				return string(out), code
			}
			out, code := run("tools", "--format", "json")
			var doc struct {
				Tools []map[string]any `json:"tools"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Tools) != 4 {
				t.Fatalf("tools: exit %d, want 0 and four tools:\n%s", code, out)
			}
			want := []string{`{"readOnlyHint":"yes"}`, `{}`, `{"destructiveHint":0,"title":"Stat"}`, `{"readOnlyHint":true}`}
			for i, tool := range doc.Tools {
				if got, _ := json.Marshal(tool["annotations"]); string(got) != want[i] {
					t.Errorf("tools: %v annotations %s, want them as sent: %s", tool["name"], got, want[i])
				}
			}
			out, code = run("doctor", "--lint-descriptions", "--format", "json")
			if code != 0 || strings.Count(out, `"DESC-011"`) != 2 || !strings.Contains(out, `"tools": 4`) {
				t.Errorf("doctor --lint-descriptions: exit %d, want 0, four tools and DESC-011 twice:\n%s", code, out)
			}
			out, code = run("security")
			if code == 3 || !strings.Contains(out, "4 tools scanned") {
				t.Errorf("security: exit %d, want the four tools scanned:\n%s", code, out)
			}
		})
	}
}
