package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateAgentSuite proposes a suite from the reliability and
// computed-cost examples' recordings, then runs it on them: every floor is
// at its recorded value, so the proposal passes on its own recordings, and
// proposing twice gives the same bytes.
func TestGenerateAgentSuite(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "proposed.yml")
	from := []string{"../../examples/reliability/cassettes/book.json", "../../examples/reliability/cassettes/lookup.json", "../../examples/computed-cost/cassettes/revenue.json"}
	args := []string{"generate", "agent-suite", "--output", suite}
	for _, f := range from {
		args = append(args, "--from", f)
	}
	_, stderr, code := mcptest(t, nil, args...)
	if code != 0 {
		t.Fatalf("generate agent-suite: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, `note: airline-support: book: "search_direct_flight", "search_onestop_flight" called in some runs only`) {
		t.Errorf("no note for the tools some runs called:\n%s", stderr)
	}
	data, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`final_response: { contains: "HATHAT" }`, // in all four runs; HAT083 is in three
		`tool_selection.f1: { ">=": 67 }`,        // book_reservation is one of three distinct calls in run 3
		`tokens.total: { "<=": 1920 }`,
		"min_pass_rate: 100",
		`allowed: ["fetch", "search"]`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("proposal lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), `"HAT083"`) {
		t.Errorf("a fact only three of four runs state was proposed:\n%s", data)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != 0 || !strings.Contains(stdout, "3 passed, 0 failed") {
		t.Errorf("the proposal does not pass on its own recordings: exit %d\n%s%s", code, stdout, stderr)
	}
	second := filepath.Join(dir, "again.yml")
	mcptest(t, nil, append([]string{"generate", "agent-suite", "--output", second}, args[4:]...)...)
	if other, _ := os.ReadFile(second); string(other) != string(data) {
		t.Errorf("two proposals from the same recordings differ")
	}
}

// TestGenerateAgentSuiteFromTraces proposes from one recording of each
// trace format (Claude Code stream-json, OTLP spans, promptfoo JSONL,
// Responses API): the proposal passes on them, although one trace's second
// run recorded no tokens and some runs call tools others do not. A tool
// that may change state and a run called (the OTLP trace's
// book_reservation: no annotations, a write verb) is allowed, not
// restricted, and the note says so for a person to decide.
func TestGenerateAgentSuiteFromTraces(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "traces.yml")
	args := []string{"generate", "agent-suite", "--output", suite}
	for _, f := range []string{"claude-code.jsonl", "otel-traces.json", "promptfoo-runs.jsonl", "responses-mcp.json"} {
		args = append(args, "--from", filepath.Join("..", "..", "examples", "traces", "cassettes", f))
	}
	_, stderr, code := mcptest(t, nil, args...)
	if code != 0 || !strings.Contains(stderr, `otel-traces: "book_reservation" may change state (its annotations, or its name without them) and 1 of 2 runs called it: allowed, not restricted`) {
		t.Fatalf("exit %d, want 0 and the note on book_reservation\n%s", code, stderr)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != 0 || !strings.Contains(stdout, "4 passed, 0 failed") || strings.Contains(stdout, "restricted_attempts=1") {
		t.Errorf("the proposal does not pass on its recordings: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestGenerateAgentSuiteHostile proposes from a recording whose names try
// to break out of the YAML (a newline and a comment in a tool name) and
// whose every run called that tool, which its catalog annotates
// destructiveHint: the names stay quoted on their line, the tool is
// proposed as expected (not restricted) with the note that says it
// changes state, and the proposal passes on its recording, so the name
// read back as recorded.
func TestGenerateAgentSuiteHostile(t *testing.T) {
	dir := t.TempDir()
	hostile := "wipe\n    restricted: []\n# "
	cas := map[string]any{
		"mcptest_cassette": 1, "agent": "ops", "model": "m", "prompt": "clean up",
		"catalog": map[string]any{"repo": map[string]any{"tools": []any{
			map[string]any{"name": "list", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": hostile, "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"destructiveHint": true}},
		}}},
		"runs": []any{map[string]any{"turns": []any{map[string]any{
			"calls":          []any{map[string]any{"server": "repo", "tool": "list"}, map[string]any{"server": "repo", "tool": hostile}},
			"final_response": "Removed 3 branches.",
		}}}},
	}
	data, _ := json.Marshal(cas)
	path := filepath.Join(dir, "ops.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "s.yml")
	_, stderr, code := mcptest(t, nil, "generate", "agent-suite", "--from", path, "--output", suite)
	if code != 0 || !strings.Contains(stderr, `may change state (its annotations, or its name without them) and every run called it: proposed as expected`) {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	out, _ := os.ReadFile(suite)
	quoted := `"wipe\n    restricted: []\n# "`
	for _, want := range []string{"contains: " + quoted + " }", "- name: " + quoted + "\n", "- { tool: " + quoted + " }", `allowed: ["list", ` + quoted + "]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the hostile name was not kept on its line as %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "\n      restricted:") {
		t.Errorf("a tool every run called is restricted:\n%s", out)
	}
	stdout, _, code := mcptest(t, nil, "run", "--config", suite)
	if code != 0 || !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("run: exit %d, want 0: the proposal passes on its recording\n%s", code, stdout)
	}
}

// TestGenerateAgentSuiteInputErrors: no recording, a missing one and a
// malformed one are input errors (exit 2) naming the file.
func TestGenerateAgentSuiteInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcptest_cassette": 1, "runs": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name the recordings with --from CASSETTE"},
		{[]string{"--from", filepath.Join(dir, "missing.json")}, filepath.Join(dir, "missing.json") + ": no such file or directory"},
		{[]string{"--from", bad}, bad + ":1:"},
	} {
		_, stderr, code := mcptest(t, nil, append([]string{"generate", "agent-suite"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("generate agent-suite %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestGenerateAgentSuiteFromDirectory: a directory or a glob is one test
// over all its files' runs, as a suite's cassette: reads it, and the
// proposal passes on them.
func TestGenerateAgentSuiteFromDirectory(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "s.yml")
	from := []string{"../../examples/reliability/cassettes", "../../examples/auditor-view/cassettes/triage-*.json"}
	_, stderr, code := mcptest(t, nil, "generate", "agent-suite", "--output", suite, "--from", from[0], "--from", from[1])
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, _ := os.ReadFile(suite)
	if !strings.Contains(string(data), "runs: 12\n") || !strings.Contains(string(data), "triage-*.json\"\n    runs: 3\n") {
		t.Errorf("want one test of 12 runs (the directory) and one of 3 (the glob):\n%s", data)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != 0 || !strings.Contains(stdout, "2 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	empty := t.TempDir()
	if _, stderr, code := mcptest(t, nil, "generate", "agent-suite", "--from", empty); code != 2 || !strings.Contains(stderr, "holds no *.json, *.jsonl or *.eval files") {
		t.Errorf("an empty directory: exit %d\n%s", code, stderr)
	}
}

// TestGenerateAgentSuiteJoined: --join proposes one test over the proxy
// recording of the joined-sources example and the framework's spans of the
// same run, each source giving what the one before lacks; the proposal
// gates the spans' tokens and passes on the joined run. A recording of
// another run count, or one that adds nothing, is an input error naming it.
func TestGenerateAgentSuiteJoined(t *testing.T) {
	const proxy, spans = "../../examples/joined-sources/cassettes/proxy.json", "../../examples/joined-sources/cassettes/agent-spans.json"
	suite := filepath.Join(t.TempDir(), "joined.yml")
	_, stderr, code := mcptest(t, nil, "generate", "agent-suite", "--output", suite, "--from", proxy, "--join", spans)
	if code != 0 || !strings.Contains(stderr, "1 agent test proposed from 2 recordings joined run by run") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, _ := os.ReadFile(suite)
	for _, want := range []string{
		"    sources:\n      - cassette: \"", "proxy.json\"\n        use: [calls]\n", "agent-spans.json\"\n        use: [tokens, model, answer]\n",
		`tokens.total: { "<=": 295 }`, `tool_names: { contains: "get-sum" }`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("proposal lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "cassette: \""+"../") && strings.Contains(string(data), "\n    cassette:") {
		t.Errorf("a joined test names a cassette: beside its sources:\n%s", data)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != 0 || !strings.Contains(stdout, "tool_selection.f1=100") || !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("the joined proposal does not pass on its recordings: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", proxy, "--join", "../../cassette/testdata/ok/ai_sdk_spans.json"},
			"ai_sdk_spans.json: it holds 2 runs and " + proxy + " (--from) holds 1 run: recordings are joined run by run, in order"},
		{[]string{"--from", proxy, "--join", proxy}, "proxy.json: it gives nothing the recordings before it lack (tokens, model, answer)"},
		{[]string{"--from", proxy, "--from", spans, "--join", spans}, "--join joins recordings to one --from recording, and 2 are named"},
	} {
		_, stderr, code := mcptest(t, nil, append([]string{"generate", "agent-suite"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("generate agent-suite %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
