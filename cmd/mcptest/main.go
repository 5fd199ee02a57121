// Command mcptest is a deterministic, model-free gate for AI agents that use
// MCP tools. Run `mcptest help` for its commands and exit codes.
package main

import (
	"context"
	"os"

	"github.com/mcptest/mcptest/cli"
)

func main() {
	cmd := &Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, trapSignals: true}
	stop := cli.CPUProfile(os.Getenv, os.Stderr)
	code := cmd.MainContext(context.Background(), os.Args[1:])
	stop()
	os.Exit(code)
}
