package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a git repository holding the quickstart example, on the
// branch feature/x, with an origin whose URL carries a token, one commit;
// it returns the repository and the commit.
func gitRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI must have it (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	dir = t.TempDir()
	copyDir(t, "../../examples/quickstart", dir)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=mcptest", "GIT_AUTHOR_EMAIL=mcptest@example.com", "GIT_COMMITTER_NAME=mcptest",
			"GIT_COMMITTER_EMAIL=mcptest@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "feature/x")
	git("remote", "add", "origin", "https://x-access-token:ghs_SECRET@github.com/acme/agent.git")
	git("add", "-A")
	git("commit", "-q", "-m", "suite")
	return dir, git("rev-parse", "HEAD")
}

// runSource runs the built binary on the suite in dir with env and
// returns the envelope's source and the HTML report.
func runSource(t *testing.T, dir string, env []string) (source map[string]any, page string) {
	t.Helper()
	out := t.TempDir()
	_, stderr, code := runBinIn(t, dir, env, "run", "suite.yml", "--format", "json", "--output", filepath.Join(out, "run.json"), "--output", "html="+filepath.Join(out, "run.html"))
	if code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var envelope struct {
		Source map[string]any `json:"source"`
	}
	data, _ := os.ReadFile(filepath.Join(out, "run.json"))
	if err := json.Unmarshal(data, &envelope); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(out, "run.html"))
	return envelope.Source, string(html)
}

// TestLocalProvenance runs the built binary in a git repository off CI:
// the envelope's source and the page's audit block name the origin (its
// token removed), the branch and the commit, and a change to the tree
// makes it dirty; on Actions the runner's variables win; with no git on
// the PATH the run still passes, with no source.
func TestLocalProvenance(t *testing.T) {
	dir, commit := gitRepo(t)
	source, page := runSource(t, dir, nil)
	want := map[string]any{"repo": "https://github.com/acme/agent.git", "branch": "feature/x", "commit": commit}
	if !mapsEqual(source, want) {
		t.Errorf("source %v, want %v", source, want)
	}
	for _, s := range []string{"https://github.com/acme/agent.git", "feature/x", commit} {
		if !strings.Contains(page, s) {
			t.Errorf("the audit block does not show %q", s)
		}
	}
	if strings.Contains(page, "ghs_SECRET") {
		t.Error("the remote's token reached the page")
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("draft"), 0o644); err != nil {
		t.Fatal(err)
	}
	source, page = runSource(t, dir, nil)
	if source["dirty"] != true || !strings.Contains(page, commit+" with uncommitted changes") {
		t.Errorf("a changed tree: source %v", source)
	}
	source, _ = runSource(t, dir, []string{"GITHUB_ACTIONS=true", "CI=true", "GITHUB_REPOSITORY=acme/agent", "GITHUB_SHA=feedface", "GITHUB_REF_NAME=main"})
	if !mapsEqual(source, map[string]any{"repo": "acme/agent", "branch": "main", "commit": "feedface"}) {
		t.Errorf("on Actions: source %v", source)
	}
	source, page = runSource(t, dir, []string{"PATH=" + t.TempDir()})
	if source != nil || strings.Contains(page, "feature/x") {
		t.Errorf("without git: source %v", source)
	}
}

// mapsEqual compares two decoded JSON objects of strings and booleans.
func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
