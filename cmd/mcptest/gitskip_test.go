package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessRunOutsideRepositoryStartsNoGit runs the built binary over 20
// transcripts with a git on PATH that logs each call and then runs the real
// git: in a directory no repository holds, the run starts no git and its
// envelope names no source; in a repository, it starts git and names the
// repository's branch and commit.
func TestProcessRunOutsideRepositoryStartsNoGit(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI must have it (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls.log")
	script := "#!/bin/sh\necho \"$*\" >> '" + calls + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	run := func(dir string) map[string]any {
		t.Helper()
		if _, err := gen.WriteTranscripts(dir, 20, gen.DefaultSeed, gen.OpenAI); err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(t.TempDir(), "r.json")
		_, stderr, code := runBinIn(t, dir, []string{path, "GOMAXPROCS=2"},
			"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", report, "--no-cache")
		if code != ExitOK && code != ExitFail {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var env map[string]any
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		return env
	}
	logged := func() string {
		data, err := os.ReadFile(calls)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(data)
	}

	outside := t.TempDir()
	if exec.Command(real, "-C", outside, "rev-parse", "--git-dir").Run() == nil {
		t.Logf("%s is inside a repository: the run outside one is not checked", outside)
	} else {
		env := run(outside)
		if got := logged(); got != "" {
			t.Errorf("outside a repository the run started git: %q", got)
		}
		if src := env["source"]; src != nil {
			t.Errorf("outside a repository the envelope names a source: %v", src)
		}
	}

	repo := t.TempDir()
	git := gitIn(t, real, repo)
	git("init", "-q", "-b", "suites/y")
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("transcripts/\nsuite.yml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "ignore the generated suite")
	env := run(repo)
	if got := logged(); !strings.Contains(got, "status") {
		t.Errorf("in a repository the run did not start git status: %q", got)
	}
	src, _ := env["source"].(map[string]any)
	if src["commit"] != git("rev-parse", "HEAD") || src["branch"] != "suites/y" || src["dirty"] != nil {
		t.Errorf("in a repository: source %v, want branch suites/y at HEAD, clean", src)
	}
}
