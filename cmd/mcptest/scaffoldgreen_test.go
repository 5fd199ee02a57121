package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateSuiteGreen runs the built binary as a user does: `generate
// suite` against a reference server, then `run` of the suite it wrote
// against the same server, which passes every case: each placeholder
// argument is one the tool's schema, or for a prompt the server's own
// completion, accepts (server-everything's resource-prompt once failed on
// "example", which is no resource type).
func TestGenerateSuiteGreen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	for _, srv := range []struct{ name, bin string }{
		{"everything", ciNodeBin(t, "mcp-server-everything")},
		{"memory", ciNodeBin(t, "mcp-server-memory")},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"), "NO_COLOR=1"}
			suite := filepath.Join(dir, "suite.yml")
			if _, stderr, code := runBinIn(t, dir, env, "generate", "suite", "--output", suite, "--", srv.bin); code != ExitOK {
				t.Fatalf("generate suite: exit %d\n%s", code, stderr)
			}
			text, _ := os.ReadFile(suite)
			stdout, stderr, code := runBinIn(t, dir, env, "run", "--config", suite)
			if code != ExitOK || !strings.Contains(stdout, " 0 failed, 0 inconclusive") {
				t.Errorf("run of the generated suite: exit %d\n%s%s\n--- suite\n%s", code, stdout, stderr, text)
			}
			if srv.name == "everything" && !strings.Contains(string(text), "completion/complete offered") {
				t.Errorf("resource-prompt's arguments are not the server's completions:\n%s", text)
			}
		})
	}
}
