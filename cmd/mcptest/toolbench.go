package main

import (
	"context"
	"fmt"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/gate/toolbench"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// toolBench is `mcptest tool-bench run <spec> [--min-drop FRACTION]
// [--json]`: gate/toolbench reads the spec, with live's catalog readers,
// runs and renders it.
func (c *Command) toolBench(_ context.Context, args []string) error {
	const usage = "mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--format text|json]"
	if len(args) > 0 && cli.IsHelp(args[0]) {
		args = []string{"run", "--help"}
	}
	if len(args) == 0 || args[0] != "run" {
		return inputErr("usage: %s", usage)
	}
	fs := c.newFlags("tool-bench run", usage)
	minDrop := fs.Float64("min-drop", -1, "exit 1 when the largest selection drop across mutations is below `FRACTION` (0..1)")
	format := annotate.AddFormat(fs, "text", "json")
	format.JSONAlias(fs)
	pos, err := parse(fs, args[1:])
	switch {
	case err != nil:
		return err
	case len(pos) != 1:
		return inputErr("usage: %s", usage)
	case *minDrop > 1:
		return inputErr("--min-drop %v: expected a fraction between 0 and 1", *minDrop)
	}
	rep, err := toolbench.RunFile(pos[0], toolbench.CatalogsOf(live.ParseCatalog, live.ReadFile))
	switch {
	case err != nil:
		return err
	case format.Value == "json":
		err = mcpserver.WriteJSON(c.Stdout, rep)
	default:
		err = toolbench.Text{Clean: annotate.Clean}.Write(c.Stdout, rep)
	}
	if err != nil || *minDrop < 0 || rep.MaxDrop >= *minDrop {
		return err
	}
	fmt.Fprintf(c.Stderr, "FLOOR tool-bench: the largest selection drop %.2f is below --min-drop %.2f: the descriptions do not carry the selection signal\n", rep.MaxDrop, *minDrop)
	return errFailed
}
