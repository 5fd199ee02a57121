package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// CPUProfile starts writing a CPU profile of the process to path (the
// binary's MCPTEST_CPUPROFILE, for docs/benchmarks.md's profiles: `go tool
// pprof -top mcptest path` reads it) and returns what stops it. An empty
// path profiles nothing; a path that cannot be written is named on stderr
// and profiles nothing.
func CPUProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcptest: MCPTEST_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
