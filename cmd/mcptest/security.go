package main

import (
	"context"
	"github.com/mcptest/mcptest/annotate"

	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// security scans a catalog's tool definitions with the SEC-NNN rules; a
// finding exits 1.
func (c *Command) security(_ context.Context, args []string) error {
	fs := c.newFlags("security", "mcptest security [--format text|json] "+targetSynopsis)
	tf := c.addTargetFlags(fs, true)
	format := &annotate.AddFormat(fs, "text", "json").Value
	cat, err := c.readCatalog(tf, args, live.ListTools)
	if err != nil {
		return err
	}
	n, err := mcpserver.WriteSecurity(c.Stdout, *format, cat)
	if err == nil && n > 0 {
		return errFailed
	}
	return err
}
