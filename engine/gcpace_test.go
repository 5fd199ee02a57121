package engine

import (
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestFoldPercentGoal draws live heaps from a byte to a terabyte (and
// both sides of each bound) and holds the heap goal the percent gives,
// as the runtime computes it (the larger of its minimum, 4 MiB scaled by
// the percent, and what is live grown by the percent), between twice
// what is live (never collecting more often than GOGC=100) and the
// larger of that and what is live plus foldHeapFloor.
func TestFoldPercentGoal(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 29))
	lives := []uint64{0, 1, defaultHeapMinimum - 1, defaultHeapMinimum, defaultHeapMinimum + 1,
		foldHeapFloor - 1, foldHeapFloor, foldHeapFloor + 1, 1 << 40}
	for range 5000 {
		e := rng.IntN(41)
		lives = append(lives, 1<<e+rng.Uint64N(1<<e))
	}
	for _, live := range lives {
		p := uint64(foldPercent(live))
		goal := max(defaultHeapMinimum*p/100, live+live*p/100)
		if p < 100 || goal < 2*live {
			t.Fatalf("live %d: percent %d, goal %d under twice what is live", live, p, goal)
		}
		if most := max(2*live, live+foldHeapFloor); goal > most {
			t.Fatalf("live %d: percent %d, goal %d over %d (twice what is live, or it plus %d)", live, p, goal, most, foldHeapFloor)
		}
		if live >= foldHeapFloor && p != 100 {
			t.Fatalf("live %d at or over the floor: percent %d, want 100", live, p)
		}
	}
}

// gcPercent is the collector's percent now (runtime/metrics).
func gcPercent(t *testing.T) int {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// waitPercent collects until the percent is want (the pace is set again
// by a finalizer, after the collection), or fails after 10 s.
func waitPercent(t *testing.T, want func(int) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p := gcPercent(t); want(p) {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("GC percent %d: want %s", p, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPaceFoldFollowsLiveHeap: a fold of one file leaves the pace as it
// is; two folds of several files at once set the pace once; each
// collection sets it again from what it found live (100 while more than
// foldHeapFloor is live, above 100 once that is let go); the pace stays
// until the last fold ends (its done called twice counts once), which
// puts back the percent from before, and later collections leave it.
func TestPaceFoldFollowsLiveHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the fold keeps the collector's pace as it is")
	}
	before := debug.SetGCPercent(73)
	defer debug.SetGCPercent(before)
	runtime.GC()
	if p := gcPercent(t); p != 73 {
		t.Fatalf("percent %d, want 73", p)
	}
	paceFold(1)() // one file: nothing to pace
	if p := gcPercent(t); p != 73 {
		t.Fatalf("a fold of one file set the percent to %d, want 73 kept", p)
	}
	done1, done2 := paceFold(2), paceFold(40)
	if p := gcPercent(t); p < 100 {
		t.Fatalf("a fold set the percent to %d, under 100", p)
	}
	held := make([]byte, 4*foldHeapFloor)
	for i := range held {
		held[i] = byte(i)
	}
	waitPercent(t, func(p int) bool { return p == 100 }, "100 while 64 MiB are live")
	runtime.KeepAlive(held)
	held = nil
	waitPercent(t, func(p int) bool { return p > 100 }, "over 100 once they are let go")
	done1()
	done1()
	runtime.GC()
	if p := gcPercent(t); p <= 100 {
		t.Fatalf("one fold of two ended: percent %d, want the pace kept", p)
	}
	done2()
	if p := gcPercent(t); p != 73 {
		t.Fatalf("the last fold ended: percent %d, want 73 back", p)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if p := gcPercent(t); p != 73 {
		t.Fatalf("collections after the folds set the percent to %d, want 73 kept", p)
	}
}
