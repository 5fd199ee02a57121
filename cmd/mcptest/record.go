package main

import (
	"context"

	"github.com/mcptest/mcptest/live"
)

// record stands between an agent and one MCP server (live.Record): it
// serves the server's catalog to the agent (over stdio, or streamable HTTP
// with --listen), forwards every call, and writes what passed as a v1
// cassette. Each client session is one run; --append adds the runs to an
// existing cassette, so several sessions make a multi-run cassette.
func (c *Command) record(ctx context.Context, args []string) error {
	fs := c.newFlags("record", "mcptest record --output CASSETTE.json [--append] [--name SERVER] [--agent NAME] [--listen ADDR] "+liveTargetSynopsis)
	tf := c.addTargetFlags(fs, false)
	o := live.RecordOptions{Getenv: c.Getenv, Stdin: c.Stdin, Stdout: c.protocolOut(), Log: c.Stderr, Listening: c.listening, WriteFile: c.writeFileData}
	fs.StringVar(&o.Output, "output", "", "write the cassette to `FILE` (required)")
	fs.BoolVar(&o.Append, "append", false, "add this recording's runs to the cassette already at --output (a multi-run cassette)")
	fs.StringVar(&o.Server, "name", "", "the server's `NAME` in the cassette (default: the --server name, else \"target\")")
	fs.StringVar(&o.Agent, "agent", "", "the agent's `NAME`, recorded as the cassette's agent")
	fs.StringVar(&o.Listen, "listen", "", "serve the agent over streamable HTTP on `ADDR` (host:port) instead of stdio; stop with an interrupt")
	err := tf.Parse(args)
	if err == nil && o.Output == "" {
		err = inputErr("record needs --output CASSETTE.json: where to write the recording")
	}
	if err == nil {
		o.Target, err = tf.Target()
	}
	if err == nil {
		err = live.Record(ctx, o)
	}
	return err
}
