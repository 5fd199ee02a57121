package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessRunPacesCollector runs the built binary over 1,000 generated
// transcripts (a live heap of a few MB, garbage made fast) with the
// collector's trace on (GODEBUG=gctrace=1), at GOMAXPROCS=1 and 2: paced
// as a run is (engine.paceRun: not before the heap reaches its floor), it
// collects at most half as often as at GOGC=100, which turns the pace
// off (two alternated runs of each, summed), and writes the same cases,
// totals and verdict.
func TestProcessRunPacesCollector(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 1000, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	cycle := regexp.MustCompile(`(?m)^gc \d+ @`)
	run := func(env ...string) (cycles int, report map[string]any) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r.json")
		_, stderr, code := runBinIn(t, dir, append(env, "GODEBUG=gctrace=1"),
			"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", out, "--no-cache")
		if code != ExitOK && code != ExitFail {
			t.Fatalf("%v: exit %d: %s", env, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &report); err != nil {
			t.Fatal(err)
		}
		delete(report, "run") // its id, start and duration
		return len(cycle.FindAllString(stderr, -1)), report
	}
	for _, procs := range []string{"1", "2"} {
		// Two alternated pairs, their cycles summed: the count at
		// GOGC=100 moves with the machine's load (5 to 8 a run here; a
		// longer mark under load counts more of the heap live, and the
		// next goal is larger), so one pair is a small sample of it.
		var paced, unpaced int
		for range 2 {
			p, got := run("GOMAXPROCS=" + procs)
			u, want := run("GOMAXPROCS="+procs, "GOGC=100")
			paced, unpaced = paced+p, unpaced+u
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if !bytes.Equal(g, w) {
				t.Errorf("GOMAXPROCS=%s: the paced run's report differs from the one at GOGC=100", procs)
			}
		}
		t.Logf("GOMAXPROCS=%s: %d collections paced, %d at GOGC=100 (two runs each)", procs, paced, unpaced)
		if unpaced < 8 || 2*paced > unpaced {
			t.Errorf("GOMAXPROCS=%s: %d collections paced, %d at GOGC=100 (two runs each): want at least 8 at GOGC=100, and at most half as many paced", procs, paced, unpaced)
		}
	}
}
