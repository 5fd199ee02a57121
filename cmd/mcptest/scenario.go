package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/stamp"
)

// scenario runs `mcptest scenario run`: the scenarios of a suite only,
// replayed against their worlds.
func (c *Command) scenario(_ context.Context, args []string) error {
	const synopsis = "mcptest scenario run [suite.yml] [--cassette-dir DIR] [--name NAME]... [--format text|json|junit|sarif|html|agent] [--color auto|always|never] [--quiet]"
	if len(args) > 0 && cli.IsHelp(args[0]) {
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
	formatFlag := annotate.AddFormat(fs, annotate.Names...)
	formatFlag.JSONAlias(fs)
	colorMode := addColor(fs)
	quiet := addQuiet(fs)
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
	format := formatFlag.Value
	start := time.Now()
	progress, err := c.progress(*quiet, format != "text")
	if err != nil {
		return err
	}
	env, err := engine.RunScenarios(pos[0], names, engine.Options{CassetteDir: *cassetteDir, Version: version, Progress: progress.Update})
	progress.Clear()
	if err != nil {
		return err
	}
	stamp.Run(env, start)
	env.Source, env.Environment = c.source(filepath.Dir(pos[0]))(), stamp.Environment(c.Getenv)

	rep, err := annotate.New(format, annotate.Options{Color: c.color(colorMode, c.Stdout)})
	if err := c.render(rep, err, env, "", "report"); err != nil {
		return err
	}
	if env.Verdict == report.Fail {
		return errFailed
	}
	return nil
}
