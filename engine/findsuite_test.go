package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFindSuite: a suite in a parent is found up to the repository root,
// mcptest.yml before suite.yml, and none above the root.
func TestFindSuite(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Above the root: never found.
	if err := os.WriteFile(filepath.Join(filepath.Dir(repo), "mcptest.yml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var none *NoSuiteError
	if _, err := FindSuite(sub); !errors.As(err, &none) || none.Top != repo {
		t.Fatalf("no suite in the repository: %v", err)
	}
	for _, name := range []string{"suite.yml", "mcptest.yml"} {
		if err := os.WriteFile(filepath.Join(repo, "a", name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := FindSuite(sub); err != nil || p != filepath.Join("..", "mcptest.yml") {
		t.Errorf("found %q, %v; want ../mcptest.yml", p, err)
	}
}
