//go:build linux

package main

// Bad input found in an adversarial pass (issue 28), each through the
// built binary as a user runs it.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessClaudeNegativeUsage: a Claude Code session whose usage counts
// are negative is refused (exit 2, positioned), not read as 0 tokens that
// pass a token budget.
func TestProcessClaudeNegativeUsage(t *testing.T) {
	dir := t.TempDir()
	session := `{"type":"system","subtype":"init","session_id":"s1","tools":["mcp__github__get_issue"],"model":"claude-sonnet-4-5-20250929"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__github__get_issue","input":{"n":1}}]},"session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"session_id":"s1"}
{"type":"result","subtype":"success","session_id":"s1","result":"done","usage":{"input_tokens":-90000,"output_tokens":40}}
`
	suite := `agents:
  - name: within budget
    cassette: session.jsonl
    expect:
      - target: tokens.total
        matcher: { "<=": 2000 }
`
	for name, body := range map[string]string{"session.jsonl": session, "suite.yml": suite} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(processBin(t), "run", "--config", "suite.yml", "--no-cache")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != ExitInput || !strings.Contains(string(out), "session.jsonl:4:") ||
		!strings.Contains(string(out), "usage.input_tokens: expected a non-negative integer (tokens), found the number -90000") {
		t.Errorf("exit %d, want 2 and the negative count refused:\n%s", code, out)
	}
}

// TestProcessOneWriteRule: generate suite and generate agent-suite read
// one catalog by one rule. The catalog's delete_file says readOnlyHint
// false (destructiveHint then defaults to true), remove_entry has no
// annotations and a delete verb, read_file is read-only. generate suite
// holds the first two back as writes; generate agent-suite, whose every
// recorded run called all three, restricts the same two, proposes only
// read_file as expected behaviour, and says the recordings break the
// restricted edge.
func TestProcessOneWriteRule(t *testing.T) {
	dir := t.TempDir()
	tools := `[
 {"name": "delete_file", "description": "Delete a file.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false}},
 {"name": "remove_entry", "description": "Remove an entry.", "inputSchema": {"type": "object"}},
 {"name": "read_file", "description": "Read a file.", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}
]`
	run := `{"turns": [{"calls": [{"server": "fs", "tool": "read_file"}, {"server": "fs", "tool": "delete_file"}, {"server": "fs", "tool": "remove_entry"}], "final_response": "Cleaned up."}]}`
	cas := `{"mcptest_cassette": 1, "agent": "ops", "model": "m", "prompt": "clean up",
 "catalog": {"fs": {"tools": ` + tools + `}}, "runs": [` + run + `, ` + run + `]}`
	files := map[string]string{"tools.json": tools, "ops.json": cas}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gen := func(args ...string) (string, string) {
		cmd := exec.Command(processBin(t), append([]string{"generate"}, args...)...)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("generate %v: %v\n%s", args, err, stderr.String())
		}
		out, err := os.ReadFile(filepath.Join(dir, args[slices.Index(args, "--output")+1]))
		if err != nil {
			t.Fatal(err)
		}
		return string(out), stderr.String()
	}
	suite, _ := gen("suite", "--output", "suite.yml", "--", processBin(t), "mock", "--tools-from", "tools.json")
	for _, tool := range []string{"delete_file", "remove_entry"} {
		if !strings.Contains(suite, `  # - name: "`+tool+`: valid arguments"`) {
			t.Errorf("generate suite: %s is not held back as a write:\n%s", tool, suite)
		}
	}
	if !strings.Contains(suite, "\n  - name: \"read_file: valid arguments\"") {
		t.Errorf("generate suite: read_file is not a live test:\n%s", suite)
	}
	agents, stderr := gen("agent-suite", "--from", "ops.json", "--output", "agents.yml")
	// The write tools every recorded run called are what the agent did: a
	// draft proposes them as expected and allowed, with a note for a person
	// to review, never restricted (a draft passes its own recordings).
	if strings.Contains(agents, "restricted:") || !strings.Contains(agents, `allowed: ["delete_file", "read_file", "remove_entry"]`) {
		t.Errorf("generate agent-suite: the edges restrict what every run did:\n%s", agents)
	}
	for _, tool := range []string{"delete_file", "remove_entry"} {
		if !strings.Contains(agents, `contains: "`+tool+`"`) {
			t.Errorf("generate agent-suite: %s, called by every run, is not proposed as expected:\n%s", tool, agents)
		}
		if !strings.Contains(stderr, `"`+tool+`" may change state`) || !strings.Contains(stderr, "review that the agent should change state here") {
			t.Errorf("generate agent-suite: no note on %s:\n%s", tool, stderr)
		}
	}
}

// TestProcessSuiteOf32000Tests: a suite of 32,000 tests in the generated
// one-test-per-cassette shape (11 MB, over the old 8 MiB limit) is
// validated by the binary, its tests built one at a time. Its peak RSS
// (measured from the tests' launcher, so the 11 MB suite the test built is
// not counted) is logged (116 MiB on a quiet machine, 219 MiB at load average 15, where the
// collector runs late) and held under 32 times the file, a bound against
// a loader that holds what it builds many times over. Every test reads one cassette here (the
// shape's 32,000 cassettes would be 1.8 GB).
func TestProcessSuiteOf32000Tests(t *testing.T) {
	dir := t.TempDir()
	names, err := gen.Write(dir, 1, gen.DefaultSeed)
	if err != nil || len(names) == 0 {
		t.Fatalf("gen.Write: %v", err)
	}
	one := regexp.MustCompile(`cassette: ` + gen.CassetteDir + `/cassette-\d+\.json`)
	suite := one.ReplaceAll(gen.CaseSuite(gen.DefaultSeed, 32000), []byte("cassette: "+gen.CassetteDir+"/cassette-000000.json"))
	if len(suite) <= 8<<20 {
		t.Fatalf("the suite is %d bytes, not over the old 8 MiB limit", len(suite))
	}
	if err := os.WriteFile(filepath.Join(dir, "big.yml"), suite, 0o644); err != nil {
		t.Fatal(err)
	}
	u := runMeasured(t, dir, nil, "validate", "--config", "big.yml")
	if u.code != 0 || !strings.Contains(u.out, "big.yml: valid") {
		t.Fatalf("validate: exit %d\n%.2000s", u.code, u.out)
	}
	peak := u.peak
	t.Logf("%d tests, %s: peak RSS %s", 32000, mib(len(suite)), mib(int(peak)))
	if peak > 32*int64(len(suite)) {
		t.Errorf("peak RSS %s, over 32 times the %s suite", mib(int(peak)), mib(len(suite)))
	}
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
