package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/engine/stamp"
)

// report re-renders a saved run envelope (annotate.New), or compares it
// with a baseline (--compare, baseline.CompareFile) and exits 1 when the
// --fail-on policy fails.
func (c *Command) report(_ context.Context, args []string) error {
	if len(args) > 0 && args[0] == "merge" {
		return c.merge(args[1:])
	}
	fs := c.newFlags("report", "mcptest report RUN.json [--format pretty|json|junit|sarif|html|agent] [--agent-budget TOKENS] [--output FILE]\n       mcptest report RUN.json --compare BASELINE.json [--format pretty|markdown|json|html] [--fail-on regressions|flips|failures|none] [--output FILE]\n       mcptest report merge SHARD.json... [--output FILE]")
	format := fs.String("format", "pretty", "how to render: pretty, json, junit, sarif, html or agent (with --compare: pretty, markdown, json or html)")
	output := fs.String("output", "", "write to `FILE` instead of stdout (- is stdout)")
	agentBudget := fs.Int("agent-budget", annotate.DefaultAgentBudget, "with --format agent, cap the result at `TOKENS` cl100k_base tokens")
	compare := fs.String("compare", "", "compare the run with the `BASELINE.json` envelope: target deltas, floor flips, new, removed and not-comparable cases")
	failOn := fs.String("fail-on", string(baseline.FailOnRegressions), "with --compare, exit 1 on: regressions (a pass->fail flip or a failing case the baseline cannot vouch for), flips (pass->fail flips only), failures (any failing case) or none")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *compare == "" && flagSet(fs, "fail-on") {
		return inputErr("--fail-on goes with --compare BASELINE.json")
	}
	if len(pos) != 1 {
		return inputErr("report takes one run envelope (the file `mcptest run --reporter json` wrote), got %d arguments", len(pos))
	}
	env, err := c.readRun(pos[0])
	if err != nil {
		return err
	}
	out, what := *output, "report"
	opt := annotate.Options{Color: (out == "" || out == "-") && c.color(c.Stdout), AgentBudget: *agentBudget}
	var rep annotate.Reporter
	var cmp *baseline.Comparison
	switch {
	case *compare != "":
		if cmp, err = baseline.CompareFile(*compare, "--compare", env, *failOn); err != nil {
			return inputOf(err)
		}
		what = "comparison"
		rep, err = annotate.NewComparison(*format, cmp, opt)
	case *agentBudget < 0:
		return inputErr("--agent-budget: %d is negative", *agentBudget)
	default:
		rep, err = annotate.New(*format, opt)
	}
	if err != nil {
		return inputErr("--format: %v", err)
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	if err := c.emit(out, what, buf.Bytes()); err != nil || cmp == nil || !cmp.Gate.Failed {
		return err
	}
	return errFailed
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
		return inputErr("report merge takes the shard envelopes to merge (the files `mcptest run --shard i/n --reporter json` wrote), got none")
	}
	env, err := baseline.MergeFiles(files)
	if err != nil {
		return inputOf(err)
	}
	env.Run.ID = stamp.NewRunID(time.Now())
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		return err
	}
	if err := c.emit(*output, "merged envelope", buf.Bytes()); err != nil || *output == "" || *output == "-" {
		return err
	}
	fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; %d envelopes merged into %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, len(files), *output)
	return nil
}

// emit writes data to stdout, or by rename to the file output names ("-"
// is stdout too); what names the data in an error.
func (c *Command) emit(output, what string, data []byte) error {
	var err error
	if output == "" || output == "-" {
		_, err = c.Stdout.Write(data)
	} else {
		err = safefile.WriteOutput(output, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}

// flagSet reports whether the flag called name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
