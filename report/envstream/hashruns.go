package envstream

import (
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
)

// hashRun is how many name hashes a sorted run holds (32 KiB).
const hashRun = 4096

// hashRuns holds the hashes of a merge's case names in sorted runs, each
// run sorted as it fills on the goroutine that adds to it (the merge's
// spooler, beside the fold), and runs of a length merged two by two up to
// hashMerged, so what is left once the last case is folded is one short
// run to sort and a merge of a few runs (repeats), not a sort of every
// hash on one core. Memory: 8 bytes a case, as a slice of them all, and
// up to hashMerged more while two runs merge.
type hashRuns struct {
	runs [][]uint64
	cur  []uint64
}

// add adds one hash.
func (h *hashRuns) add(x uint64) {
	if h.cur == nil {
		h.cur = make([]uint64, 0, hashRun)
	}
	h.cur = append(h.cur, x)
	if len(h.cur) == hashRun {
		slices.Sort(h.cur)
		h.runs = append(h.runs, h.cur)
		h.cur = nil
		// Two runs of a length merged into one, up to hashMerged hashes,
		// so the merge at the end (repeats) takes a few long runs.
		for n := len(h.runs); n >= 2 && len(h.runs[n-1]) == len(h.runs[n-2]) && 2*len(h.runs[n-1]) <= hashMerged; n = len(h.runs) {
			h.runs = append(h.runs[:n-2], mergeSorted(h.runs[n-2], h.runs[n-1]))
		}
	}
}

// hashMerged is the longest run two runs are merged into as they fill
// (512 KiB): the most held twice while they merge.
const hashMerged = 16 * hashRun

// mergeSorted merges two sorted runs into a new one.
func mergeSorted(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// sorted ends the last run and returns the runs, each sorted.
func (h *hashRuns) sorted() [][]uint64 {
	if len(h.cur) > 0 {
		slices.Sort(h.cur)
		h.runs = append(h.runs, h.cur)
		h.cur = nil
	}
	return h.runs
}

// repeats is the set of hashes that occur more than once in the sorted
// runs: what sorting them all together and comparing neighbours finds.
// The hashes' range is cut in parts, one a core (GOMAXPROCS, at most 8),
// each merged on a goroutine of its own (mergeRepeats): the runs' slices
// of a part found by a binary search, an equal pair always in one part.
func repeats(runs [][]uint64) map[uint64]bool {
	parts := min(8, runtime.GOMAXPROCS(0))
	found := make([]map[uint64]bool, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := partBound(p, parts), partBound(p+1, parts)
		sub := make([][]uint64, 0, len(runs))
		for _, r := range runs {
			i, _ := slices.BinarySearch(r, lo)
			j := len(r)
			if p+1 < parts {
				j, _ = slices.BinarySearch(r, hi)
			}
			sub = append(sub, r[i:j]) // lo <= hi: i <= j; an empty one is skipped by mergeRepeats
		}
		wg.Go(func() { found[p] = mergeRepeats(sub) })
	}
	wg.Wait()
	out := found[0]
	for _, f := range found[1:] {
		maps.Copy(out, f)
	}
	return out
}

// partBound is where part p of parts of the hashes' range begins: 0 for
// the first, the parts of equal width but the last, which takes the few
// hashes past parts times the width.
func partBound(p, parts int) uint64 {
	return uint64(p) * (math.MaxUint64 / uint64(parts))
}

// mergeRepeats is repeats of sorted runs on one goroutine: the runs
// merged through a heap of their heads.
func mergeRepeats(runs [][]uint64) map[uint64]bool {
	out := map[uint64]bool{}
	type head struct {
		x   uint64
		run int
	}
	var h []head
	pos := make([]int, len(runs))
	less := func(i, j int) bool { return h[i].x < h[j].x }
	down := func(i int) {
		for {
			small, l, r := i, 2*i+1, 2*i+2
			if l < len(h) && less(l, small) {
				small = l
			}
			if r < len(h) && less(r, small) {
				small = r
			}
			if small == i {
				return
			}
			h[i], h[small] = h[small], h[i]
			i = small
		}
	}
	for i, r := range runs {
		if len(r) > 0 {
			h = append(h, head{r[0], i})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	first, prev := true, uint64(0)
	for len(h) > 0 {
		top := h[0]
		if !first && top.x == prev {
			out[top.x] = true
		}
		first, prev = false, top.x
		r := top.run
		if pos[r]++; pos[r] < len(runs[r]) {
			h[0].x = runs[r][pos[r]]
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return out
}
