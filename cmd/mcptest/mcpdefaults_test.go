package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessMCPDefaults runs the built binary against server-everything,
// whose echo answers without isError: `result.isError: false` passes, as
// the protocol's schema says an absent isError is false, and so does the
// same target on a recorded call whose result leaves it out; a call that
// answers isError: true still fails it.
func TestProcessMCPDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	bin := processBin(t)
	suite := writeToolSuite(t, "  everything:\n    command: ["+quoteYAML(everythingBin(t))+"]\n", `
  - name: echo is no error
    tool: echo
    args: {message: hi}
    expect:
      - result.isError: false
  - name: a missing tool is an error
    tool: no-such-tool
    expect:
      - result.isError: false
`)
	dir := filepath.Dir(suite)
	cassette := `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"tool": "echo", "arguments": {"message": "hi"},
  "result": {"content": [{"type": "text", "text": "Echo: hi"}]}}], "final_response": "hi"}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "rec.json"), []byte(cassette), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := filepath.Join(dir, "recorded.yml")
	if err := os.WriteFile(recorded, []byte("agents:\n  - name: recorded echo is no error\n    cassette: rec.json\n    expect:\n      - calls[0].result.isError: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		suite string
		code  int
		want  []string
	}{
		{suite, ExitFail, []string{"PASS  echo is no error", "FAIL  a missing tool is an error", "got true, expected exactly false"}},
		{recorded, ExitOK, []string{"PASS  recorded echo is no error"}},
	} {
		cmd := exec.Command(bin, "run", "--config", tc.suite)
		cmd.Env = append(os.Environ(), "MCPTEST_DIR="+t.TempDir(), "NO_COLOR=1")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", filepath.Base(tc.suite), code, tc.code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: no %q in\n%s", filepath.Base(tc.suite), w, out)
			}
		}
	}
}
