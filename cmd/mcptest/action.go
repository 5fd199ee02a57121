package main

import (
	"context"

	"github.com/mcptest/mcptest/action"
)

// action is `mcptest action`: the GitHub Action's entrypoint (package
// action). It reads its inputs and the runner's context from the
// environment.
func (c *Command) action(ctx context.Context, args []string) error {
	fs := c.newFlags("action", "mcptest action [--api-timeout SECONDS]   (the GitHub Action's entrypoint: inputs come from INPUT_* variables, see action.yml)")
	apiTimeout := fs.String("api-timeout", "", "seconds each use of the GitHub API may take (overrides INPUT_API-TIMEOUT; default 120)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return inputErr("action takes no arguments: its inputs are the INPUT_* variables the runner sets (see action.yml)")
	}
	env := action.Env{Getenv: c.Getenv, Stdout: c.Stdout, Stderr: c.Stderr, Commands: c.workflow(), Version: version}
	return action.Run(ctx, env, action.Options{APITimeout: *apiTimeout})
}
