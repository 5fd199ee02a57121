package engine

// A run of many small cases makes garbage fast and keeps little: over the
// 2,000 transcripts of .ci/bench the live heap is 2 to 8 MiB, so at the
// collector's default pace (GOGC=100: a cycle each time the heap doubles
// what is live) it ran 18 to 21 times in a run of 0.6 s of CPU, each
// cycle waking a mark worker, stopping the world twice and preempting
// the other core's goroutine to scan its stack. A run is paced from its
// load (LoadSuiteAhead) to its release (Suite.Release) as a fold of
// several files is (paceFold, gcpace.go): the collector runs when the
// heap has grown by what is live or by foldHeapFloor, whichever is more.
// The folds of the run's directory tests nest inside it: the run holds
// the pace until it ends, and then the percent is put back.

// paceRun sets the collector's pace for a run (paceFold of more than one
// file), unless GOGC or GOMEMLIMIT says otherwise, and returns what ends
// it, safe to call more than once.
func paceRun() (done func()) { return paceFold(2) }
