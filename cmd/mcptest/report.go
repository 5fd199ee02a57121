package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/mcptest/mcptest/annotate"
)

func (c *Command) report(args []string) error {
	fs := c.newFlags("report", "mcptest report RUN.json [--format pretty|json] [--output FILE]")
	format := fs.String("format", "pretty", "how to render: pretty or json")
	output := fs.String("output", "", "write to `FILE` instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return inputErr("report takes one run envelope (the file `mcptest run --reporter json` wrote), got %d arguments", len(pos))
	}
	f, err := os.Open(pos[0])
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return inputErr("%s: no such file", pos[0])
		}
		return fmt.Errorf("open run envelope: %w", err)
	}
	defer f.Close()
	env, err := annotate.ReadEnvelope(f, pos[0])
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	out := c.Stdout
	if *output != "" {
		out = nil
	}
	rep, err := annotate.New(*format, annotate.Options{Color: out != nil && c.color(out)})
	if err != nil {
		return inputErr("--format: %v", err)
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	if *output != "" {
		return os.WriteFile(*output, buf.Bytes(), 0o644)
	}
	_, err = c.Stdout.Write(buf.Bytes())
	return err
}
