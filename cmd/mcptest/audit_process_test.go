//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProcessNoPassOnWhatWasNotRead runs the built binary on a real AI
// SDK recording (response.messages of the checked-in ai-sdk.mjs flow)
// mutated as a framework's next version writes it: the calls' parts
// renamed (tool-request, a spelling no reader takes), their results kept, is refused by `validate`
// and `run` at file:line:col naming the part no call was read from; the same recording with every call and result gone runs as
// inconclusive, not pass, and `validate` prints it as a warning, not as
// valid, unless the test says no_calls: true.
func TestProcessNoPassOnWhatWasNotRead(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	data, err := os.ReadFile(frameworkCorpus + "ok/ai_sdk_messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	renamed := strings.ReplaceAll(string(data), `"type": "tool-call"`, `"type": "tool-request"`)
	if renamed == string(data) {
		t.Fatal("the recording has no tool-call part to rename")
	}
	write("renamed.json", renamed)
	// Every message but the text answers: the run holds no call.
	var text []map[string]any
	for _, m := range msgs {
		if parts, _ := m["content"].([]any); len(parts) > 0 {
			if p, _ := parts[0].(map[string]any); p["type"] == "text" {
				text = append(text, m)
			}
		}
	}
	b, _ := json.Marshal(append([]map[string]any{{"role": "user", "content": "What is 2 + 3?"}}, text...))
	write("nocalls.json", string(b))
	test := func(name, cas, extra string) string {
		return "  - name: " + name + "\n    cassette: " + cas + extra + "\n    expect:\n      - target: final_response\n        matcher: { contains: \"5\" }\n"
	}
	write("renamed.yml", "agents:\n"+test("sum", "renamed.json", ""))
	write("nocalls.yml", "agents:\n"+test("sum", "nocalls.json", ""))
	write("expected.yml", "agents:\n"+test("sum", "nocalls.json", "\n    no_calls: true"))

	at := regexp.MustCompile(`renamed\.json:\d+:\d+: `)
	for _, args := range [][]string{{"validate", "renamed.json"}, {"validate", "renamed.yml"}, {"run", "--config", "renamed.yml"}} {
		stdout, stderr, code := runProc(t, procSpec{args: args, dir: dir})
		out := stdout + stderr
		if code != ExitInput || !at.MatchString(out) || !strings.Contains(out, `no tool calls, but holds an object naming the tool "get-sum" with the keys "toolName", "input", "toolCallId"`) {
			t.Errorf("mcptest %s: exit %d, want %d at renamed.json:line:col naming the renamed part\n%s", strings.Join(args, " "), code, ExitInput, out)
		}
	}

	noCallsThroughBinary(t, dir)
}

// noCallsThroughBinary checks, in dir, the recording without calls: a
// warning from validate, an inconclusive case from run, and both valid
// and passing under no_calls: true.
func noCallsThroughBinary(t *testing.T, dir string) {
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", "nocalls.json"}, dir: dir})
	if code != ExitOK || strings.Contains(stdout, ": valid") || !strings.Contains(stdout, "nocalls.json: warning: a recording holds runs without a tool call") ||
		!strings.Contains(stdout, "no_calls: true") {
		t.Errorf("validate nocalls.json: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runProc(t, procSpec{args: []string{"run", "--config", "nocalls.yml", "--format", "json"}, dir: dir})
	var env struct {
		Cases []struct {
			Verdict  string
			Findings []struct{ Gate, Message string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || len(env.Cases) != 1 {
		t.Fatalf("run nocalls.yml: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if c := env.Cases[0]; c.Verdict != "inconclusive" || len(c.Findings) == 0 || c.Findings[0].Gate != "no_calls" {
		t.Errorf("run nocalls.yml: case %+v, want inconclusive with a no_calls finding", c)
	}
	// The case is not passed, and the run is not either: a gate may not
	// pass on nothing (exit 1, the run's verdict fail).
	if code != ExitFail || !strings.Contains(stdout, `"verdict": "fail"`) {
		t.Errorf("run nocalls.yml: exit %d, want %d and the run's verdict fail\n%s", code, ExitFail, stdout)
	}

	stdout, stderr, code = runProc(t, procSpec{args: []string{"run", "--config", "expected.yml", "--format", "json"}, dir: dir})
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || code != ExitOK || len(env.Cases) != 1 || env.Cases[0].Verdict != "pass" {
		t.Errorf("run expected.yml (no_calls: true): exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
	stdout, stderr, code = runProc(t, procSpec{args: []string{"validate", "expected.yml"}, dir: dir})
	if code != ExitOK || !strings.Contains(stdout, "expected.yml: valid") || strings.Contains(stdout, "warning") {
		t.Errorf("validate expected.yml: exit %d\n%s%s", code, stdout, stderr)
	}
}
