package stamp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestSourceAhead: the source read ahead is the one read at once: the
// CI's variables when set, nothing with noGit, else git's words for a
// repository (its commit, branch and a dirty tree), nil outside one; the
// function may be called more than once and answers the same.
func TestSourceAhead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI must have it (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@example.com", "GIT_COMMITTER_NAME=m",
			"GIT_COMMITTER_EMAIL=m@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "feature/y")
	if err := os.WriteFile(filepath.Join(repo, "suite.yml"), []byte("tests: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "suite")
	none := func(string) string { return "" }
	ci := func(k string) string {
		return map[string]string{"GITHUB_REPOSITORY": "acme/a", "GITHUB_SHA": "cafe", "GITHUB_REF_NAME": "main"}[k]
	}
	check := func(name string, got func() *report.Source, want *report.Source) {
		t.Helper()
		for range 2 {
			s := got()
			if (s == nil) != (want == nil) || (s != nil && *s != *want) {
				t.Fatalf("%s: source %+v, want %+v", name, s, want)
			}
		}
	}
	clean := GitSource(repo)
	if clean == nil || clean.Branch != "feature/y" || len(clean.Commit) != 40 || clean.Dirty {
		t.Fatalf("GitSource of a clean repository: %+v", clean)
	}
	check("a clean repository", SourceAhead(none, false, repo), clean)
	check("on CI", SourceAhead(ci, false, repo), Source(ci))
	check("noGit", SourceAhead(none, true, repo), nil)
	check("outside a repository", SourceAhead(none, false, t.TempDir()), nil)
	if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("draft"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirty := *clean
	dirty.Dirty = true
	check("a changed tree", SourceAhead(none, false, repo), &dirty)
}
