package main

import (
	"context"
	"errors"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// catalogFileErr is the error for a catalog file that was refused: its
// positioned errors as they are (printed with their source lines), any
// other failure as wrong input.
func catalogFileErr(err error) error {
	var l diag.List
	if errors.As(err, &l) {
		return l
	}
	return &diag.InputError{Err: err}
}

// loadCatalog reads the target's catalog: a catalog file that cannot be
// read is wrong input, a server that cannot be reached (or refuses the
// bearer token, *live.AuthError) an operational failure.
func (c *Command) loadCatalog(t live.Target, lists live.Lists) (*live.Catalog, error) {
	cat, err := live.LoadLists(context.Background(), t, c.Getenv, lists)
	if err != nil && t.Catalog != "" {
		return nil, catalogFileErr(err)
	}
	return cat, err
}

// parseFormat parses a live command's flags and checks its --format:
// text or json.
func (tf *targetFlags) parseFormat(args []string, format *string) error {
	if err := tf.parse(args); err != nil {
		return err
	}
	return nil
}

// readCatalog is parseFormat, then the lists of the target the flags name.
func (c *Command) readCatalog(tf *targetFlags, args []string, format *string, lists live.Lists) (*live.Catalog, error) {
	if err := tf.parseFormat(args, format); err != nil {
		return nil, err
	}
	t, err := tf.target()
	if err != nil {
		return nil, err
	}
	return c.loadCatalog(t, lists)
}

// listCommand is tools, resources, prompts or capabilities.
func (c *Command) listCommand(what string) func(*Command, context.Context, []string) error {
	return func(c *Command, _ context.Context, args []string) error {
		fs := c.newFlags(what, "mcptest "+what+" [--format text|json] "+targetSynopsis)
		tf := c.addTargetFlags(fs, true)
		format := &addFormat(fs, "text", "json").value
		cat, err := c.readCatalog(tf, args, format, map[string]live.Lists{"tools": live.ListTools, "resources": live.ListResources, "prompts": live.ListPrompts}[what])
		if err != nil {
			return err
		}
		return mcpserver.WriteCatalog(c.Stdout, c.Stderr, what, *format, cat)
	}
}

// mock serves a catalog file as a deterministic MCP server on stdio.
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
	cat, err := live.ReadFile(*from)
	if err != nil {
		return catalogFileErr(err)
	}
	server, err := live.MockServer(cat)
	if err != nil {
		return inputErr("%s: %w", *from, err)
	}
	return live.ServeStdio(ctx, server, c.Stdin, c.protocolOut())
}
