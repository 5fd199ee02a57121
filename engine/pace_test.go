package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestPaceRun holds a run's pace from its load to its release: set while
// the run holds it, through the folds that nest in it (a directory test's
// paceFold ends before the run does), back to 100 at a heap of the floor
// or more, and put back when the run ends.
func TestPaceRun(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: the run's pace is off")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()

	done := paceRun()
	if p := gcPercent(t); p <= 100 {
		t.Fatalf("paced: percent %d, want over 100 for a small heap", p)
	}
	fold := paceFold(3) // a directory test of the run
	fold()
	waitPercent(t, func(p int) bool { return p > 100 }, "over 100 after a fold in the run ended")
	done()
	done()
	if p := gcPercent(t); p != 100 {
		t.Fatalf("after the run: percent %d, want 100 put back", p)
	}

	done = paceRun()
	held := make([]byte, 2*foldHeapFloor) // live: the default pace from the next cycle
	waitPercent(t, func(p int) bool { return p == 100 }, "100 with twice the floor live")
	runtime.KeepAlive(held)
	done()
	if p := gcPercent(t); p != 100 {
		t.Fatalf("after the run: percent %d, want 100", p)
	}
}
