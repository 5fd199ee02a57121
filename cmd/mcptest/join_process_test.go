//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordJoinSession records one session of the Go SDK's client through the
// built binary's `record`, in front of server-everything, appending it as a
// run to the cassette out; the client calls tools in order, each with its
// arguments.
func recordJoinSession(t *testing.T, out string, calls ...toolCall) {
	t.Helper()
	args := []string{"record", "--output", out, "--append", "--name", "everything", "--agent", "sum-agent", "--", everythingBin(t)}
	p := startProc(t, procSpec{args: args, dir: filepath.Dir(out), pipes: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sum-agent", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect through record: %v\n%s", err, p.stderr.String())
	}
	for _, c := range calls {
		callTool(t, ctx, cs, c.tool, c.args)
	}
	p.signal(syscall.SIGINT)
	if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
		t.Fatalf("record: exit %d, signal %v\n%s", code, sig, p.stderr.String())
	}
}

// joinedProcessSuite gates the tools of the proxy's recording and the
// tokens, model and answer of the AI SDK's spans of the same run in one
// test, written with the names the OpenAI Agents SDK shows the model.
const joinedProcessSuite = `aliases:
  get_sum: get-sum
agents:
  - name: sum agent
    sources:
      - cassette: proxy.json
        use: [calls]
      - cassette: spans.json
        use: [tokens, model, answer]
    tool_edges: { allowed: [get_sum], restricted: [echo] }
    equal_function_sets:
      classes: [{ name: sum, members: [get_sum] }]
      expect: [{ tool_selection.precision: { ">=": 100 } }]
    expect:
      - tool_names: { exact: [get_sum] }
      - tokens.total: { "<=": 300 }
      - model: { exact: mock-sum-1 }
      - final_response: { contains: "The sum is 5." }
`

type toolCall = struct {
	tool string
	args map[string]any
}

// TestProcessJoinedSources: a real run recorded by the built binary's
// `record` in front of server-everything, joined with the AI SDK's spans
// of the run, passes one test gating both its tools and its tokens under
// the Agents SDK's name get_sum; a regressed recording (a restricted call
// before the sum) fails it on the tool gates with the tokens still read;
// and a proxy recording of one run more than the spans is refused, naming
// both files and their run counts at the suite's sources: key.
func TestProcessJoinedSources(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	spans, err := os.ReadFile(frameworkCorpus + "ok/ai_sdk_spans_traced.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := toolCall{"get-sum", map[string]any{"a": 2, "b": 3}}
	for _, tc := range []struct {
		name     string
		sessions [][]toolCall
		// tokens, when set, is the input tokens of the spans' second model
		// call in place of the 150 recorded.
		tokens string
		code   int
		want   []string
	}{
		{"the run as recorded", [][]toolCall{{sum}}, "", ExitOK, []string{
			"PASS  sum agent  (1 run)  edges.allowed_pct=100 edges.gate_passed=1 edges.restricted_attempts=0 tool_selection.f1=100 tool_selection.precision=100 tool_selection.recall=100",
			"1 passed, 0 failed"}},
		{"a regressed run: a restricted call", [][]toolCall{{{"echo", map[string]any{"message": "2 + 3"}}, sum}}, "", ExitFail, []string{
			"FAIL  sum agent  (1 run)  edges.allowed_pct=100 edges.gate_passed=0 edges.restricted_attempts=1 tool_selection.f1=67 tool_selection.precision=50 tool_selection.recall=100",
			"suite.yml:13:16: assertion #0 (`tool_selection.precision`) failed: 50 is less than the minimum 100",
			"suite.yml:10:5: default gate of `tool_edges:` (`edges.restricted_attempts` <= 0) failed: 1 is greater than the maximum 0",
			"suite.yml:15:9: assertion #0 (`tool_names`) failed: got [\"echo\",\"get_sum\"], expected exactly [\"get_sum\"]",
			"failed: 1 is greater than the maximum 0\n        actual: 1\n        run 1: turn 1 call 1 called restricted tool `everything.echo`",
			"0 passed, 1 failed"}},
		{"a regressed run: more tokens", [][]toolCall{{sum}}, "1500", ExitFail, []string{
			"FAIL  sum agent  (1 run)  edges.allowed_pct=100 edges.gate_passed=1 edges.restricted_attempts=0 tool_selection.f1=100 tool_selection.precision=100 tool_selection.recall=100",
			"suite.yml:16:9: assertion #1 (`tokens.total`) failed: 1645 is greater than the maximum 300",
			"0 passed, 1 failed"}},
		{"a run more in the proxy", [][]toolCall{{sum}, {sum}}, "", ExitInput, []string{
			"suite.yml:5:5: sources of test \"sum agent\": runs are joined by order, and proxy.json (calls) holds 2 runs while spans.json (tokens, model, answer) holds 1 run: record the same runs in both, or join them by `key:` [suite]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, s := range tc.sessions {
				recordJoinSession(t, filepath.Join(dir, "proxy.json"), s...)
			}
			log := string(spans)
			if tc.tokens != "" {
				const second = `"gen_ai.usage.input_tokens","value":{"intValue":150}`
				if !strings.Contains(log, second) {
					t.Fatalf("the spans hold no %s", second)
				}
				log = strings.Replace(log, second, strings.Replace(second, "150", tc.tokens, 1), 1)
			}
			writeFile(t, filepath.Join(dir, "spans.json"), log)
			writeFile(t, filepath.Join(dir, "suite.yml"), joinedProcessSuite)
			stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--no-cache", "--config", "suite.yml"}, dir: dir})
			out := stdout + stderr
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the output says nothing of\n%s\n---\n%s", want, out)
				}
			}
			if strings.Contains(out, "get-sum") {
				t.Errorf("the output names the recorded get-sum, not the suite's get_sum:\n%s", out)
			}
		})
	}
}
