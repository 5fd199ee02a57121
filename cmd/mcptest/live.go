package main

import (
	"context"
	"github.com/mcptest/mcptest/annotate"

	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// listCommand is tools, resources, prompts or capabilities.
func (c *Command) listCommand(what string) func(*Command, context.Context, []string) error {
	return func(c *Command, _ context.Context, args []string) error {
		fs := c.newFlags(what, "mcptest "+what+" [--format text|json] "+targetSynopsis)
		tf := c.addTargetFlags(fs, true)
		format := &annotate.AddFormat(fs, "text", "json").Value
		cat, err := c.readCatalog(tf, args, map[string]live.Lists{"tools": live.ListTools, "resources": live.ListResources, "prompts": live.ListPrompts}[what])
		if err != nil {
			return err
		}
		return mcpserver.WriteCatalog(c.Stdout, c.Stderr, what, *format, cat)
	}
}

// mock serves a catalog file as a deterministic MCP server on stdio
// (live.ServeMock).
func (c *Command) mock(ctx context.Context, args []string) error {
	fs := c.newFlags("mock", "mcptest mock --tools-from catalog.yml")
	from := fs.String("tools-from", "", "the catalog `FILE` to serve (a tools/list result, JSON or YAML)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *from == "" {
		return inputErr("usage: mcptest mock --tools-from catalog.yml")
	}
	return live.ServeMock(ctx, *from, c.Stdin, c.protocolOut())
}
