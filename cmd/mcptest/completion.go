package main

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine/schema"
)

// completionShells are the shells `mcptest completion` writes for.
var completionShells = cli.Shells

// completionWords are the words that follow a command before its flags:
// its kinds (generate suite), its subcommand (scenario run) or its shells.
var completionWords = map[string][]string{
	"generate":   {"suite", "conformance", "redteam", "eval", "agent-suite"},
	"scenario":   {"run"},
	"tool-bench": {"run"},
	"report":     {"merge"},
	"completion": completionShells,
	"schema":     schema.Names,
}

// completionTable is the command table with the flags each command's
// --help lists, so the completions cannot drift from the help.
func (c *Command) completionTable() []cli.Completion {
	var out []cli.Completion
	for _, sc := range c.subcommands() {
		cc := cli.Completion{Name: sc.name, Summary: sc.summary, Words: completionWords[sc.name]}
		if sc.name == "help" {
			cc.Words = c.commandNames()
		} else {
			var help bytes.Buffer
			sub := &Command{Stdin: strings.NewReader(""), Stdout: &help, Stderr: io.Discard, Getenv: c.Getenv}
			_ = sc.run(sub, context.Background(), []string{"--help"})
			cc.Flags = cli.HelpFlags(help.String())
		}
		out = append(out, cc)
	}
	return out
}

// completion is `mcptest completion bash|zsh|fish|powershell`: a script
// that completes mcptest's commands, their kinds and their flags.
func (c *Command) completion(_ context.Context, args []string) error {
	fs := c.newFlags("completion", "mcptest completion bash|zsh|fish|powershell\n"+
		"  bash:       source <(mcptest completion bash)        (or write it to /etc/bash_completion.d/mcptest)\n"+
		"  zsh:        mcptest completion zsh > \"${fpath[1]}/_mcptest\"\n"+
		"  fish:       mcptest completion fish > ~/.config/fish/completions/mcptest.fish\n"+
		"  powershell: mcptest completion powershell | Out-String | Invoke-Expression   (add it to $PROFILE)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return inputErr("completion takes one shell: %s", strings.Join(completionShells, ", "))
	}
	if err := cli.WriteCompletion(c.Stdout, pos[0], "mcptest", c.completionTable()); err != nil {
		return inputErr("completion %q: expected one of %s%s", pos[0], strings.Join(completionShells, ", "), didYouMean(pos[0], completionShells))
	}
	return nil
}
