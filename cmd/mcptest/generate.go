package main

import (
	"fmt"
	"os"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/mcpserver"
)

// generate is `mcptest generate suite`: the starter suite scaffold_suite
// returns, rendered by the same function.
func (c *Command) generate(args []string) error {
	if len(args) == 0 || args[0] != "suite" {
		return inputErr("usage: mcptest generate suite [--probe] [--tool NAME]... [--no-edge] [--no-violation] [--output FILE] TARGET")
	}
	fs := c.newFlags("generate suite", "mcptest generate suite [--probe] [--tool NAME]... [--no-edge] [--no-violation] [--output FILE] (--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | -- COMMAND ARGS...)")
	tf := addTargetFlags(fs)
	probe := fs.Bool("probe", false, "also emit the schema-derived negative probe cases per tool")
	var tools stringList
	fs.Var(&tools, "tool", "scaffold only the tool `NAME` (repeatable)")
	noEdge := fs.Bool("no-edge", false, "leave out the boundary case per tool")
	noViolation := fs.Bool("no-violation", false, "leave out the schema-violation case per tool")
	output := fs.String("output", "", "write the suite to `FILE` instead of stdout")
	flags, command := splitCommand(args[1:])
	rest, err := parse(fs, flags)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return inputErr("unexpected argument %q: put a stdio server's command after --", rest[0])
	}
	t, err := tf.target(command)
	if err != nil {
		return err
	}
	if t.Catalog != "" {
		return inputErr("--catalog: a generated suite calls a live server; give --url, --server or -- COMMAND")
	}
	cat, err := c.loadCatalog(t)
	if err != nil {
		return err
	}
	sc := mcpserver.ScaffoldSuite(cat, t, mcpserver.ScaffoldOptions{Tools: tools, IncludeEdge: !*noEdge, IncludeViolation: !*noViolation, Probe: *probe, All: true})
	for _, w := range sc.Warnings {
		fmt.Fprintf(c.Stderr, "warning: %s %s: %s\n", w.Rule, annotate.Clean(w.Tool), annotate.Clean(w.Summary))
	}
	for _, n := range sc.Notes {
		fmt.Fprintf(c.Stderr, "note: %s\n", annotate.Clean(n))
	}
	if *output != "" {
		if err := os.WriteFile(*output, []byte(sc.Suite), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", *output, err)
		}
		fmt.Fprintf(c.Stderr, "mcptest: %d tools scaffolded; suite written to %s\n", len(sc.Tools), *output)
		return nil
	}
	_, err = fmt.Fprint(c.Stdout, sc.Suite)
	return err
}
