package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessDirectoryStartCosts runs the built binary over a generated
// directory of cassettes under the suite `.ci/bench` runs over one (one
// test, equal_function_sets: and tool_edges:), at GOMAXPROCS=2, and holds
// two costs a run used to pay per process and per file:
//
//   - the suite schema is not compiled: the exact allocation profile of
//     the run (profiled) shows under a thousand objects allocated below
//     jsonschema's Compile outside the library's own initialisation
//     (compiling the suite schema is 55,269), and the report is the one
//     the schema's validator lets through;
//   - no cassette file is offered to the network poller: `strace -f -c`
//     (when present and allowed) counts fewer epoll_ctl calls than a
//     quarter of the files (os.Open made one a file, each failing).
func TestProcessDirectoryStartCosts(t *testing.T) {
	const files = 200
	tl, goCmd, dir, suite := generatedRun(t, files, 40)
	if !strings.Contains(suite, "tool_edges:") {
		t.Fatalf("the generated suite has no tool_edges:\n%s", suite)
	}
	prof := filepath.Join(t.TempDir(), "mem.out")
	out := filepath.Join(t.TempDir(), "r.json")
	env := append([]string{"GOMAXPROCS=2", "MCPTEST_DIR=" + t.TempDir()}, profiled(prof)...)
	l := tl.launchEnv(t, dir, env, tl.mcptest, "run", "--config", gen.SuiteFile, "--format", "json", "--output", out, "--no-cache")
	if l.code > 1 {
		t.Fatalf("exit %d\n%s", l.code, l.stderr)
	}
	figure, top := focusedAllocs(t, goCmd, tl.mcptest, prof, "alloc_objects", "Compiler..Compile$", schemaInit)
	if n, err := strconv.Atoi(figure); err != nil || n >= 1000 {
		t.Errorf("%s objects allocated compiling a schema, the suite's among them:\n%s", figure, top)
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Log("no strace: the system calls are not counted")
		return
	}
	counts := filepath.Join(t.TempDir(), "strace.txt")
	cmd := exec.Command(strace, "-f", "-c", "-e", "trace=epoll_ctl,openat", "-o", counts,
		tl.mcptest, "run", "--config", gen.SuiteFile, "--format", "json", "--output", out, "--no-cache")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2", "MCPTEST_DIR="+t.TempDir())
	if b, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(b), "passed") {
		t.Logf("strace cannot trace here (%v): the system calls are not counted\n%s", err, b)
		return
	}
	data, err := os.ReadFile(counts)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 {
			if n, err := strconv.Atoi(f[3]); err == nil {
				calls[f[len(f)-1]] = n
			}
		}
	}
	if calls["openat"] < files {
		t.Fatalf("strace counted %d openat for %d files:\n%s", calls["openat"], files, data)
	}
	if calls["epoll_ctl"] >= files/4 {
		t.Errorf("%d epoll_ctl calls over %d files: the files are offered to the poller\n%s", calls["epoll_ctl"], files, data)
	}
}

// generatedRun skips in -short and where no go command reads the
// allocation profile; otherwise it builds the tools and writes files
// generated cassettes (gen.Write, seed) into a new directory, and returns
// the tools, the go command, the directory and the text of its suite.
func generatedRun(t *testing.T, files int, seed uint64) (tl tools, goCmd, dir, suite string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the built binary over a generated directory")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to read the allocation profile")
	}
	tl = buildTools(t)
	dir = t.TempDir()
	if _, err := gen.Write(dir, files, seed); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, gen.SuiteFile))
	if err != nil {
		t.Fatal(err)
	}
	return tl, goCmd, dir, string(text)
}

// profiled is the environment of a run whose allocation profile a test
// reads as a count: MCPTEST_MEMPROFILE=prof, and GODEBUG=memprofilerate=1
// so that every allocation from the process's start is recorded. At the
// rate mcptest samples by itself (one sample per 4 KiB on average, and
// the runtime's 512 KiB during package initialisation) a figure is an
// estimate, each sample scaled by the rate over its object's size: the
// same quickstart run read 204 and 1,257 objects below jsonschema's
// Compile, 366.70kB and 0.37MB below prices.Embedded.
func profiled(prof string) []string {
	return []string{"MCPTEST_MEMPROFILE=" + prof, "GODEBUG=memprofilerate=1"}
}

// focusedAllocs reads with go tool pprof what the allocation profile prof
// of bin holds below focus and not below ignore (none when empty), in
// sample index index: the figure of its "Showing nodes accounting for"
// line ("0" when nothing below focus was recorded), and what pprof
// printed. The profile must be exact (written with profiled's
// environment: pprof reads its period as 1), and bytes are in kB whatever
// their size: pprof otherwise picks a unit for each report.
func focusedAllocs(t *testing.T, goCmd, bin, prof, index, focus, ignore string) (figure, top string) {
	t.Helper()
	raw, err := exec.Command(goCmd, "tool", "pprof", "-raw", bin, prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -raw: %v\n%.2000s", err, raw)
	}
	if !regexp.MustCompile(`(?m)^Period: 1$`).Match(raw) {
		t.Fatalf("the allocation profile is sampled, its counts estimates (run it with profiled's environment):\n%.300s", raw)
	}
	args := []string{"tool", "pprof", "-sample_index=" + index, "-top", "-focus=" + focus}
	if ignore != "" {
		args = append(args, "-ignore="+ignore)
	}
	if index == "alloc_space" {
		args = append(args, "-unit=kB")
	}
	out, err := exec.Command(goCmd, append(args, bin, prof)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	if m := regexp.MustCompile(`Showing nodes accounting for ([^,]+),`).FindSubmatch(out); m != nil {
		return string(m[1]), string(out)
	}
	if strings.Contains(string(out), "no samples") || strings.Contains(string(out), "Active filters") {
		return "0", string(out)
	}
	t.Fatalf("go tool pprof said:\n%s", out)
	return "", ""
}

// schemaInit is what focusedAllocs ignores below jsonschema's Compile:
// the library's own package initialisation, which compiles its
// meta-schemas in every process (6,473 objects), whatever the command.
const schemaInit = "jsonschema/v5.init"

// TestProcessQuickstartFixedCosts runs the built binary over the
// README's quickstart (a suite with agents:, a model and a schema
// matcher, beyond fastTest's shapes) from the repository root, as its
// first command does: the run passes its three cases, its exact
// allocation profile (profiled) shows under a thousand objects allocated
// below jsonschema's Compile outside the library's own initialisation
// (289, the suite's schema matcher; compiling the suite schema as well
// is 55,269), and the whole run allocates under 4 MB: the budget of a
// small run's fixed costs (2.9 MB counted exactly, package
// initialisation included; sampled, 8.8 MB with the suite schema
// compiled, the price table's JSON read and the spool copied in blocks of
// 256 kB, and 1.5 MB without). The same suite with
// a key misspelled is refused with the validator's worded error, placed
// at the key, exit code 2.
func TestProcessQuickstartFixedCosts(t *testing.T) {
	tl, goCmd, _, _ := generatedRun(t, 1, 43)
	prof := filepath.Join(t.TempDir(), "mem.out")
	env := append([]string{"MCPTEST_DIR=" + t.TempDir()}, profiled(prof)...)
	l := tl.launchEnv(t, "..", env, tl.mcptest, "run", "--config", "examples/quickstart/suite.yml", "--no-cache")
	if l.code != 0 {
		t.Fatalf("exit %d\n%s", l.code, l.stderr)
	}
	figure, top := focusedAllocs(t, goCmd, tl.mcptest, prof, "alloc_objects", "Compiler..Compile$", schemaInit)
	if n, err := strconv.Atoi(figure); err != nil || n >= 1000 {
		t.Errorf("%s objects allocated compiling a schema, the suite's among them:\n%s", figure, top)
	}
	out, err := exec.Command(goCmd, "tool", "pprof", "-sample_index=alloc_space", "-unit=kB", "-top", tl.mcptest, prof).CombinedOutput()
	m := regexp.MustCompile(`of ([0-9.]+)kB total`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	if kb, _ := strconv.ParseFloat(string(m[1]), 64); kb >= 4<<10 {
		t.Errorf("the quickstart allocated %.0f kB in all:\n%s", kb, out)
	}
	text, err := os.ReadFile("../examples/quickstart/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := strings.Replace(string(text), "    prompt: What is the weather", "    promt: What is the weather", 1)
	if bad == string(text) {
		t.Fatal("the quickstart no longer has the line this test misspells")
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	l = tl.launchEnv(t, dir, []string{"MCPTEST_DIR=" + t.TempDir()}, tl.mcptest, "run", "--config", "suite.yml", "--no-cache")
	if l.code != 2 || !regexp.MustCompile(`suite\.yml:\d+:5: .*promt.*prompt`).MatchString(l.stderr) {
		t.Errorf("a misspelled key: exit %d, want 2 and the key placed and named\n%s", l.code, l.stderr)
	}
}
