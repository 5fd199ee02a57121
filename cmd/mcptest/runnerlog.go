package main

import (
	"io"

	"github.com/mcptest/mcptest/annotate"
)

// inActions reports whether mcptest runs under GitHub Actions, where every
// line it prints is read by the runner for workflow commands.
func (c *Command) inActions() bool { return c.Getenv("GITHUB_ACTIONS") == "true" }

// guardRunnerLog puts stdout and stderr behind the runner log for the rest
// of the command (annotate.GuardStreams): no line of recorded or fetched
// text can be run as a workflow command, and GITHUB_API_URL's user-info is
// never printed. mcptest's own workflow commands go through c.workflow. It
// returns the function that flushes the log and restores the streams.
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
