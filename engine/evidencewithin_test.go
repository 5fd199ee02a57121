package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// generatedRuns reads every run of generated cassettes and transcripts
// from drawn seeds, with a few runs of long results among them (over a
// passing run's half of the budget, and over the whole budget) and one of
// more calls than the evidence keeps.
func generatedRuns(t *testing.T, rng *rand.Rand) []*cassette.Run {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for d := range 3 {
		paths, err := gen.Write(filepath.Join(dir, "c", string(rune('a'+d))), 3+rng.IntN(5), rng.Uint64())
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, paths...)
		paths, err = gen.WriteTranscripts(filepath.Join(dir, "t", string(rune('a'+d))), 3+rng.IntN(5), rng.Uint64(), []string{gen.OpenAI, gen.V1}[d%2])
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, paths...)
	}
	var runs []*cassette.Run
	for _, f := range files {
		if filepath.Ext(f) != ".json" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cassette.Stream(f, data, func(_ *cassette.Cassette, r *cassette.Run) {
			run := *r
			runs = append(runs, &run)
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{14, 30} {
		long := &cassette.Run{Turns: []cassette.Turn{{FinalResponse: "done"}}}
		for i := range n {
			long.Turns[0].Calls = append(long.Turns[0].Calls, cassette.Call{Tool: "t", Result: strings.Repeat(string(rune('a'+i%26)), maxEvidenceText)})
		}
		runs = append(runs, long)
	}
	// More calls than the evidence keeps (maxEvidenceCalls), over two
	// turns, with long names: the calls past those kept count for nothing.
	many := &cassette.Run{Turns: []cassette.Turn{{FinalResponse: "done"}, {}}}
	for i := range 3 * maxEvidenceCalls {
		many.Turns[i*2/(3*maxEvidenceCalls)].Calls = append(many.Turns[i*2/(3*maxEvidenceCalls)].Calls,
			cassette.Call{Server: "s", Tool: strings.Repeat(string(rune('a'+i%26)), 200)})
	}
	runs = append(runs, many)
	return runs
}

// TestEvidenceWithinIsEvidence: runEvidenceWithin gives up a run exactly
// when the evidence runEvidence renders of it is over the limit (as
// evidenceBytes counts it, which addEvidence bounds runs by), and
// otherwise renders that evidence, field for field; over every run of
// generated recordings, each at limits around its own size.
func TestEvidenceWithinIsEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 3))
	runs := generatedRuns(t, rng)
	given, kept := 0, 0
	for i, r := range runs {
		full := runEvidence(i+1, "m", r, evidenceMarker{}, nil)
		size := evidenceBytes(full)
		for _, limit := range []int{-1, 0, size - 1, size, size + 1, rng.IntN(size + 2), maxEvidenceBytes / 2} {
			ev, ok := runEvidenceWithin(i+1, "m", r, evidenceMarker{}, nil, limit)
			if want := limit < 0 || size <= limit; ok != want {
				t.Fatalf("run %d: %d bytes of evidence, limit %d: ok %v, want %v", i, size, limit, ok, want)
			}
			if ok && !reflect.DeepEqual(ev, full) {
				t.Fatalf("run %d: the evidence within %d differs from the run's evidence", i, limit)
			}
			if ok {
				kept++
			} else {
				given++
			}
		}
	}
	if len(runs) < 20 || given == 0 || kept == 0 {
		t.Fatalf("%d runs, %d given up, %d kept: the draw reached too little", len(runs), given, kept)
	}
}

// TestEvidenceRoomKeepsWhatAddEvidenceKept: a case's evidence, built by
// evidenceRoom, runEvidenceWithin and addEvidence (or dropEvidence for a
// run given up), is the evidence wantEvidence, runEvidence and addEvidence
// keep of the same runs, run for run; over drawn sequences of generated
// runs, each passing or failing by a drawn rate.
func TestEvidenceRoomKeepsWhatAddEvidenceKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	runs := generatedRuns(t, rng)
	given := 0
	for seq := range 200 {
		whole, within := &report.CaseResult{}, &report.CaseResult{}
		rate := rng.Float64()
		for k := range 1 + rng.IntN(40) {
			r := runs[rng.IntN(len(runs))]
			failed := rng.Float64() < rate
			if wantEvidence(whole, failed) {
				addEvidence(whole, runEvidence(k+1, "m", r, evidenceMarker{}, nil), failed)
			}
			if want, limit := evidenceRoom(within, failed); want {
				if ev, ok := runEvidenceWithin(k+1, "m", r, evidenceMarker{}, nil, limit); ok {
					addEvidence(within, ev, failed)
				} else {
					dropEvidence(within, failed)
					given++
				}
			}
			if !reflect.DeepEqual(whole.Evidence, within.Evidence) {
				t.Fatalf("sequence %d, run %d (failed %v): %d runs kept, %d kept within the room", seq, k+1, failed, len(whole.Evidence), len(within.Evidence))
			}
		}
	}
	if given == 0 {
		t.Fatal("no run was given up: the draw reached no budget")
	}
}

// TestHeldEvidenceIsEvidence: a case's evidence kept by agentRun (a
// passing run's held unrendered until the next run or the verdict, then
// rendered within its room), once the verdict is known and leanEvidence
// has run, is the evidence wantEvidence, runEvidence and addEvidence keep
// of the same runs rendered at once; over drawn sequences of generated
// runs (a few too long for a passing run's room, one of more calls than
// are held), each passing or failing by a drawn rate, and drawn verdicts.
func TestHeldEvidenceIsEvidence(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	runs := generatedRuns(t, rng)
	held, kept := 0, 0
	for seq := range 400 {
		whole := &report.CaseResult{}
		a := &agentRun{res: &report.CaseResult{}}
		rate := rng.Float64() * rng.Float64()
		n := 1 + rng.IntN(12)
		for k := range n {
			r := runs[rng.IntN(len(runs))]
			failed := rng.Float64() < rate
			if wantEvidence(whole, failed) {
				addEvidence(whole, runEvidence(k+1, "m", r, evidenceMarker{}, nil), failed)
			}
			a.runN = k + 1
			a.keepEvidence(&cassette.Cassette{Model: "m"}, r, failed)
			if a.pending != nil {
				held++
			}
		}
		verdict := []report.Verdict{report.Pass, report.Fail, report.Inconclusive}[rng.IntN(3)]
		whole.Verdict, a.res.Verdict = verdict, verdict
		whole.Runs, a.res.Runs = n, n
		a.finishEvidence()
		if a.pending != nil {
			t.Fatalf("sequence %d: a run is still held once the verdict is known", seq)
		}
		leanEvidence(whole)
		leanEvidence(a.res)
		if !reflect.DeepEqual(whole.Evidence, a.res.Evidence) || whole.EvidenceOmitted != a.res.EvidenceOmitted {
			t.Fatalf("sequence %d (%d runs, verdict %s): %d runs kept at once, %d held and kept", seq, n, verdict, len(whole.Evidence), len(a.res.Evidence))
		}
		kept += len(a.res.Evidence)
	}
	if held == 0 || kept == 0 {
		t.Fatalf("%d runs held, %d kept: the draw reached too little", held, kept)
	}
}
