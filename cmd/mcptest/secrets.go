package main

import (
	"io"

	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/live"
)

// guardSecrets puts stdout and stderr behind one redact.Writer each, for
// the whole of a command: every message, log line, error (exit prints
// through Stderr), report and panic passes it, masked with the secrets
// this invocation was handed (redact.Known: a URL's password and query
// keys, a server command line's secret flags, the token of
// --bearer-token-env) and the credentials of any URL (redact.URLs). Targets add their
// secrets as they are built (knowTarget); files are written through the
// same mask (writeFile). restore flushes and puts the streams back.
func (c *Command) guardSecrets(args []string) (restore func()) {
	c.secrets = &redact.Known{}
	live.AddArgSecrets(c.secrets, args, c.Getenv)
	stdout, stderr := c.Stdout, c.Stderr
	o, e := redact.NewKnownWriter(stdout, c.secrets), redact.NewKnownWriter(stderr, c.secrets)
	c.Stdout, c.Stderr, c.protocol = o, e, stdout
	return func() {
		_ = o.Flush()
		_ = e.Flush()
		c.Stdout, c.Stderr, c.protocol = stdout, stderr, nil
	}
}

// protocolOut is stdout as a protocol channel (the MCP stream of mock,
// record and mcp-server): passed on byte for byte, never masked, since
// what goes there is the answer of a server to its client, not a message
// of mcptest's.
func (c *Command) protocolOut() io.Writer {
	if c.protocol != nil {
		return c.protocol
	}
	return c.Stdout
}

// knowTarget adds the secrets of a live target to the mask
// (live.Target.AddSecrets).
func (c *Command) knowTarget(t live.Target) {
	if c.secrets != nil {
		t.AddSecrets(c.secrets, c.Getenv)
	}
}

// writeFile writes a file a command produces (a report, a scaffolded
// suite, a cassette) by rename (safefile.WriteOutputFunc), through the
// mask of the streams: no file mcptest writes holds a secret its
// messages would not show.
func (c *Command) writeFile(path string, fill func(io.Writer) error) error {
	return safefile.WriteOutputFunc(path, 0o644, c.masked(fill))
}

// masked is fill writing through the mask of the streams (redact.ThroughKnown),
// for every file a command writes (writeFile, the workspace store's
// envelopes).
func (c *Command) masked(fill func(io.Writer) error) func(io.Writer) error {
	return redact.ThroughKnown(c.secrets, fill)
}

// writeFileData is writeFile for content held whole.
func (c *Command) writeFileData(path string, data []byte) error {
	return c.writeFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
