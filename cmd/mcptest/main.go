// Command mcptest is a deterministic, model-free gate for AI agents that use
// MCP tools. Run `mcptest help` for its commands and exit codes.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	cmd := &Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, trapSignals: true}
	stop := cpuProfile(os.Getenv("MCPTEST_CPUPROFILE"))
	code := cmd.MainContext(context.Background(), os.Args[1:])
	stop()
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the command to path (MCPTEST_CPUPROFILE,
// for docs/benchmarks.md's profiles; `go tool pprof -top mcptest path` reads
// it) and returns what stops it. An empty path profiles nothing.
func cpuProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcptest: MCPTEST_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
