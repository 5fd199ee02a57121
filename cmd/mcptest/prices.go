package main

import (
	"context"
	"fmt"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/prices"
)

// pricesCommand prints, per model, the rates a run of it would be priced at
// and the table entry that matched (prices.Table.Report); a model the table
// lacks is named on stderr with the nearest priced one, and exits 2.
func (c *Command) pricesCommand(_ context.Context, args []string) error {
	fs := c.newFlags("prices", "mcptest prices [--prices FILE] [--format text|json] MODEL...")
	file := fs.String("prices", "", "look the models up in the LiteLLM-format price table `FILE` instead of the embedded copy")
	format := annotate.AddFormat(fs, "text", "json")
	models, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(models) == 0 {
		return inputErr("prices takes one or more model names, as a cassette's model names them (mcptest prices claude-sonnet-4-5 openai/gpt-4o)")
	}
	table, err := prices.Open(*file)
	if err != nil {
		return err
	}
	rep, unknown := table.Report(models)
	if err := rep.Write(c.Stdout, format.Value, annotate.Clean); err != nil {
		return fmt.Errorf("write prices: %w", err)
	}
	for _, m := range unknown {
		fmt.Fprintf(c.Stderr, "mcptest: prices: %s\n", table.Unknown(m))
	}
	if unknown != nil {
		return silentExit(ExitInput)
	}
	return nil
}
