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
// and GOMAXPROCS 1 to 12: the runs hashRuns makes are sorted and of the
// lengths its rule gives (runLengths), and the repeats hashRuns and
// repeats find are those sorting every hash together and comparing
// neighbours finds.
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
		if r.IntN(4) == 0 {
			n -= n % hashRun // the last run full (none left to sort at the end)
		}
		procs := []int{1, 2, 3, 5, 8, 12}[r.IntN(6)]
		// Hashes at the bounds in half the rounds: the lowest bound's
		// "either side" is the top of the range, which every run then
		// ends with, so the other half has runs that end anywhere.
		bounds := r.IntN(2) == 0
		var all []uint64
		var h hashRuns
		for len(all) < n {
			x := r.Uint64N(span)
			if bounds && r.IntN(20) == 0 { // at a bound between the parts of the range, either side
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
		var lens []int
		for _, run := range runs {
			if !slices.IsSorted(run) {
				t.Fatalf("round %d: a run of %d not sorted", round, len(run))
			}
			lens = append(lens, len(run))
		}
		if want := runLengths(len(all)); !slices.Equal(lens, want) {
			t.Fatalf("round %d: %d hashes added make runs of %v, want %v", round, len(all), lens, want)
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

// TestPartBounds: the parts repeats cuts the hashes' range in begin at 0
// and are of equal width, MaxUint64/parts, but the last, which takes the
// 1 to parts hashes more that are left.
func TestPartBounds(t *testing.T) {
	for parts := 1; parts <= 12; parts++ {
		w := uint64(math.MaxUint64) / uint64(parts)
		for p := range parts {
			if got, want := partBound(p, parts), uint64(p)*w; got != want {
				t.Fatalf("part %d of %d begins at %d, want %d", p, parts, got, want)
			}
		}
		// The last part holds MaxUint64 - its bound + 1 hashes: w and
		// the 1 to parts that parts times w leaves of the 2^64.
		if extra := math.MaxUint64 - partBound(parts-1, parts) - (w - 1); extra < 1 || extra > uint64(parts) {
			t.Fatalf("the last of %d parts holds %d hashes past the width %d, want 1 to %d", parts, extra, w, parts)
		}
	}
}

// runLengths is the lengths of the runs n hashes added make, in order:
// every hashRun hashes one run, sorted as it fills, two runs of a length
// merged into one up to hashMerged (a binary counter of full runs that
// stops at hashMerged), then the hashes left over, the last run sorted
// when the runs are asked for.
func runLengths(n int) []int {
	var out []int
	full := n / hashRun
	for range full / (hashMerged / hashRun) {
		out = append(out, hashMerged)
	}
	for k := hashMerged / hashRun / 2; k >= 1; k /= 2 {
		if full%(hashMerged/hashRun)&k != 0 {
			out = append(out, k*hashRun)
		}
	}
	if n%hashRun > 0 {
		out = append(out, n%hashRun)
	}
	return out
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

// TestHashRunsAllocs: a merge of two runs takes one slice of their
// length together, made at its size: hashRuns' memory is the hashes it
// holds and one run being merged, not slices grown by append as they
// merge. 2*hashRun hashes added make two runs and one merge of them.
func TestHashRunsAllocs(t *testing.T) {
	hashes := make([]uint64, 2*hashRun)
	r := rand.New(rand.NewPCG(2, 4096))
	for i := range hashes {
		hashes[i] = r.Uint64()
	}
	var h hashRuns
	allocs := testing.AllocsPerRun(5, func() {
		h = hashRuns{runs: make([][]uint64, 0, 4)}
		for _, x := range hashes {
			h.add(x)
		}
	})
	// The runs' list, the two runs and their merge.
	if allocs != 4 {
		t.Errorf("%d hashes added: %.0f allocations, want 4 (the runs' list, two runs, one merge)", len(hashes), allocs)
	}
	if runs := h.sorted(); len(runs) != 1 || len(runs[0]) != 2*hashRun || cap(runs[0]) != 2*hashRun {
		t.Errorf("runs %d, the first of length %d and capacity %d, want one of %d", len(runs), len(runs[0]), cap(runs[0]), 2*hashRun)
	}
}
