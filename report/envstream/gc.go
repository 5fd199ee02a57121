package envstream

import (
	"os"
	"runtime/debug"
)

// streamHeap is the heap a streamed merge or comparison lets grow before
// the collector runs: it runs when needed, not each time the live heap
// doubles. The cases decoded on the way are garbage at once, and
// collecting them every few megabytes was a quarter of the CPU of a
// merge of 100,000 cases; with the collector paced by this limit the
// peak resident set stays under 64 MiB (TestMillionCaseMergeAndCompare).
const streamHeap = 36 << 20

// paceCollector sets the collector to run at streamHeap rather than at
// every doubling of the live heap, unless GOGC or GOMEMLIMIT says
// otherwise, and returns what puts the settings back.
func paceCollector() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(streamHeap)
	percent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
