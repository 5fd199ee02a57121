package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessRunEndBesideReport runs the built binary over 300 generated
// transcripts (one test each, every case computed as the suite loads) in
// a git repository, at GOMAXPROCS=1, 2 and 4, the report to a file: the
// envelope kept in the workspace store, written at the same time as the
// report, is byte for byte the report; the report is the same on every
// core count (the run's id, start and duration aside); and its source,
// read by git beside the run, names the repository's branch and commit,
// its tree clean although the run writes its store into it.
func TestProcessRunEndBesideReport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed; CI must have it (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 300, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	git := gitIn(t, "git", dir)
	git("init", "-q", "-b", "bench/x")
	git("add", "-A")
	git("commit", "-q", "-m", "transcripts")
	commit := git("rev-parse", "HEAD")
	var first []byte
	for _, procs := range []string{"1", "2", "4"} {
		store := filepath.Join(dir, ".mcptest") // in the tree: written after git read it
		report := filepath.Join(t.TempDir(), "r.json")
		_, stderr, code := runBinIn(t, dir, []string{"GOMAXPROCS=" + procs, "MCPTEST_DIR=" + store},
			"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", report, "--no-cache")
		if code != ExitOK && code != ExitFail {
			t.Fatalf("GOMAXPROCS=%s: exit %d: %s", procs, code, stderr)
		}
		got, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := filepath.Glob(filepath.Join(store, "runs", "*.json"))
		if len(stored) != 1 {
			t.Fatalf("GOMAXPROCS=%s: %d runs stored, want 1", procs, len(stored))
		}
		if kept, _ := os.ReadFile(stored[0]); !bytes.Equal(kept, got) {
			t.Fatalf("GOMAXPROCS=%s: the stored envelope (%d bytes) is not the report (%d bytes)", procs, len(kept), len(got))
		}
		if err := os.RemoveAll(store); err != nil { // the next run's tree is clean again
			t.Fatal(err)
		}
		var env map[string]any
		if err := json.Unmarshal(got, &env); err != nil {
			t.Fatal(err)
		}
		src, _ := env["source"].(map[string]any)
		if src["commit"] != commit || src["branch"] != "bench/x" || src["dirty"] != nil {
			t.Errorf("GOMAXPROCS=%s: source %v, want branch bench/x, commit %s, clean", procs, src, commit)
		}
		run, _ := env["run"].(map[string]any)
		if len(env["cases"].([]any)) != 300 || run == nil {
			t.Fatalf("GOMAXPROCS=%s: %d cases", procs, len(env["cases"].([]any)))
		}
		delete(run, "id")
		delete(run, "started_at")
		delete(run, "duration_ms")
		norm, _ := json.Marshal(env)
		if first == nil {
			first = norm
		} else if !bytes.Equal(norm, first) {
			t.Errorf("GOMAXPROCS=%s: the report differs from the one at GOMAXPROCS=1", procs)
		}
	}
}

// TestProcessInitIsSmall runs the built binary with GODEBUG=inittrace=1
// and holds the package initialisation of mcptest's own packages, which
// every process pays before main (a 0.2 s run is 2,000 transcripts on two
// cores), to at most 400 allocations and 64 KiB a package and 1,500
// allocations and 256 KiB in all: a table decoded, a pattern compiled or
// a page's script built at init belongs in a sync.OnceValue (engine's
// suite schema was 2,689 allocations and 1 ms, gate/security's
// expressions 3,837, internal/redact's 678, mcpserver's 615, annotate's
// snapshot script 208 KB; 980 allocations and 117 KB in all since).
func TestProcessInitIsSmall(t *testing.T) {
	cmd := exec.Command(mcptestBin(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcptest version: %v\n%s", err, out)
	}
	total, bytes, seen := 0, 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PACKAGE @T ms, T ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || f[len(f)-1] != "allocs" || f[len(f)-3] != "bytes," || !strings.HasPrefix(f[1], "github.com/mcptest/mcptest") {
			continue
		}
		n, err := strconv.Atoi(f[len(f)-2])
		b, errB := strconv.Atoi(f[len(f)-4])
		if err != nil || errB != nil {
			t.Fatalf("an inittrace line: %q", line)
		}
		seen++
		total += n
		bytes += b
		if n > 400 || b > 64<<10 {
			t.Errorf("%s allocates %d times and %d bytes at init, over 400 or 64 KiB: %s", f[1], n, b, line)
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace named %d of mcptest's packages:\n%s", seen, out)
	}
	if total > 1500 || bytes > 256<<10 {
		t.Errorf("mcptest's packages allocate %d times and %d bytes at init, over 1,500 or 256 KiB", total, bytes)
	}
}

// gitIn returns a runner of the git at path in dir, with a fixed author
// and no user or system configuration: its trimmed output, the test
// failed on an error.
func gitIn(t *testing.T, path, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(path, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=m", "GIT_AUTHOR_EMAIL=m@example.com", "GIT_COMMITTER_NAME=m",
			"GIT_COMMITTER_EMAIL=m@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
