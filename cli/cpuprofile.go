package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"
)

// CPUProfile starts what the binary's measurement variables ask for, read
// with getenv, and returns what stops them: MCPTEST_CPUPROFILE=PATH writes
// a CPU profile of the process to PATH (for docs/benchmarks.md's profiles:
// `go tool pprof -top mcptest PATH` reads it), MCPTEST_CPUCLASSES=PATH
// writes the runtime's account of where the processors' time went (see
// CPUClasses), MCPTEST_TRACE=PATH an execution trace (`go tool trace
// PATH`: which goroutine ran on which processor, and what each waited
// on), MCPTEST_MEMPROFILE=PATH an allocation profile of the whole command
// (see MemProfile). An empty value measures nothing; a path that cannot be
// written is named on stderr and measures nothing.
func CPUProfile(getenv func(string) string, stderr io.Writer) (stop func()) {
	stopClasses := CPUClasses(getenv("MCPTEST_CPUCLASSES"), stderr)
	stopTrace := startTrace(getenv("MCPTEST_TRACE"), stderr)
	stopMem := MemProfile(getenv("MCPTEST_MEMPROFILE"), stderr)
	stopClasses = func(classes func()) func() { return func() { stopTrace(); stopMem(); classes() } }(stopClasses)
	path := getenv("MCPTEST_CPUPROFILE")
	if path == "" {
		return stopClasses
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcptest: MCPTEST_CPUPROFILE: %v\n", err)
		return stopClasses
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		stopClasses()
	}
}

// cpuClasses are the runtime/metrics figures CPUClasses writes: the
// processors' time (GOMAXPROCS × the time since the process started) split
// into the Go code run, the garbage collector, and idle (no goroutine to
// run), which a loaded machine does not move: a processor whose thread the
// kernel has taken off the CPU is still counted as busy by Go.
var cpuClasses = []string{
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/user:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/scavenge/total:cpu-seconds",
	"/cpu/classes/idle:cpu-seconds",
}

// CPUClasses returns what writes, to path, the runtime's account of the
// processors' time from the start of the process to the call (a
// collection is forced first, the runtime updates the account at each):
// one line per figure, "gomaxprocs N", "memprofilerate N" (the runtime's
// allocation sampling rate, 0 when off: see MemProfile), "wall SECONDS",
// then each of cpuClasses as "NAME SECONDS". A command that keeps every
// processor busy has an idle share near 0; a phase on one goroutine shows
// as idle time of the others. An empty path writes nothing; a path that
// cannot be written is named on stderr.
func CPUClasses(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	start := time.Now()
	return func() {
		wall := time.Since(start)
		runtime.GC()
		samples := make([]metrics.Sample, len(cpuClasses))
		for i, name := range cpuClasses {
			samples[i].Name = name
		}
		metrics.Read(samples)
		text := fmt.Sprintf("gomaxprocs %d\nmemprofilerate %d\nwall %.6f\n", runtime.GOMAXPROCS(0), runtime.MemProfileRate, wall.Seconds())
		for _, s := range samples {
			v := 0.0
			if s.Value.Kind() == metrics.KindFloat64 {
				v = s.Value.Float64()
			}
			text += fmt.Sprintf("%s %.6f\n", s.Name, v)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintf(stderr, "mcptest: MCPTEST_CPUCLASSES: %v\n", err)
		}
	}
}

// startTrace starts an execution trace of the process to path and returns
// what stops it; an empty path traces nothing, a path that cannot be
// written is named on stderr.
func startTrace(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = trace.Start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcptest: MCPTEST_TRACE: %v\n", err)
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}

// memProfileRate is the sampling rate MemProfile sets: one sample per
// 4 KiB allocated on average, fine enough that a command's small per-case
// values show with their share (the runtime's default, 512 KiB, would
// leave a run of a few megabytes a handful of samples).
const memProfileRate = 4096

// MemProfile starts, for path, an allocation profile of the process and
// returns what writes it: runtime.MemProfileRate is set to memProfileRate
// at the call (unless the operator set one: GODEBUG=memprofilerate=1
// counts every allocation from the process's start, package
// initialisation included, where a sampled profile estimates a count
// from a few samples each scaled by up to 512 KiB over the object's
// size), and the "allocs" profile (every allocation sampled since,
// bytes and counts, with their stacks) is written to path at stop, which
// `go tool pprof -sample_index=alloc_space -top mcptest PATH` reads (a
// collection is forced first: the profile counts what was allocated up
// to the last one). A path that cannot be written is named on stderr (at
// the call: the file is created first, so the command is not run for
// nothing).
//
// An empty path profiles nothing and turns the runtime's own sampling off
// (runtime.MemProfileRate 0): by default it records the stack of one
// allocation per 512 KiB into a hash table of 1.4 MB, whose first write to
// each of its pages, after a read, makes the kernel flush that page from
// the other core's TLB. Over the 2,000 transcripts of .ci/bench that was
// 15 % of the run's interrupts between cores at two cores, and nothing
// reads the samples unless MCPTEST_MEMPROFILE asks for them. A rate the
// operator set (GODEBUG=memprofilerate=N) is left as it is.
func MemProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		if !godebugSets(os.Getenv("GODEBUG"), "memprofilerate") {
			runtime.MemProfileRate = 0
		}
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "mcptest: MCPTEST_MEMPROFILE: %v\n", err)
		return func() {}
	}
	if !godebugSets(os.Getenv("GODEBUG"), "memprofilerate") {
		runtime.MemProfileRate = memProfileRate
	}
	return func() {
		runtime.GC() // the profile is as of the last collection: count every allocation
		if err := errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close()); err != nil {
			fmt.Fprintf(stderr, "mcptest: MCPTEST_MEMPROFILE: %v\n", err)
		}
	}
}

// godebugSets reports whether the GODEBUG value godebug (comma-separated
// NAME=VALUE settings, read as the runtime reads them: no space is
// trimmed) sets name.
func godebugSets(godebug, name string) bool {
	for _, kv := range strings.Split(godebug, ",") {
		if k, _, ok := strings.Cut(kv, "="); ok && k == name {
			return true
		}
	}
	return false
}
