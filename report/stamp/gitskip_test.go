package stamp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitSourceSkipsOnlyOutsideRepositories draws directory trees and
// where a suite sits in them: below no repository, below a repository
// (at a drawn depth, clean or dirty, committed or not), below a .git that
// is no repository (an empty directory, a file of garbage), below a
// worktree's .git file naming a repository elsewhere, reached through a
// link into a repository elsewhere, with GIT_DIR naming one, and in or
// below a bare repository whose core.worktree names a work tree. Each
// answer of GitSource, which starts no git where mayBeRepository says no
// repository can be, must be gitSource's, which always starts git; both
// kinds of draw must occur.
func TestGitSourceSkipsOnlyOutsideRepositories(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI must have it (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	seed := uint64(40)
	r := rand.New(rand.NewPCG(seed, seed))
	outsideAny := !mayBeRepository(t.TempDir(), os.Getenv)
	skipped, started := 0, 0
	for i := range 48 {
		kind := gitKinds[i%len(gitKinds)]
		leaf, at := drawGitTree(t, r, kind)
		got, want := GitSource(leaf), gitSource(leaf)
		may := mayBeRepository(leaf, os.Getenv)
		os.Unsetenv("GIT_DIR") // set by the GIT_DIR kind, put back by t.Setenv
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Fatalf("draw %d (%s, .git at %s, suite in %s): GitSource %+v, git says %+v", i, kind, at, leaf, got, want)
		}
		if may {
			started++
		} else {
			skipped++
		}
		if (kind == "repository" || kind == "link into a repository") && (want == nil || want.Commit == "") {
			t.Fatalf("draw %d (%s): no source, want the repository's: %+v", i, kind, want)
		}
		if kind == "bare repository" && !may {
			t.Fatalf("draw %d (%s at %s): git is not started for a suite in %s", i, kind, at, leaf)
		}
	}
	if started == 0 || (outsideAny && skipped == 0) {
		t.Fatalf("%d draws started git and %d did not: both kinds must occur", started, skipped)
	}
	if s := GitSource(filepath.Join(t.TempDir(), "missing")); s != nil {
		t.Fatalf("a missing directory: %+v", s)
	}
}

// gitKinds are where TestGitSourceSkipsOnlyOutsideRepositories puts a
// suite, drawGitTree's kinds.
var gitKinds = []string{"none", "repository", "empty repository", ".git directory", ".git garbage", "worktree file", "link into a repository", "GIT_DIR", "bare repository"}

// drawGitTree makes a chain of 1 to 5 directories in a temporary one and
// a .git of the kind at a drawn level of it (at), and returns the
// directory the suite is in.
func drawGitTree(t *testing.T, r *rand.Rand, kind string) (leaf, at string) {
	t.Helper()
	chain := []string{t.TempDir()}
	for d := range 1 + r.IntN(5) {
		chain = append(chain, filepath.Join(chain[len(chain)-1], fmt.Sprintf("d%d", d)))
	}
	leaf = chain[len(chain)-1]
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	at = chain[r.IntN(len(chain))]
	elsewhere := t.TempDir()
	switch kind {
	case "repository":
		testRepo(t, r, at, false)
	case "empty repository":
		testRepo(t, r, at, true)
	case ".git directory":
		if err := os.Mkdir(filepath.Join(at, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	case ".git garbage":
		testWrite(t, filepath.Join(at, ".git"), "not a gitdir line\n")
	case "worktree file":
		testRepo(t, r, elsewhere, false)
		testWrite(t, filepath.Join(at, ".git"), "gitdir: "+filepath.Join(elsewhere, ".git")+"\n")
	case "link into a repository":
		testRepo(t, r, elsewhere, false)
		inner := filepath.Join(elsewhere, "suites")
		if err := os.MkdirAll(inner, 0o755); err != nil {
			t.Fatal(err)
		}
		leaf = filepath.Join(leaf, "link")
		if err := os.Symlink(inner, leaf); err != nil {
			t.Fatal(err)
		}
	case "GIT_DIR":
		testRepo(t, r, elsewhere, false)
		t.Setenv("GIT_DIR", filepath.Join(elsewhere, ".git"))
	case "bare repository": // the suite in it or below it, its work tree elsewhere
		testGit(t, at, "init", "-q", "--bare")
		testGit(t, at, "config", "core.worktree", elsewhere)
	}
	return leaf, at
}

// testRepo makes a repository at dir on a drawn branch, with a commit
// unless empty is set, its tree dirty half the time.
func testRepo(t *testing.T, r *rand.Rand, dir string, empty bool) {
	t.Helper()
	testGit(t, dir, "init", "-q", "-b", fmt.Sprintf("b%d", r.IntN(100)))
	testWrite(t, filepath.Join(dir, "suite.yml"), "tests: []\n")
	if !empty {
		testGit(t, dir, "add", "-A")
		testGit(t, dir, "commit", "-q", "-m", "suite")
	}
	if r.IntN(2) == 0 {
		testWrite(t, filepath.Join(dir, "notes.txt"), "draft")
	}
}

func testGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@example.com", "GIT_COMMITTER_NAME=m",
		"GIT_COMMITTER_EMAIL=m@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func testWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
