package envstream

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestRepeatsIsSortAndCompare: over 300 drawn sets of hashes (80 in the
// short form) of 0 to 5 or 40 runs' worth and a part (so runs merge as
// they fill), from a range narrow enough that repeats are common, wide
// enough that they are rare, or the whole of uint64, with hashes at and
// beside the bounds between the parts repeats cuts the range in, repeats
// placed within a run and across runs, a hash repeated up to 4 times,
// and GOMAXPROCS 1 to 12: the repeats hashRuns and repeats find are
// those sorting every hash together and comparing neighbours finds.
func TestRepeatsIsSortAndCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4096))
	rounds := 300
	if testing.Short() {
		rounds = 80
	}
	for round := range rounds {
		n := r.IntN([]int{5, 40}[r.IntN(2)]*hashRun + hashRun/2 + 2)
		span := uint64(1) << (1 + r.IntN(63))
		if r.IntN(3) == 0 {
			span = math.MaxUint64
		}
		procs := []int{1, 2, 3, 5, 8, 12}[r.IntN(6)]
		var all []uint64
		var h hashRuns
		for len(all) < n {
			x := r.Uint64N(span)
			if r.IntN(20) == 0 { // at a bound between the parts of the range, either side
				k := 1 + r.IntN(8)
				x = partBound(r.IntN(k+1), k) + uint64(r.IntN(5)) - 2
			}
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
			if !slices.IsSorted(run) || len(run) > hashMerged || len(run) == 0 {
				t.Fatalf("round %d: a run of %d not sorted or out of bounds", round, len(run))
			}
			total += len(run)
		}
		if total != len(all) {
			t.Fatalf("round %d: runs hold %d hashes, added %d", round, total, len(all))
		}
		was := runtime.GOMAXPROCS(procs)
		got := repeats(runs)
		runtime.GOMAXPROCS(was)
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

// BenchmarkNameRepeats: the names' duplicate check of a merge of n cases,
// what is left on one core once the last case is folded: "sort" sorts
// every hash and compares neighbours (as before), "runs" ends the last
// sorted run and merges the runs (repeats); "runs-fill" is the work the
// spooler did beside the fold (adding and sorting the full runs).
func BenchmarkNameRepeats(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		hashes := make([]uint64, n)
		for i := range hashes {
			hashes[i] = r.Uint64()
		}
		b.Run(fmt.Sprintf("sort/%d", n), func(b *testing.B) {
			x := make([]uint64, n)
			for b.Loop() {
				copy(x, hashes)
				slices.Sort(x)
				for i := 1; i < len(x); i++ {
					if x[i] == x[i-1] {
						b.Fatal("repeat")
					}
				}
			}
		})
		var h hashRuns
		b.Run(fmt.Sprintf("runs-fill/%d", n), func(b *testing.B) {
			for b.Loop() {
				h = hashRuns{}
				for _, x := range hashes {
					h.add(x)
				}
			}
		})
		b.Run(fmt.Sprintf("runs/%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				g := hashRuns{runs: slices.Clone(h.runs), cur: slices.Clone(h.cur)}
				b.StartTimer()
				if len(repeats(g.sorted())) != 0 {
					b.Fatal("repeat")
				}
			}
		})
	}
}
