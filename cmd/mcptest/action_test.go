package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestActionCommand: `mcptest action` hands the environment to package
// action and maps its errors to exit codes (the Action's own tests are in
// package action): a wrong input is exit 2 naming it, an argument is
// refused, and a broken suite is exit 2 with its positioned errors.
func TestActionCommand(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "acme/agents", "GITHUB_EVENT_NAME": "push",
		"INPUT_REPORT-PATH": filepath.Join(dir, "report.json"), "INPUT_MODE": "sideways"}
	if _, stderr, code := mcptest(t, env, "action"); code != ExitInput || !strings.Contains(stderr, `input mode "sideways": expected one of check, baseline, comment, drift`) {
		t.Errorf("bad mode: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := mcptest(t, env, "action", "extra"); code != ExitInput || !strings.Contains(stderr, "action takes no arguments") {
		t.Errorf("argument: exit %d, stderr %q", code, stderr)
	}
	env["INPUT_MODE"] = "baseline"
	env["INPUT_CONFIG"] = filepath.Join(dir, "suite.yml")
	write(t, env["INPUT_CONFIG"], []byte("tests:\n  not a list\n"))
	stdout, stderr, code := mcptest(t, env, "action")
	if code != ExitInput || !strings.Contains(stderr, "suite.yml:2:3: ") || !strings.Contains(stdout, "::error ") {
		t.Errorf("broken suite: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	env["INPUT_CONFIG"] = "../../examples/quickstart/suite.yml"
	if stdout, stderr, code := mcptest(t, env, "action", "--api-timeout", "5"); code != ExitOK || !strings.Contains(stdout, "run envelope written to") {
		t.Errorf("baseline run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
