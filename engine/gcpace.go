package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/mcptest/mcptest/cassette"
)

// foldHeapFloor is the least the heap may grow by, over what is live,
// before the collector runs while a case folds the runs of several
// files: it runs when the heap has grown by what is live (GOGC=100) or by
// this much, whichever is more. One test over the 2,000 generated
// cassettes of .ci/bench holds 2 to 3 MB live (the files read ahead, the
// gates' tallies) and makes about 300 MB of garbage decoding them: at the
// default pace the collector ran 88 to 132 times, 10 to 14 % of the CPU,
// and at two cores its idle mark workers took what the fold left idle.
// The floor costs at most this much more heap, and nothing once what is
// live is larger than it (a directory of large files).
const foldHeapFloor = 16 << 20

// defaultHeapMinimum is the runtime's least heap goal at GOGC=100 (4 MiB);
// it scales with the percent, so the percent is held under what would
// make that minimum larger than foldHeapFloor.
const defaultHeapMinimum = 4 << 20

// foldPace is the collector's pace for the folds under way: the first
// fold sets it, each collection sets it again from what is then live
// (armFoldPace), the last fold puts back what was there.
var foldPace struct {
	sync.Mutex
	folds   int
	restore int
	// epoch changes when the last fold ends, so a collection's callback
	// armed by an earlier fold stops there.
	epoch int
	live  []metrics.Sample
	// tight counts the paces under way (paceAt) by percent, the least
	// holding, which the folds' pace waits behind; tightRestore is what
	// the last one puts back when no fold is under way.
	tight        map[int]int
	tightRestore int
}

// paceFold sets the collector's pace for a fold of files files, when
// there are several, unless GOGC or GOMEMLIMIT says otherwise, and
// returns what ends the fold (safe to call more than once).
func paceFold(files int) (done func()) {
	if files < 2 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	foldPace.Lock()
	if foldPace.folds == 0 {
		foldPace.epoch++
		if len(foldPace.tight) > 0 {
			foldPace.restore = foldPace.tightRestore
		} else {
			foldPace.restore = debug.SetGCPercent(foldPercent(liveHeap()))
		}
		armFoldPace(foldPace.epoch)
	}
	foldPace.folds++
	foldPace.Unlock()
	return sync.OnceFunc(func() {
		foldPace.Lock()
		defer foldPace.Unlock()
		if foldPace.folds--; foldPace.folds == 0 {
			foldPace.epoch++
			if len(foldPace.tight) > 0 {
				foldPace.tightRestore = foldPace.restore
			} else {
				debug.SetGCPercent(foldPace.restore)
			}
		}
	})
}

// foldPercent is the GC percent that makes the heap goal over live bytes
// the larger of twice what is live and what is live plus foldHeapFloor:
// 100 once live reaches the floor, foldHeapFloor / live below it, and no
// more than keeps the runtime's minimum goal (defaultHeapMinimum scaled by
// the percent) within the floor; live 0 (no collection yet) takes that
// most.
func foldPercent(live uint64) int {
	most := foldHeapFloor * 100 / defaultHeapMinimum
	if live == 0 {
		return most
	}
	p := uint64(foldHeapFloor) * 100 / live
	return int(min(max(p, 100), uint64(most)))
}

// liveHeap is the heap the last collection found live, 0 before the
// first. The caller holds foldPace.
func liveHeap() uint64 {
	if foldPace.live == nil {
		foldPace.live = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	}
	metrics.Read(foldPace.live)
	if foldPace.live[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return foldPace.live[0].Value.Uint64()
}

// paceSentinel is garbage whose finalizer runs after the collection that
// found it: it holds a pointer so it is not packed with other small
// objects (a finalizer on those may never run).
type paceSentinel struct{ _ *int }

// armFoldPace sets the pace again after the next collection, from what it
// found live, and arms itself for the one after, while the folds of epoch
// last.
func armFoldPace(epoch int) {
	runtime.SetFinalizer(&paceSentinel{}, func(*paceSentinel) {
		foldPace.Lock()
		defer foldPace.Unlock()
		if foldPace.epoch != epoch || foldPace.folds == 0 {
			return
		}
		if len(foldPace.tight) == 0 {
			debug.SetGCPercent(foldPercent(liveHeap()))
		}
		armFoldPace(epoch)
	})
}

// tightPercent is the collector's pace under paceTight: it runs when the
// heap has grown by 15 % of what is live. At 25 % a catalog of 300,000
// tools (65 MB) under token_efficiency: peaked at 234 to 245 MB resident,
// at SECURITY.md's bound of 240; at 15 %, 224 MB, for 5 to 8 % more CPU.
const tightPercent = 15

// paceTight holds the collector to tightPercent, unless GOGC or
// GOMEMLIMIT says otherwise, and returns what ends it (safe to call more
// than once). A cassette whose recorded catalog holds many tools is
// folded so (eachCassette, from tightCatalog tools): its bytes and its
// tools' texts, about twice the file, are live while its catalog is
// read by the case and the gates (the token count of token_efficiency:
// makes garbage tool by tool) and its runs are replayed, and at the run's
// pace the heap would reach twice that, four times the file, past
// SECURITY.md's bound of three (a catalog of 20,000 tools, 5.9 MB, peaked
// at 66 MiB resident under token_efficiency: against a bound of 65). The
// folds' pace (paceFold) waits behind it and takes over at its end.
func paceTight() (done func()) { return paceAt(tightPercent) }

// paceAt holds the collector to percent, or to a tighter pace under way,
// unless GOGC or GOMEMLIMIT says otherwise, and returns what ends it (safe
// to call more than once).
func paceAt(percent int) (done func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	foldPace.Lock()
	defer foldPace.Unlock()
	if foldPace.tight == nil {
		foldPace.tight = map[int]int{}
	}
	prev := debug.SetGCPercent(tightest(percent))
	if len(foldPace.tight) == 0 {
		foldPace.tightRestore = prev
	}
	foldPace.tight[percent]++
	return sync.OnceFunc(func() {
		foldPace.Lock()
		defer foldPace.Unlock()
		if foldPace.tight[percent]--; foldPace.tight[percent] == 0 {
			delete(foldPace.tight, percent)
		}
		switch {
		case len(foldPace.tight) > 0:
			debug.SetGCPercent(tightest(-1))
		case foldPace.folds > 0:
			debug.SetGCPercent(foldPercent(liveHeap()))
		default:
			debug.SetGCPercent(foldPace.tightRestore)
		}
	})
}

// tightest is the least of percent (none when negative) and the paces
// under way. The caller holds foldPace.
func tightest(percent int) int {
	for p := range foldPace.tight {
		if percent < 0 || p < percent {
			percent = p
		}
	}
	return percent
}

// tightRecording is the size from which a recording that is not an
// mcptest cassette is read with the collector at recordingPercent: a
// transcript or a trace is one run, which its reader builds whole, with
// its bookkeeping (the calls waiting for results, what the audit counts)
// beside the file's bytes, all live until the run is handed out; at the
// run's pace (GOGC=100) the heap would reach twice that, and a transcript
// of 60,000 calls (13 MB of LangChain) peaked at 90 MiB resident against
// SECURITY.md's bound of 92. At 50 %, 78 to 81 MiB for 5 to 10 % more
// CPU; at 15 % (tightPercent), 69 MiB for 35 to 60 % more.
const (
	tightRecording   = 4 << 20
	recordingPercent = 50
)

// tightCatalog is the number of tools from which a cassette's recorded
// catalog is folded at a tight pace of the collector (paceTight).
const tightCatalog = 1000

// catalogTools counts the tools of a cassette's recorded catalog.
func catalogTools(cas *cassette.Cassette) int {
	n := 0
	for _, sc := range cas.Catalog {
		n += len(sc.Tools)
	}
	return n
}
