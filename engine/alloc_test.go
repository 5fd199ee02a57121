package engine_test

import (
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// maxCaseAllocBytes bounds what one more small transcript case allocates
// on the way from the suite to the JSON report (TestCaseAllocation): the
// suite's test loaded, its transcript read and decoded, its gate scored,
// its result encoded. docs/benchmarks.md ("Allocating less per case")
// gives the figures it was set from (about 22 KB a case, measured the same
// way, after the cuts; 27 KB before), with a margin for the drawn corpora.
const maxCaseAllocBytes = 25_000

// TestCaseAllocation pins what a case of small transcripts allocates, so
// that it cannot creep back: over drawn corpora of one test per OpenAI or
// v1 transcript (gen.WriteTranscripts), the bytes allocated by loading
// the suite, running it and writing its JSON report, in-process, are
// measured at two sizes and the difference divided by the cases between
// (the fixed costs, the embedded price table among them, cancel out); the
// least of three measures of each, a collection forced before each.
func TestCaseAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs generated suites of hundreds of cases")
	}
	rng := rand.New(rand.NewPCG(40, 11))
	for d := range 2 {
		seed := rng.Uint64()
		format := []string{gen.OpenAI, gen.V1}[d]
		small, large := 100+rng.IntN(50), 500+rng.IntN(100)
		measure := func(n int) uint64 {
			dir := t.TempDir()
			if _, err := gen.WriteTranscripts(dir, n, seed, format); err != nil {
				t.Fatal(err)
			}
			suite := filepath.Join(dir, gen.TranscriptSuiteFile)
			least := ^uint64(0)
			for range 3 {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				if _, err := runSuite(suite, io.Discard); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				least = min(least, after.TotalAlloc-before.TotalAlloc)
			}
			return least
		}
		a, b := measure(small), measure(large)
		perCase := (int64(b) - int64(a)) / int64(large-small)
		t.Logf("%s transcripts: %d cases %d bytes, %d cases %d bytes: %d bytes a case", format, small, a, large, b, perCase)
		if perCase > maxCaseAllocBytes || perCase <= 0 {
			t.Errorf("%s transcripts: %d bytes allocated a case (from %d to %d cases), over %d", format, perCase, small, large, maxCaseAllocBytes)
		}
	}
}
