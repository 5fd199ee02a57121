package main

import (
	"bytes"
	"flag"
	"fmt"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/engine/stamp"
)

// compare renders `mcptest report RUN.json --compare BASELINE.json` and
// exits 1 when the --fail-on policy fails.
func (c *Command) compare(cur *report.Envelope, basePath, format, failOn, output string) error {
	policy, err := baseline.ParsePolicy(failOn)
	if err != nil {
		return inputErr("%v", err)
	}
	f, r, err := openEnvelope(basePath, "--compare")
	if err != nil {
		return err
	}
	defer f.Close()
	base, err := baseline.ReadBaseline(r, basePath)
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	cmp := baseline.Compare(base, cur, baseline.Options{FailOn: policy})
	var buf bytes.Buffer
	color := output == "" && c.color(c.Stdout)
	if format == "html" {
		if err := (annotate.HTML{Comparison: cmp}).Report(&buf, cur); err != nil {
			return err
		}
	} else if err := annotate.RenderComparison(&buf, format, cmp, annotate.Options{Color: color}); err != nil {
		return inputErr("--format: %v", err)
	}
	if output != "" {
		if err := safefile.WriteOutput(output, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write comparison: %w", err)
		}
	} else if _, err := c.Stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	if cmp.Gate.Failed {
		return errFailed
	}
	return nil
}

// merge is `mcptest report merge SHARD.json... [--output FILE]`: it
// combines the envelopes of `mcptest run --shard i/n` into the envelope of
// the whole run.
func (c *Command) merge(args []string) error {
	fs := c.newFlags("report merge", "mcptest report merge SHARD.json... [--output FILE]")
	output := fs.String("output", "", "write the merged envelope to `FILE` instead of stdout (- is stdout)")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *output == "-" {
		*output = ""
	}
	if len(files) == 0 {
		return inputErr("report merge takes the shard envelopes to merge (the files `mcptest run --shard i/n --reporter json` wrote), got none")
	}
	var in []baseline.Input
	for _, name := range files {
		env, err := c.readRun(name)
		if err != nil {
			return err
		}
		in = append(in, baseline.Input{Name: name, Envelope: env})
	}
	env, err := baseline.Merge(in)
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	env.Run.ID = stamp.NewRunID(time.Now())
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		return err
	}
	if *output == "" {
		_, err := c.Stdout.Write(buf.Bytes())
		return err
	}
	if err := safefile.WriteOutput(*output, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write merged envelope: %w", err)
	}
	fmt.Fprintf(c.Stderr, "mcptest: %s: %d passed, %d failed, %d inconclusive; %d envelopes merged into %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, len(in), *output)
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
