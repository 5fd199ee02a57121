package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// memoryServer is the path of the real npm memory server.
func memoryServer(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", "mcp-server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mcp-server-memory is not installed: .ci/run installs it with `npm ci --prefix .ci/node`")
		}
		t.Skip("mcp-server-memory is not installed; run `npm ci --prefix .ci/node`")
	}
	return bin
}

// TestGenerateSuiteHoldsWrites generates a suite for the real memory server
// and runs it: the tests of its six write tools (annotations readOnlyHint
// false) are commented out under a review marker, so running the suite
// leaves the server's storage file untouched; with --include-writes they
// are live tests, and the same run writes the file.
func TestGenerateSuiteHoldsWrites(t *testing.T) {
	server := memoryServer(t)
	for _, tc := range []struct {
		flags  []string
		writes bool
	}{{nil, false}, {[]string{"--include-writes"}, true}} {
		dir := t.TempDir()
		store := filepath.Join(dir, "memory.jsonl")
		t.Setenv("MEMORY_FILE_PATH", store)
		suite := filepath.Join(dir, "suite.yml")
		args := append(append([]string{"generate", "suite", "--output", suite}, tc.flags...), "--", server)
		_, stderr, code := mcptest(t, nil, args...)
		if code != 0 {
			t.Fatalf("generate %v: exit %d\n%s", tc.flags, code, stderr)
		}
		data, err := os.ReadFile(suite)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		held := strings.Count(text, "# review before enabling: ")
		if !tc.writes && (held != 6 || !strings.Contains(text, "  # - name: \"delete_entities: valid arguments\"") ||
			!strings.Contains(text, "\n  - name: \"read_graph: valid arguments\"") ||
			!strings.Contains(stderr, "6 tools change state")) {
			t.Errorf("default: %d tools held, want the 6 writes commented out and read_graph live\n%s\n%s", held, stderr, text)
		}
		if tc.writes && (held != 0 || !strings.Contains(text, "\n  - name: \"create_entities: valid arguments\"")) {
			t.Errorf("--include-writes: %d tools held, want none\n%s", held, text)
		}
		stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
		if code != 0 && code != 1 {
			t.Fatalf("run %v: exit %d\n%s%s", tc.flags, code, stdout, stderr)
		}
		if _, err := os.Stat(store); (err == nil) != tc.writes {
			t.Errorf("run %v: the memory server's file exists: %v, want %v (the suite called a write tool: %v)\n%s", tc.flags, err == nil, tc.writes, !tc.writes, stdout)
		}
	}
}
