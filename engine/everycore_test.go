package engine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// everyGateSuite is testdata/everygate/suite.yml written into a corpus:
// one test over its cassettes directory with every gate switched on.
const everyGateSuite = "suite-everygate.yml"

// TestEveryCoreSameOutput runs the built binary over drawn corpora at
// GOMAXPROCS=1, 2 and 4 and holds every phase's output the same, byte for
// byte: loading and checking the suite (the tests' digests computed on
// workers), reading the cassettes ahead on workers and preparing their
// runs there (every gate's scores and the per-run checks of one test over
// the directory with every gate on, testdata/everygate), computing the cases
// on workers and folding them in order, writing the report. The shapes
// are .ci/bench's: one test over the cassettes directory (indented,
// grouped), one test per cassette (the JSON, text and SARIF reports, and
// the cache cold then warm, each core count with a store of its own), one
// test per transcript (OpenAI and v1), `validate` of each suite, shard
// envelopes and their `report merge`; the corpora are drawn (how many
// cassettes and transcripts, from which seed), so the cases nobody wrote
// by hand meet every worker count; the last corpus has suites over 64
// KiB, whose tests are computed as they are loaded (LoadSuiteAhead), and
// every corpus a one-test-per-cassette suite with a problem drawn late
// (lateSuites: the load's or the run's), which must fail the same way,
// with the same words and no report, on every core count. The run's id,
// start and duration are the only fields left out of the comparison.
func TestEveryCoreSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over generated corpora")
	}
	tools := buildTools(t)
	everyGate, err := os.ReadFile(filepath.Join("testdata", "everygate", "suite.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 6))
	for d := range 4 {
		dir := t.TempDir()
		n, nt := 5+rng.IntN(60), 5+rng.IntN(80)
		if d == 3 { // suites over 64 KiB: tests: held, each test computed as it is loaded (LoadSuiteAhead)
			n, nt = 200+rng.IntN(100), 200+rng.IntN(100)
		}
		seed := rng.Uint64()
		paths, err := gen.Write(filepath.Join(dir, "c"), n, seed)
		if err != nil {
			t.Fatal(err)
		}
		format := []string{gen.OpenAI, gen.V1}[d%2]
		if _, err := gen.WriteTranscripts(filepath.Join(dir, "t"), nt, seed, format); err != nil {
			t.Fatal(err)
		}
		lateSuites(t, rng, filepath.Join(dir, "c"), paths)
		if err := os.WriteFile(filepath.Join(dir, "c", everyGateSuite), everyGate, 0o644); err != nil {
			t.Fatal(err)
		}
		var shapes []shape
		for _, suite := range []string{gen.SuiteFile, gen.GroupedSuiteFile, gen.CaseSuiteFile, everyGateSuite} {
			shapes = append(shapes,
				shape{"c", []string{"run", "--config", suite, "--format", "json", "--output", "@OUT@", "--no-cache"}, false, false, false},
				shape{"c", []string{"validate", "--config", suite}, false, false, false})
		}
		shapes = append(shapes,
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "text", "--color", "never", "--no-cache"}, false, false, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "sarif", "--no-cache"}, false, false, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "@OUT@", "--cache"}, true, false, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "@OUT@", "--cache"}, true, true, false})
		shapes = append(shapes,
			shape{"t", []string{"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", "@OUT@", "--no-cache"}, false, false, false},
			shape{"t", []string{"validate", "--config", gen.TranscriptSuiteFile, "--format", "json"}, false, false, false})
		for i := 1; i <= 3; i++ {
			shapes = append(shapes, shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json",
				"--output", "@DIR@/shard-" + strconv.Itoa(i) + ".json", "--no-cache", "--shard", fmt.Sprintf("%d/3", i)}, false, false, false})
		}
		shapes = append(shapes, shape{"@DIR@", []string{"report", "merge", "shard-1.json", "shard-2.json", "shard-3.json", "--output", "@OUT@"}, false, false, false})
		for _, late := range lateKinds {
			shapes = append(shapes, shape{dir: "c", args: []string{"run", "--config", "suite-late-" + late + ".yml", "--format", "json", "--output", "@OUT@", "--no-cache"}, broken: true})
		}
		procsList := []int{1, 2, 4}
		for _, sh := range shapes {
			outs := make([][]byte, len(procsList))
			for k, procs := range procsList {
				outs[k] = runShape(t, tools.mcptest, dir, sh, procs, fmt.Sprintf("corpus %d (%d cassettes, seed %d)", d, n, seed))
			}
			for k := 1; k < len(outs); k++ {
				if !bytes.Equal(outs[0], outs[k]) {
					t.Errorf("corpus %d (%d cassettes, seed %d): mcptest %v differs between GOMAXPROCS=1 and %d:\n%s\n---\n%s",
						d, n, seed, sh.args, procsList[k], clip(outs[0]), clip(outs[k]))
				}
			}
			if len(outs[0]) < 100 {
				t.Errorf("corpus %d: mcptest %v gave almost nothing to compare: %q", d, sh.args, outs[0])
			}
		}
	}
}

// shape is one command of TestEveryCoreSameOutput, run in dir (under the
// corpus, or @DIR@, the output folder of the core count).
type shape struct {
	dir  string
	args []string
	// store runs with the workspace store in the output folder
	// of the core count (MCPTEST_DIR), kept from shape to shape.
	store bool
	// warm says the store holds the cases: the report must say
	// the cache served some.
	warm bool
	// broken says the suite has a problem late in it: the run
	// exits 2, writes no report, and its stderr is compared.
	broken bool
}

// runShape runs the shape sh of the corpus in dir with the binary bin at
// GOMAXPROCS=procs and returns what is compared: the exit code and the
// report (its run clock left out), or the stdout; for a broken suite, its
// stderr, once the run is seen to exit 2 and write no report.
func runShape(t *testing.T, bin, dir string, sh shape, procs int, where string) []byte {
	t.Helper()
	outDir := filepath.Join(dir, "out-"+strconv.Itoa(procs))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "report.json")
	args := make([]string, len(sh.args))
	for i, a := range sh.args {
		a = replace(a, "@OUT@", out)
		args[i] = replace(a, "@DIR@", outDir)
	}
	wd := replace(sh.dir, "@DIR@", outDir)
	if !filepath.IsAbs(wd) {
		wd = filepath.Join(dir, wd)
	}
	if sh.broken {
		os.Remove(out) // the report of the shape before
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs), "CI=", "GITHUB_ACTIONS=")
	if sh.store {
		cmd.Env = append(cmd.Env, "MCPTEST_DIR="+filepath.Join(outDir, "store"))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	if sh.broken {
		if _, err := os.Stat(out); code != 2 || err == nil {
			t.Fatalf("%s, GOMAXPROCS=%d: mcptest %v: exit %d, report written: %v (want exit 2 and none)\n%s", where, procs, args, code, err == nil, stderr.Bytes())
		}
		return append([]byte("exit 2\n"), bytes.ReplaceAll(stderr.Bytes(), []byte(dir), []byte("DIR"))...)
	}
	if code > 1 {
		t.Fatalf("%s, GOMAXPROCS=%d: mcptest %v: exit %d\n%s", where, procs, args, code, stderr.Bytes())
	}
	got := stdout.Bytes()
	for i, a := range args {
		if a == "--output" {
			data, err := os.ReadFile(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			got = withoutRunClock(t, data)
			var env struct {
				Run struct{ Cached int } `json:"run"`
			}
			if err := json.Unmarshal(data, &env); err != nil || sh.warm && env.Run.Cached == 0 {
				t.Fatalf("%s, GOMAXPROCS=%d: mcptest %v: the warm run served no case from the cache (%v)", where, procs, args, err)
			}
		}
	}
	return append([]byte(fmt.Sprintf("exit %d\n", code)), got...)
}

// lateKinds are the problems lateSuites puts late in a suite: a name used
// twice and a cassette that does not exist (the load's errors), a
// cassette cut short (the run's).
var lateKinds = []string{"name", "missing", "short"}

// lateSuites writes, beside the one-test-per-cassette suite of dir, one
// suite per lateKinds with its problem at a test drawn in the last third,
// where the tests before it have been built (and, loaded for a run on
// several cores, computed) when it is found.
func lateSuites(t *testing.T, rng *rand.Rand, dir string, paths []string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, gen.CaseSuiteFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := bytes.Split(text, []byte("\n  - name: "))
	late := len(tests) - 1 - rng.IntN(max(1, len(tests)/3))
	for _, kind := range lateKinds {
		parts := slices.Clone(tests)
		test := parts[late]
		switch kind {
		case "name":
			test = append([]byte(`"`+firstName(tests[1])+`"`), test[bytes.IndexByte(test, '\n'):]...)
		case "missing":
			test = bytes.Replace(test, []byte("cassette: "), []byte("cassette: missing/"), 1)
		case "short":
			short := filepath.Join(dir, "short.json")
			whole, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(short, whole[:len(whole)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			i := bytes.Index(test, []byte("cassette: "))
			j := i + bytes.IndexByte(test[i:], '\n')
			test = slices.Concat(test[:i], []byte("cassette: short.json"), test[j:])
		}
		parts[late] = test
		if err := os.WriteFile(filepath.Join(dir, "suite-late-"+kind+".yml"), bytes.Join(parts, []byte("\n  - name: ")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// firstName is the name a test of the generated suite starts with.
func firstName(test []byte) string {
	line, _, _ := bytes.Cut(test, []byte("\n"))
	return string(line)
}

func replace(s, old, new string) string {
	if s == old {
		return new
	}
	return string(bytes.ReplaceAll([]byte(s), []byte(old), []byte(new)))
}

// withoutRunClock is a JSON report without its run's id, start and
// duration, which differ between any two runs.
func withoutRunClock(t *testing.T, data []byte) []byte {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("report: %v\n%s", err, clip(data))
	}
	if run, ok := env["run"].(map[string]any); ok {
		delete(run, "id")
		delete(run, "started_at")
		delete(run, "duration_ms")
	}
	out, err := json.MarshalIndent(env, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func clip(b []byte) []byte {
	if len(b) > 3000 {
		return append(b[:3000:3000], "…"...)
	}
	return b
}
