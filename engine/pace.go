package engine

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A run of many small cases makes garbage fast and keeps little: over the
// 2,000 transcripts of .ci/bench the live heap is 5 to 7 MB, so at the
// collector's default pace (GOGC=100: a cycle each time the heap doubles
// what is live) it ran 18 to 21 times in a run of 0.6 s of CPU, each cycle
// waking a mark worker, stopping the world twice and preempting the other
// core's goroutine to scan its stack. A run's load and cases are paced by
// runPace instead: the collector runs when the heap reaches runHeapFloor
// or doubles what is live, whichever is more, and the runtime's memory
// limit stays at paceLimit meanwhile, so no cycle's goal overshoots it
// before the pace is adjusted. Once a cycle finds runHeapFloor / 2 or more
// live, the pace is off for the rest of the run (GOGC=100, no limit, as
// ever): the floor adds at most paceLimit to a small run's peak and
// nothing to a large one's.

// runHeapFloor is the heap below which a run's collector does not run.
const runHeapFloor = 24 << 20

// paceLimit is the runtime's memory limit (heap, stacks and the runtime's
// own) while a run's pace is on.
const paceLimit = 48 << 20

// runPace is the collector's pace of a run while it is on.
type runPace struct {
	mu      sync.Mutex
	percent int // the GOGC percent set last; 0 once the pace is off
	restore int // the percent before the run
}

// paceRun sets the collector's pace for a run (see runHeapFloor), unless
// GOGC or GOMEMLIMIT says otherwise or a memory limit is set, and returns
// what puts the settings back; done is safe to call more than once.
func paceRun() (done func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {}
	}
	p := &runPace{}
	p.mu.Lock()
	defer p.mu.Unlock()
	want := floorPercent(liveHeap())
	if want <= 100 {
		return func() {}
	}
	p.restore = debug.SetGCPercent(want)
	debug.SetMemoryLimit(paceLimit)
	p.percent = want
	p.arm()
	return p.off
}

// floorPercent is the GOGC percent at which a heap with live bytes live
// is collected at runHeapFloor: 100 (the default) once live is half of it
// or more. Before the first cycle has measured what is live (0), the
// heap's goal is the runtime's minimum, 4 MiB scaled by the percent: the
// percent that scales it to runHeapFloor. It is at most 300, so a cycle
// whose goal was set before the pace saw what the cycle found live
// (adjust runs after the cycle) aims at no more than four times it.
func floorPercent(live uint64) int {
	live = max(live, 4<<20)
	if live >= runHeapFloor/2 {
		return 100
	}
	return int(min(300, runHeapFloor*100/live-100))
}

// liveHeap is the heap the last collection found live (the runtime's
// /gc/heap/live:bytes), 0 before the first.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// gcPercent is the collector's GOGC percent now (/gc/gogc:percent).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int(s[0].Value.Uint64())
}

// paceMark is the object whose collection tells runPace that a cycle
// ended: large enough not to share a block with other small objects.
type paceMark struct {
	_ *runPace
	_ [24]byte
}

// arm has the next collection call adjust (runtime.AddCleanup on an object
// nothing reaches).
func (p *runPace) arm() {
	runtime.AddCleanup(&paceMark{}, (*runPace).adjust, p)
}

// adjust sets the percent for the heap the cycle found live and arms the
// next cycle; it turns the pace off when the heap found live is
// runHeapFloor / 2 or more, or when someone else changed the percent (a
// catalog read sets its own pace, live.paceRead).
func (p *runPace) adjust() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.percent == 0 {
		return
	}
	if gcPercent() != p.percent {
		debug.SetMemoryLimit(math.MaxInt64)
		p.percent = 0 // another pace holds it: leave it to that one
		return
	}
	want := floorPercent(liveHeap())
	if want <= 100 {
		p.offLocked()
		return
	}
	if want != p.percent {
		debug.SetGCPercent(want)
		p.percent = want
	}
	p.arm()
}

// off puts the percent and the memory limit back as they were before the
// run, unless another pace changed the percent since.
func (p *runPace) off() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offLocked()
}

func (p *runPace) offLocked() {
	if p.percent == 0 {
		return
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if gcPercent() == p.percent {
		debug.SetGCPercent(p.restore)
	}
	p.percent = 0
}
