//go:build linux

package main

// The process-level tests: the built binary, started as a user or a runner
// starts it (its own environment, working directory and signals), against
// a real counterpart, each row asserting on what the other side received.
// They catch what the in-process Command.Main tests cannot: main's own
// wiring, such as a context cancelled before the subcommand ran.
//
// MCPTEST_PROCESS_BIN runs them against another binary (one built from an
// earlier commit, to show what they catch). Linux only: the wire tap ends
// with the process that started it (Pdeathsig), and signals are POSIX's.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// processBinEnv names a binary to test instead of the one built from this
// tree.
const processBinEnv = "MCPTEST_PROCESS_BIN"

// tapEnv, set for the test binary, makes it the wire tap: it runs its
// arguments as a stdio MCP server and appends every byte the server reads
// to the file tapEnv names.
const tapEnv = "MCPTEST_TEST_TAP"

func TestMain(m *testing.M) {
	if file := os.Getenv(tapEnv); file != "" {
		os.Exit(runTap(file, os.Args[1:]))
	}
	if file := os.Getenv(toolsServerEnv); file != "" {
		os.Exit(runToolsServer(file))
	}
	rsstest.Serve()
	if spec := os.Getenv(floodServerEnv); spec != "" {
		os.Exit(runFloodServer(spec))
	}
	// Every built binary the tests run caches every replayed case, however
	// small its cassettes: the cache's tests run the examples.
	// TestCacheMinBytes runs the default.
	os.Setenv(cacheMinEnv, "0")
	code := m.Run()
	removeBuilds()
	if snapshotDir != "" {
		// The snapshot's directory (69 MB) outlives the tests that share
		// it; it was left behind by every run.
		os.RemoveAll(filepath.Dir(snapshotDir))
	}
	os.Exit(code)
}

// runTap runs argv with the tap's stdout and stderr, copies its stdin to
// both the server and the file, passes SIGINT and SIGTERM on, and exits
// with the server's code. The server is killed if the tap dies.
func runTap(file string, argv []string) int {
	log, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil || len(argv) == 0 {
		os.Stderr.WriteString("tap: " + file + ": no server or " + errString(err) + "\n")
		return 3
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	runtime.LockOSThread() // Pdeathsig follows the thread that started the server
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("tap: " + err.Error() + "\n")
		return 3
	}
	go func() {
		_, _ = io.Copy(io.MultiWriter(log, in), os.Stdin)
		in.Close()
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sig {
			_ = cmd.Process.Signal(s)
		}
	}()
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		return max(exit.ExitCode(), 1)
	} else if err != nil {
		return 3
	}
	return 0
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// processBin is the binary under test: MCPTEST_PROCESS_BIN, else this
// tree's, built once per test binary (mcptestBin).
func processBin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv(processBinEnv); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	return mcptestBin(t)
}

// tap is a wire tap in front of a stdio server: Argv starts the server
// through it, Frames reads what the server was sent.
type tap struct {
	Argv []string
	// Env is the variable that turns the test binary into the tap; the
	// process that starts Argv must have it.
	Env  string
	file string
}

func newTap(t *testing.T, server ...string) *tap {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "frames.jsonl")
	return &tap{Argv: append([]string{self}, server...), Env: tapEnv + "=" + file, file: file}
}

// frame is one JSON-RPC message a server was sent.
type frame struct {
	Method string `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

// Frames are the messages the server read, in order.
func (tp *tap) Frames(t *testing.T) []frame {
	t.Helper()
	data, err := os.ReadFile(tp.file)
	if err != nil {
		t.Fatalf("the server behind the tap read nothing: %v", err)
	}
	var out []frame
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var f frame
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("the server was sent a line that is not JSON-RPC: %q", line)
		}
		out = append(out, f)
	}
	return out
}

// Methods are the methods of the frames, in order.
func (tp *tap) Methods(t *testing.T) []string {
	var m []string
	for _, f := range tp.Frames(t) {
		m = append(m, f.Method)
	}
	return m
}

// Calls are the tools/call frames' tool names, in order.
func (tp *tap) Calls(t *testing.T) []frame {
	var c []frame
	for _, f := range tp.Frames(t) {
		if f.Method == "tools/call" {
			c = append(c, f)
		}
	}
	return c
}

// wantMethods fails unless every method in want was sent.
func wantMethods(t *testing.T, tp *tap, want ...string) {
	t.Helper()
	got := tp.Methods(t)
	for _, m := range want {
		if !slices.Contains(got, m) {
			t.Errorf("the server was never sent %s; it was sent %v", m, got)
		}
	}
}

// syncBuffer is a buffer the process writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is the binary running as a process of its own group, so the test's
// cleanup ends whatever it left running (a server it started).
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	// in and out are the process's stdin and stdout when started with
	// pipes.
	in   io.WriteCloser
	out  io.ReadCloser
	done chan struct{}
	err  error
}

// procSpec is how a process is started: its arguments, working directory,
// environment (added to a bare one: PATH and a fresh HOME, nothing of the
// test's own) and whether its stdin and stdout are pipes.
type procSpec struct {
	args  []string
	dir   string
	env   []string
	pipes bool
}

func startProc(t *testing.T, s procSpec) *proc {
	t.Helper()
	cmd := exec.Command(processBin(t), s.args...)
	cmd.Dir = s.dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, s.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{t: t, cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if s.pipes {
		p.in, _ = cmd.StdinPipe()
		p.out, _ = cmd.StdoutPipe()
	} else {
		p.stdout = &syncBuffer{}
		cmd.Stdout = p.stdout
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group: the process and what it started
		<-p.done
	})
	return p
}

// runProc runs the binary to its end (at most two minutes) and returns
// its output and exit code.
func runProc(t *testing.T, s procSpec) (stdout, stderr string, code int) {
	t.Helper()
	p := startProc(t, s)
	code, sig := p.wait(2 * time.Minute)
	if sig != 0 {
		t.Fatalf("mcptest %s ended by %v\n%s", strings.Join(s.args, " "), sig, p.stderr.String())
	}
	return p.stdout.String(), p.stderr.String(), code
}

// wait waits d for the process to end: its exit code, or the signal that
// ended it. Past d the test fails.
func (p *proc) wait(d time.Duration) (code int, sig syscall.Signal) {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.t.Fatalf("mcptest %s still runs after %s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), d, p.stderr.String())
	}
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal()
	}
	return ws.ExitStatus(), 0
}

// signal sends s to the process alone (not its group), as a terminal's
// Ctrl-C does to a foreground mcptest.
func (p *proc) signal(s syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		p.t.Fatalf("signal %v: %v", s, err)
	}
}

// waitFor polls until cond holds, failing after d or once the process has
// ended without it.
func (p *proc) waitFor(d time.Duration, what string, cond func() bool) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		select {
		case <-p.done:
			if cond() {
				return
			}
			p.t.Fatalf("mcptest %s ended (%v) before %s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.cmd.ProcessState, what, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s after %s\nstderr:\n%s", what, d, p.stderr.String())
		}
	}
}

// TestProcess runs the built binary, one row per command that takes a
// context or talks to something: the Action in every mode against the
// GitHub API stand-in, the MCP-facing commands against a real server from
// .ci/node behind a wire tap, and the signal behaviour of an interruptible
// and a non-interruptible command.
func TestProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	processBin(t) // build once, before the rows
	for _, row := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"action check on pull_request", processActionCheck},
		{"action baseline on push", processActionBaseline},
		{"action comment on workflow_run", processActionComment},
		{"action drift on schedule", processActionDrift},
		{"record then one SIGINT", processRecord},
		{"record stops at once on a second SIGINT", processRecordSecondSignal},
		{"mock until SIGTERM", processMock},
		{"mcp-server over stdio", processMCPServer},
		{"mcp-server --install refuses a config it cannot edit", processInstallRefuses},
		{"view until SIGTERM", processView},
		{"tools on a live server", processTools},
		{"doctor on a live server", processDoctor},
		{"security on a live server", processSecurity},
		{"run with live tool tests", processRunLive},
		{"run ends on SIGINT by default", processRunSignal},
	} {
		t.Run(row.name, row.run)
	}
}

// processRecord: `record` proxies server-everything for the Go SDK's
// client; the calls reach the server, and one SIGINT writes the cassette
// and exits 0.
func processRecord(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "session.json")
	args := append([]string{"record", "--output", out, "--name", "everything", "--agent", "bintest", "--"}, tp.Argv...)
	p := startProc(t, procSpec{args: args, dir: dir, env: []string{tp.Env}, pipes: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bintest", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect through record: %v\n%s", err, p.stderr.String())
	}
	if res := callTool(t, ctx, cs, "echo", map[string]any{"message": "through the binary"}); res.Content[0].(*mcp.TextContent).Text != "Echo: through the binary" {
		t.Errorf("echo answered %v", res.Content[0])
	}
	callTool(t, ctx, cs, "get-sum", map[string]any{"a": 2, "b": 40})

	p.signal(syscall.SIGINT) // the session is still open: the interrupt ends it
	if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
		t.Fatalf("record after one SIGINT: exit %d, signal %v, want a clean exit 0\n%s", code, sig, p.stderr.String())
	}
	if calls := tp.Calls(t); len(calls) != 2 || calls[0].Params.Name != "echo" || calls[1].Params.Name != "get-sum" || calls[1].Params.Arguments["b"] != 40.0 {
		t.Errorf("the server was sent the calls %+v, want echo then get-sum(2, 40)", calls)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no cassette after the interrupt: %v\n%s", err, p.stderr.String())
	}
	var doc struct {
		Agent string `json:"agent"`
		Runs  []struct {
			Turns []struct {
				Calls []struct {
					Tool      string         `json:"tool"`
					Arguments map[string]any `json:"arguments"`
				} `json:"calls"`
			} `json:"turns"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Agent != "bintest" || len(doc.Runs) != 1 || len(doc.Runs[0].Turns) == 0 {
		t.Fatalf("cassette (%v):\n%.600s", err, data)
	}
	var tools []string
	for _, turn := range doc.Runs[0].Turns {
		for _, c := range turn.Calls {
			tools = append(tools, c.Tool)
		}
	}
	if !slices.Equal(tools, []string{"echo", "get-sum"}) {
		t.Errorf("the cassette holds the calls %v, want [echo get-sum]", tools)
	}
}

// processRecordSecondSignal: the first SIGINT stops `record`, which writes
// the cassette and then waits for its server to go (one whose child keeps
// the server's stderr open, so stopping it takes the proxy its grace); a
// second SIGINT then ends the process at once, by the signal.
func processRecordSecondSignal(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "session.json")
	server := []string{"sh", "-c", `sleep 60 & exec "$0"`, everythingBin(t)}
	p := startProc(t, procSpec{args: append([]string{"record", "--output", out, "--"}, server...), dir: dir, pipes: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bintest", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect through record: %v\n%s", err, p.stderr.String())
	}
	callTool(t, ctx, cs, "echo", map[string]any{"message": "once"})
	p.signal(syscall.SIGINT)
	p.waitFor(20*time.Second, "cassette written after the first SIGINT", func() bool {
		return strings.Contains(p.stderr.String(), "mcptest: recorded 1 call ")
	})
	p.signal(syscall.SIGINT)
	start := time.Now()
	code, sig := p.wait(20 * time.Second)
	if sig != syscall.SIGINT {
		t.Errorf("after a second SIGINT: exit %d, signal %v, %s later; want the process ended by SIGINT's default action\n%s", code, sig, time.Since(start).Round(time.Millisecond), p.stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the first SIGINT did not write the cassette: %v", err)
	}
}

// processRunSignal: `run` is not interruptible: a SIGINT while it waits for
// its server ends it by the signal's default action, at once.
func processRunSignal(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	server := []string{"sh", "-c", `touch "$0"; exec sleep 60`, started}
	suite := filepath.Join(dir, "suite.yml")
	servers := "  silent:\n    command: [" + strings.Join(quoteAll(server...), ", ") + "]\n"
	writeFile(t, suite, "servers:\n"+servers+"tools:\n  - name: never answered\n    tool: echo\n")
	p := startProc(t, procSpec{args: []string{"run", "--config", suite}, dir: dir})
	p.waitFor(30*time.Second, "server started by run", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	p.signal(syscall.SIGINT)
	start := time.Now()
	code, sig := p.wait(10 * time.Second)
	if sig != syscall.SIGINT {
		t.Errorf("run after SIGINT: exit %d, signal %v, %s later; want it ended by SIGINT's default action\n%s", code, sig, time.Since(start).Round(time.Millisecond), p.stderr.String())
	}
}

// processMock: `mock` serves its catalog file to the Go SDK's client,
// answering a call with the call; a SIGTERM stops it cleanly, exit 0.
func processMock(t *testing.T) {
	catalog, _ := filepath.Abs("testdata/live/catalog.yml")
	p := startProc(t, procSpec{args: []string{"mock", "--tools-from", catalog}, dir: t.TempDir(), pipes: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bintest", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect to mock: %v\n%s", err, p.stderr.String())
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 2 || list.Tools[0].Name != "fetch_doc" {
		t.Fatalf("tools/list: %v %v", err, list)
	}
	res := callTool(t, ctx, cs, "fetch_doc", map[string]any{"id": "bintest"})
	if data, _ := json.Marshal(res); !strings.Contains(string(data), "fetch_doc") || !strings.Contains(string(data), "bintest") {
		t.Errorf("fetch_doc answered %s", data)
	}
	p.signal(syscall.SIGTERM)
	if code, sig := p.wait(20 * time.Second); code != ExitOK || sig != 0 {
		t.Errorf("mock after SIGTERM: exit %d, signal %v, want a clean exit 0\n%s", code, sig, p.stderr.String())
	}
}

// processMCPServer: `mcp-server` over stdio answers initialize, tools/list
// and a tools/call of list_tools, which reaches the live server it names;
// a SIGINT then ends it cleanly.
func processMCPServer(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcptest.yml"), "servers:\n  everything:\n    command: ["+strings.Join(quoteAll(tp.Argv...), ", ")+"]\n")
	p := startProc(t, procSpec{args: []string{"mcp-server"}, dir: ws, env: []string{tp.Env}, pipes: true})
	frames := []map[string]any{
		{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "bintest", "version": "1"}}},
		{"jsonrpc": "2.0", "method": "notifications/initialized"},
		{"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
		{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "list_tools", "arguments": map[string]any{"command": tp.Argv}}},
	}
	enc := json.NewEncoder(p.in)
	for _, f := range frames {
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
	}
	answers := readAnswers(t, p, 3)
	var init struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}
	json.Unmarshal(answers[1], &init)
	if init.ServerInfo.Name == "" {
		t.Errorf("initialize answered %s", answers[1])
	}
	var list struct{ Tools []struct{ Name string } }
	json.Unmarshal(answers[2], &list)
	var verbs []string
	for _, tl := range list.Tools {
		verbs = append(verbs, tl.Name)
	}
	slices.Sort(verbs)
	if !slices.Equal(verbs, frontDoorVerbs) {
		t.Errorf("tools/list answered %v\nwant %v", verbs, frontDoorVerbs)
	}
	var call struct {
		IsError           bool `json:"isError"`
		StructuredContent struct{ Tools []struct{ Name string } }
	}
	json.Unmarshal(answers[3], &call)
	if call.IsError || !hasTool(call.StructuredContent.Tools, "echo") {
		t.Errorf("list_tools answered %.600s", answers[3])
	}
	wantMethods(t, tp, "initialize", "tools/list")

	p.signal(syscall.SIGINT)
	if code, sig := p.wait(20 * time.Second); code != ExitOK || sig != 0 {
		t.Errorf("mcp-server after SIGINT: exit %d, signal %v, want a clean exit 0\n%s", code, sig, p.stderr.String())
	}
}

// processInstallRefuses: `mcp-server --install` in a workspace whose
// committed .mcp.json holds the servers key twice exits 2 with the file's
// line and column of the second key, and leaves the file as it was.
func processInstallRefuses(t *testing.T) {
	dir := t.TempDir()
	config := "{\n  \"mcpServers\": {},\n  \"mcpServers\": {\"x\": {}}\n}\n"
	writeFile(t, filepath.Join(dir, ".mcp.json"), config)
	_, stderr, code := runProc(t, procSpec{args: []string{"mcp-server", "--install", "--absolute", "--root", dir}, dir: dir})
	want := filepath.Join(dir, ".mcp.json") + `:3:3: the key "mcpServers" is given twice`
	if code != ExitInput || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want %d and %q in\n%s", code, ExitInput, want, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".mcp.json")); string(data) != config {
		t.Errorf("the config was changed:\n%s", data)
	}
}

func hasTool(tools []struct{ Name string }, name string) bool {
	return slices.ContainsFunc(tools, func(t struct{ Name string }) bool { return t.Name == name })
}

// readAnswers reads the process's stdout until the answers to ids 1..n
// are in (at most a minute), and returns their results by id; an error
// answer fails the test.
func readAnswers(t *testing.T, p *proc, n int) map[int]json.RawMessage {
	t.Helper()
	got := map[int]json.RawMessage{}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(p.out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(time.Minute)
	for len(got) < n {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended with %d of %d answers\n%s", len(got), n, p.stderr.String())
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("stdout line is not JSON-RPC: %q", line)
			}
			if msg.ID == nil { // a notification or a request of the server's
				continue
			}
			if msg.Error != nil {
				t.Fatalf("request %d answered an error: %s", *msg.ID, msg.Error)
			}
			got[*msg.ID] = msg.Result
		case <-deadline:
			t.Fatalf("%d of %d answers after a minute\n%s", len(got), n, p.stderr.String())
		}
	}
	return got
}

// processView: `view RUN.json` prints where it serves, serves the report
// and the envelope to a client, and a SIGTERM ends it with exit 0.
func processView(t *testing.T) {
	run := savedRun(t, "../../examples/distractor-floor-fails/suite.yml")
	p := startProc(t, procSpec{args: []string{"view", run, "--addr", "127.0.0.1:0"}, dir: t.TempDir()})
	var base string
	p.waitFor(30*time.Second, "serving address on stderr", func() bool {
		_, rest, ok := strings.Cut(p.stderr.String(), " on http://")
		base, _, _ = strings.Cut(rest, "/ ")
		return ok && strings.Contains(rest, "/ ")
	})
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, page := get("/"); code != 200 || !strings.Contains(page, "Audit this run") {
		t.Errorf("GET /: %d\n%.300s", code, page)
	}
	saved, _ := os.ReadFile(run)
	if code, body := get("/run.json"); code != 200 || body != string(saved) {
		t.Errorf("GET /run.json: %d, not the saved envelope", code)
	}
	p.signal(syscall.SIGTERM)
	if code, sig := p.wait(20 * time.Second); code != ExitOK || sig != 0 {
		t.Errorf("view after SIGTERM: exit %d, signal %v\n%s", code, sig, p.stderr.String())
	}
	if !strings.Contains(p.stdout.String(), "snapshot: ") {
		t.Errorf("view printed no snapshot address:\n%s", p.stdout.String())
	}
}

// processTools: `tools` lists the live server's real tools, asked with
// initialize and tools/list.
func processTools(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	stdout, stderr, code := runProc(t, procSpec{args: append([]string{"tools", "--format", "json", "--"}, tp.Argv...), dir: t.TempDir(), env: []string{tp.Env}})
	var doc struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != ExitOK || !hasTool(doc.Tools, "echo") || !hasTool(doc.Tools, "get-sum") {
		t.Fatalf("tools: exit %d (%v)\n%.500s\n%s", code, err, stdout, stderr)
	}
	wantMethods(t, tp, "initialize", "notifications/initialized", "tools/list")
}

// processDoctor: `doctor` takes the live server through its layers, which
// the server sees as a handshake and listings.
func processDoctor(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	stdout, stderr, code := runProc(t, procSpec{args: append([]string{"doctor", "--"}, tp.Argv...), dir: t.TempDir(), env: []string{tp.Env}})
	if code != ExitOK || !strings.Contains(stdout, " tools, ") {
		t.Fatalf("doctor: exit %d\n%s%s", code, stdout, stderr)
	}
	wantMethods(t, tp, "initialize", "tools/list")
}

// processSecurity: `security` scans the live server's catalog, which it
// asks for with tools/list.
func processSecurity(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	stdout, stderr, code := runProc(t, procSpec{args: append([]string{"security", "--"}, tp.Argv...), dir: t.TempDir(), env: []string{tp.Env}})
	if code != ExitOK || !strings.Contains(stdout, " tools scanned, 0 findings") {
		t.Fatalf("security: exit %d\n%s%s", code, stdout, stderr)
	}
	wantMethods(t, tp, "initialize", "tools/list")
}

// processRunLive: `run` on a suite with live tools: tests calls the real
// server with the tests' arguments and gates its answers.
func processRunLive(t *testing.T) {
	tp := newTap(t, everythingBin(t))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yml"), "servers:\n  everything:\n    command: ["+strings.Join(quoteAll(tp.Argv...), ", ")+`]
tools:
  - name: echo echoes
    tool: echo
    args: {message: from the binary}
    expect:
      - result.content[0].text: {exact: "Echo: from the binary"}
  - name: get-sum adds
    tool: get-sum
    args: {a: 20, b: 22}
    expect:
      - result.content[0].text: {contains: "42"}
`)
	stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--reporter", "agent"}, dir: dir, env: []string{tp.Env}})
	if code != ExitOK || !strings.HasPrefix(stdout, "VERDICT pass 2/2 passed") {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	calls := tp.Calls(t)
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Params.Name
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"echo", "get-sum"}) {
		t.Errorf("the server was sent the calls %v, want echo and get-sum", names)
	}
	for _, c := range calls {
		if c.Params.Name == "echo" && c.Params.Arguments["message"] != "from the binary" {
			t.Errorf("echo was sent %v", c.Params.Arguments)
		}
	}
}
