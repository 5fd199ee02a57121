package cli

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Shells are the shells WriteCompletion writes a script for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// Completion is one command as a completion script offers it: its name and
// summary, the words that may follow it before its flags (a kind, a
// subcommand, a shell) and its flags, each with its leading --.
type Completion struct {
	Name, Summary string
	Words, Flags  []string
}

// helpFlagLine is a flag line of WriteHelp's output: "  --name VALUE".
var helpFlagLine = regexp.MustCompile(`(?m)^  (--[a-z][a-z0-9-]*)`)

// HelpFlags lists the flags a help text written by WriteHelp shows, in its
// order, and --help after them, so a completion cannot drift from the help.
func HelpFlags(help string) []string {
	var flags []string
	for _, m := range helpFlagLine.FindAllStringSubmatch(help, -1) {
		if !slices.Contains(flags, m[1]) { // a flag the help names twice is offered once
			flags = append(flags, m[1])
		}
	}
	return append(flags, "--help")
}

// WriteCompletion writes the completion script of shell (one of Shells) for
// the program prog and its commands. The names, words and flags go into
// the scripts as they are: they are the program's own, not user input.
func WriteCompletion(w io.Writer, shell, prog string, cmds []Completion) error {
	switch shell {
	case "bash":
		writeBash(w, prog, cmds)
	case "zsh":
		writeZsh(w, prog, cmds)
	case "fish":
		writeFish(w, prog, cmds)
	case "powershell":
		writePowerShell(w, prog, cmds)
	default:
		return fmt.Errorf("no completion for the shell %q", shell)
	}
	return nil
}

// names is the command names, space-separated.
func names(cmds []Completion) string {
	var n []string
	for _, c := range cmds {
		n = append(n, c.Name)
	}
	return strings.Join(n, " ")
}

func writeBash(w io.Writer, prog string, cmds []Completion) {
	fmt.Fprintf(w, "# bash completion for %s (%[1]s completion bash)\n_%[1]s() {\n", prog)
	fmt.Fprint(w, "  local cur=${COMP_WORDS[COMP_CWORD]} opts=\"\" words=\"\"\n")
	fmt.Fprintf(w, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n",
		names(cmds)+" --help --version")
	fmt.Fprint(w, "  case ${COMP_WORDS[1]} in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %s) opts=%q words=%q ;;\n", c.Name, strings.Join(c.Flags, " "), strings.Join(c.Words, " "))
	}
	fmt.Fprint(w, "  esac\n")
	fmt.Fprint(w, "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n")
	fmt.Fprint(w, "  elif [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$words\" ]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n")
	fmt.Fprintf(w, "  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\ncomplete -o default -F _%s %[1]s\n", prog)
}

// shQuote quotes s for a single-quoted zsh or fish word.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZsh(w io.Writer, prog string, cmds []Completion) {
	fmt.Fprintf(w, "#compdef %s\n# zsh completion for %[1]s (%[1]s completion zsh)\n_%[1]s() {\n  local -a commands opts subs\n  commands=(\n", prog)
	for _, c := range cmds {
		fmt.Fprintf(w, "    %s\n", shQuote(c.Name+":"+c.Summary))
	}
	fmt.Fprint(w, "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n  case $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  (%s) opts=(%s) subs=(%s) ;;\n", c.Name, strings.Join(c.Flags, " "), strings.Join(c.Words, " "))
	}
	fmt.Fprintf(w, "  esac\n  if [[ $PREFIX == -* ]]; then\n    compadd -- $opts\n  elif (( CURRENT == 3 && $#subs )); then\n    compadd -- $subs\n  else\n    _files\n  fi\n}\ncompdef _%s %[1]s\n", prog)
}

func writeFish(w io.Writer, prog string, cmds []Completion) {
	fmt.Fprintf(w, "# fish completion for %s (%[1]s completion fish)\n", prog)
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c %s -n __fish_use_subcommand -f -a %s -d %s\n", prog, c.Name, shQuote(c.Summary))
	}
	for _, c := range cmds {
		cond := shQuote("__fish_seen_subcommand_from " + c.Name)
		if len(c.Words) > 0 {
			fmt.Fprintf(w, "complete -c %s -n %s -f -a %s\n", prog, cond, shQuote(strings.Join(c.Words, " ")))
		}
		for _, f := range c.Flags {
			fmt.Fprintf(w, "complete -c %s -n %s -l %s\n", prog, cond, strings.TrimPrefix(f, "--"))
		}
	}
}

// psQuote quotes s for a single-quoted PowerShell string.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// psList is a PowerShell array of the quoted strings: @('a', 'b').
func psList(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, psQuote(s))
	}
	return "@(" + strings.Join(q, ", ") + ")"
}

func writePowerShell(w io.Writer, prog string, cmds []Completion) {
	fmt.Fprintf(w, "# PowerShell completion for %s (%[1]s completion powershell)\nRegister-ArgumentCompleter -Native -CommandName %[1]s -ScriptBlock {\n", prog)
	fmt.Fprint(w, "  param($wordToComplete, $commandAst, $cursorPosition)\n  $flags = [ordered]@{\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "    %s = %s\n", psQuote(c.Name), psList(c.Flags))
	}
	fmt.Fprint(w, "  }\n  $words = @{\n")
	for _, c := range cmds {
		if len(c.Words) > 0 {
			fmt.Fprintf(w, "    %s = %s\n", psQuote(c.Name), psList(c.Words))
		}
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
