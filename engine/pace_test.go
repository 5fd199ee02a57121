package engine

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFloorPercentGenerated draws live heaps over five orders of size and
// holds floorPercent to its promise: the default pace (100) from half the
// floor up, else a goal at the floor (the runtime's 4 MiB minimum scaled
// before the first cycle), never more than four times what is live.
func TestFloorPercentGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	lives := []uint64{0, 1, 4 << 20, runHeapFloor/2 - 1, runHeapFloor / 2, runHeapFloor, 1 << 40}
	for range 5000 {
		lives = append(lives, uint64(math.Exp2(10+rng.Float64()*22)))
	}
	for _, live := range lives {
		p := floorPercent(live)
		if p < 100 || p > 300 {
			t.Fatalf("live %d: percent %d, want 100 to 300", live, p)
		}
		base := max(live, 4<<20) // the runtime's minimum heap before it measured one
		goal := base * uint64(100+p) / 100
		switch {
		case live >= runHeapFloor/2 && p != 100:
			t.Fatalf("live %d (half the floor or more): percent %d, want the default 100", live, p)
		case live < runHeapFloor/2 && goal > runHeapFloor:
			t.Fatalf("live %d: goal %d over the floor %d", live, goal, runHeapFloor)
		case live < runHeapFloor/2 && goal < min(runHeapFloor-base/100-1, 4*base):
			t.Fatalf("live %d: goal %d under the floor %d", live, goal, runHeapFloor)
		case goal > max(2*live, 4*base):
			t.Fatalf("live %d: goal %d over four times the heap", live, goal)
		}
	}
}

// waitPace runs the collector until the pace's adjust has seen a cycle
// and cond holds, or fails after a few seconds.
func waitPace(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if cond() {
			return
		}
	}
	t.Fatal("the pace did not change after the collections")
}

// TestPaceRun sets the run's pace and checks each way it ends: the run's
// end puts the settings back, a heap of half the floor or more turns it
// off, and another pace's percent is left to it.
func TestPaceRun(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the run's pace is off")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	runtime.GC()

	t.Run("done", func(t *testing.T) {
		done := paceRun()
		if p := gcPercent(); p <= 100 || limit() != paceLimit {
			t.Fatalf("paced: percent %d, limit %d; want over 100 and %d", p, limit(), paceLimit)
		}
		waitPace(t, func() bool { return gcPercent() > 100 }) // adjusted for a small heap, still on
		done()
		done()
		if p := gcPercent(); p != 100 || limit() != math.MaxInt64 {
			t.Fatalf("after the run: percent %d, limit %d; want 100 and no limit", p, limit())
		}
	})

	t.Run("large heap", func(t *testing.T) {
		done := paceRun()
		defer done()
		held := make([]byte, runHeapFloor) // live: the pace is off from the next cycle
		waitPace(t, func() bool { return gcPercent() == 100 && limit() == math.MaxInt64 })
		runtime.KeepAlive(held)
		held = nil
		runtime.GC()
		runtime.GC()
		if p := gcPercent(); p != 100 || limit() != math.MaxInt64 {
			t.Fatalf("after the heap shrank: percent %d, limit %d; want the pace to stay off", p, limit())
		}
	})

	t.Run("another pace", func(t *testing.T) {
		done := paceRun()
		debug.SetGCPercent(50) // as live.paceRead does
		waitPace(t, func() bool { return limit() == math.MaxInt64 })
		done()
		if p := gcPercent(); p != 50 {
			t.Fatalf("the other pace's percent is %d after the run, want 50", p)
		}
		debug.SetGCPercent(100)
	})

	t.Run("limit set", func(t *testing.T) {
		debug.SetMemoryLimit(1 << 30)
		done := paceRun()
		if p := gcPercent(); p != 100 || limit() != 1<<30 {
			t.Fatalf("with a memory limit set: percent %d, limit %d; want both untouched", p, limit())
		}
		done()
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
