package main

import (
	"context"
	"time"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/gate/tokens"
	"github.com/mcptest/mcptest/live"
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
	format := &addFormat(fs, "text", "json").value
	if err := tf.parseFormat(args, format); err != nil {
		return err
	}
	if *tf.url == "" && *tf.catalog == "" && len(tf.command) == 0 && (*tf.server == "" || !cli.Given(fs, "config")) && !*lint {
		failed, err := mcpserver.DoctorWalk(context.Background(), c.Stdout, mcpserver.WalkOptions{Root: ".", Only: *tf.server, Format: *format, Timeout: time.Duration(tf.timeout), Getenv: c.Getenv})
		if err == nil && failed > 0 {
			return errFailed
		}
		return err
	}
	t, err := tf.target()
	if err != nil {
		return err
	}
	lists := live.AllLists
	if *lint {
		lists = live.ListTools
	} else {
		// The tool-surface count needs the cl100k_base tables, a few
		// hundred ms to load: load them while the server starts.
		go tokens.Count("")
	}
	cat, err := c.loadCatalog(t, lists)
	if !*lint && *format == "text" {
		mcpserver.WriteAuthFailure(c.Stdout, t, err)
	}
	switch {
	case err != nil:
		return err
	case *lint:
		return mcpserver.WriteLint(c.Stdout, *format, cat)
	}
	return mcpserver.WriteLayers(c.Stdout, *format, t, cat)
}
