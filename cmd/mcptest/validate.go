package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
)

func (c *Command) validate(_ context.Context, args []string) error {
	fs := c.newFlags("validate", "mcptest validate [--format text|json] [--config suite.yml | FILE...]")
	config := fs.String("config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	format := fs.String("format", "text", "text or json")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return inputErr("--format %q: expected text or json", *format)
	}
	if len(files) == 0 {
		f, err := c.suiteFile(*config)
		if err != nil {
			return err
		}
		files = []string{f}
	}
	var all diag.List
	for _, f := range files {
		l, err := engine.ValidateFile(f)
		if err != nil {
			return err
		}
		all = append(all, l...)
	}
	if *format == "json" {
		doc := engine.ValidationDocument(all)
		b, _ := json.MarshalIndent(doc, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		if !doc.Valid {
			return silentExit(ExitInput)
		}
		return nil
	}
	if len(all) > 0 {
		return all
	}
	for _, f := range files {
		fmt.Fprintf(c.Stdout, "%s: valid\n", f)
	}
	return nil
}
