package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/envstream"
	"github.com/mcptest/mcptest/report/stamp"
)

// report re-renders a saved run envelope (annotate.New) and exits 1 when
// the run failed, as `mcptest run` did; or compares it with a baseline
// (baseline.CompareFile, annotate.NewComparison) and exits 1 when the
// --fail-on policy fails.
func (c *Command) report(_ context.Context, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return c.merge(args[1:])
	}
	fs := c.newFlags("report", "mcptest report RUN.json [--format text|json|junit|sarif|html|agent] [--agent-budget TOKENS] [--output FILE] [--output FORMAT=FILE]... [--color auto|always|never]\n       mcptest report RUN.json --compare BASELINE.json [--format text|markdown|json|html] [--fail-on regressions|flips|failures|none] [--output FILE]\n       mcptest report merge SHARD.json... [--output FILE]")
	format := annotate.AddFormat(fs, append(slices.Clone(annotate.Names), "markdown")...)
	outputs := &annotate.Outputs{Formats: annotate.Names}
	fs.Var(outputs, "output", "write the --format report to `FILE` instead of stdout (- is stdout); FORMAT=FILE, repeatable, writes one more report in FORMAT to FILE (not with --compare)")
	colorMode := addColor(fs)
	agentBudget := fs.Int("agent-budget", annotate.DefaultAgentBudget, "with --format agent, cap the result at `TOKENS` cl100k_base tokens")
	compare := fs.String("compare", "", "compare the run with the `BASELINE.json` envelope: target deltas, floor flips, new, removed and not-comparable cases")
	failOn := fs.String("fail-on", string(baseline.FailOnRegressions), "with --compare, exit 1 on: regressions (a pass->fail flip or a failing case the baseline cannot vouch for), flips (pass->fail flips only), failures (any failing case) or none")
	pos, err := parse(fs, args)
	switch {
	case err != nil:
		return err
	case *compare == "" && cli.Given(fs, "fail-on"):
		return inputErr("--fail-on goes with --compare BASELINE.json")
	case len(pos) != 1:
		return inputErr("report takes one run envelope (the file `mcptest run --format json` wrote), got %d arguments", len(pos))
	case *compare != "" && len(outputs.Extra) > 0:
		return inputErr("--output FORMAT=FILE renders the run, not a comparison: give it without --compare")
	case *compare == "" && format.Value == "markdown":
		return inputErr("--format markdown renders a comparison: give it with --compare BASELINE.json")
	case *agentBudget < 0:
		return inputErr("--agent-budget: %d is negative", *agentBudget)
	}
	if err := outputs.Check(); err != nil {
		return err
	}
	output := &outputs.File
	opt := annotate.Options{Color: (*output == "" || *output == "-") && c.color(colorMode, c.Stdout), AgentBudget: *agentBudget, Recorded: engine.RecordedEvidence}
	if *compare != "" && annotate.Canonical(format.Value) != "html" {
		return c.compareStream(pos[0], *compare, *failOn, format.Value, *output, opt)
	}
	env, err := baseline.ReadFile(pos[0], "", report.Read)
	if err != nil {
		return err
	}
	if *compare != "" {
		cmp, err := baseline.CompareFile(*compare, "--compare", env, *failOn)
		if err != nil {
			return err
		}
		rep, err := annotate.NewComparison(format.Value, cmp, opt)
		if err := c.render(rep, err, env, *output, "comparison"); err != nil || !cmp.Gate.Failed {
			return err
		}
		return errFailed
	}
	rep, err := annotate.New(format.Value, opt)
	if err := c.render(rep, err, env, *output, "report"); err != nil {
		return err
	}
	if err := outputs.WriteExtra(env, annotate.Options{AgentBudget: *agentBudget, Recorded: engine.RecordedEvidence}, nil, c.writeFile, c.Stderr); err != nil {
		return err
	}
	if env.Verdict == report.Fail { // the run's own verdict, as `mcptest run` exited on it
		return errFailed
	}
	return nil
}

// merge is `mcptest report merge SHARD.json... [--output FILE]`: it
// combines the envelopes of `mcptest run --shard i/n` into the envelope of
// the whole run (baseline.MergeFiles), under a run id of its own.
func (c *Command) merge(args []string) error {
	fs := c.newFlags("report merge", "mcptest report merge SHARD.json... [--output FILE]")
	output := fs.String("output", "", "write the merged envelope to `FILE` instead of stdout (- is stdout)")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return inputErr("report merge takes the shard envelopes to merge (the files `mcptest run --shard i/n --format json` wrote), got none")
	}
	toFile := *output != "" && *output != "-"
	env, err := envstream.Merge(files, stamp.NewRunID(time.Now()), toFile && safefile.ByRename(*output),
		func(fill func(io.Writer) error) error { return c.writeOut(*output, fill) })
	if err != nil || !toFile {
		return err
	}
	fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; %d envelopes merged into %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, len(files), *output)
	return nil
}

// compareStream is `mcptest report RUN.json --compare BASELINE.json` in
// a format other than html: both envelopes read as streams
// (envstream.CompareTo); exit 1 when the --fail-on policy fails.
func (c *Command) compareStream(run, base, failOn, format, output string, opt annotate.Options) error {
	if !slices.Contains(annotate.CompareFormats, annotate.Canonical(format)) {
		_, err := annotate.NewComparison(format, nil, opt)
		return inputErr("--format: %v", err)
	}
	out := func(fill func(io.Writer) error) error { return c.writeOut(output, fill) }
	gate, err := envstream.CompareTo(out, output != "" && output != "-" && safefile.ByRename(output), format, base, "--compare", run, failOn, opt)
	if err != nil {
		return err
	}
	if gate.Failed {
		return errFailed
	}
	return nil
}

// writeOut writes with write to stdout, or by rename to the file output
// names ("-" is stdout).
func (c *Command) writeOut(output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(c.Stdout)
	}
	return c.writeFile(output, write)
}

// render renders env with rep, whose constructor failed with err (an
// unknown --format), to stdout or by rename to the file output names ("-"
// is stdout); what names the output in an error.
func (c *Command) render(rep annotate.Reporter, err error, env *report.Envelope, output, what string) error {
	if err != nil {
		return inputErr("--format: %v", err)
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	if err := c.writeOut(output, func(w io.Writer) error { _, err := buf.WriteTo(w); return err }); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}
