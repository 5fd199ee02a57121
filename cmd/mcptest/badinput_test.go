package main

// Bad input found in an adversarial pass (issue 28), each through the
// built binary as a user runs it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	cmd := exec.Command(mcptestBin(t), "run", "--config", "suite.yml", "--no-cache")
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
