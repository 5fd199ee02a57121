package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// TestReadAheadSameAsStream: one test over a directory reads its files on
// every core (readAhead) and must report exactly what reading them one at
// a time, streamed, reports. Directories are drawn (seeded) from generated
// cassettes, some cut short at a random byte (refused files), some empty,
// some a transcript, in random order and number; each is run on one core
// and on four, and the two envelopes with every case as emitted, the
// run's own fields aside (or the errors of a run that a refused file
// fails), must be byte-identical. The
// last directories run testdata/everygate (every gate, per-run checks on
// the run alone and on its number), whose runs the workers prepare
// (runPrep: checks, gate scores, prices) and the fold only folds.
func TestReadAheadSameAsStream(t *testing.T) {
	src := t.TempDir()
	paths, err := gen.Write(src, 24, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	tpaths, err := gen.WriteTranscripts(filepath.Join(src, "t"), 4, gen.DefaultSeed, gen.OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, p := range append(paths, tpaths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	suite := `agents:
  - name: every recording
    cassette: "cassettes/*.json"
    equal_function_sets:
      classes:
        - { name: search, members: [search, web_search, brave_web_search] }
    tool_edges:
      allowed: [search]
      restricted: [git_reset]
    expect:
      - target: final_response
        matcher: { regex: "." }
`
	everyGate, err := os.ReadFile(filepath.Join("testdata", "everygate", "suite.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 2))
	for d := range 10 {
		suite := suite
		if d >= 6 { // every gate on, its runs scored and checked on the workers (runPrep)
			suite = string(everyGate)
		}
		files := map[string]string{}
		for i := range 2 + rng.IntN(30) {
			body := bodies[rng.IntN(len(bodies))]
			// Every other directory has no refused file, so its envelope,
			// not only its errors, is compared.
			switch r := rng.IntN(8); {
			case d%2 == 0:
			case r == 0:
				body = body[:rng.IntN(len(body))]
			case r == 1:
				body = ""
			}
			files[fmt.Sprintf("cassettes/%03d.json", i)] = body
		}
		s := writeSuite(t, suite, files)
		var envs [2][]byte
		for k, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			var cases []byte // every case as emitted: the envelope of an emitting run holds none
			env, err := Run(s, Options{Version: "test", Emit: func(c *report.CaseResult) error {
				b, err := json.Marshal(c)
				cases = append(append(cases, b...), '\n')
				return err
			}})
			runtime.GOMAXPROCS(prev)
			if err != nil {
				// A refused file fails the run: its errors are the report.
				envs[k] = []byte(err.Error())
				continue
			}
			env.Run = report.RunInfo{}
			if envs[k], err = json.Marshal(env); err != nil {
				t.Fatal(err)
			}
			envs[k] = append(envs[k], cases...)
		}
		if string(envs[0]) != string(envs[1]) {
			t.Errorf("directory %d (%d files): the envelope on four cores differs from one core's:\n%s\n%s", d, len(files), envs[0], envs[1])
		}
	}
}

// TestFoldLineFoldsInOrderOnce draws runs of the combining fold of the
// files read ahead (foldLine): a number of files, workers and a window,
// each file handed in by the worker that drew it after a drawn delay, the
// window's places given back by the fold as readAhead's are. Every file
// must be folded exactly once, in file order, never two folds at once,
// and done closed only after the last.
func TestFoldLineFoldsInOrderOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 11))
	for trial := range 60 {
		files := 1 + rng.IntN(300)
		workers := 1 + rng.IntN(6)
		window := 1 + rng.IntN(3*workers)
		delays := make([]time.Duration, files)
		for i := range delays {
			if rng.IntN(4) == 0 {
				delays[i] = time.Duration(rng.IntN(200)) * time.Microsecond
			}
		}
		var inFold atomic.Int32
		var folded []int
		places := make(chan struct{}, window)
		line := newFoldLine(files, window, func(i int, fr fileRead) {
			if inFold.Add(1) != 1 {
				t.Errorf("trial %d: two folds at once (file %d)", trial, i)
			}
			folded = append(folded, i)
			fr.release()
			inFold.Add(-1)
		})
		jobs := make(chan int)
		go func() {
			defer close(jobs)
			for i := range files {
				places <- struct{}{}
				jobs <- i
			}
		}()
		for range workers {
			go func() {
				for i := range jobs {
					time.Sleep(delays[i])
					line.put(i, fileRead{release: func() { <-places }})
				}
			}()
		}
		select {
		case <-line.done:
		case <-time.After(time.Minute):
			t.Fatalf("trial %d (%d files, %d workers, window %d): the line never finished", trial, files, workers, window)
		}
		if len(folded) != files {
			t.Fatalf("trial %d: %d folds of %d files", trial, len(folded), files)
		}
		for i, f := range folded {
			if f != i {
				t.Fatalf("trial %d (%d files, %d workers, window %d): fold %d took file %d", trial, files, workers, window, i, f)
			}
		}
	}
}
