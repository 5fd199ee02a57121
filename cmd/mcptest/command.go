package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/mcptest/mcptest/action"
	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
)

// The exit codes of every command. The same table is in the help text, the
// README and action.yml.
const (
	ExitOK    = 0 // every test, assertion and floor passed
	ExitFail  = 1 // at least one test, assertion or floor failed
	ExitInput = 2 // the input is wrong: flag, suite, cassette, missing file
	ExitError = 3 // the tool could not do its job: I/O, network, a bug
)

// Command is the mcptest program with its standard streams, so tests run it
// in process exactly as a user runs the binary.
type Command struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	// commands takes the workflow commands mcptest emits under GitHub
	// Actions (guardRunnerLog); nil means Stdout.
	commands io.Writer
	// trapSignals, set by main, makes an interrupt or a termination signal
	// cancel the context of an interruptible subcommand (interruptContext);
	// the others keep the default, so a signal ends the process at once.
	trapSignals bool
	// listening, when set, is told the address `record --listen` serves.
	listening func(addr string)
	// noGit, set by the in-process tests, keeps git out of the envelope's
	// source off CI, so their goldens do not follow the checkout's commit.
	noGit bool
	// secrets are what the streams and written files are masked with
	// (guardSecrets); protocol is stdout unmasked, for a command whose
	// stdout is an MCP stream (protocolOut).
	secrets  *redact.Known
	protocol io.Writer
}

// inputErr is wrong input (exit 2), a *diag.InputError as every package
// of mcptest returns it.
var inputErr = diag.Input

// silentExit ends a subcommand with a code after it has reported why.
type silentExit int

func (e silentExit) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// errFailed is returned by a subcommand whose gates failed (exit 1).
var errFailed = silentExit(ExitFail)

// subcommand is one row of the command table. An interruptible one stops
// cleanly, writing what it holds, when its context is cancelled, which the
// first interrupt does; the others are never given a cancelled context and
// keep the default signal behaviour, so a signal ends the process at once.
type subcommand struct {
	name, summary string
	run           func(c *Command, ctx context.Context, args []string) error
	interruptible bool
}

func (c *Command) subcommands() []subcommand {
	return []subcommand{
		{"run", "replay the cassettes of a suite and compute every gate", (*Command).run, false},
		{"validate", "check a suite (or a cassette) against its schema", (*Command).validate, false},
		{"scenario", "replay a suite's scenarios against their worlds (scenario run)", (*Command).scenario, false},
		{"report", "re-render a saved run envelope, compare it with a baseline, merge shards", (*Command).report, false},
		{"history", "the history of run envelopes: each figure's series and slope, flips, flaky, added and removed cases (text, json, markdown, html)", (*Command).historyCommand, false},
		{"view", "serve a saved run's HTML report on a loopback port; print its snapshot address", (*Command).view, false},
		{"distractors", "print the tools a suite's distractors: blocks inject, as tools/list", (*Command).distractors, false},
		{"prices", "print the rates a run of each MODEL is priced at and the price-table entry that matched", (*Command).pricesCommand, false},
		{"action", "the GitHub Action's entrypoint (modes check, baseline, comment, drift, shard, merge; see action.yml)", (*Command).action, false},
		{"tools", "list a live server's (or a catalog file's) tools", c.listCommand("tools"), false},
		{"resources", "list a live server's resources and resource templates", c.listCommand("resources"), false},
		{"prompts", "list a live server's prompts", c.listCommand("prompts"), false},
		{"capabilities", "print a live server's initialize result: version, info, capabilities", c.listCommand("capabilities"), false},
		{"mock", "serve a catalog file as a deterministic MCP server on stdio", (*Command).mock, true},
		{"record", "proxy an agent's MCP server (stdio or streamable HTTP) and write the session as a v1 cassette", (*Command).record, true},
		{"generate", "scaffold a suite for a live server from its catalog (generate suite|conformance|redteam|eval) or propose one from recordings (generate agent-suite)", (*Command).generate, false},
		{"mcp-server", "serve mcptest's verbs to an agent over MCP on stdio; --install registers it with Claude Code, Cursor, VS Code or Claude Desktop", (*Command).mcpServer, true},
		{"doctor", "diagnose a server's connection layers; --lint-descriptions lints its tool descriptions", (*Command).doctor, false},
		{"security", "scan a catalog's tool definitions for description poisoning (SEC-001..008)", (*Command).security, false},
		{"tool-bench", "measure how much each tool description carries selection (tool-bench run SPEC)", (*Command).toolBench, false},
		{"schema", "print the published JSON Schema of a suite, a cassette or a run envelope: schema [suite|cassette|envelope]", (*Command).printSchema, false},
		{"completion", "print a shell completion script: completion bash|zsh|fish|powershell", (*Command).completion, false},
		{"version", "print the version, commit and build date (also --version, -v)", (*Command).printVersion, false},
		{"help", "show this help", (*Command).help, false},
	}
}

// Main is MainContext with a context that is never cancelled.
func (c *Command) Main(args []string) int {
	return c.MainContext(context.Background(), args)
}

// MainContext runs the command line args (without the program name) with
// ctx, which main cancels on a signal, and returns the exit code; a panic
// is reported as a bug with exit code 3.
func (c *Command) MainContext(ctx context.Context, args []string) (code int) {
	if c.Getenv == nil {
		c.Getenv = func(string) string { return "" }
	}
	if c.inActions() { // deferred before the recover: a panic's message goes through the runner log too
		defer c.guardRunnerLog()()
	}
	defer c.guardSecrets(args)() // deferred before the recover: a panic's message is masked too
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(c.Stderr, "mcptest: internal error (please report it): %s\n", annotate.CleanMessage(fmt.Sprint(r)))
			code = ExitError
		}
	}()
	if len(args) == 0 {
		c.usage(c.Stderr)
		return ExitInput
	}
	name := args[0]
	if cli.IsHelp(name) {
		name = "help"
	} else if name == "-v" || name == "--version" || name == "-version" {
		name = "version"
	}
	for _, sc := range c.subcommands() {
		if sc.name == name {
			if sc.interruptible && c.trapSignals {
				var stop context.CancelFunc
				ctx, stop = interruptContext(ctx)
				defer stop()
			}
			return c.exit(sc.run(c, ctx, args[1:]))
		}
	}
	fmt.Fprintf(c.Stderr, "mcptest: unknown command %q%s\nRun 'mcptest help' for the list of commands.\n", name, didYouMean(name, c.commandNames()))
	return ExitInput
}

// interruptContext is parent cancelled by the first interrupt or
// termination signal. Once it is cancelled the signals get their default
// back, so a second Ctrl-C ends the process at once while the command is
// still writing what it holds. stop releases the signals.
func interruptContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// exit maps a subcommand's error to an exit code, printing it: positioned
// errors with their source line, others as one message.
func (c *Command) exit(err error) int {
	var (
		se silentExit
		l  diag.List
		d  *diag.Error
		ie *diag.InputError
	)
	code := ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &se):
		return int(se)
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &l) || errors.As(err, &d):
		if l == nil {
			l = diag.List{d}
		}
		annotate.PrintDiag(c.Stderr, l, c.inActions()) // with the source line and a caret
		return ExitInput
	case errors.Is(err, action.ErrFailed):
		return ExitFail
	case errors.As(err, &ie):
		code, err = ExitInput, ie.Err
	}
	fmt.Fprintf(c.Stderr, "mcptest: %s\n", annotate.CleanMessage(err.Error()))
	return code
}

// newFlags returns a subcommand's flag set (cli.NewFlagSet): --help prints
// its help to stdout; a wrong flag is one line with a did-you-mean.
func (c *Command) newFlags(name, synopsis string) *flag.FlagSet {
	return cli.NewFlagSet(name, synopsis, c.Stdout, diag.Suggest)
}

// parse parses flags that may stand before or after the positional
// arguments (cli.Parse); a wrong flag is an input error.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := cli.Parse(fs, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return nil, &diag.InputError{Err: err}
	}
	return pos, err
}

// stringList is a repeatable string flag.
type stringList = cli.StringList

// exitCodes are the meanings of the exit codes, in order. The README's
// exit-code table and action.yml's description carry the same rows, word
// for word (TestExitCodeTables).
var exitCodes = []string{
	ExitOK:    "every test, assertion and floor passed",
	ExitFail:  "at least one test, assertion or floor failed, or a test judged nothing because none of its runs holds a tool call (a gate result, not an error)",
	ExitInput: "the input is wrong: unknown flag, invalid suite or cassette, missing file. The message names file:line:col where there is one",
	ExitError: "the tool could not do its job: I/O, network, a GitHub API failure it could not degrade around, a bug",
}

// exitCodeTable is the exit-code table of the help text.
func exitCodeTable() string {
	b := "exit codes:\n"
	for code, meaning := range exitCodes {
		b += fmt.Sprintf("  %d  %s\n", code, meaning)
	}
	return b
}

func (c *Command) usage(w io.Writer) {
	fmt.Fprintf(w, "mcptest %s: a deterministic, model-free gate for AI agents that use MCP tools\n\nusage: mcptest <command> [flags]\n\ncommands:\n", version)
	for _, sc := range c.subcommands() {
		fmt.Fprintf(w, "  %-12s %s\n", sc.name, sc.summary)
	}
	fmt.Fprintf(w, "\n%s\nRun 'mcptest help <command>' or 'mcptest <command> --help' for a command's flags.\n", exitCodeTable())
}

// help is `mcptest help [COMMAND [ARGS...]]`: the command list (also for
// `help --help` and `help help`), or that command's help on stdout
// (`mcptest help generate suite` is `mcptest generate suite --help`).
func (c *Command) help(ctx context.Context, args []string) error {
	if len(args) == 0 || cli.IsHelp(args[0]) || args[0] == "help" {
		c.usage(c.Stdout)
		return nil
	}
	for _, sc := range c.subcommands() {
		if sc.name == args[0] && sc.name != "help" {
			return sc.run(c, ctx, append(slices.Clone(args[1:]), "--help"))
		}
	}
	return inputErr("help %q: no such command%s", args[0], didYouMean(args[0], c.commandNames()))
}

// commandNames lists the subcommands in the order of the help.
func (c *Command) commandNames() []string {
	var names []string
	for _, sc := range c.subcommands() {
		names = append(names, sc.name)
	}
	return names
}

// didYouMean is " (did you mean "x"?)" for the nearest name, or "".
var didYouMean = diag.DidYouMean

// stdoutTerminal reports whether stdout is a terminal (cli.IsTerminal);
// tests replace it.
var stdoutTerminal = cli.IsTerminal
