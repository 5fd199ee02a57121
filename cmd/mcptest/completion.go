package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// completionShells are the shells `mcptest completion` writes for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// completionWords are the words that follow a command before its flags:
// its kinds (generate suite), its subcommand (scenario run) or its shells.
var completionWords = map[string][]string{
	"generate":   {"suite", "conformance", "redteam", "eval", "agent-suite"},
	"scenario":   {"run"},
	"tool-bench": {"run"},
	"report":     {"merge"},
	"completion": completionShells,
}

// completionCmd is one command as a completion script offers it.
type completionCmd struct {
	name, summary string
	words, flags  []string
}

// helpFlagLine is a flag line of writeHelp's output: "  --name VALUE".
var helpFlagLine = regexp.MustCompile(`(?m)^  (--[a-z][a-z0-9-]*)`)

// completionTable builds the completion data from the command table: each
// command's name and summary, and the flags its --help lists, so the
// completions cannot drift from the help.
func (c *Command) completionTable() []completionCmd {
	var out []completionCmd
	names := c.commandNames()
	for _, sc := range c.subcommands() {
		cc := completionCmd{name: sc.name, summary: sc.summary, words: completionWords[sc.name]}
		if sc.name == "help" {
			cc.words = names
			out = append(out, cc)
			continue
		}
		var help bytes.Buffer
		sub := &Command{Stdin: strings.NewReader(""), Stdout: &help, Stderr: io.Discard, Getenv: c.Getenv}
		_ = sc.run(sub, context.Background(), []string{"--help"})
		for _, m := range helpFlagLine.FindAllStringSubmatch(help.String(), -1) {
			cc.flags = append(cc.flags, m[1])
		}
		cc.flags = append(cc.flags, "--help")
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
	table := c.completionTable()
	switch pos[0] {
	case "bash":
		writeBashCompletion(c.Stdout, table)
	case "zsh":
		writeZshCompletion(c.Stdout, table)
	case "fish":
		writeFishCompletion(c.Stdout, table)
	case "powershell":
		writePowerShellCompletion(c.Stdout, table)
	default:
		return inputErr("completion %q: expected one of %s%s", pos[0], strings.Join(completionShells, ", "), didYouMean(pos[0], completionShells))
	}
	return nil
}

// commandList is the command names, space-separated.
func commandList(table []completionCmd) string {
	var names []string
	for _, cc := range table {
		names = append(names, cc.name)
	}
	return strings.Join(names, " ")
}

func writeBashCompletion(w io.Writer, table []completionCmd) {
	fmt.Fprint(w, "# bash completion for mcptest (mcptest completion bash)\n_mcptest() {\n")
	fmt.Fprint(w, "  local cur=${COMP_WORDS[COMP_CWORD]} opts=\"\" words=\"\"\n")
	fmt.Fprintf(w, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n",
		commandList(table)+" --help --version")
	fmt.Fprint(w, "  case ${COMP_WORDS[1]} in\n")
	for _, cc := range table {
		fmt.Fprintf(w, "  %s) opts=%q words=%q ;;\n", cc.name, strings.Join(cc.flags, " "), strings.Join(cc.words, " "))
	}
	fmt.Fprint(w, "  esac\n")
	fmt.Fprint(w, "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n")
	fmt.Fprint(w, "  elif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$words\" ]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	fmt.Fprint(w, "  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\ncomplete -o default -F _mcptest mcptest\n")
}

// zshQuote quotes s for a single-quoted zsh word.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZshCompletion(w io.Writer, table []completionCmd) {
	fmt.Fprint(w, "#compdef mcptest\n# zsh completion for mcptest (mcptest completion zsh)\n_mcptest() {\n  local -a commands opts subs\n  commands=(\n")
	for _, cc := range table {
		fmt.Fprintf(w, "    %s\n", zshQuote(cc.name+":"+cc.summary))
	}
	fmt.Fprint(w, "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n  case $words[2] in\n")
	for _, cc := range table {
		fmt.Fprintf(w, "  (%s) opts=(%s) subs=(%s) ;;\n", cc.name, strings.Join(cc.flags, " "), strings.Join(cc.words, " "))
	}
	fmt.Fprint(w, "  esac\n  if [[ $PREFIX == -* ]]; then\n    compadd -- $opts\n  elif (( CURRENT == 3 && $#subs )); then\n    compadd -- $subs\n  else\n    _files\n  fi\n}\ncompdef _mcptest mcptest\n")
}

func writeFishCompletion(w io.Writer, table []completionCmd) {
	fmt.Fprint(w, "# fish completion for mcptest (mcptest completion fish)\n")
	for _, cc := range table {
		fmt.Fprintf(w, "complete -c mcptest -n __fish_use_subcommand -f -a %s -d %s\n", cc.name, zshQuote(cc.summary))
	}
	for _, cc := range table {
		cond := zshQuote("__fish_seen_subcommand_from " + cc.name)
		if len(cc.words) > 0 {
			fmt.Fprintf(w, "complete -c mcptest -n %s -f -a %s\n", cond, zshQuote(strings.Join(cc.words, " ")))
		}
		for _, f := range cc.flags {
			fmt.Fprintf(w, "complete -c mcptest -n %s -l %s\n", cond, strings.TrimPrefix(f, "--"))
		}
	}
}

// psQuote quotes s for a single-quoted PowerShell string.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func writePowerShellCompletion(w io.Writer, table []completionCmd) {
	fmt.Fprint(w, "# PowerShell completion for mcptest (mcptest completion powershell)\nRegister-ArgumentCompleter -Native -CommandName mcptest -ScriptBlock {\n")
	fmt.Fprint(w, "  param($wordToComplete, $commandAst, $cursorPosition)\n  $flags = [ordered]@{\n")
	for _, cc := range table {
		var q []string
		for _, f := range cc.flags {
			q = append(q, psQuote(f))
		}
		fmt.Fprintf(w, "    %s = @(%s)\n", psQuote(cc.name), strings.Join(q, ", "))
	}
	fmt.Fprint(w, "  }\n  $words = @{\n")
	for _, cc := range table {
		if len(cc.words) == 0 {
			continue
		}
		var q []string
		for _, s := range cc.words {
			q = append(q, psQuote(s))
		}
		fmt.Fprintf(w, "    %s = @(%s)\n", psQuote(cc.name), strings.Join(q, ", "))
	}
	fmt.Fprint(w, `  }
  $elements = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
  $typed = $elements.Count - [int]($wordToComplete -ne '')
  if ($typed -le 1) {
    $candidates = $flags.Keys
  } elseif ($wordToComplete -like '-*') {
    $candidates = $flags[$elements[1]]
  } elseif ($typed -eq 2) {
    $candidates = $words[$elements[1]]
  } else {
    return
  }
  $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`)
}
