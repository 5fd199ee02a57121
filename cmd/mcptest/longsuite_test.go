package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// longSuite writes two generated cassettes and a suite of n tests in the
// one-test-per-cassette shape over them (gen.CaseSuite), long enough for
// the loader to hold its tests: and a run to build each again from the
// text (engine.LoadSuiteForRun), and returns the directory.
func longSuite(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := gen.Write(dir, 2, gen.DefaultSeed); err != nil {
		t.Fatalf("gen.Write: %v", err)
	}
	one := regexp.MustCompile(`cassette: ` + gen.CassetteDir + `/cassette-\d+(\d)\.json`)
	suite := one.ReplaceAllFunc(gen.CaseSuite(gen.DefaultSeed, n), func(m []byte) []byte {
		return []byte("cassette: " + gen.CassetteDir + "/cassette-00000" + string("01"[m[len(m)-6]%2]) + ".json")
	})
	if len(suite) < 128<<10 {
		t.Fatalf("the suite is %d bytes: too short for its tests to be held", len(suite))
	}
	if err := os.WriteFile(filepath.Join(dir, "long.yml"), suite, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestProcessRunLongSuite: `mcptest run` over a suite whose tests it
// builds again one at a time as it runs them reports every case as a run
// of the suite loaded whole does (engine.LoadSuite and engine.Run): the
// same cases, totals and verdict, with --filter and --shard, and with the
// cache on, as users run it: a first run fills the store, a second is
// served from it (a run of such a suite with the cache on once ended in
// a nil dereference, exit 3, before any case ran).
func TestProcessRunLongSuite(t *testing.T) {
	bin, dir := processBin(t), longSuite(t, 600)
	t.Chdir(dir) // the binary runs there too: positions and paths read alike
	suite, err := engine.LoadSuite("long.yml")
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	// The in-process run each binary run is held to, once per options: the
	// whole run, the cold and the warm one compute the same cases.
	wants := map[string]runCases{}
	want := func(t *testing.T, opt engine.Options) runCases {
		t.Helper()
		key := strings.Join(opt.Filter, "\x00") + "\x00" + opt.Shard.String()
		if w, ok := wants[key]; ok {
			return w
		}
		env, err := engine.Run(suite, opt)
		if err != nil {
			t.Fatal(err)
		}
		wants[key] = casesOf(t, env)
		return wants[key]
	}
	for _, flags := range [][]string{nil, {"--filter", "ssistant 1"}, {"--shard", "2/3"}, {"cold"}, {"warm"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.json")
			args, storeEnv := []string{"run", "--config", "long.yml", "--reporter", "json", "--output", out}, "MCPTEST_DIR="+t.TempDir()
			switch cached := len(flags) == 1; {
			case cached:
				// --cache: on CI (CI=true) the cache is off by default.
				args, storeEnv, flags = append(args, "--cache"), "MCPTEST_DIR="+store, nil
			default:
				args = append(append(args, "--no-cache"), flags...)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), storeEnv, "CI=true")
			if msg, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() > 1 {
				t.Fatalf("run: %v\n%.2000s", err, msg)
			}
			if strings.HasSuffix(t.Name(), "warm") {
				if n := cachedCases(t, out); n < 2 {
					t.Errorf("the second run with the cache on served %d cases from it", n)
				}
			}
			opt := engine.Options{Version: "test"}
			if len(flags) > 0 && flags[0] == "--filter" {
				opt.Filter = flags[1:]
			} else if len(flags) > 0 {
				opt.Shard, _ = report.ParseShard(flags[1])
			}
			want, got := want(t, opt), casesFile(t, out)
			if len(want.Cases) < 2 {
				t.Fatalf("only %d cases ran", len(want.Cases))
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("the run of the long suite differs from a run of the suite loaded whole: %d cases and %+v against %d cases and %+v",
					len(got.Cases), got.Totals, len(want.Cases), want.Totals)
			}
		})
	}
}

// cachedCases is the number of cases the report at path says were
// served from the cache.
func cachedCases(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Run struct {
			Cached int `json:"cached"`
		} `json:"run"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	return env.Run.Cached
}

// runCases are the parts of an envelope a run of one suite computes
// alike wherever and whenever it runs.
type runCases struct {
	Verdict string           `json:"verdict"`
	Totals  map[string]any   `json:"totals"`
	Cases   []map[string]any `json:"cases"`
}

func casesOf(t *testing.T, env *report.Envelope) runCases {
	t.Helper()
	data, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return decodeCases(t, data)
}

func casesFile(t *testing.T, path string) runCases {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeCases(t, data)
}

func decodeCases(t *testing.T, data []byte) runCases {
	t.Helper()
	var c runCases
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestProcessRunLongSuiteBadTest: a long suite whose last test names a
// cassette that is not there is refused by `mcptest run` before any case
// runs, exit 2, with the error `mcptest validate` gives, at the same
// file:line:col.
func TestProcessRunLongSuiteBadTest(t *testing.T) {
	dir := longSuite(t, 600)
	path := filepath.Join(dir, "long.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndex(data, []byte("cassettes/cassette-00000"))
	data = append(data[:at:at], append([]byte("cassettes/missing.json"), data[at+len("cassettes/cassette-000000.json"):]...)...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := func(args ...string) string {
		cmd := exec.Command(processBin(t), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "MCPTEST_DIR="+t.TempDir(), "CI=true")
		var b bytes.Buffer
		cmd.Stderr = &b
		_ = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Fatalf("%v: exit code %d, want 2\n%s", args, code, b.String())
		}
		return strings.SplitN(b.String(), "\n", 2)[0]
	}
	run, validate := stderr("run", "--config", "long.yml", "--no-cache"), stderr("validate", "--config", "long.yml")
	if !strings.HasPrefix(run, "long.yml:") || !strings.Contains(run, "missing.json") || run != validate {
		t.Errorf("run says\n%s\nvalidate says\n%s", run, validate)
	}
}
