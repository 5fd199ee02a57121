package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// aheadSuite writes a suite of n drawn agent tests over the cassettes
// files (drawn gates and expectations, some tests reading the directory
// of them), and the problem of a drawn kind at test late when late >= 0:
// a name used twice, a cassette that does not exist, a key no test has
// (the load's), a test without a cassette, a cassette cut short (the
// run's), each found after the tests before it were built.
func aheadSuite(rng *rand.Rand, dir string, files []string, n, late int, kind string) string {
	var b strings.Builder
	tools := []string{"fetch.fetch", "filesystem.write_file", "wikipedia.get_article", "s.search"}
	pick := func() string { return tools[rng.IntN(len(tools))] }
	b.WriteString("tests:\n")
	for i := range n {
		name := fmt.Sprintf("test %d", i)
		cas, _ := filepath.Rel(dir, files[rng.IntN(len(files))])
		if rng.IntN(40) == 0 {
			cas = filepath.Dir(cas)
		}
		extra := ""
		if i == late {
			switch kind {
			case "name":
				name = "test 0"
			case "cassette":
				cas = "c/missing.json"
			case "key":
				extra = "    retries: 3\n"
			case "short":
				cas = "short.json"
			}
		}
		fmt.Fprintf(&b, "  - name: %q\n    type: agent\n", name)
		if i != late || kind != "planned" {
			fmt.Fprintf(&b, "    cassette: %s\n", cas)
		}
		b.WriteString(extra)
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "    equal_function_sets:\n      classes:\n        - { name: a, members: [%s, %s] }\n        - { name: b, members: [%s] }\n      expect:\n        - tool_selection.f1: { \">=\": %d }\n",
				pick(), pick(), pick(), rng.IntN(101))
		case 1:
			fmt.Fprintf(&b, "    budget:\n      max_calls: %d\n", 1+rng.IntN(12))
		case 2:
			fmt.Fprintf(&b, "    trajectory:\n      match: %s\n      steps:\n        - { tool: %s }\n        - { tool: %s }\n",
				[]string{"superset", "subset", "strict", "unordered"}[rng.IntN(4)], pick(), pick())
		}
		if k := rng.IntN(3); k > 0 {
			b.WriteString("    expect:\n")
			for range k {
				fmt.Fprintf(&b, "      - target: tool_names\n        matcher: { contains: %s }\n", pick())
			}
		}
	}
	return b.String()
}

// aheadRun loads the suite at path for a run and runs it with GOMAXPROCS
// procs, the load computing ahead when ahead is set, and returns what a
// reader of the run sees: the envelope and every case emitted, as JSON,
// or the error; and how many cases the load took ahead, and how many
// times the run showed progress, warned or emitted before the load ended.
func aheadRun(t *testing.T, path string, procs int, ahead bool, shard report.Shard) (out string, taken int, early int64) {
	t.Helper()
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	var loaded atomic.Bool
	var calls atomic.Int64
	var prepared atomic.Int64
	var cases []string
	opt := Options{Version: "test", Shard: shard,
		Prepare: func(*report.CaseResult) error { prepared.Add(1); return nil },
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mode := loadMode{forRun: true, keep: keepBuilt}
	if ahead {
		mode.ahead = &opt
	}
	s, err := parseSuiteWith(path, data, mode, heldAlways)
	if err != nil {
		return "error: " + err.Error(), 0, calls.Load()
	}
	loaded.Store(true)
	if sum := sha256.Sum256(data); s.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("the suite's digest %q is not its file's", s.SHA256)
	}
	if s.ahead != nil {
		taken = len(s.ahead.taken)
	}
	opt.Progress = func(Progress) {
		if !loaded.Load() {
			calls.Add(1)
		}
	}
	opt.Warn = func(string) { calls.Add(1) }
	opt.Emit = emitJSON(&cases)
	env, err := Run(s, opt)
	if err != nil {
		return "error: " + err.Error(), taken, calls.Load()
	}
	if int(prepared.Load()) < len(cases) {
		t.Fatalf("%d cases emitted, %d prepared", len(cases), prepared.Load())
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + strings.Join(cases, "\n"), taken, calls.Load()
}

// TestLoadAheadIsRun: a suite whose load computes its tests as it builds
// them (LoadSuiteAhead) runs to the same envelope and cases, byte for
// byte, as the suite loaded first and run after on one core, over drawn
// suites of generated cassettes (drawn gates, directories, a cassette cut
// short, shards); a suite with a problem drawn late (a name used twice, a
// missing cassette, an unknown key: the load's; a test with no cassette,
// a cassette cut short: the run's) fails with the same words, having shown no progress, warned
// of nothing and emitted nothing; no worker is left behind. The load must
// have taken cases ahead, or the test proves nothing; which cases the
// builder leaves for Run is drawn (some runs take cases after one left),
// and any choice runs to the same envelope.
func TestLoadAheadIsRun(t *testing.T) {
	dir := t.TempDir()
	files, err := gen.Write(filepath.Join(dir, "c"), 12, 40)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "short.json"), whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 7))
	before := runtime.NumGoroutine()
	behind := aheadBehind
	defer func() { aheadBehind = behind }()
	gaps := 0 // runs whose cases taken ahead were not a prefix of the suite's
	kinds := []string{"", "name", "cassette", "key", "planned", "short"}
	draws := 12
	if testing.Short() {
		draws = 6
	}
	for d := range draws {
		n := 20 + rng.IntN(300)
		kind := kinds[d%len(kinds)]
		late := -1
		if kind != "" {
			late = n/2 + rng.IntN(n-n/2)
		}
		shard := report.Shard{}
		if rng.IntN(3) == 0 {
			shard = report.Shard{Index: 1 + rng.IntN(3), Count: 3}
		}
		path := filepath.Join(dir, fmt.Sprintf("suite-%d.yml", d))
		if err := os.WriteFile(path, []byte(aheadSuite(rng, dir, files, n, late, kind)), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _, _ := aheadRun(t, path, 1, false, shard)
		for _, procs := range []int{2, 4} {
			gap := drawBehind(behind, d, procs)
			got, taken, early := aheadRun(t, path, procs, true, shard)
			if gap(taken) {
				gaps++
			}
			if got != want {
				t.Fatalf("suite %d (%d tests, problem %q at %d, shard %v), GOMAXPROCS=%d: the run differs from the one loaded first:\n%s\n---\n%s",
					d, n, kind, late, shard, procs, clipText(want), clipText(got))
			}
			if early != 0 {
				t.Fatalf("suite %d: %d progress, warnings or cases before the suite loaded", d, early)
			}
			loadErr := kind != "" && kind != "planned" && kind != "short"
			if !loadErr && taken == 0 {
				t.Fatalf("suite %d (%d tests), GOMAXPROCS=%d: the load computed no case ahead", d, n, procs)
			}
			if (kind != "") != strings.HasPrefix(got, "error: ") {
				t.Fatalf("suite %d: problem %q at %d, and the run said:\n%s", d, kind, late, clipText(got))
			}
		}
	}
	if gaps == 0 {
		t.Fatal("every run took a prefix of its suite's cases ahead: the cases left for Run between them were not tried")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the runs, %d before", n, before)
	}
}

// drawBehind draws which cases the builder leaves for Run besides the
// workers' own queue (behind, the real aheadBehind): none more, or each
// with a drawn chance, from a source of its own seeded with d and procs
// (the suites drawn stay the same). It sets aheadBehind and returns what
// reports whether a run that took taken cases took one after one it left.
func drawBehind(behind func(*loadAhead) bool, d, procs int) (gap func(taken int) bool) {
	pick := rand.New(rand.NewPCG(uint64(d), uint64(procs)))
	chance, leftAt := pick.IntN(4), -1
	aheadBehind = func(a *loadAhead) bool {
		if behind(a) || pick.IntN(4) < chance {
			if leftAt < 0 {
				leftAt = len(a.taken)
			}
			return true
		}
		return false
	}
	return func(taken int) bool { return leftAt >= 0 && taken > leftAt }
}

// TestLoadAheadGivenUp: what a load computed ahead is given up, every
// digest set and no worker left, when the run has other options (a
// filter, a cache, another shard: the cases are computed again, the same)
// or does not happen (Release).
func TestLoadAheadGivenUp(t *testing.T) {
	dir := t.TempDir()
	files, err := gen.Write(filepath.Join(dir, "c"), 4, 41)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 8))
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(aheadSuite(rng, dir, files, 80, -1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	before := runtime.NumGoroutine()
	load := func() *Suite {
		t.Helper()
		s, err := parseSuiteWith(path, data, loadMode{forRun: true, keep: keepBuilt, ahead: &Options{}}, heldAlways)
		if err != nil {
			t.Fatal(err)
		}
		if s.ahead == nil || len(s.ahead.taken) == 0 {
			t.Fatal("the load computed no case ahead")
		}
		return s
	}
	plain, err := parseSuiteWith(path, data, loadMode{forRun: true, keep: keepBuilt}, heldAlways)
	if err != nil {
		t.Fatal(err)
	}
	wantEnv, err := Run(plain, Options{Filter: []string{"test 1"}})
	if err != nil {
		t.Fatal(err)
	}
	s := load()
	env, err := Run(s, Options{Filter: []string{"test 1"}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(wantEnv)
	b, _ := json.Marshal(env)
	if string(a) != string(b) {
		t.Fatalf("a filtered run of a suite loaded ahead differs:\n%s\n---\n%s", clipText(string(a)), clipText(string(b)))
	}
	s = load()
	s.Release()
	for i, c := range s.Cases {
		if len(c.DefinitionSHA256) != 64 || c.ahead != nil {
			t.Fatalf("case %d after Release: digest %q, outcome held %v", i, c.DefinitionSHA256, c.ahead != nil)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left, %d before", n, before)
	}
}

func clipText(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// emitJSON is an Emit that appends each case, as JSON, to cases.
func emitJSON(cases *[]string) func(*report.CaseResult) error {
	return func(c *report.CaseResult) error {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		*cases = append(*cases, string(b))
		return nil
	}
}
