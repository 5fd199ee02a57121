package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine"
)

// TestConfigDiscovery: with no --config, run, validate and scenario run find
// mcptest.yml, then suite.yml, in the working directory or a parent up to
// the repository root, and say which file they used; past the root they
// look no further.
func TestConfigDiscovery(t *testing.T) {
	quickstart, _ := filepath.Abs("../../examples/quickstart")
	scenario, _ := filepath.Abs("../../examples/scenario-world")
	outside := t.TempDir()
	repo := filepath.Join(outside, "repo")
	copyDir(t, quickstart, repo)
	if err := os.Rename(filepath.Join(repo, "suite.yml"), filepath.Join(repo, "mcptest.yml")); err != nil {
		t.Fatal(err)
	}
	// A suite.yml beside it loses to mcptest.yml: it is invalid.
	write(t, filepath.Join(repo, "suite.yml"), []byte("testz: []\n"))
	write(t, filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"))
	sub := filepath.Join(repo, "agents", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	want := filepath.Join("..", "..", "mcptest.yml")
	for _, args := range [][]string{{"run"}, {"validate"}} {
		_, stderr, code := mcptest(t, nil, args...)
		if code != ExitOK || !strings.Contains(stderr, "mcptest: using "+want) {
			t.Errorf("mcptest %s in %s: exit %d, stderr %q; want exit 0 using %s", args[0], sub, code, stderr, want)
		}
	}

	// scenario run finds suite.yml when there is no mcptest.yml.
	scen := filepath.Join(outside, "scen")
	copyDir(t, scenario, scen)
	write(t, filepath.Join(scen, ".git"), []byte("gitdir: elsewhere\n"))
	t.Chdir(scen)
	if _, stderr, code := mcptest(t, nil, "scenario", "run"); code != ExitOK || !strings.Contains(stderr, "mcptest: using suite.yml") {
		t.Errorf("scenario run: exit %d, stderr %q", code, stderr)
	}

	// An empty repository inside a directory that has a suite: the search
	// stops at the repository root.
	empty := filepath.Join(repo, "vendor", "other")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(empty, ".git"), []byte("gitdir: elsewhere\n"))
	t.Chdir(empty)
	if _, stderr, code := mcptest(t, nil, "run"); code != ExitInput || !strings.Contains(stderr, "no suite: no mcptest.yml or suite.yml") {
		t.Errorf("run in a repository without a suite: exit %d, stderr %q; want exit 2", code, stderr)
	}
}

// TestConfigDiscoveryOutsideRepository: in a directory that is in no
// repository, run, validate and scenario run look for the suite there
// alone: a mcptest.yml in a parent (a shared /tmp, anyone's directory) is
// never picked up, so the servers it names are never started. A suite in
// the working directory itself is still found.
func TestConfigDiscoveryOutsideRepository(t *testing.T) {
	quickstart, _ := filepath.Abs("../../examples/quickstart")
	parent := filepath.Join(t.TempDir(), "shared")
	copyDir(t, quickstart, parent)
	if err := os.Rename(filepath.Join(parent, "suite.yml"), filepath.Join(parent, "mcptest.yml")); err != nil {
		t.Fatal(err)
	}
	for d := parent; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if engine.IsRepoRoot(d) {
			t.Skipf("%s is inside a repository", parent)
		}
	}
	sub := filepath.Join(parent, "project")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	for _, args := range [][]string{{"run"}, {"validate"}, {"scenario", "run"}} {
		_, stderr, code := mcptest(t, nil, args...)
		if code != ExitInput || strings.Contains(stderr, "using") || !strings.Contains(stderr, "in no repository") {
			t.Errorf("mcptest %s in %s: exit %d, stderr %q; want exit 2 without the parent's suite", strings.Join(args, " "), sub, code, stderr)
		}
	}
	t.Chdir(parent)
	if _, stderr, code := mcptest(t, nil, "run"); code != ExitOK || !strings.Contains(stderr, "mcptest: using mcptest.yml") {
		t.Errorf("run beside the suite, outside a repository: exit %d, stderr %q", code, stderr)
	}
}
