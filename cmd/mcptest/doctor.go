package main

import (
	"context"
	"github.com/mcptest/mcptest/annotate"
	"time"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/mcpserver"
)

// doctor reads a target's catalog and reports on it: the connection layers
// by default, the DESC-NNN description lint with --lint-descriptions. With
// no target it walks the MCP configs (mcpserver.DoctorWalk) and exits 1
// when a diagnosed server fails.
func (c *Command) doctor(_ context.Context, args []string) error {
	fs := c.newFlags("doctor", "mcptest doctor [--format text|json] [--server NAME]\n       mcptest doctor [--lint-descriptions] [--format text|json] "+targetSynopsis+"\n  With no target, doctor lists the servers of the workspace's and the user's MCP configs (.mcp.json, ~/.claude.json,\n  .cursor/mcp.json, .vscode/mcp.json, Claude Desktop's) and diagnoses each; --server NAME picks one.")
	tf := c.addTargetFlags(fs, true)
	lint := fs.Bool("lint-descriptions", false, "run the thirteen DESC-NNN description rules over the catalog's tools")
	format := &annotate.AddFormat(fs, "text", "json").Value
	if err := tf.Parse(args); err != nil {
		return err
	}
	if !tf.Named() && (*tf.Server == "" || !cli.Given(fs, "config")) && !*lint {
		failed, err := mcpserver.DoctorWalk(context.Background(), c.Stdout, mcpserver.WalkOptions{Root: ".", Only: *tf.Server, Format: *format, Timeout: time.Duration(tf.Timeout), Getenv: c.Getenv})
		if err == nil && failed > 0 {
			return errFailed
		}
		return err
	}
	t, err := tf.Target()
	if err != nil {
		return err
	}
	return mcpserver.DoctorTarget(c.Stdout, t, c.Getenv, *format, *lint)
}
