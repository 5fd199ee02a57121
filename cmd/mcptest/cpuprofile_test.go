package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCPUProfileEnv: MCPTEST_CPUPROFILE makes the built binary write a
// CPU profile of the command (gzip-compressed pprof, which `go tool pprof`
// reads), MCPTEST_MEMPROFILE an allocation profile, and neither changes
// anything else: the command's output and exit status
// are those of a run without it; a path that cannot be created is named on
// stderr and the command still runs.
func TestCPUProfileEnv(t *testing.T) {
	bin := mcptestBin(t)
	suite := filepath.Join("..", "..", "examples", "selection-f1", "suite.yml")
	run := func(env ...string) (string, string, int) {
		cmd := exec.Command(bin, "validate", "--config", suite)
		cmd.Env = append(os.Environ(), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = exit.ExitCode()
		}
		return stdout.String(), stderr.String(), code
	}
	wantOut, wantErr, wantCode := run("MCPTEST_CPUPROFILE=")
	prof := filepath.Join(t.TempDir(), "cpu.out")
	out, errOut, code := run("MCPTEST_CPUPROFILE=" + prof)
	if out != wantOut || errOut != wantErr || code != wantCode {
		t.Errorf("with a profile: exit %d, stdout %q, stderr %q; without: exit %d, stdout %q, stderr %q", code, out, errOut, wantCode, wantOut, wantErr)
	}
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("the profile is %d bytes, not gzip-compressed pprof", len(data))
	}
	mem := filepath.Join(t.TempDir(), "mem.out")
	out, errOut, code = run("MCPTEST_MEMPROFILE=" + mem)
	if out != wantOut || errOut != wantErr || code != wantCode {
		t.Errorf("with an allocation profile: exit %d, stdout %q, stderr %q; without: exit %d, stdout %q, stderr %q", code, out, errOut, wantCode, wantOut, wantErr)
	}
	if data, err := os.ReadFile(mem); err != nil || len(data) < 20 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("the allocation profile: %v, %d bytes, not gzip-compressed pprof", err, len(data))
	}
	for _, name := range []string{"MCPTEST_CPUPROFILE", "MCPTEST_CPUCLASSES", "MCPTEST_TRACE", "MCPTEST_MEMPROFILE"} {
		out, errOut, code = run(name + "=" + filepath.Join(t.TempDir(), "missing", "cpu.out"))
		if out != wantOut || code != wantCode || !strings.Contains(errOut, name) {
			t.Errorf("an unwritable %s path: exit %d, stdout %q, stderr %q", name, code, out, errOut)
		}
	}
}

// TestCPUClassesEnv: MCPTEST_CPUCLASSES and MCPTEST_TRACE make the built
// binary write, beside the command's own output (the same as without
// them), the runtime's account of the processors' time (GOMAXPROCS, the
// wall time, and each class, idle among them, within the total) and an
// execution trace (`go tool trace` reads it); together with a profile.
// The runtime's allocation sampling rate it prints is 0 unless
// MCPTEST_MEMPROFILE or GODEBUG sets one, under every command (main turns
// it off before the command runs).
func TestCPUClassesEnv(t *testing.T) {
	bin := mcptestBin(t)
	suite := filepath.Join("..", "..", "examples", "selection-f1", "suite.yml")
	run := func(env ...string) string {
		cmd := exec.Command(bin, "run", "--config", suite, "--format", "json", "--no-cache")
		cmd.Env = append(os.Environ(), append([]string{"GOMAXPROCS=2", "CI=", "GITHUB_ACTIONS="}, env...)...)
		out, err := cmd.Output()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return regexp.MustCompile(`"(id|started_at|duration_ms)": *("[^"]*"|\d+)`).ReplaceAllString(string(out), "")
	}
	want := run()
	dir := t.TempDir()
	classes, trace, prof := filepath.Join(dir, "classes.txt"), filepath.Join(dir, "run.trace"), filepath.Join(dir, "cpu.out")
	if got := run("MCPTEST_CPUCLASSES="+classes, "MCPTEST_TRACE="+trace, "MCPTEST_CPUPROFILE="+prof); got != want || len(want) < 100 {
		t.Fatalf("the report differs when measured:\n%s\n---\n%s", got, want)
	}
	figures, data := readClasses(t, classes)
	total := figures["/cpu/classes/total:cpu-seconds"]
	if figures["gomaxprocs"] != 2 || figures["memprofilerate"] != 0 || figures["wall"] <= 0 || total <= 0 || len(figures) != 8 ||
		figures["/cpu/classes/idle:cpu-seconds"] > total || figures["/cpu/classes/user:cpu-seconds"] > total {
		t.Errorf("the classes:\n%s", data)
	}
	tr, err := os.ReadFile(trace)
	if err != nil || !bytes.HasPrefix(tr, []byte("go 1.")) {
		t.Errorf("the trace: %v, %d bytes, %q", err, len(tr), tr[:min(len(tr), 16)])
	}
	if p, err := os.Stat(prof); err != nil || p.Size() < 20 {
		t.Errorf("the profile beside them: %v", err)
	}
	// The runtime samples allocations only when asked: by
	// MCPTEST_MEMPROFILE (its own rate) or by the operator's GODEBUG.
	for _, c := range []struct {
		env  string
		rate float64
	}{
		{"MCPTEST_MEMPROFILE=" + filepath.Join(dir, "mem.out"), 4096},
		{"GODEBUG=memprofilerate=1", 1},
		{"GODEBUG=panicnil=0,memprofilerate=65536", 65536},
		{"GODEBUG=panicnil=0, memprofilerate=1", 0}, // the runtime reads no setting " memprofilerate"
		{"GODEBUG=memprofilerates=1", 0},
	} {
		if got := run("MCPTEST_CPUCLASSES="+classes, c.env); got != want {
			t.Fatalf("the report differs with %s:\n%s\n---\n%s", c.env, got, want)
		}
		if figures, data := readClasses(t, classes); figures["memprofilerate"] != c.rate {
			t.Errorf("with %s the sampling rate is not %v:\n%s", c.env, c.rate, data)
		}
	}
	// main sets the rate before any command runs: every command runs
	// with it off.
	for _, args := range [][]string{{"version"}, {"help"}, {"validate", "--config", suite}, {"tools", "--help"},
		{"report", "--help"}, {"no-such-command"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "MCPTEST_CPUCLASSES="+classes, "GODEBUG=", "MCPTEST_MEMPROFILE=")
		_ = cmd.Run() // the exit status is the command's; the file is written either way
		if figures, data := readClasses(t, classes); figures["memprofilerate"] != 0 {
			t.Errorf("mcptest %v: the sampling rate is not 0:\n%s", args, data)
		}
		if err := os.Remove(classes); err != nil {
			t.Fatalf("mcptest %v wrote no MCPTEST_CPUCLASSES file: %v", args, err)
		}
	}
}

// readClasses reads what MCPTEST_CPUCLASSES wrote: each line's name and
// figure, and the file.
func readClasses(t *testing.T, path string) (map[string]float64, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	figures := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, value, ok := strings.Cut(line, " ")
		f, err := strconv.ParseFloat(value, 64)
		if !ok || err != nil || f < 0 {
			t.Fatalf("line %q of\n%s", line, data)
		}
		figures[name] = f
	}
	return figures, data
}
