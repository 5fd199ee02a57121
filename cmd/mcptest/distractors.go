package main

import (
	"context"
	"fmt"

	"github.com/mcptest/mcptest/engine"
)

// distractors prints, for each test with a distractors: block, the tools
// the block injects as a tools/list document, so a team can present exactly
// those tools to its agent when recording.
func (c *Command) distractors(_ context.Context, args []string) error {
	fs := c.newFlags("distractors", "mcptest distractors [--config suite.yml | suite.yml] [--filter NAME]...")
	config := fs.String("config", "suite.yml", "the suite file")
	var filters stringList
	fs.Var(&filters, "filter", "only the test `NAME` (exact, or else a case-insensitive substring); repeatable")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
	case 1:
		*config = pos[0]
	default:
		return inputErr("distractors takes one suite file, got %d arguments: %q", len(pos), pos)
	}
	lists, err := engine.DistractorLists(*config, filters)
	if err != nil {
		return err
	}
	if lists == nil {
		return inputErr("%s: no selected test has a `distractors:` block", *config)
	}
	if _, err := c.Stdout.Write(lists); err != nil {
		return fmt.Errorf("write tools/list: %w", err)
	}
	return nil
}
