package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The trust boundary of the front door, driven through the real binary
// over its stdin and stdout: the agent on the other side is untrusted.

// stdioDoor is one `mcptest mcp-server` process and the lines it answers.
type stdioDoor struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	next  int
}

// startDoor starts the front door in ws with env added to this process's
// environment, and initializes the session.
func startDoor(t *testing.T, ws string, env []string, args ...string) *stdioDoor {
	t.Helper()
	cmd := exec.Command(mcptestBin(t), append([]string{"mcp-server"}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &stdioDoor{t: t, cmd: cmd, in: in, lines: make(chan string, 64), next: 100}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	d.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"boundary-test","version":"v1"}}}`)
	if got := d.recv(); !strings.Contains(got, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	d.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return d
}

func (d *stdioDoor) send(line string) {
	d.t.Helper()
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		d.t.Fatalf("write to the front door: %v", err)
	}
}

// recv is the next line the front door writes, within 60 s.
func (d *stdioDoor) recv() string {
	d.t.Helper()
	select {
	case l, ok := <-d.lines:
		if !ok {
			d.t.Fatalf("the front door closed its stdout (exit: %v)", d.cmd.Wait())
		}
		return l
	case <-time.After(60 * time.Second):
		d.t.Fatal("the front door did not answer within 60 s")
	}
	return ""
}

// call calls a verb and returns its text and isError.
func (d *stdioDoor) call(verb string, args map[string]any) (string, bool) {
	d.t.Helper()
	d.next++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": d.next, "method": "tools/call", "params": map[string]any{"name": verb, "arguments": args}})
	d.send(string(b))
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	line := d.recv()
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID != d.next {
		d.t.Fatalf("%s: answer %s (%v), want id %d", verb, line, err, d.next)
	}
	if resp.Error != nil {
		return resp.Error.Message, true
	}
	if len(resp.Result.Content) == 0 {
		return "", resp.Result.IsError
	}
	return resp.Result.Content[0].Text, resp.Result.IsError
}

// credentialHost records the Authorization header of every request.
type credentialHost struct {
	mu   sync.Mutex
	seen []string
	next http.Handler
}

func (h *credentialHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, fmt.Sprintf("%s %s Authorization=%s", r.Method, r.URL.Path, r.Header.Get("Authorization")))
	h.mu.Unlock()
	if h.next != nil {
		h.next.ServeHTTP(w, r)
		return
	}
	http.Error(w, "nothing here", http.StatusInternalServerError)
}

func (h *credentialHost) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// The read-only front door never sends an env var of its own environment to
// a url the operator did not declare with it: an undeclared url, a declared
// url with another env var, or a declared server redirecting elsewhere.
func TestMCPServerURLGate(t *testing.T) {
	attacker := &credentialHost{}
	attackSrv := httptest.NewServer(attacker)
	defer attackSrv.Close()
	// A declared server that sends its clients to the attacker.
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, attackSrv.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcptest.yml"), "servers:\n  redirecting:\n    url: "+redirector.URL+"/mcp\n    bearer_token_env: DECLARED_TOKEN\n")
	d := startDoor(t, ws, []string{"MCPTEST_SECRET_TOKEN=s3cr3t", "DECLARED_TOKEN=decl"})

	for _, verb := range []string{"list_tools", "get_capabilities", "get_doctor_report", "scaffold_suite"} {
		for _, args := range []map[string]any{
			{"url": attackSrv.URL + "/mcp", "bearer_token_env": "MCPTEST_SECRET_TOKEN"},
			{"url": redirector.URL + "/mcp", "bearer_token_env": "MCPTEST_SECRET_TOKEN"},
		} {
			text, isErr := d.call(verb, args)
			if !isErr || !strings.Contains(text, "refused") || !strings.Contains(text, "--enable-writes") || !strings.Contains(text, "servers:") {
				t.Errorf("%s %v: %q: want a refusal naming --enable-writes and servers:", verb, args, text)
			}
		}
	}
	// As declared, the redirect to the attacker is not followed.
	for _, verb := range []string{"list_tools", "get_doctor_report"} {
		text, _ := d.call(verb, map[string]any{"url": redirector.URL + "/mcp", "bearer_token_env": "DECLARED_TOKEN"})
		if !strings.Contains(text, "redirect from") {
			t.Errorf("%s of the declared redirecting server: %q; want the refused redirect", verb, text)
		}
	}
	if got := attacker.requests(); len(got) > 0 {
		t.Errorf("the attacker received %q", got)
	}
}

// One malformed line never ends the front door: the real binary answers
// each with its JSON-RPC error (id null when no valid id can be read) and
// then answers the next valid request, in one session.
func TestMCPServerMalformedFrames(t *testing.T) {
	d := startDoor(t, t.TempDir(), nil)
	for i, bf := range []struct{ frame, want string }{
		{"garbage", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{"[]", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"1.0","id":8,"method":"ping"}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":9,"method":5}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,`},
		{"\x00", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"2.0","id":11,"method":"ping","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`{"jsonrpc":"2.0","id":12,"method":"ping","params":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the line is over 16777216 bytes`},
	} {
		d.send(bf.frame)
		if got := d.recv(); !strings.HasPrefix(got, bf.want) {
			t.Errorf("frame %d (%.60q): answer %.200s; want %s", i, bf.frame, got, bf.want)
		}
		d.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"after-%d","method":"tools/list"}`, i))
		if got := d.recv(); !strings.HasPrefix(got, fmt.Sprintf(`{"jsonrpc":"2.0","id":"after-%d","result":{`, i)) {
			t.Errorf("the request after frame %d: %.200s", i, got)
		}
	}
}

// Paths outside the workspace are refused before they are touched, by the
// real binary: validate_suite answers an existing and a missing outside
// cassette alike, and a FIFO or a link to /dev/zero among the runs does not
// hang list_runs.
func TestMCPServerPathsOutsideTheWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or unprivileged symbolic links")
	}
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	cas, err := os.ReadFile("../../examples/selection-f1/cassettes/search-then-shell.json")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, "exists.json"), string(cas))
	writeFile(t, filepath.Join(ws, "mcptest.yml"), "servers:\n  s: {command: [x]}\n")
	if err := os.MkdirAll(filepath.Join(ws, ".mcptest", "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"link": out, ".mcptest/runs/zero.json": "/dev/zero"} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ws, ".mcptest", "runs", "fifo.json"), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	d := startDoor(t, ws, nil)
	var answers []string
	for _, p := range []string{"link/exists.json", "link/missing.json", filepath.Join(out, "exists.json"), filepath.Join(out, "missing.json")} {
		suite := "servers:\n  s: {command: [x]}\nagents:\n  - name: a\n    cassette: " + strconv.Quote(p) + "\n"
		text, isErr := d.call("validate_suite", map[string]any{"suite": suite})
		if !isErr || !strings.Contains(text, "outside the workspace") {
			t.Errorf("validate_suite naming %s: %s; want a refusal", p, text)
		}
		answers = append(answers, strings.ReplaceAll(text, strconv.Quote(p), "PATH"))
	}
	if answers[0] != answers[1] || answers[2] != answers[3] {
		t.Errorf("an existing and a missing outside file are answered differently:\n%s", strings.Join(answers, "\n"))
	}
	if text, isErr := d.call("get_cassette", map[string]any{"name": "link/exists.json"}); !isErr || !strings.Contains(text, "outside the workspace") {
		t.Errorf("get_cassette through a link out: %s", text)
	}
	if text, isErr := d.call("list_runs", nil); isErr || !strings.Contains(text, `"total":0`) {
		t.Errorf("list_runs: %s", text)
	}
}
