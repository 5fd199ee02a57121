package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/prices"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/engine/stamp"
)

func (c *Command) run(_ context.Context, args []string) error {
	a, err := c.runFlags(args)
	if err != nil {
		return err
	}
	return c.runSuite(a)
}

// runArgs are mcptest run's flags, checked.
type runArgs struct {
	config, reporter, output, cassetteDir string
	filters                               []string
	shard                                 report.Shard
	useCache, noCache                     bool
	rep                                   annotate.Reporter
	prices                                *prices.Table
	timeout                               timeoutFlag
}

// runFlags reads and checks mcptest run's flags and arguments.
func (c *Command) runFlags(args []string) (runArgs, error) {
	fs := c.newFlags("run", "mcptest run [--config suite.yml | suite.yml] [--reporter pretty|json|junit|sarif|html|agent] [--agent-budget TOKENS] [--output FILE] [--filter NAME]... [--filter-escaped NAME]... [--cassette-dir DIR] [--shard i/n] [--cache | --no-cache] [--prices FILE] [--timeout D]")
	config := fs.String("config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	reporter := fs.String("reporter", "pretty", "how to report: pretty, json, junit (JUnit XML), sarif (SARIF 2.1.0), html (the auditor view; use --output) or agent (the model-facing digest)")
	agentBudget := fs.Int("agent-budget", annotate.DefaultAgentBudget, "with --reporter agent, cap the result at `TOKENS` cl100k_base tokens")
	output := fs.String("output", "", "write the report to `FILE` instead of stdout (- is stdout; --reporter html on a terminal goes to .mcptest/reports/)")
	var filters stringList
	fs.Var(&filters, "filter", "run only the case `NAME` (exact, or else a case-insensitive substring); repeatable")
	var escaped stringList
	fs.Var(&escaped, "filter-escaped", "like --filter, with the `NAME` written with Go escapes (\\n, \\x1b, \\u202e): the agent reporter's repro: lines use it for names with control characters; repeatable")
	cassetteDir := fs.String("cassette-dir", "", "the `DIR` where a test without a cassette: key is looked up by name (default: cassettes/ beside the suite)")
	useCache := fs.Bool("cache", false, "serve unchanged replayed cases from the workspace cache (.mcptest/cache/) on CI too, where it is off by default (CI or GITHUB_ACTIONS is true)")
	noCache := fs.Bool("no-cache", false, "recompute every case instead of serving unchanged ones from the workspace cache (.mcptest/cache/)")
	var timeout timeoutFlag
	fs.Var(&timeout, "timeout", "how long every live server may take to start, answer initialize and answer each request, a `duration` such as 90s or 2m, over each server's timeout: (default: its timeout:, else 30s)")
	shardFlag := fs.String("shard", "", "run only shard `i/n` of the cases (1-based; a case's shard depends on its name alone); merge the shards with mcptest report merge")
	pricesFile := fs.String("prices", "", "price the runs that recorded tokens but no cost with the LiteLLM-format price table `FILE` (model_prices_and_context_window.json) instead of the embedded copy")
	pos, err := parse(fs, args)
	if err != nil {
		return runArgs{}, err
	}
	var table *prices.Table
	if *pricesFile != "" {
		if table, err = loadPrices(*pricesFile); err != nil {
			return runArgs{}, err
		}
	}
	for _, e := range escaped {
		name, err := annotate.UnescapeName(e)
		if err != nil {
			return runArgs{}, inputErr("--filter-escaped: %v", err)
		}
		filters = append(filters, name)
	}
	var shard report.Shard
	if *shardFlag != "" {
		if shard, err = report.ParseShard(*shardFlag); err != nil {
			return runArgs{}, inputErr("--shard: %v", err)
		}
	}
	switch len(pos) {
	case 0:
	case 1:
		*config = pos[0]
	default:
		return runArgs{}, inputErr("run takes one suite file, got %d arguments: %q", len(pos), pos)
	}
	if *useCache && *noCache {
		return runArgs{}, inputErr("--cache and --no-cache contradict each other: give one of them")
	}
	if *output == "-" {
		*output = ""
	}
	out := c.Stdout
	if *output != "" {
		out = io.Discard
	}
	if *agentBudget < 0 {
		return runArgs{}, inputErr("--agent-budget: %d is negative", *agentBudget)
	}
	rep, err := annotate.New(*reporter, annotate.Options{Color: c.color(out), AgentBudget: *agentBudget})
	if err != nil {
		return runArgs{}, inputErr("--reporter: %v", err)
	}
	return runArgs{config: *config, reporter: *reporter, output: *output, cassetteDir: *cassetteDir, filters: filters,
		shard: shard, useCache: *useCache, noCache: *noCache, rep: rep, prices: table, timeout: timeout}, nil
}

// runSuite runs the suite and reports it.
func (c *Command) runSuite(a runArgs) error {
	config, err := c.suiteFile(a.config)
	if err != nil {
		return err
	}
	start := time.Now()
	if a.prices == nil {
		// The embedded price table takes milliseconds to decode and the
		// suite's loading uses one core: decode it on another meanwhile,
		// for the run's first recording with tokens and no cost.
		go prices.Embedded()
	}
	suite, err := engine.LoadSuite(config)
	if err != nil {
		return err
	}
	a.timeout.override(suite)
	progress := c.progress()
	opts := engine.Options{Filter: a.filters, CassetteDir: a.cassetteDir, Version: version, Progress: progress.update, Shard: a.shard}
	opts.Cache, opts.Build = c.caseCache(a.useCache, a.noCache)
	opts.Prices = a.prices
	opts.Warn = func(msg string) { fmt.Fprintf(c.Stderr, "mcptest: warning: %s\n", msg) }
	// The JSON envelope is written to the store and, with --reporter json,
	// to the output. Then its cases are encoded once, into a spool, as
	// they are computed, so memory stays flat in the number of cases;
	// without a spool (no temporary directory, or another reporter, which
	// renders from the whole envelope) they are kept and encoded case by
	// case as they are written.
	var spool *annotate.CaseSpool
	if a.reporter == "json" {
		if spool, err = annotate.NewCaseSpool(); err == nil {
			defer spool.Close()
			opts.Emit, opts.Prepare = spool.Add, spool.Prepare
		}
	}
	env, err := engine.Run(suite, opts)
	progress.clear()
	if err != nil {
		return err
	}
	stamp.Run(env, start)
	env.Source = stamp.Source(c.Getenv)
	env.Environment = stamp.Environment(c.Getenv)

	writeJSON := func(w io.Writer) error { return (annotate.JSON{}).Report(w, env) }
	if opts.Emit != nil {
		writeJSON = func(w io.Writer) error { return spool.WriteEnvelope(w, env) }
	}
	c.storeRun(env.Run.ID, writeJSON)
	if opts.Emit != nil {
		return c.writeJSONReport(env, a.output, writeJSON)
	}
	return c.writeRunReport(a, env)
}

// writeRunReport renders the envelope with the chosen reporter to the
// output (an HTML page asked for on a terminal goes to the store), and
// returns the run's outcome.
func (c *Command) writeRunReport(a runArgs, env *report.Envelope) error {
	output := a.output
	var buf bytes.Buffer
	if err := a.rep.Report(&buf, env); err != nil {
		return err
	}
	if output == "" && a.reporter == "html" && stdoutTerminal(c.Stdout) {
		// An HTML page is no use on a terminal: it goes to the store.
		dir, err := c.storeDir("reports")
		if err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		output = filepath.Join(dir, env.Run.ID+".html")
	}
	if output != "" {
		if err := safefile.WriteOutput(output, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; report written to %s\n",
			env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, output)
	} else if _, err := c.Stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}

// writeJSONReport writes the json reporter's envelope, produced by write,
// to output (stdout when ""), and returns the run's outcome.
func (c *Command) writeJSONReport(env *report.Envelope, output string, write func(io.Writer) error) error {
	if output == "" {
		if err := write(c.Stdout); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	} else {
		if err := safefile.WriteOutputFunc(output, 0o644, write); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; report written to %s\n",
			env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, output)
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}

// caseCache returns the workspace cache run serves unchanged cases from,
// or nil when it is off: with --no-cache, and on CI (CI or GITHUB_ACTIONS
// is true) unless --cache asks for it, since the checkout a CI job gates
// may carry a .mcptest/cache/ of its own. A store directory that is a
// symbolic link turns the cache off with a warning.
func (c *Command) caseCache(force, off bool) (engine.CaseCache, string) {
	if off || (!force && c.onCI()) {
		return nil, ""
	}
	build := buildID()
	if build == "" {
		fmt.Fprintf(c.Stderr, "mcptest: warning: the cache is off: this build cannot identify itself (its executable is unreadable)\n")
		return nil, ""
	}
	dir, err := c.storeDir("cache")
	if err != nil {
		fmt.Fprintf(c.Stderr, "mcptest: warning: the cache is off: %v\n", err)
		return nil, ""
	}
	return engine.DirCache{Dir: dir}, build
}

// onCI reports whether CI or GITHUB_ACTIONS is set to true (any value
// strconv.ParseBool reads as true: true, 1, TRUE, ...).
func (c *Command) onCI() bool {
	for _, k := range []string{"CI", "GITHUB_ACTIONS"} {
		if on, err := strconv.ParseBool(c.Getenv(k)); err == nil && on {
			return true
		}
	}
	return false
}

// color reports whether output to w may be coloured: only on a TTY, and
// never when NO_COLOR is set.
func (c *Command) color(w io.Writer) bool {
	return c.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// progressLine rewrites one line on a terminal's stderr as cassettes are
// read, at most every 100 ms. It stays silent when stderr is not a
// terminal, so logs and --reporter json stay clean.
type progressLine struct {
	w     io.Writer
	last  time.Time
	shown bool
}

func (c *Command) progress() *progressLine {
	if !isTerminal(c.Stderr) {
		return &progressLine{}
	}
	return &progressLine{w: c.Stderr, last: time.Now()}
}

func (p *progressLine) update(done, total int) {
	if p.w == nil || (time.Since(p.last) < 100*time.Millisecond && done != total) {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\rmcptest: %d/%d cassettes read", done, total)
}

func (p *progressLine) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// loadPrices reads a --prices table: a malformed one is a positioned input
// error, an unreadable one an input error naming the flag.
func loadPrices(path string) (*prices.Table, error) {
	t, err := prices.Load(path)
	var d *diag.Error
	if err != nil && !errors.As(err, &d) {
		return nil, inputErr("--prices: %v", err)
	}
	return t, err
}
