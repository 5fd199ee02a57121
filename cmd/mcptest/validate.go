package main

import (
	"context"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/mcpserver"
)

// validate is `mcptest validate`: the suites and cassettes named, checked
// (engine.ValidateRead), as text or as the validation document.
func (c *Command) validate(_ context.Context, args []string) error {
	fs := c.newFlags("validate", "mcptest validate [--format text|json] [--config suite.yml | FILE...]")
	config := fs.String("config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	format := annotate.AddFormat(fs, "text", "json")
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
	v, err := engine.ValidateRead(files)
	switch {
	case err != nil:
		return err
	case format.Value == "json":
		doc := v.Document()
		if err := mcpserver.WriteJSON(c.Stdout, doc); err != nil || doc.Valid {
			return err
		}
		return silentExit(ExitInput)
	case len(v.Errors) > 0:
		return v.Errors
	}
	v.WriteText(c.Stdout)
	return nil
}
