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
// "example", which is no resource type), and each argument that names
// something in the server's world is a value the server's own answers named
// (server-filesystem's tools once read "example", outside its directory:
// 20 of 39 passed).
func TestGenerateSuiteGreen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	for _, srv := range []struct{ name, bin string }{
		{"everything", ciNodeBin(t, "mcp-server-everything")},
		{"memory", ciNodeBin(t, "mcp-server-memory")},
		{"filesystem", ciNodeBin(t, "mcp-server-filesystem")},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"), "NO_COLOR=1"}
			suite := filepath.Join(dir, "suite.yml")
			argv := []string{srv.bin}
			if srv.name == "filesystem" {
				// A project as a user points the server at: its allowed
				// directory, which is also the root mcptest offers (the
				// suite's directory), holding a file and a folder. No
				// argument names them: the server's own answers must.
				argv = append(argv, dir)
				if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
					t.Fatal(err)
				}
				for name, text := range map[string]string{"README.md": "# a project\n", "docs/guide.md": "read me\n"} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, stderr, code := runBinIn(t, dir, env, append([]string{"generate", "suite", "--output", suite, "--"}, argv...)...); code != ExitOK {
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
			if srv.name == "filesystem" && !strings.Contains(string(text), "values the server's own answers named") {
				t.Errorf("no tool's arguments are values the server named:\n%s", text)
			}
		})
	}
}
