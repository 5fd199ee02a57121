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

// runRequest is what `mcptest run`'s flags ask for.
type runRequest struct {
	config, reporter, output, cassetteDir string
	agentBudget                           int
	filters                               stringList
	useCache, noCache                     bool
	shard                                 report.Shard
	prices                                *prices.Table
}

func (c *Command) run(_ context.Context, args []string) error {
	req, err := c.runFlags(args)
	if err != nil {
		return err
	}
	out := c.Stdout
	if req.output != "" {
		out = io.Discard
	}
	rep, err := annotate.New(req.reporter, annotate.Options{Color: c.color(out), AgentBudget: req.agentBudget})
	if err != nil {
		return inputErr("--reporter: %v", err)
	}
	if req.config, err = c.suiteFile(req.config); err != nil {
		return err
	}
	env, err := c.runSuite(req)
	if err != nil {
		return err
	}
	c.storeRun(env)
	if err := c.writeRunReport(rep, req, env); err != nil {
		return err
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}

// runFlags reads and checks `mcptest run`'s flags.
func (c *Command) runFlags(args []string) (runRequest, error) {
	var req runRequest
	fs := c.newFlags("run", "mcptest run [--config suite.yml | suite.yml] [--reporter pretty|json|junit|sarif|html|agent] [--agent-budget TOKENS] [--output FILE] [--filter NAME]... [--filter-escaped NAME]... [--cassette-dir DIR] [--shard i/n] [--cache | --no-cache] [--prices FILE]")
	fs.StringVar(&req.config, "config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	fs.StringVar(&req.reporter, "reporter", "pretty", "how to report: pretty, json, junit (JUnit XML), sarif (SARIF 2.1.0), html (the auditor view; use --output) or agent (the model-facing digest)")
	fs.IntVar(&req.agentBudget, "agent-budget", annotate.DefaultAgentBudget, "with --reporter agent, cap the result at `TOKENS` cl100k_base tokens")
	fs.StringVar(&req.output, "output", "", "write the report to `FILE` instead of stdout (- is stdout; --reporter html on a terminal goes to .mcptest/reports/)")
	fs.Var(&req.filters, "filter", "run only the case `NAME` (exact, or else a case-insensitive substring); repeatable")
	var escaped stringList
	fs.Var(&escaped, "filter-escaped", "like --filter, with the `NAME` written with Go escapes (\\n, \\x1b, \\u202e): the agent reporter's repro: lines use it for names with control characters; repeatable")
	fs.StringVar(&req.cassetteDir, "cassette-dir", "", "the `DIR` where a test without a cassette: key is looked up by name (default: cassettes/ beside the suite)")
	fs.BoolVar(&req.useCache, "cache", false, "serve unchanged replayed cases from the workspace cache (.mcptest/cache/) on CI too, where it is off by default (CI or GITHUB_ACTIONS is true)")
	fs.BoolVar(&req.noCache, "no-cache", false, "recompute every case instead of serving unchanged ones from the workspace cache (.mcptest/cache/)")
	shardFlag := fs.String("shard", "", "run only shard `i/n` of the cases (1-based; a case's shard depends on its name alone); merge the shards with mcptest report merge")
	pricesFile := fs.String("prices", "", "price the runs that recorded tokens but no cost with the LiteLLM-format price table `FILE` (model_prices_and_context_window.json) instead of the embedded copy")
	pos, err := parse(fs, args)
	if err != nil {
		return req, err
	}
	if *pricesFile != "" {
		if req.prices, err = loadPrices(*pricesFile); err != nil {
			return req, err
		}
	}
	for _, e := range escaped {
		name, err := annotate.UnescapeName(e)
		if err != nil {
			return req, inputErr("--filter-escaped: %v", err)
		}
		req.filters = append(req.filters, name)
	}
	if *shardFlag != "" {
		if req.shard, err = report.ParseShard(*shardFlag); err != nil {
			return req, inputErr("--shard: %v", err)
		}
	}
	return req, req.check(pos)
}

// check checks the flags against each other and takes the positional
// suite file.
func (req *runRequest) check(pos []string) error {
	switch len(pos) {
	case 0:
	case 1:
		req.config = pos[0]
	default:
		return inputErr("run takes one suite file, got %d arguments: %q", len(pos), pos)
	}
	if req.useCache && req.noCache {
		return inputErr("--cache and --no-cache contradict each other: give one of them")
	}
	if req.output == "-" {
		req.output = ""
	}
	if req.agentBudget < 0 {
		return inputErr("--agent-budget: %d is negative", req.agentBudget)
	}
	return nil
}

// runSuite loads and runs the suite, and stamps the envelope's run.
func (c *Command) runSuite(req runRequest) (*report.Envelope, error) {
	start := time.Now()
	suite, err := engine.LoadSuite(req.config)
	if err != nil {
		return nil, err
	}
	progress := c.progress()
	opts := engine.Options{Filter: req.filters, CassetteDir: req.cassetteDir, Version: version, Progress: progress.update, Shard: req.shard}
	opts.Cache = c.caseCache(req.useCache, req.noCache)
	opts.Prices = req.prices
	opts.Warn = func(msg string) { fmt.Fprintf(c.Stderr, "mcptest: warning: %s\n", msg) }
	env, err := engine.Run(suite, opts)
	progress.clear()
	if err != nil {
		return nil, err
	}
	stamp.Run(env, start)
	env.Source = stamp.Source(c.Getenv)
	env.Environment = stamp.Environment(c.Getenv)
	return env, nil
}

// writeRunReport writes the report to --output, to the store (an HTML
// report asked for on a terminal) or to stdout.
func (c *Command) writeRunReport(rep annotate.Reporter, req runRequest, env *report.Envelope) error {
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	output := req.output
	if output == "" && req.reporter == "html" && stdoutTerminal(c.Stdout) {
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
	if output == "" {
		if _, err := c.Stdout.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	if err := safefile.WriteOutput(output, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; report written to %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, output)
	return nil
}

// caseCache returns the workspace cache run serves unchanged cases from,
// or nil when it is off: with --no-cache, and on CI (CI or GITHUB_ACTIONS
// is true) unless --cache asks for it, since the checkout a CI job gates
// may carry a .mcptest/cache/ of its own. A store directory that is a
// symbolic link turns the cache off with a warning.
func (c *Command) caseCache(force, off bool) engine.CaseCache {
	if off || (!force && c.onCI()) {
		return nil
	}
	dir, err := c.storeDir("cache")
	if err != nil {
		fmt.Fprintf(c.Stderr, "mcptest: warning: the cache is off: %v\n", err)
		return nil
	}
	return engine.DirCache{Dir: dir}
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
