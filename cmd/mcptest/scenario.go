package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
)

// scenario runs `mcptest scenario run`: the scenarios of a suite only,
// replayed against their worlds.
func (c *Command) scenario(args []string) error {
	const synopsis = "mcptest scenario run [suite.yml] [--cassette-dir DIR] [--name NAME]... [--json]"
	if len(args) > 0 && isHelp(args[0]) {
		args = []string{"run", "--help"}
	}
	if len(args) == 0 || args[0] != "run" {
		got := "nothing"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", args[0])
		}
		return inputErr("scenario expects the subcommand `run`, got %s\nusage: %s", got, synopsis)
	}
	fs := c.newFlags("scenario run", synopsis)
	var names stringList
	fs.Var(&names, "name", "run only the scenario named exactly `NAME`; repeatable")
	cassetteDir := fs.String("cassette-dir", "", "the `DIR` where a scenario without a cassette: key is looked up by name (default: cassettes/ beside the suite)")
	asJSON := fs.Bool("json", false, "write the run envelope as JSON instead of the pretty report")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return inputErr("scenario run takes one suite file, got %d arguments\nusage: %s", len(pos), synopsis)
	}
	if len(pos) == 0 {
		f, err := c.suiteFile("")
		if err != nil {
			return err
		}
		pos = []string{f}
	}
	format := "pretty"
	if *asJSON {
		format = "json"
	}
	rep, err := annotate.New(format, annotate.Options{Color: c.color(c.Stdout)})
	if err != nil {
		return err
	}

	start := time.Now()
	suite, err := engine.LoadSuite(pos[0])
	if err != nil {
		return err
	}
	scenarios, err := selectScenarios(suite, names)
	if err != nil {
		return err
	}
	only := *suite
	only.Cases = scenarios
	progress := c.progress()
	env, err := engine.Run(&only, engine.Options{CassetteDir: *cassetteDir, Version: version, Progress: progress.update})
	progress.clear()
	if err != nil {
		return err
	}
	env.Run.ID = newRunID(start)
	env.Run.StartedAt = start.UTC().Format(time.RFC3339)
	env.Run.DurationMS = time.Since(start).Milliseconds()
	env.Source = c.source()
	env.Environment = c.environment()

	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	if _, err := c.Stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}

// selectScenarios keeps the suite's scenarios, or those named exactly by
// --name. A name that is no scenario is an input error with a did-you-mean.
func selectScenarios(s *engine.Suite, names []string) ([]*engine.Case, error) {
	var all []*engine.Case
	var known []string
	for _, c := range s.Cases {
		if c.Kind == report.KindScenario {
			all = append(all, c)
			known = append(known, c.Name)
		}
	}
	if len(all) == 0 {
		return nil, diag.List{{Pos: diag.Pos{File: s.Path}, Kind: "suite", Message: "the suite declares no `scenarios:`, so there is nothing to replay"}}
	}
	if len(names) == 0 {
		return all, nil
	}
	keep := map[string]bool{}
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n {
				found = true
			}
		}
		if !found {
			e := &diag.Error{Pos: diag.Pos{File: "--name"}, Kind: "flag", Message: fmt.Sprintf("no scenario is named %q", n)}
			if sug := diag.Suggest(n, known); sug != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sug)
			}
			return nil, diag.List{e}
		}
		keep[n] = true
	}
	var out []*engine.Case
	for _, c := range all {
		if keep[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}
