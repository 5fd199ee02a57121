//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProcessSpanAndItemReaders runs the built binary on what agent
// frameworks wrote in the shapes their newer versions and other
// instrumentations write (cassette/testdata/frameworks records them):
// OpenInference's OpenAI spans (the calls inside LLM spans, the agents
// AGENT spans one inside the other), OpenLLMetry's spans with no span
// around a run (each model call a trace of its own), the Agents SDK's
// runs that only hand off and the Python SDK's snake_case items, AI SDK
// 7's results. `validate` says what each read, with the warning a guess
// needs; `run` gates on the calls read, passing when the suite asks for a
// tool the runs called and failing when it asks for one they did not; a
// run that only hands off is read, never refused: a warning says it holds
// no call, and a test of it is inconclusive unless it says `no_calls:
// true`, when its answer is judged.
func TestProcessSpanAndItemReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		file, want string
		// warning starts the warning validate gives, "" for none.
		warning string
		// called is a tool every run called, "" for none.
		called string
	}{
		{"ok/openinference_openai_agents.json", `read as otel-genai: 1 run, 2 calls, 2 results, tokens in 1/1 runs (377 in all), model "gpt-4o-2024-08-06", an answer in 1/1 runs, agents "sum_agent", "triage"`, "", "get-sum"},
		{"ok/openllmetry_rootless.json", `read as otel-genai: 2 runs, 4 calls, 4 results, tokens in 2/2 runs (914 in all), model "gpt-4o-2024-08-06", an answer in 2/2 runs, no agents`,
			"the spans of each run are spread over traces of their own (6 traces of model calls with no agent, workflow or chain span around them): read as 2 runs, 4 traces joined by the calls", "echo"},
		{"ok/openllmetry_sessions.json", `read as otel-genai: 2 runs, 4 calls, 4 results, tokens in 2/2 runs (914 in all), model "gpt-4o-2024-08-06", an answer in 2/2 runs, no agents`,
			"the spans of each run are spread over traces of their own (6 traces of model calls with no agent, workflow or chain span around them): read as 2 runs, 4 traces joined by their session id", "get-sum"},
		{"ok/openllmetry_agents.json", `read as otel-genai: 2 runs, 4 calls, 4 results, tokens in 2/2 runs (914 in all), model "gpt-4o-2024-08-06", an answer in 2/2 runs, agents "sum_agent", "triage"`, "", "get-sum"},
		{"ok/openai_agents_py_input_list.json", `read as openai-responses: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, agent "sum_agent"`, "", "get-sum"},
		{"ok/openai_agents_handoff_history.json", `read as openai-responses: 1 run, 0 calls, 0 results, no tokens, no models, an answer in 1/1 runs, no agents`, "", ""},
		{"ok/openai_agents_handoff_raw_responses.json", `read as openai-responses: 1 run, 0 calls, 0 results, tokens in 1/1 runs (246 in all), no models, an answer in 1/1 runs, no agents`, "", ""},
		{"ok/openai_agents_handoff_history.jsonl", `read as openai-responses: 3 runs, 0 calls, 0 results, no tokens, no models, an answer in 3/3 runs, no agents`, "", ""},
		{"ok/openai_agents_018_handoff_history.jsonl", `read as openai-responses: 2 runs, 0 calls, 0 results, no tokens, no models, an answer in 2/2 runs, no agents`, "", ""},
		{"ok/ai_sdk7_responses_messages.json", `read as ai-sdk-messages: 1 run, 2 calls, 2 results, no tokens, no models, an answer in 1/1 runs, no agents`, "", "echo"},
		{"ok/ai_sdk7_result.json", `read as ai-sdk-messages: 1 run, 2 calls, 2 results, tokens in 1/1 runs (457 in all), model "gpt-4o-2024-08-06", an answer in 1/1 runs, no agents`, "", "get-sum"},
		{"ok/ai_sdk7_response_messages.json", `read as anthropic-messages: 1 run, 0 calls, 0 results, no tokens, no models, an answer in 1/1 runs, no agents`,
			"the messages are an assistant's alone, with no prompt and no tool call: if they are an AI SDK result's response.messages, AI SDK 7 keeps only the last step", ""},
	} {
		file, err := filepath.Abs(frameworkCorpus + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
		want := file + ": valid\n  " + tt.want + "\n"
		if tt.called == "" {
			want = file + ": warning: a recording holds runs without a tool call (below)\n  " + tt.want + "\n"
		}
		if tt.warning != "" {
			want += "  warning: " + tt.warning
		}
		if code != ExitOK || !strings.HasPrefix(stdout, want) || tt.warning == "" && tt.called != "" && stdout != want {
			t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", file, code, stdout, stderr, want)
		}
		if noCall := "warning: no run holds a tool call"; (tt.called == "") != strings.Contains(stdout, noCall) {
			t.Errorf("validate %s: %q said %v, want %v:\n%s", file, noCall, !(tt.called == ""), tt.called == "", stdout)
		}
		for _, refused := range []string{"function_call", "no tool calls, but holds"} {
			if strings.Contains(stdout+stderr, refused) {
				t.Errorf("validate %s mentions %q:\n%s%s", file, refused, stdout, stderr)
			}
		}

		gateRecorded(t, dir, tt.file, file, tt.called)
	}

	// A run that calls and one that only hands off, a line each: the file
	// is valid, neither run refuses the other.
	mixed, err := filepath.Abs(frameworkCorpus + "ok/openai_agents_mixed_history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", mixed}, dir: dir})
	want := mixed + ": valid\n  read as openai-responses: 2 runs, 1 call, 1 result, no tokens, no models, an answer in 2/2 runs, agent \"sum_agent\"\n"
	if code != ExitOK || stdout != want {
		t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", mixed, code, stdout, stderr, want)
	}
}

// gateRecorded runs suites over the recording file (named rel in the
// corpus) through the built binary: the calls gate passes on called, a
// tool every run called, and fails on a tool none did; a recording with
// no call (called "") fails the calls gate, is inconclusive on its answer
// unless the test says no_calls: true, and then passes it.
func gateRecorded(t *testing.T, dir, rel, file, called string) {
	t.Helper()
	tt := struct{ file, called string }{rel, called}
	// The calls gate: a tool the runs called passes, one they did not
	// fails; a run that made no call fails a suite that asks for one,
	// and is not refused.
	for tool, wantCode := range map[string]int{"get-sum": ExitOK, "write_file": ExitFail} {
		if tool == "get-sum" && tt.called == "" {
			wantCode = ExitFail
		}
		if tt.called != "" && tool == "get-sum" {
			tool = tt.called
		}
		suite := "agents:\n  - name: recorded\n    cassette: " + strconv.Quote(file) + "\n    expect:\n      - tool_names: { contains: " + tool + " }\n"
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--no-cache"}, dir: dir})
		if code != wantCode {
			t.Errorf("%s: run with tool_names contains %s: exit %d, want %d\n%s%s", tt.file, tool, code, wantCode, stdout, stderr)
		}
	}

	// The answer gate: a recording with no call is inconclusive unless
	// the test says no call is expected, and then its answer is judged.
	if tt.called != "" {
		return
	}
	for _, noCalls := range []bool{false, true} {
		suite := "agents:\n  - name: recorded\n    cassette: " + strconv.Quote(file) + "\n    no_calls: " + strconv.FormatBool(noCalls) +
			"\n    expect:\n      - final_response: { contains: \"The sum is\" }\n"
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--no-cache"}, dir: dir})
		verdict := map[bool]string{false: "INCONCLUSIVE  recorded", true: "PASS  recorded"}[noCalls]
		// Inconclusive for want of a call fails the run: no pass on nothing.
		exit := map[bool]int{false: ExitFail, true: ExitOK}[noCalls]
		if code != exit || !strings.Contains(stdout, verdict) {
			t.Errorf("%s: run with no_calls %v: exit %d, want %d and %q\n%s%s", tt.file, noCalls, code, exit, verdict, stdout, stderr)
		}
	}
}
