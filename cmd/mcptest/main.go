// Command mcptest is a deterministic, model-free gate for AI agents that use
// MCP tools. Run `mcptest help` for its commands and exit codes.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cmd := &Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, releaseSignals: stop}
	code := cmd.MainContext(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
