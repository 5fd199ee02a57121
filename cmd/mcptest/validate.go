package main

import (
	"context"
	"fmt"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
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
	var all diag.List
	var recs []engine.Recording
	read := map[string][]engine.Recording{}
	for i, f := range files {
		f = suiteIn(f) // a directory names its suite
		files[i] = f
		l, r, err := engine.ValidateFileRead(f)
		if err != nil {
			return err
		}
		all = append(all, l...)
		recs = append(recs, r...)
		read[f] = r
	}
	if *format == "json" {
		doc := engine.ValidationDocument(all)
		doc.Recordings = recs
		if err := mcpserver.WriteJSON(c.Stdout, doc); err != nil || doc.Valid {
			return err
		}
		return silentExit(ExitInput)
	}
	if len(all) > 0 {
		return all
	}
	for _, f := range files {
		status := "valid"
		for _, r := range read[f] {
			if r.NoCalls() {
				status = "warning: a recording holds runs without a tool call (below)"
				break
			}
		}
		fmt.Fprintf(c.Stdout, "%s: %s\n", f, status)
		for _, r := range read[f] {
			prefix := "  "
			if r.File != f {
				prefix = "  " + r.File + ": "
			}
			fmt.Fprintf(c.Stdout, "%s%s\n", prefix, r.Text())
			for _, w := range r.Warnings {
				fmt.Fprintf(c.Stdout, "%swarning: %s\n", prefix, w)
			}
		}
	}
	return nil
}
