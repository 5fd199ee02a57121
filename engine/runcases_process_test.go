package engine_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
)

// TestRunnerSameOnEveryCoreCount runs the built binary over drawn corpora
// at GOMAXPROCS=1, 2 and 8 and holds the report the same, byte for byte
// but for the run's id, start and duration: the cases are claimed by
// whichever worker is free, Run's goroutine among them, and still come
// out in suite order with the bytes of computing them one at a time. The
// corpora are drawn (how many transcripts and cassettes, which transcript
// format, from which seed): a few cases (fewer than the workers at 8),
// hundreds (the window of cases claimed ahead full many times over), and
// a suite longer than a run keeps built, whose tests past the kept ones
// are built again in suite order by whichever worker claims them first.
// Each corpus is run with the JSON report and the text one, and its
// transcripts again with a drawn number of scenario tests after them
// (replayed cases the load does not compute ahead).
func TestRunnerSameOnEveryCoreCount(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over generated corpora")
	}
	tools := buildTools(t)
	restock, err := os.ReadFile("../examples/scenario-world/cassettes/restock.json")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 7))
	// keptBuilt is how many tests a suite loaded for a run keeps built
	// (engine's keepBuilt): the last corpus is longer.
	const keptBuilt = 2048
	for d := range 4 {
		dir := t.TempDir()
		seed := rng.Uint64()
		n, nt := 2+rng.IntN(40), 2+rng.IntN(6)
		switch d {
		case 1, 2:
			nt = 60 + rng.IntN(300)
		case 3:
			nt = keptBuilt + 1 + rng.IntN(300)
		}
		format := []string{gen.OpenAI, gen.V1}[rng.IntN(2)]
		if _, err := gen.WriteTranscripts(filepath.Join(dir, "t"), nt, seed, format); err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Write(filepath.Join(dir, "c"), n, seed); err != nil {
			t.Fatal(err)
		}
		// The transcripts' suite with scenario tests after them: cases
		// the load does not compute ahead, shared with the workers.
		suite, err := os.ReadFile(filepath.Join(dir, "t", gen.TranscriptSuiteFile))
		if err != nil {
			t.Fatal(err)
		}
		ns := 2 + rng.IntN(40)
		suite = append(suite, engine.ScenarioTests(rand.New(rand.NewPCG(seed, 1)), ns, "restock.json")...)
		if err := os.WriteFile(filepath.Join(dir, "t", "mixed.yml"), suite, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "t", "restock.json"), restock, 0o644); err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("corpus %d (%d %s transcripts, %d cassettes, %d scenario tests, seed %d)", d, nt, format, n, ns, seed)
		shapes := []shape{
			{dir: "t", args: []string{"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", "@OUT@", "--no-cache"}},
			{dir: "t", args: []string{"run", "--config", gen.TranscriptSuiteFile, "--format", "text", "--color", "never", "--no-cache"}},
			{dir: "c", args: []string{"run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "@OUT@", "--no-cache"}},
			{dir: "t", args: []string{"run", "--config", "mixed.yml", "--format", "json", "--output", "@OUT@", "--no-cache"}},
		}
		for _, sh := range shapes {
			one := runShape(t, tools.mcptest, dir, sh, 1, where)
			if !bytes.Contains(one, []byte("passed")) {
				t.Fatalf("%s: mcptest %v reported no case:\n%s", where, sh.args, clip(one))
			}
			for _, procs := range []int{2, 8} {
				if got := runShape(t, tools.mcptest, dir, sh, procs, where); !bytes.Equal(one, got) {
					t.Errorf("%s: mcptest %v differs between GOMAXPROCS=1 and %d at byte %d:\n%s\n---\n%s",
						where, sh.args, procs, firstDiff(one, got), clip(one), clip(got))
				}
			}
		}
	}
}
