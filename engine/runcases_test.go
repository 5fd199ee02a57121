package engine_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// runWith runs the suite at path with GOMAXPROCS set to procs and returns
// its envelope as JSON.
func runWith(t *testing.T, path string, procs int, opt engine.Options) ([]byte, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	s, err := engine.LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	opt.Version = "test"
	env, err := engine.Run(s, opt)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return data, nil
}

// TestRunWorkersKeepOrder: the envelope of a run whose replayed cases are
// computed on four workers is the envelope of the run that computes them
// one at a time, case for case and in suite order, over generated
// transcripts and every example suite that replays offline.
func TestRunWorkersKeepOrder(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{gen.OpenAI, gen.V1} {
		if _, err := gen.WriteTranscripts(filepath.Join(dir, format), 60, gen.DefaultSeed, format); err != nil {
			t.Fatal(err)
		}
	}
	suites, _ := filepath.Glob("../examples/*/suite.yml")
	suites = append(suites, filepath.Join(dir, gen.OpenAI, gen.TranscriptSuiteFile), filepath.Join(dir, gen.V1, gen.TranscriptSuiteFile))
	for _, path := range suites {
		one, err := runWith(t, path, 1, engine.Options{})
		var env report.Envelope
		if err == nil {
			err = json.Unmarshal(one, &env)
		}
		if err != nil || env.Run.Mode == "live" {
			continue // a live run's results hold timings
		}
		var emitted []string
		four, err := runWith(t, path, 4, engine.Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if at := firstDiff(one, four); at >= 0 {
			t.Errorf("%s: the run on four workers differs from the run on one at byte %d:\n%.200s\n%.200s", path, at, one[at:], four[min(at, len(four)):])
		}
		_, err = runWith(t, path, 4, engine.Options{Emit: func(c *report.CaseResult) error {
			emitted = append(emitted, c.Name)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if len(emitted) != len(env.Cases) {
			t.Fatalf("%s: %d cases emitted, want %d", path, len(emitted), len(env.Cases))
		}
		for i, c := range env.Cases {
			if emitted[i] != c.Name {
				t.Fatalf("%s: case %d emitted is %q, want %q", path, i, emitted[i], c.Name)
			}
		}
	}
}

// TestRunWorkersBounded: Prepare is called on the workers' goroutines, at
// most 16 cases per worker ahead of Emit (aheadWindow; a case is kept, emitted, before
// its room goes to another), so a run holds a bounded number
// of results whatever its size; an error from Emit or Prepare stops the
// run, is returned, and no case is prepared after Run returns.
func TestRunWorkersBounded(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 200, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, gen.TranscriptSuiteFile)
	const procs = 2
	var mu sync.Mutex
	prepared, emitted, ahead := 0, 0, 0
	opt := engine.Options{
		Prepare: func(*report.CaseResult) error {
			mu.Lock()
			defer mu.Unlock()
			prepared++
			ahead = max(ahead, prepared-emitted)
			return nil
		},
		Emit: func(*report.CaseResult) error {
			// A slow Emit lets the workers fill every room they have.
			time.Sleep(time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			emitted++
			return nil
		},
	}
	if _, err := runWith(t, path, procs, opt); err != nil {
		t.Fatal(err)
	}
	if prepared != 200 || emitted != 200 {
		t.Fatalf("%d cases prepared and %d emitted, want 200", prepared, emitted)
	}
	if limit := 16 * procs; ahead > limit { // aheadWindow cases a worker
		t.Errorf("%d cases prepared ahead of Emit, over %d", ahead, limit)
	}

	stop := errors.New("stop")
	for _, which := range []string{"Emit", "Prepare"} {
		n := 0
		opt := engine.Options{}
		f := func(*report.CaseResult) error {
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 20 {
				return stop
			}
			return nil
		}
		if which == "Emit" {
			opt.Emit = f
		} else {
			opt.Prepare = f
		}
		if _, err := runWith(t, path, procs, opt); !errors.Is(err, stop) {
			t.Fatalf("%s failing: Run returned %v, want its error", which, err)
		}
		mu.Lock()
		after := n
		mu.Unlock()
		runtime.Gosched()
		mu.Lock()
		if n != after || n > 20+16*procs+procs {
			t.Errorf("%s failing at the 20th case: called %d times, then %d", which, after, n)
		}
		mu.Unlock()
	}
}

// firstDiff is the offset of the first byte where a and b differ, -1 when
// they are equal.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return min(len(a), len(b))
}

// TestRunWorkersDrawnPaces draws how long each case takes to prepare and
// to emit (none, a yield, or up to half a millisecond, per case) and the
// processors (2 to 8), so that the workers and Run's goroutine, which
// computes a case itself while the one it is to keep is not ready, claim
// the cases in every interleaving: the run's envelope is the run on one
// processor's, byte for byte, the cases are emitted in suite order, and
// no more of them are prepared ahead of Emit than the window holds
// (aheadWindow a processor).
func TestRunWorkersDrawnPaces(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 150, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, gen.TranscriptSuiteFile)
	want, err := runWith(t, path, 1, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if _, err := runWith(t, path, 1, engine.Options{Emit: func(c *report.CaseResult) error {
		names = append(names, c.Name)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 8))
	pace := func(draw int) {
		switch draw % 3 {
		case 1:
			runtime.Gosched()
		case 2:
			time.Sleep(time.Duration(draw%500) * time.Microsecond)
		}
	}
	for round := range 12 {
		procs := 2 + rng.IntN(7)
		slowPrepare, slowEmit := rng.IntN(4), rng.IntN(4) // of 4 cases, how many are slow
		var mu sync.Mutex
		prepared, ahead := 0, 0
		var emitted []string
		seeds := make(map[string]int, len(names))
		for _, n := range names {
			seeds[n] = rng.IntN(1 << 20)
		}
		opt := engine.Options{
			Prepare: func(c *report.CaseResult) error {
				if d := seeds[c.Name]; d%4 < slowPrepare {
					pace(d)
				}
				mu.Lock()
				defer mu.Unlock()
				prepared++
				ahead = max(ahead, prepared-len(emitted))
				return nil
			},
			Emit: func(c *report.CaseResult) error {
				if d := seeds[c.Name] >> 10; d%4 < slowEmit {
					pace(d)
				}
				mu.Lock()
				defer mu.Unlock()
				emitted = append(emitted, c.Name)
				return nil
			},
		}
		if _, err := runWith(t, path, procs, opt); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(emitted, names) {
			t.Fatalf("round %d (GOMAXPROCS=%d): cases emitted out of suite order", round, procs)
		}
		if limit := 16 * procs; ahead > limit {
			t.Errorf("round %d (GOMAXPROCS=%d): %d cases prepared ahead of Emit, over %d", round, procs, ahead, limit)
		}
		opt.Emit = nil
		got, err := runWith(t, path, procs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if at := firstDiff(want, got); at >= 0 {
			t.Fatalf("round %d (GOMAXPROCS=%d): the envelope differs from the run on one processor at byte %d", round, procs, at)
		}
	}
}

// TestRunWorkersOverlap: on more than one processor, replayed cases are
// computed at the same time. The first case prepared waits (at most five
// seconds) until another case is being prepared beside it; a run that
// computes its cases one after the other (the workers not started, a case
// not shared with them) never overlaps two and fails.
func TestRunWorkersOverlap(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 40, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, gen.TranscriptSuiteFile)
	for _, procs := range []int{2, 4} {
		var mu sync.Mutex
		inside, calls, most := 0, 0, 0
		both, closed := make(chan struct{}), false
		opt := engine.Options{Prepare: func(*report.CaseResult) error {
			mu.Lock()
			inside++
			calls++
			first := calls == 1
			most = max(most, inside)
			if inside >= 2 && !closed {
				closed = true
				close(both)
			}
			mu.Unlock()
			if first {
				select {
				case <-both:
				case <-time.After(5 * time.Second):
				}
			}
			mu.Lock()
			inside--
			mu.Unlock()
			return nil
		}}
		if _, err := runWith(t, path, procs, opt); err != nil {
			t.Fatal(err)
		}
		if most < 2 {
			t.Errorf("GOMAXPROCS=%d: no two of %d cases were prepared at once", procs, calls)
		}
	}
}
