package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcptest/mcptest/history"
)

// historyCommand is `mcptest history [FILE|DIR]...`: the history of the
// run envelopes given (or of the runs stored in the workspace), folded by
// package history one envelope at a time and rendered in --format.
func (c *Command) historyCommand(_ context.Context, args []string) error {
	fs := c.newFlags("history", "mcptest history [RUN.json | DIR]... [--format text|json|markdown|html] [--output FILE] [--last N] [--flaky FLIPS] [--slide-threshold POINTS]\n  With no argument, history reads the runs stored in the workspace (.mcptest/runs/). The window is ordered by run.started_at, then run.id.")
	format := addFormat(fs, history.Formats...)
	output := fs.String("output", "", "write the history to `FILE` (by rename) instead of stdout")
	last := fs.Int("last", 0, "keep the newest `N` runs of the window (0: all, up to 1000)")
	flaky := fs.Int("flaky", 2, "a case that flipped `FLIPS` times or more flips often")
	slide := fs.Float64("slide-threshold", 0, "list a floor as slid when it fell at least `POINTS` from its first value to its last (0: any fall)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *last < 0 || *flaky < 1 || *slide < 0 {
		return inputErr("--last, --flaky and --slide-threshold take a number of 0 or more (--flaky 1 or more)")
	}
	if len(pos) == 0 {
		dir, err := c.storeDir("runs")
		if err != nil {
			return err
		}
		pos = []string{dir}
	}
	paths, err := history.Expand(pos)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return inputErr("no run envelope in %v: give RUN.json files or a directory of them (mcptest run --reporter json writes one)", pos)
	}
	opt := history.FileOptions{Options: history.Options{FlakyFlips: *flaky, SlideThreshold: *slide}, Last: *last}
	if format.value == "html" {
		opt.LinkDir = "."
		if *output != "" && *output != "-" {
			opt.LinkDir = filepath.Dir(*output)
		}
	}
	h, err := history.BuildFiles(paths, opt)
	if err != nil {
		return err
	}
	if *output == "" || *output == "-" {
		err = history.Render(c.Stdout, format.value, h)
	} else {
		err = c.writeFile(*output, func(w io.Writer) error { return history.Render(w, format.value, h) })
	}
	if err != nil {
		return fmt.Errorf("write the history: %w", err)
	}
	return nil
}
