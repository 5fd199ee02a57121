package main

import (
	"context"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/history"
)

// historyCommand is `mcptest history [FILE|DIR]...`; package history
// folds the envelopes one at a time and renders the history.
func (c *Command) historyCommand(ctx context.Context, args []string) error {
	fs := c.newFlags("history", "mcptest history [RUN.json | DIR]... [--format text|json|markdown|html] [--output FILE] [--last N] [--flaky FLIPS] [--slide-threshold POINTS] [--github [--repo OWNER/NAME]]\n  With no argument, history reads the runs stored in the workspace (.mcptest/runs/). The window is ordered by run.started_at, then run.id.")
	format := annotate.AddFormat(fs, history.Formats...)
	output := fs.String("output", "", "write the history to `FILE` (by rename) instead of stdout")
	last := fs.Int("last", 0, "keep the newest `N` runs of the window (0: all, up to 1000)")
	flaky := fs.Int("flaky", 2, "a case that flipped `FLIPS` times or more flips often")
	slide := fs.Float64("slide-threshold", 0, "list a floor as slid when it slid by at least `POINTS` (a sustained fall: docs/history.md, the slide rule; 0: any slide)")
	gh, repo := fs.Bool("github", false, "also read the baseline envelopes of the newest --last (default 10) default-branch runs of mcptest-baseline.yml through the GitHub API, with the Action's baseline checks (GITHUB_TOKEN or GH_TOKEN, GITHUB_API_URL)"), fs.String("repo", "", "with --github: the repository `OWNER/NAME` (default GITHUB_REPOSITORY)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	return history.Command{Args: pos, Format: format.Value, Output: *output, Last: *last, Flaky: *flaky, SlideThreshold: *slide,
		Store: func() (string, error) { return c.storeDir("runs") }, Stdout: c.Stdout, WriteFile: c.writeFile,
		GitHub: *gh, Repo: *repo, Context: ctx, Getenv: c.Getenv, Stderr: c.Stderr, UserAgent: "mcptest/" + version}.Run()
}
