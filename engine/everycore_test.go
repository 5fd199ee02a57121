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
	"strconv"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestEveryCoreSameOutput runs the built binary over drawn corpora at
// GOMAXPROCS=1, 2 and 4 and holds every phase's output the same, byte for
// byte: loading and checking the suite (the tests' digests computed on
// workers), reading the cassettes ahead on workers, computing the cases
// on workers and folding them in order, writing the report. The shapes
// are .ci/bench's: one test over the cassettes directory (indented,
// grouped), one test per cassette (the JSON, text and SARIF reports, and
// the cache cold then warm, each core count with a store of its own), one
// test per transcript (OpenAI and v1), `validate` of each suite, shard
// envelopes and their `report merge`; the corpora are drawn (how many
// cassettes and transcripts, from which seed), so the cases nobody wrote
// by hand meet every worker count. The run's id, start and duration are
// the only fields left out of the comparison.
func TestEveryCoreSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over generated corpora")
	}
	tools := buildTools(t)
	rng := rand.New(rand.NewPCG(40, 6))
	for d := range 3 {
		dir := t.TempDir()
		n := 5 + rng.IntN(60)
		seed := rng.Uint64()
		if _, err := gen.Write(filepath.Join(dir, "c"), n, seed); err != nil {
			t.Fatal(err)
		}
		format := []string{gen.OpenAI, gen.V1}[d%2]
		if _, err := gen.WriteTranscripts(filepath.Join(dir, "t"), 5+rng.IntN(80), seed, format); err != nil {
			t.Fatal(err)
		}
		type shape struct {
			dir  string
			args []string
			// store runs with the workspace store in the output folder
			// of the core count (MCPTEST_DIR), kept from shape to shape.
			store bool
			// warm says the store holds the cases: the report must say
			// the cache served some.
			warm bool
		}
		var shapes []shape
		for _, suite := range []string{gen.SuiteFile, gen.GroupedSuiteFile, gen.CaseSuiteFile} {
			shapes = append(shapes,
				shape{"c", []string{"run", "--config", suite, "--format", "json", "--output", "@OUT@", "--no-cache"}, false, false},
				shape{"c", []string{"validate", "--config", suite}, false, false})
		}
		shapes = append(shapes,
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "text", "--color", "never", "--no-cache"}, false, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "sarif", "--no-cache"}, false, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "@OUT@", "--cache"}, true, false},
			shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "@OUT@", "--cache"}, true, true})
		shapes = append(shapes,
			shape{"t", []string{"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", "@OUT@", "--no-cache"}, false, false},
			shape{"t", []string{"validate", "--config", gen.TranscriptSuiteFile, "--format", "json"}, false, false})
		for i := 1; i <= 3; i++ {
			shapes = append(shapes, shape{"c", []string{"run", "--config", gen.CaseSuiteFile, "--format", "json",
				"--output", "@DIR@/shard-" + strconv.Itoa(i) + ".json", "--no-cache", "--shard", fmt.Sprintf("%d/3", i)}, false, false})
		}
		shapes = append(shapes, shape{"@DIR@", []string{"report", "merge", "shard-1.json", "shard-2.json", "shard-3.json", "--output", "@OUT@"}, false, false})
		procsList := []int{1, 2, 4}
		for _, sh := range shapes {
			outs := make([][]byte, len(procsList))
			for k, procs := range procsList {
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
				cmd := exec.Command(tools.mcptest, args...)
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
				if code > 1 {
					t.Fatalf("corpus %d (%d cassettes, seed %d), GOMAXPROCS=%d: mcptest %v: exit %d\n%s", d, n, seed, procs, args, code, stderr.Bytes())
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
							t.Fatalf("corpus %d, GOMAXPROCS=%d: mcptest %v: the warm run served no case from the cache (%v)", d, procs, args, err)
						}
					}
				}
				outs[k] = append([]byte(fmt.Sprintf("exit %d\n", code)), got...)
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
