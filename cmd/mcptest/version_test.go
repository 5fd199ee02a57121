package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestVersionFlags checks that --version, -v and `version` print the
// version on stdout and exit 0, as CLIs do.
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-v"} {
		stdout, stderr, code := mcptest(t, nil, arg)
		if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, "mcptest "+version+"\n") {
			t.Errorf("mcptest %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

// TestBuildIDOfADevelopmentBuild: an unstamped build (this test binary)
// keys the result cache by the digest of its executable.
func TestBuildIDOfADevelopmentBuild(t *testing.T) {
	id := buildID()
	if !strings.HasPrefix(id, "dev-") || len(id) != len("dev-")+64 || buildID() != id {
		t.Errorf("buildID() = %q, want dev- and a stable sha256", id)
	}
}

// TestVersionWithoutVCS builds mcptest as the source build paths do with
// VCS stamping off (-buildvcs=false: a Docker context without .git, a
// tarball, a runner that checked out without git): the commit and its
// date come from the ldflags action.yml and the Dockerfile pass, and the
// date is named as the commit's, which it is (goreleaser's CommitDate,
// the VCS time), not as the build's. Without them, neither line shows.
func TestVersionWithoutVCS(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	longTest(t)  // builds mcptest again with other flags: about 20 to 40 s of two cores
	dir := t.TempDir()
	const sha, when = "0123456789abcdef0123456789abcdef01234567", "2026-11-23T10:00:00Z"
	for _, tc := range []struct {
		name, ldflags string
		want          []string
		not           []string
	}{
		{"stamped", "-X main.commit=" + sha + " -X main.date=" + when, []string{"\ncommit:    " + sha + "\n", "\ncommitted: " + when + "\n"}, []string{"built"}},
		{"unstamped", "", nil, []string{"commit", "built"}},
	} {
		bin := filepath.Join(dir, tc.name)
		if out, err := exec.Command("go", "build", "-buildvcs=false", "-trimpath", "-ldflags", tc.ldflags, "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: --version lacks %q:\n%s", tc.name, w, out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(string(out), n) {
				t.Errorf("%s: --version shows %q:\n%s", tc.name, n, out)
			}
		}
	}
}

// TestActionSourceBuildStampsTheCommit runs action.yml's source build step
// as the runner does, with VCS stamping off (GOFLAGS=-buildvcs=false) in
// this checkout and in a copy without .git whose ref is a commit SHA: the
// built binary's --version names the commit (and, with git, its date).
func TestActionSourceBuildStampsTheCommit(t *testing.T) {
	t.Parallel() // builds or runs the binary at scale: beside the other such tests
	longTest(t)  // builds mcptest again with other flags: about 20 to 40 s of two cores
	bash := checker(t, "bash", "bash", "apt-get install bash")
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range action.Runs.Steps {
		if s.Name == "build mcptest from source" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step \"build mcptest from source\"")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	sha := strings.TrimSpace(string(head))
	when, _ := exec.Command("git", "log", "-1", "--format=%cI").Output()
	root, _ := filepath.Abs("../..")
	for _, tc := range []struct{ name, dir, want string }{
		{"checkout", root, "\ncommit:    " + sha + "\ncommitted: " + strings.TrimSpace(string(when)) + "\n"},
		{"no .git", t.TempDir(), "\ncommit:    " + sha + "\n"},
	} {
		if tc.dir != root {
			// The working tree's files, as a tarball of the action holds them.
			cp := exec.Command("sh", "-c", `git ls-files -z --cached --others --exclude-standard | xargs -0 tar -c | tar -x -C "$0"`, tc.dir)
			cp.Dir = root
			if out, err := cp.CombinedOutput(); err != nil {
				t.Fatalf("copy the checkout: %v\n%s", err, out)
			}
		}
		out := t.TempDir()
		cmd := exec.Command(bash, "-e", "-c", script)
		cmd.Dir = tc.dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false", "MCPTEST_DIR="+out, "MCPTEST_REF="+sha, "RUNNER_OS=Linux", "GIT_CEILING_DIRECTORIES="+filepath.Dir(tc.dir))
		if log, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: the build step: %v\n%s", tc.name, err, log)
		}
		got, err := exec.Command(filepath.Join(out, "mcptest"), "--version").Output()
		if err != nil || !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: --version %v, want %q in:\n%s", tc.name, err, tc.want, got)
		}
	}
}

// TestBuildPathsStampTheCommit: every file that builds mcptest passes the
// commit and its date by -ldflags, so a build without VCS stamping still
// says what it was built from.
func TestBuildPathsStampTheCommit(t *testing.T) {
	for _, f := range []string{"../../action.yml", "../../Dockerfile", "../../.goreleaser.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []string{"-X main.commit=", "-X main.date="} {
			if !strings.Contains(string(data), x) {
				t.Errorf("%s builds mcptest without %s", f, x)
			}
		}
	}
}
