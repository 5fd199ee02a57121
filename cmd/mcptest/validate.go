package main

import (
	"context"
	"fmt"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/mcpserver"
)

func (c *Command) validate(_ context.Context, args []string) error {
	fs := c.newFlags("validate", "mcptest validate [--format text|json] [--config suite.yml | FILE...]")
	config := fs.String("config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	format := &addFormat(fs, "text", "json").value
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		f, err := c.suiteFile(*config)
		if err != nil {
			return err
		}
		files = []string{f}
	}
	all, err := engine.ValidateFiles(files)
	if err != nil {
		return err
	}
	if *format == "json" {
		doc := engine.ValidationDocument(all)
		if err := mcpserver.WriteJSON(c.Stdout, doc); err != nil || doc.Valid {
			return err
		}
		return silentExit(ExitInput)
	}
	if len(all) > 0 {
		return all
	}
	for _, f := range files {
		fmt.Fprintf(c.Stdout, "%s: valid\n", f)
	}
	return nil
}
