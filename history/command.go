package history

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
)

// Command is `mcptest history` once its flags are parsed: the envelopes
// of Args (files and directories; with none, the workspace store's runs
// directory Store names), folded and rendered in Format to Stdout, or to
// Output by WriteFile (which writes by rename).
type Command struct {
	Args           []string
	Format, Output string
	Last, Flaky    int
	SlideThreshold float64
	Store          func() (string, error)
	Stdout         io.Writer
	WriteFile      func(path string, fill func(io.Writer) error) error
	// GitHub (--github) adds to the window the baselines of the newest
	// Last (default 10) default-branch runs of Repo (default
	// GITHUB_REPOSITORY) through the GitHub API, with the Action's
	// baseline checks (baseline.GitHubHistoryDir), reading the token and
	// the API URL from Getenv; the runs passed over are said on Stderr.
	GitHub    bool
	Repo      string
	Context   context.Context
	Getenv    func(string) string
	Stderr    io.Writer
	UserAgent string
}

// gitHub fetches the --github baselines into a temporary directory; done
// removes it.
func (c Command) gitHub() (dir string, done func(), err error) {
	return baseline.GitHubHistoryDir(c.Context, c.Getenv, baseline.HistorySource{Repo: c.Repo, N: cmp.Or(c.Last, 10), UserAgent: c.UserAgent},
		func(s string) { fmt.Fprintf(c.Stderr, "mcptest: history: skipped %s\n", annotate.Clean(s)) })
}

// Run folds and renders the history; wrong input is a *diag.InputError.
func (c Command) Run() error {
	if c.Last < 0 || c.Flaky < 1 || c.SlideThreshold < 0 {
		return diag.Input("--last and --slide-threshold take a number of 0 or more, --flaky 1 or more")
	}
	args := c.Args
	if c.GitHub {
		dir, done, err := c.gitHub()
		if err != nil {
			return err
		}
		defer done()
		args = append(args, dir)
	}
	if len(args) == 0 {
		dir, err := c.Store()
		if err != nil {
			return err
		}
		if names, _ := Expand([]string{dir}); len(names) == 0 {
			return diag.Input("no stored run in %s: run `mcptest run` first, or give RUN.json files or a directory of them", dir)
		}
		args = []string{dir}
	}
	paths, err := Expand(args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return diag.Input("no run envelope in %v: give RUN.json files or a directory of them (mcptest run --reporter json writes one)", args)
	}
	opt := FileOptions{Options: Options{FlakyFlips: c.Flaky, SlideThreshold: c.SlideThreshold}, Last: c.Last}
	if c.Format == "html" {
		opt.LinkDir = "."
		if c.Output != "" && c.Output != "-" {
			opt.LinkDir = filepath.Dir(c.Output)
		}
	}
	h, err := BuildFiles(paths, opt)
	if err != nil {
		return err
	}
	if c.Output == "" || c.Output == "-" {
		err = Render(c.Stdout, c.Format, h)
	} else {
		err = c.WriteFile(c.Output, func(w io.Writer) error { return Render(w, c.Format, h) })
	}
	if err != nil {
		return fmt.Errorf("write the history: %w", err)
	}
	return nil
}
