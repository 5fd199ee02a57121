package envstream

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRepeatsIsSortAndCompare: over drawn sets of hashes (0 to 5 runs'
// worth and a part, from a range narrow enough that repeats are common,
// or wide enough that they are rare, repeats placed within a run and
// across runs, a hash repeated up to 4 times), the repeats hashRuns and
// repeats find are those sorting every hash together and comparing
// neighbours finds.
func TestRepeatsIsSortAndCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4096))
	for round := range 300 {
		n := r.IntN(5*hashRun + hashRun/2 + 2)
		span := uint64(1) << (1 + r.IntN(63))
		var all []uint64
		var h hashRuns
		for len(all) < n {
			x := r.Uint64N(span)
			if len(all) > 0 && r.IntN(50) == 0 {
				x = all[r.IntN(len(all))] // a repeat of an earlier one, in this run or another
			}
			for range 1 + r.IntN(4)*min(1, r.IntN(40)/39) {
				all = append(all, x)
				h.add(x)
			}
		}
		want := map[uint64]bool{}
		sorted := slices.Clone(all)
		slices.Sort(sorted)
		for i := 1; i < len(sorted); i++ {
			if sorted[i] == sorted[i-1] {
				want[sorted[i]] = true
			}
		}
		runs := h.sorted()
		total := 0
		for _, run := range runs {
			if !slices.IsSorted(run) || len(run) > hashRun || len(run) == 0 {
				t.Fatalf("round %d: a run of %d not sorted or out of bounds", round, len(run))
			}
			total += len(run)
		}
		if total != len(all) {
			t.Fatalf("round %d: runs hold %d hashes, added %d", round, total, len(all))
		}
		got := repeats(runs)
		if len(got) != len(want) {
			t.Fatalf("round %d (%d hashes, span %d): %d repeats, want %d", round, len(all), span, len(got), len(want))
		}
		for x := range want {
			if !got[x] {
				t.Fatalf("round %d: repeat %d not found", round, x)
			}
		}
	}
}
