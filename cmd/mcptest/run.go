package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/prices"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/stamp"
)

// runArgs are mcptest run's flags, checked; opts holds those the engine
// takes as they are (filters, cassette directory, shard, prices).
type runArgs struct {
	config, format, output string
	outputs                annotate.Outputs
	useCache, noCache      bool
	quiet                  bool
	rep                    annotate.Reporter
	agentBudget            int
	timeout                timeoutFlag
	opts                   engine.Options
}

// runFlags reads and checks mcptest run's flags and arguments.
func (c *Command) runFlags(args []string) (a runArgs, err error) {
	fs := c.newFlags("run", "mcptest run [--config suite.yml | suite.yml] [--format text|json|junit|sarif|html|agent] [--agent-budget TOKENS] [--output FILE] [--output FORMAT=FILE]... [--filter NAME]... [--filter-escaped NAME]... [--cassette-dir DIR] [--shard i/n] [--cache | --no-cache] [--prices FILE] [--timeout D] [--color auto|always|never] [--quiet]\n  --format: text, json, junit (JUnit XML), sarif (SARIF 2.1.0), html (the auditor view) or agent (the model-facing digest).\n  --output FORMAT=FILE, repeatable, writes one more report of the same run in FORMAT to FILE.")
	fs.StringVar(&a.config, "config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	format := annotate.AddFormat(fs, annotate.Names...)
	format.Alias(fs, "reporter")
	colorMode := addColor(fs)
	quiet := addQuiet(fs)
	agentBudget := fs.Int("agent-budget", annotate.DefaultAgentBudget, "with --format agent, cap the result at `TOKENS` cl100k_base tokens")
	a.outputs.Formats = annotate.Names
	fs.Var(&a.outputs, "output", "write the --format report to `FILE` instead of stdout (- is stdout; --format html on a terminal goes to .mcptest/reports/); FORMAT=FILE, repeatable, writes one more report in FORMAT to FILE")
	fs.Var((*stringList)(&a.opts.Filter), "filter", "run only the case `NAME` (exact, or else a case-insensitive substring); repeatable")
	var escaped stringList
	fs.Var(&escaped, "filter-escaped", "like --filter, with the `NAME` written with Go escapes (\\n, \\x1b, \\u202e): the agent reporter's repro: lines use it for names with control characters; repeatable")
	fs.StringVar(&a.opts.CassetteDir, "cassette-dir", "", "the `DIR` where a test without a cassette: key is looked up by name (default: cassettes/ beside the suite)")
	fs.BoolVar(&a.useCache, "cache", false, "serve unchanged replayed cases from the workspace cache (.mcptest/cache/) on CI too, where it is off by default (CI or GITHUB_ACTIONS is true)")
	fs.BoolVar(&a.noCache, "no-cache", false, "recompute every case instead of serving unchanged ones from the workspace cache (.mcptest/cache/)")
	fs.Var(&a.timeout, "timeout", "how long every live server may take to start, answer initialize and answer each request, a `duration` such as 90s or 2m, over each server's timeout: (default: its timeout:, else 30s)")
	shardFlag := fs.String("shard", "", "run only shard `i/n` of the cases (1-based; a case's shard depends on its name alone); merge the shards with mcptest report merge")
	pricesFile := fs.String("prices", "", "price the runs that recorded tokens but no cost with the LiteLLM-format price table `FILE` (model_prices_and_context_window.json) instead of the embedded copy")
	pos, err := parse(fs, args)
	if err != nil {
		return a, err
	}
	if *pricesFile != "" {
		if a.opts.Prices, err = prices.Open(*pricesFile); err != nil {
			return a, err
		}
	}
	for _, e := range escaped {
		name, err := annotate.UnescapeName(e)
		if err != nil {
			return a, inputErr("--filter-escaped: %v", err)
		}
		a.opts.Filter = append(a.opts.Filter, name)
	}
	if *shardFlag != "" {
		if a.opts.Shard, err = report.ParseShard(*shardFlag); err != nil {
			return a, inputErr("--shard: %v", err)
		}
	}
	if len(pos) > 1 {
		return a, inputErr("run takes one suite file, got %d arguments: %q", len(pos), pos)
	} else if len(pos) == 1 {
		a.config = pos[0]
	}
	if a.useCache && a.noCache {
		return a, inputErr("--cache and --no-cache contradict each other: give one of them")
	}
	if a.opts.CacheMinBytes, err = engine.CacheMinFromEnv(c.Getenv(cacheMinEnv)); err != nil {
		return a, err
	}
	a.format, a.output, a.agentBudget, a.quiet = format.Value, a.outputs.File, *agentBudget, *quiet
	if a.output == "-" {
		a.output = ""
	}
	if *agentBudget < 0 {
		return a, inputErr("--agent-budget: %d is negative", *agentBudget)
	}
	if err := a.outputs.Check(); err != nil {
		return a, err
	}
	color := a.output == "" && c.color(colorMode, c.Stdout) // a file is never coloured
	if a.rep, err = annotate.New(a.format, annotate.Options{Color: color, AgentBudget: *agentBudget, Recorded: engine.RecordedEvidence}); err != nil {
		return a, inputErr("--format: %v", err)
	}
	return a, nil
}

// run is `mcptest run`: it runs the suite, keeps its envelope in the
// workspace store, writes the report to the output and returns the run's
// outcome.
func (c *Command) run(_ context.Context, args []string) error {
	a, err := c.runFlags(args)
	if err != nil {
		return err
	}
	config, err := c.suiteFile(a.config)
	if err != nil {
		return err
	}
	// git reads the suite's tree beside the load, and is never left running
	start, source, store := time.Now(), c.source(filepath.Dir(config)), c.storeAhead() // and the store bounded
	defer source()
	defer store.Settle()
	spool := "" // the cases are spooled to disk when every report is json or text
	if a.outputs.AllJSON("json") && (a.format == "json" || annotate.Canonical(a.format) == "text") {
		spool = a.format
	}
	out := annotate.NewRunOutput(spool, a.rep)
	defer out.Close()
	opts := a.opts
	opts.Version, opts.Emit, opts.Prepare = version, out.Emit(), out.Prepare()
	policy := engine.CachePolicy{Force: a.useCache, Off: a.noCache, CI: c.onCI(), Build: buildID,
		Dir: func() (string, error) { return c.storeDir("cache") }}
	suite, err := engine.LoadSuiteAhead(config, opts, policy.Wanted()) // the cases computed as the suite loads
	if err != nil {
		return err
	}
	defer suite.Release()
	for _, srv := range suite.Servers {
		t, _ := suite.Target(srv.Name)
		c.knowTarget(t)
	}
	suite.SetTimeout(time.Duration(a.timeout))
	progress, err := c.progress(a.quiet, a.output == "" && a.format != "text") // its clock starts once the suite loaded
	if err != nil {
		return err
	}
	opts.Progress = progress.Update
	if opts.Cache, opts.Build, err = policy.Open(); err != nil { // a cache that is wanted but cannot be had costs a warning
		fmt.Fprintf(c.Stderr, "mcptest: warning: the cache is off: %v\n", err)
	}
	opts.Warn = func(msg string) { fmt.Fprintf(c.Stderr, "mcptest: warning: %s\n", msg) }
	source() // git has read the tree before the run writes into it (its cache)
	env, err := engine.Run(suite, opts)
	progress.Clear()
	if err != nil {
		return err
	}
	stamp.Run(env, start)
	env.Source, env.Environment = source(), stamp.Environment(c.Getenv)
	write, err := out.Render(env)
	defer c.storeRun(store, env.Run.ID, func(w io.Writer) error { return out.JSON(w, env) })() // beside the report's write
	if err != nil {
		return err
	}
	output := a.output
	if output == "" && a.format == "html" && stdoutTerminal(c.Stdout) {
		// An HTML page is no use on a terminal: it goes to the store.
		dir, err := c.storeDir("reports")
		if err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		output = filepath.Join(dir, env.Run.ID+".html")
	}
	if output == "" {
		err = write(c.Stdout)
	} else if err = c.writeFile(output, write); err == nil {
		fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; report written to %s\n",
			env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, output)
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := a.outputs.WriteExtra(env, annotate.Options{AgentBudget: a.agentBudget, Recorded: engine.RecordedEvidence}, out.JSON, c.writeFile, c.Stderr); err != nil {
		return err
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}

// cacheMinEnv overrides engine.CacheMinBytes (engine.CacheMinFromEnv).
const cacheMinEnv = engine.CacheMinEnv

// source returns what waits for where the run's suite, in dir, came from
// (stamp.SourceAhead: git, off CI, runs from now on, beside the run).
func (c *Command) source(dir string) func() *report.Source {
	return stamp.SourceAhead(c.Getenv, c.noGit, dir)
}

// onCI reports whether CI or GITHUB_ACTIONS is set to true (stamp.OnCI).
func (c *Command) onCI() bool { return stamp.OnCI(c.Getenv) }

// color reports whether output to w is coloured with --color mode
// (cli.UseColor).
func (c *Command) color(mode *cli.ColorMode, w io.Writer) bool {
	return cli.UseColor(*mode, c.Getenv, w)
}

// addColor adds --color to fs: the commands whose report on stdout may be
// coloured (run, report, scenario run) take it.
func addColor(fs *flag.FlagSet) *cli.ColorMode {
	m := cli.ColorAuto
	fs.Var(&m, "color", "colour the report on stdout `WHEN`: auto (on a terminal or a GitHub Actions log, unless NO_COLOR is set), always or never, which beat NO_COLOR; CLICOLOR_FORCE=1 turns it on with auto; a file is never coloured")
	return &m
}

// progressEnv sets the interval of the progress lines in a CI log.
const progressEnv = cli.ProgressEnv

// runProgress is a run's progress on stderr (cli.RunProgress), fed by the
// engine (engine.Progress.Status).
type runProgress struct{ *cli.Progress }

func (c *Command) progress(quiet, machineStdout bool) (runProgress, error) {
	p, err := cli.RunProgress(c.Stderr, c.Getenv, quiet, machineStdout, c.onCI())
	if err != nil {
		return runProgress{}, &diag.InputError{Err: err}
	}
	return runProgress{p}, nil
}

// Update shows the engine's progress.
func (r runProgress) Update(p engine.Progress) { r.Progress.Update(p.Status()) }

// addQuiet adds --quiet to fs: the commands that show a run's progress
// take it.
func addQuiet(fs *flag.FlagSet) *bool {
	return fs.Bool("quiet", false, "show no progress on stderr while the run goes (the live line on a terminal, the periodic lines on CI)")
}
