package main

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/live"
)

// record stands between an agent and one MCP server (live.Record): it
// serves the server's catalog to the agent (over stdio, or streamable HTTP
// with --listen), forwards every call, and writes what passed as a v1
// cassette. Each client session is one run; --append adds the runs to an
// existing cassette, so several sessions make a multi-run cassette.
func (c *Command) record(ctx context.Context, args []string) error {
	fs := c.newFlags("record", "mcptest record --output CASSETTE.json [--append] [--name SERVER] [--agent NAME] [--listen ADDR] "+liveTargetSynopsis)
	tf := addTargetFlags(fs, false)
	o := live.RecordOptions{Getenv: c.Getenv, ServeStdio: c.serveStdio, Log: c.Stderr, Listening: c.listening}
	fs.StringVar(&o.Output, "output", "", "write the cassette to `FILE` (required)")
	fs.BoolVar(&o.Append, "append", false, "add this recording's runs to the cassette already at --output (a multi-run cassette)")
	fs.StringVar(&o.Server, "name", "", "the server's `NAME` in the cassette (default: the --server name, else \"target\")")
	fs.StringVar(&o.Agent, "agent", "", "the agent's `NAME`, recorded as the cassette's agent")
	fs.StringVar(&o.Listen, "listen", "", "serve the agent over streamable HTTP on `ADDR` (host:port) instead of stdio; stop with an interrupt")
	err := tf.parse(args)
	if err == nil && o.Output == "" {
		err = inputErr("record needs --output CASSETTE.json: where to write the recording")
	}
	if err == nil {
		o.Target, err = tf.target()
	}
	if err == nil {
		err = live.Record(ctx, o)
	}
	return err
}

// serveStdio serves an MCP server (the recording proxy, the mock) to a
// client on stdin and stdout until the client leaves or ctx is cancelled.
func (c *Command) serveStdio(ctx context.Context, s *mcp.Server) error {
	in, out := c.stdio()
	err := s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return err
	}
	return nil
}

// stdio is the command's stdin and stdout as a transport needs them, with
// a Close that does nothing where the stream has none.
func (c *Command) stdio() (io.ReadCloser, io.WriteCloser) {
	in, _ := c.Stdin.(io.ReadCloser)
	if in == nil {
		in = io.NopCloser(c.Stdin)
	}
	out, _ := c.Stdout.(io.WriteCloser)
	if out == nil {
		out = nopWriteCloser{c.Stdout}
	}
	return in, out
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
