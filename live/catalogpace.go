package live

import (
	"os"
	"runtime/debug"
	"sync"
)

// readGCPercent is the collector's pace while a catalog file is read (and
// while its tools are scanned one at a time, Catalog.DescriptionWarnings): it
// runs when the heap has grown by half of what is live, not by all of it
// (GOGC=100). A read makes garbage fast (a YAML tool's nodes, a JSON
// tool's decoded members) while what it keeps grows by the tools' texts,
// so at the default pace the peak is twice the file and the texts; at
// this one, about one and a half times (the LiveMCPBench tools as YAML:
// 4.9 to 3.8 times the file at the peak, docs/benchmarks.md "Catalogs
// kept as text"), for a little more of the collector's CPU during the
// read.
const readGCPercent = 50

// pace holds the collector's pace for the reads under way: the first read
// sets it, the last one puts back what was there.
var pace struct {
	sync.Mutex
	reads   int
	restore int
}

// paceRead sets the collector's pace for a catalog read, unless GOGC or
// GOMEMLIMIT says otherwise, and returns what ends the read.
func paceRead() (done func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	pace.Lock()
	if pace.reads == 0 {
		pace.restore = debug.SetGCPercent(readGCPercent)
	}
	pace.reads++
	pace.Unlock()
	return func() {
		pace.Lock()
		if pace.reads--; pace.reads == 0 {
			debug.SetGCPercent(pace.restore)
		}
		pace.Unlock()
	}
}
