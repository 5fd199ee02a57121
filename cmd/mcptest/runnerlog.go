package main

import (
	"io"

	"github.com/mcptest/mcptest/annotate"
)

// inActions reports whether mcptest runs under GitHub Actions, where every
// line it prints is read by the runner for workflow commands.
func (c *Command) inActions() bool {
	return c.Getenv("GITHUB_ACTIONS") == "true"
}

// guardRunnerLog puts stdout and stderr behind annotate.RunnerLog for the
// rest of the command: no line of recorded or fetched text can be run as a
// workflow command, and GITHUB_API_URL's user-info is never printed, not
// even in an add-mask command (the API client takes it out of every
// request URL, and the log redacts what is left). The workflow commands mcptest
// emits go through c.workflow. It returns the function that flushes the
// log and restores the streams.
func (c *Command) guardRunnerLog() (restore func()) {
	redact := annotate.APIURLRedactor(c.Getenv("GITHUB_API_URL"))
	stdout, stderr := c.Stdout, c.Stderr
	out, errs := annotate.NewRunnerLog(stdout, redact), annotate.NewRunnerLog(stderr, redact)
	c.Stdout, c.Stderr, c.commands = out, errs, out.Commands()
	return func() {
		_ = out.Flush()
		_ = errs.Flush()
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
