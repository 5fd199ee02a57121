package engine_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"runtime"
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
