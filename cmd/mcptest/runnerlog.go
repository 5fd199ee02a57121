package main

import (
	"io"

	"github.com/mcptest/mcptest/annotate"
)

// inActions reports whether mcptest runs under GitHub Actions, where every
// line it prints is read by the runner for workflow commands.
func (c *Command) inActions() bool { return c.Getenv("GITHUB_ACTIONS") == "true" }

// guardRunnerLog puts stdout and stderr behind the runner log for the rest
// of the command (annotate.GuardStreams, redacting GITHUB_API_URL's
// user-info); it returns the function that flushes it and restores them.
func (c *Command) guardRunnerLog() (restore func()) {
	stdout, stderr := c.Stdout, c.Stderr
	var flush func()
	c.Stdout, c.Stderr, c.commands, flush = annotate.GuardStreams(stdout, stderr, c.Getenv("GITHUB_API_URL"))
	return func() {
		flush()
		c.Stdout, c.Stderr, c.commands = stdout, stderr, nil
	}
}

// workflow is the writer for the workflow commands mcptest emits itself.
func (c *Command) workflow() io.Writer {
	if c.commands != nil {
		return c.commands
	}
	return c.Stdout
}
