package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/safefile"
)

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
	if *output == "-" {
		*output = ""
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
	if *compare != "" {
		return c.compare(env, *compare, *format, *failOn, *output)
	}
	out := c.Stdout
	if *output != "" {
		out = nil
	}
	if *agentBudget < 0 {
		return inputErr("--agent-budget: %d is negative", *agentBudget)
	}
	rep, err := annotate.New(*format, annotate.Options{Color: out != nil && c.color(out), AgentBudget: *agentBudget})
	if err != nil {
		return inputErr("--format: %v", err)
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	if *output != "" {
		if err := safefile.WriteOutput(*output, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	_, err = c.Stdout.Write(buf.Bytes())
	return err
}
