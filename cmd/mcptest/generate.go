package main

import (
	"context"

	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// generateUsage names the four kinds; every usage error of generate says it.
const generateUsage = "usage: mcptest generate suite|conformance|redteam|eval [flags] " + liveTargetSynopsis + "\n       mcptest generate agent-suite --from CASSETTE... [--join CASSETTE]... [--catalog FILE] [--output FILE]"

// generate is `mcptest generate suite|conformance|redteam|eval`: the suite
// scaffold_suite, scaffold_conformance, scaffold_redteam or scaffold_eval
// returns, rendered by the same function, for every tool at once.
func (c *Command) generate(_ context.Context, args []string) error {
	if len(args) == 0 {
		return inputErr("%s", generateUsage)
	}
	kind := args[0]
	if kind == "agent-suite" {
		return c.generateAgentSuite(args[1:])
	}
	synopses := map[string]string{
		"suite":       "mcptest generate suite [--probe] [--tool NAME]... [--no-edge] [--no-violation] [--include-writes] [--cursor N] [--output FILE] TARGET",
		"conformance": "mcptest generate conformance [--output FILE] TARGET",
		"redteam":     "mcptest generate redteam [--tool NAME]... [--cursor N] [--output FILE] TARGET",
		"eval":        "mcptest generate eval [--tool NAME]... [--cursor N] [--output FILE] TARGET",
	}
	synopsis := synopses[kind]
	if isHelp(kind) {
		// `generate --help`: every kind, and the flags of suite, which has
		// them all.
		kind, args = "suite", []string{"suite", "--help"}
		synopsis = synopses["suite"] + "\n       " + synopses["conformance"] + "\n       " + synopses["redteam"] + "\n       " + synopses["eval"] +
			"\n  --tool and --cursor go with suite, redteam and eval; --probe, --no-edge, --no-violation and --include-writes with suite"
	}
	if synopsis == "" {
		return inputErr("generate %q: unknown kind; %s", kind, generateUsage)
	}
	fs := c.newFlags("generate "+kind, synopsis+"\n  TARGET is "+liveTargetSynopsis)
	tf := c.addTargetFlags(fs, false)
	output := fs.String("output", "", "write the suite to `FILE` instead of stdout (- is stdout)")
	var opt mcpserver.ScaffoldOptions
	var noEdge, noViolation bool
	if kind != "conformance" {
		fs.Var((*stringList)(&opt.Tools), "tool", "scaffold only the tool `NAME` (repeatable)")
		fs.IntVar(&opt.Cursor, "cursor", 0, "start at tool `N` of the sorted list: the cursor a note gives when the suite reached its size limit")
	}
	if kind == "suite" {
		fs.BoolVar(&opt.Probe, "probe", false, "also emit the schema-derived negative probe cases per tool")
		fs.BoolVar(&noEdge, "no-edge", false, "leave out the boundary case per tool")
		fs.BoolVar(&noViolation, "no-violation", false, "leave out the schema-violation case per tool")
		fs.BoolVar(&opt.IncludeWrites, "include-writes", false, "emit the tests of tools that change state (annotations not readOnlyHint, destructiveHint, or a write or delete name) as live tests; by default they are commented out for review, so the suite never calls them for real")
	}
	if err := tf.parse(args[1:]); err != nil {
		return err
	}
	if opt.Cursor < 0 {
		return inputErr("--cursor: %d is negative", opt.Cursor)
	}
	t, err := tf.target()
	if err != nil {
		return err
	}
	cat, err := c.loadCatalog(t, live.AllLists)
	if err != nil {
		return err
	}
	opt.IncludeEdge, opt.IncludeViolation = !noEdge, !noViolation
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
	if len(from) == 0 {
		return inputErr("generate agent-suite: name the recordings with --from CASSETTE")
	}
	if len(join) > 0 && len(from) != 1 {
		return inputErr("generate agent-suite: --join joins recordings to one --from recording, and %d are named", len(from))
	}
	if len(join) > 0 && *catalog != "" {
		return inputErr("generate agent-suite: --catalog is for recordings without schemas, and a --join test takes its calls and their catalog from the --from recording")
	}
	g, err := mcpserver.ProposeAgentSuite(*output, from, join, *catalog)
	if err != nil {
		return err
	}
	return mcpserver.WriteSuite(c.Stdout, c.Stderr, *output, g, c.writeFileData)
}
