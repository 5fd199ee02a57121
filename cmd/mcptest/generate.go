package main

import (
	"context"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// generate is `mcptest generate suite|conformance|redteam|eval`: the suite
// scaffold_suite, scaffold_conformance, scaffold_redteam or scaffold_eval
// returns, rendered by the same function, for every tool at once.
func (c *Command) generate(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return inputErr("%s", mcpserver.GenerateUsage)
	}
	kind := args[0]
	if kind == "agent-suite" {
		return c.generateAgentSuite(args[1:])
	}
	synopsis, ok := mcpserver.GenerateSynopsis(kind, false)
	if cli.IsHelp(kind) { // every kind, and the flags of suite, which has them all
		kind, args = "suite", []string{"suite", "--help"}
		synopsis, ok = mcpserver.GenerateSynopsis(kind, true)
	}
	if !ok {
		return inputErr("generate %q: unknown kind; %s", kind, mcpserver.GenerateUsage)
	}
	fs := c.newFlags("generate "+kind, synopsis+"\n  TARGET is "+liveTargetSynopsis)
	tf := c.addTargetFlags(fs, false)
	output := fs.String("output", "", "write the suite to `FILE` instead of stdout (- is stdout)")
	gf := mcpserver.AddGenerateFlags(fs, kind)
	if err := tf.Parse(args[1:]); err != nil {
		return err
	}
	opt, err := gf.Options()
	if err != nil {
		return err
	}
	t, err := tf.Target()
	if err != nil {
		return err
	}
	cat, err := c.loadCatalog(t, live.AllLists)
	if err != nil {
		return err
	}
	if kind == "suite" {
		if opt.World, err = mcpserver.ExploreLive(ctx, t, c.Getenv, cat, opt); err != nil {
			return err
		}
	}
	return mcpserver.WriteSuite(c.Stdout, c.Stderr, *output, mcpserver.Generate(kind, cat, t, opt), c.writeFileData)
}

// generateAgentSuite is `mcptest generate agent-suite`: an agents: suite
// proposed from recordings (mcpserver.ProposeAgentSuite), measured on them.
func (c *Command) generateAgentSuite(args []string) error {
	fs := c.newFlags("generate agent-suite", "mcptest generate agent-suite --from CASSETTE [--from CASSETTE]... [--join CASSETTE]... [--catalog FILE] [--output FILE]")
	var from, join stringList
	fs.Var(&from, "from", "propose a test from the recording `CASSETTE`: a file of any format run reads, or a directory or glob whose files are one test's runs, as cassette: reads them (repeatable, or several after --from)")
	fs.Var(&join, "join", "join the recording `CASSETTE` to the one --from recording run by run, for the tokens, model or answer it lacks: one test over both, with sources: (repeatable)")
	output := fs.String("output", "", "write the suite to `FILE` instead of stdout (- is stdout); cassette paths in it are relative to FILE's directory")
	catalog := fs.String("catalog", "", "check the arguments of a recording that carries no input schemas against the saved tools/list `FILE` (mcptest tools --format json -- SERVER...)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	from = append(from, rest...)
	g, err := mcpserver.ProposeAgentSuite(*output, from, join, *catalog)
	if err != nil {
		return err
	}
	return mcpserver.WriteSuite(c.Stdout, c.Stderr, *output, g, c.writeFileData)
}
