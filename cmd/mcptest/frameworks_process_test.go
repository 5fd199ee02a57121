//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
)

// frameworkCorpus is where the outputs the agent frameworks wrote are
// (cassette/testdata/frameworks records them).
const frameworkCorpus = "../../cassette/testdata/"

// TestProcessFrameworkRecordings runs the built binary on what the agent
// frameworks wrote: a recording that names tools where no reader takes
// them (the AI SDK's messages nested in a saved chat row) is refused by
// every command that reads recordings (exit 2, file:line:col, its shape
// and the reader that takes it as a file of its own), never passed as
// valid; one that reads says which reader read it and what it read, and
// gates on its calls.
func TestProcessFrameworkRecordings(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	spans, err := filepath.Abs(frameworkCorpus + "err/ai_sdk_ui_chat_row.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	suite := "agents:\n  - name: sdk\n    cassette: " + strconv.Quote(spans) + "\n    expect:\n      - tool_names: { contains: get-sum }\n"
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", spans},
		{"validate", "--format", "json", spans},
		{"generate", "agent-suite", "--from", spans},
		{"run", "--config", "suite.yml"},
		{"validate", "suite.yml"},
	} {
		stdout, stderr, code := runProc(t, procSpec{args: args, dir: dir})
		out := stdout + stderr
		if code != ExitInput {
			t.Errorf("mcptest %s: exit %d, want %d\n%s", strings.Join(args, " "), code, ExitInput, out)
		}
		for _, want := range []string{spans + ":23:6", `holds a \"dynamic-tool\" part naming the tool \"get-sum\"`, "which the ai-sdk-ui-messages reader takes as a file of its own"} {
			if args[1] != "--format" {
				want = strings.ReplaceAll(want, `\"`, `"`)
			}
			if !strings.Contains(out, want) {
				t.Errorf("mcptest %s says nothing of %q:\n%s", strings.Join(args, " "), want, out)
			}
		}
		if strings.Contains(stdout, ": valid") {
			t.Errorf("mcptest %s called it valid:\n%s", strings.Join(args, " "), stdout)
		}
	}

	history, err := filepath.Abs(frameworkCorpus + "ok/openai_agents_history.json")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", history}, dir: dir})
	want := history + ": valid\n  read as openai-responses: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, agent \"sum_agent\"\n"
	if code != ExitOK || stdout != want {
		t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", history, code, stdout, stderr, want)
	}
	for _, tt := range []struct{ file, want string }{
		{"ok/openai_agents_trace.json", `read as openai-agents-trace: 1 run, 1 call, 1 result, tokens in 1/1 runs (384 in all), no models, no answer, agents "sum_agent", "triage"`},
		{"ok/langchain_lc_messages.json", `read as langchain-messages: 1 run, 1 call, 1 result, tokens in 1/1 runs (295 in all), model "scripted-sum-1", an answer in 1/1 runs, agent "sum_agent"`},
		{"ok/langchain_stored_messages.json", `read as langchain-messages: 1 run, 1 call, 1 result, tokens in 1/1 runs (295 in all), model "scripted-sum-1", an answer in 1/1 runs, agent "sum_agent"`},
		{"ok/ai_sdk_messages.json", `read as ai-sdk-messages: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, no agents`},
		{"ok/ai_sdk_ui_messages.json", `read as ai-sdk-ui-messages: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, no agents`},
		{"ok/langchain_openinference_spans.json", `read as otel-genai: 1 run, 1 call, 1 result, tokens in 1/1 runs (295 in all), model "scripted-sum-1", an answer in 1/1 runs, agent "sum_agent"`},
		{"ok/openai_agents_raw_responses.json", `read as openai-responses: 1 run, 1 call, 0 results, tokens in 1/1 runs (384 in all), no models, an answer in 1/1 runs, agent "sum_agent"`},
	} {
		file, err := filepath.Abs(frameworkCorpus + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
		if want := file + ": valid\n  " + tt.want + "\n"; code != ExitOK || stdout != want {
			t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", file, code, stdout, stderr, want)
		}
	}

	// The UIMessage array a chat UI keeps gates on the call it holds.
	ui, err := filepath.Abs(frameworkCorpus + "ok/ai_sdk_ui_messages.json")
	if err != nil {
		t.Fatal(err)
	}
	for tool, wantCode := range map[string]int{"get-sum": ExitOK, "echo": ExitFail} {
		suite := "agents:\n  - name: ui\n    cassette: " + strconv.Quote(ui) + "\n    expect:\n      - tool_names: { contains: " + tool + " }\n"
		if err := os.WriteFile(filepath.Join(dir, "ui.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "ui.yml", "--no-cache"}, dir: dir})
		if code != wantCode {
			t.Errorf("run with tool_names contains %s: exit %d, want %d\n%s%s", tool, code, wantCode, stdout, stderr)
		}
	}

	// The AI SDK's own spans, each a trace of its own: read with their
	// calls, and a warning that the runs were joined by time.
	otel, err := filepath.Abs(frameworkCorpus + "ok/ai_sdk_spans.json")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runProc(t, procSpec{args: []string{"validate", otel}, dir: dir})
	want = otel + ": valid\n  read as otel-genai: 2 runs, 2 calls, 2 results, tokens in 2/2 runs (590 in all), model \"mock-sum-1\", an answer in 2/2 runs, agent \"sum-agent\"\n" +
		"  warning: the 8 spans share no trace"
	if code != ExitOK || !strings.HasPrefix(stdout, want) {
		t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", otel, code, stdout, stderr, want)
	}
}

// TestProcessRecordSkipsProbes runs `record --append` as an MCP client
// library starts it: first a connection that only asks server/discover
// and goes (the MCP TypeScript SDK's probe) and writes nothing, its
// status line counting it skipped; then a session that initializes and
// calls nothing, then one that calls, each a run.
func TestProcessRecordSkipsProbes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "agent.json")
	args := []string{"record", "--append", "--output", out, "--", server, "stdio"}

	// The probe, as the MCP TypeScript SDK's client 2.4 sends it: one
	// request, its answer, end of input.
	p := startProc(t, procSpec{args: args, dir: dir, pipes: true})
	if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(p.out).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("the probe's answer %q, %v\n%s", line, err, p.stderr.String())
	}
	p.in.Close()
	if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
		t.Fatalf("record after a probe: exit %d, signal %v\n%s", code, sig, p.stderr.String())
	}
	want := "mcptest: recorded 0 calls in 0 sessions: appended 0 runs, skipped 1 connection that never initialized a session; " + out + " not written\n"
	if got := p.stderr.String(); !strings.HasSuffix(got, want) {
		t.Errorf("status %q, want %q", got, want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the probe wrote %s (%v)", out, err)
	}

	// Two sessions: one lists the tools and calls nothing, one calls
	// get-sum.
	for i, tools := range [][]string{nil, {"get-sum"}} {
		p := startProc(t, procSpec{args: args, dir: dir, pipes: true})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bintest", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
		if err != nil {
			t.Fatalf("connect through record: %v\n%s", err, p.stderr.String())
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			callTool(t, ctx, cs, tool, map[string]any{"a": 2, "b": 3})
		}
		cs.Close()
		cancel()
		if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
			t.Fatalf("record: exit %d, signal %v\n%s", code, sig, p.stderr.String())
		}
		want := "appended 1 run, skipped 0 connections that never initialized a session; " + out + " holds " + plural(i+1, "run") + "\n"
		if got := p.stderr.String(); !strings.HasSuffix(got, want) {
			t.Errorf("session %d: status %q, want the end %q", i+1, got, want)
		}
	}
	c, err := cassette.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 2 || len(callsOf(&c.Runs[0])) != 0 || len(callsOf(&c.Runs[1])) != 1 {
		t.Errorf("runs %+v, want one without a call and one with get-sum", c.Runs)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// TestProcessAgentSuiteUnclassed runs `generate agent-suite` through the
// binary on a recording whose runs agree on no tool (an empty run beside
// one that called get-sum): the suite is written with a REVIEW comment,
// a note and a summary that say it checks no tool.
func TestProcessAgentSuiteUnclassed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	rec := filepath.Join(dir, "probe.json")
	doc := `{"mcptest_cassette": 1, "catalog": {"everything": {"tools": [{"name": "get-sum", "inputSchema": {"type": "object"}}]}},
  "runs": [{"turns": [{"calls": []}]}, {"turns": [{"calls": [{"server": "everything", "tool": "get-sum", "arguments": {"a": 2, "b": 3}}]}]}]}`
	if err := os.WriteFile(rec, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runProc(t, procSpec{args: []string{"generate", "agent-suite", "--from", "probe.json", "--output", "suite.yml"}, dir: dir})
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`note: probe: NO SELECTION CLASS: every tool the runs called ("get-sum") was called in some runs only`,
		"mcptest: 1 agent test proposed from 1 recording, 1 of them WITH NO SELECTION CLASS (they pass whatever tools the agent calls: see the notes); suite written to suite.yml",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	suite, err := os.ReadFile(filepath.Join(dir, "suite.yml"))
	if err != nil || !strings.Contains(string(suite), "# REVIEW: NO SELECTION CLASS") {
		t.Errorf("the suite (%v) has no REVIEW comment:\n%s", err, suite)
	}
}

// TestProcessAISDKGate drafts a suite from the AI SDK's own spans through
// the binary, runs it (it passes, with the warning that the spans shared
// no trace), then runs it on the same spans with the agent calling
// get-env instead of get-sum: the tool checks fail. Read as GenAI spans
// only, the draft had no tool check and passed on both.
func TestProcessAISDKGate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	spans, err := os.ReadFile(frameworkCorpus + "ok/ai_sdk_spans.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spans.json"), spans, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runProc(t, procSpec{args: []string{"generate", "agent-suite", "--from", "spans.json", "--output", "suite.yml"}, dir: dir}); code != ExitOK {
		t.Fatalf("generate agent-suite: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml"}, dir: dir})
	if code != ExitOK || !strings.Contains(stdout, "tool_selection.f1=100") || !strings.Contains(stdout, "warning: spans.json: the 8 spans share no trace") {
		t.Fatalf("run on the recording: exit %d\n%s%s", code, stdout, stderr)
	}
	wrong := strings.ReplaceAll(string(spans), `{"key":"ai.toolCall.name","value":{"stringValue":"get-sum"}}`, `{"key":"ai.toolCall.name","value":{"stringValue":"get-env"}}`)
	if wrong == string(spans) {
		t.Fatal("the recording names no ai.toolCall.name get-sum")
	}
	if err := os.WriteFile(filepath.Join(dir, "spans.json"), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runProc(t, procSpec{args: []string{"run", "--config", "suite.yml"}, dir: dir})
	if code != ExitFail || !strings.Contains(stdout, "tool_selection.f1=0") || !strings.Contains(stdout, `get-sum`) {
		t.Errorf("run with the wrong tool: exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
}

// TestProcessAgentsSDKGate runs a suite through the binary on the trace
// the OpenAI Agents SDK exported: the call to everything.get-sum by
// sum_agent, the handoff from triage and the tokens pass their checks;
// on the SDK's trace of a call the server refused (the SDK marks nothing
// failed, its output is the MCP error's message) the is_error check
// fails. Before the reader, both files were refused (exit 2).
func TestProcessAgentsSDKGate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	suite := `agents:
  - name: sdk
    cassette: trace.json
    expect:
      - calls[0].id: "everything.get-sum"
      - calls[0].agent: sum_agent
      - calls[0].is_error: false
      - delegations: { contains: { from: triage, to: sum_agent } }
      - tokens.total: { "<=": 384 }
`
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file string
		code int
	}{{"openai_agents_trace.json", ExitOK}, {"openai_agents_error_trace.json", ExitFail}} {
		data, err := os.ReadFile(frameworkCorpus + "ok/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "trace.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml"}, dir: dir})
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.file, code, tt.code, stdout, stderr)
		}
		if failed := strings.Contains(stdout, "calls[0].is_error"); failed != (tt.code == ExitFail) {
			t.Errorf("%s: the is_error check failed=%v:\n%s", tt.file, failed, stdout)
		}
	}
}

// TestProcessLateHandoffResult runs the built binary on Agents SDK items
// where a handoff is called before the previous handoff's result names
// its agent: the agents are the ones the results name, and the snake-case
// name of the function (math_agent) is no agent of the run.
func TestProcessLateHandoffResult(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	call := func(id, name string) string {
		return `{"type": "function_call", "callId": "` + id + `", "name": "` + name + `", "arguments": "{}"}`
	}
	result := func(id, agent string) string {
		return `{"type": "function_call_result", "callId": "` + id + `", "output": {"type": "text", "text": "{\"assistant\":\"` + agent + `\"}"}}`
	}
	items := "[" + strings.Join([]string{`{"type": "message", "role": "user", "content": "go"}`,
		call("h0", "transfer_to_triage"), result("h0", "Triage"),
		call("h1", "transfer_to_math_agent"), call("h2", "transfer_to_writer"), result("h1", "Math Agent"), result("h2", "Writer"),
		call("c1", "echo"), `{"type": "function_call_result", "callId": "c1", "output": {"type": "text", "text": "hi"}}`,
	}, ",\n") + "]\n"
	file := filepath.Join(dir, "history.json")
	if err := os.WriteFile(file, []byte(items), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
	want := file + `: valid
  read as openai-responses: 1 run, 1 call, 1 result, no tokens, no models, no answer, agents "Math Agent", "Triage", "Writer"
`
	if code != ExitOK || stdout != want {
		t.Errorf("validate: exit %d\n%s%s\nwant\n%s", code, stdout, stderr, want)
	}
}
