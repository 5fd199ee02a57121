package live

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/internal/diag"
)

// TargetSynopsis is how a command's usage line names its target;
// LiveTargetSynopsis, for a command that needs a live server, leaves out
// --catalog.
const (
	TargetSynopsis     = "(--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | --catalog FILE | -- COMMAND ARGS... | --command CMD [--arg A]...) [--timeout D]"
	LiveTargetSynopsis = "(--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | -- COMMAND ARGS... | --command CMD [--arg A]...) [--timeout D]"
)

// TargetFlags are the flags that name a target, shared by every command
// that reads one; Command is the stdio server's argv once parsed.
type TargetFlags struct {
	fs                                          *flag.FlagSet
	URL, tokenEnv, Server, config, Catalog, cmd *string
	args                                        cli.StringList
	Timeout                                     cli.Duration
	Command                                     []string
	// Know is told every target built (Target), before anything names
	// it: the command adds its secrets to its mask.
	Know func(Target)
	// Suite is the target of a server a suite declares (--server NAME
	// --config FILE), with timeout over its timeout: when positive; an
	// error of *NoServer kind is wrapped as wrong input by Target.
	Suite func(config, server string, timeout time.Duration) (Target, error)
	// NoServer reports whether an error of Suite is a missing server.
	NoServer func(error) bool
}

// AddTargetFlags adds the target flags to fs; withCatalog adds --catalog.
func AddTargetFlags(fs *flag.FlagSet, withCatalog bool) *TargetFlags {
	tf := &TargetFlags{
		fs:       fs,
		URL:      fs.String("url", "", "a streamable HTTP MCP server `URL`"),
		tokenEnv: fs.String("bearer-token-env", "", "the env `VAR` holding the bearer token for --url"),
		Server:   fs.String("server", "", "a server `NAME` declared under servers: in --config"),
		config:   fs.String("config", "suite.yml", "the suite `FILE` declaring --server"),
		Catalog:  new(string),
		cmd:      fs.String("command", "", "a stdio server's `COMMAND`, as an alternative to -- COMMAND ARGS for a launcher that keeps the -- for itself (the MCP Inspector)"),
	}
	fs.Var(&tf.args, "arg", "one `ARG` of --command, in order (repeatable)")
	if withCatalog {
		tf.Catalog = fs.String("catalog", "", "a saved tools/list `FILE` (JSON or YAML)")
	}
	fs.Var(&tf.Timeout, "timeout", "how long the server may take to start, answer initialize and answer each request, a `duration` such as 90s or 2m (default 30s, or the --server's timeout: in --config)")
	return tf
}

// Parse parses the flags (cli.Parse; a wrong one is wrong input) and the
// stdio server's command (after --, or as --command with --arg:
// CommandLine); any other argument is wrong.
func (tf *TargetFlags) Parse(args []string) error {
	flags, command := cli.SplitCommand(args)
	rest, err := cli.Parse(tf.fs, flags)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return &diag.InputError{Err: err}
	case len(rest) > 0:
		return diag.Input("unexpected argument %q: put a stdio server's command after --, or give it as --command CMD --arg A", rest[0])
	}
	if tf.Command, err = CommandLine(command, *tf.cmd, tf.args); err != nil {
		return diag.Input("%v", err)
	}
	return nil
}

// Named reports whether the flags name a target of their own (--url,
// --catalog or a command), not a suite's server.
func (tf *TargetFlags) Named() bool {
	return *tf.URL != "" || *tf.Catalog != "" || len(tf.Command) > 0
}

// Target builds the one target the flags name; --server reads it from
// --config (Suite), --timeout over its timeout:. Know is told it first.
func (tf *TargetFlags) Target() (Target, error) {
	t, err := tf.build()
	if tf.Know != nil {
		tf.Know(t)
	}
	return t, err
}

func (tf *TargetFlags) build() (Target, error) {
	t := Target{URL: *tf.URL, BearerTokenEnv: *tf.tokenEnv, Catalog: *tf.Catalog, Command: tf.Command, Timeout: time.Duration(tf.Timeout)}
	if *tf.Server == "" {
		if err := t.Validate(); err != nil {
			return t, diag.Input("%v", err)
		}
		return t, nil
	}
	if tf.Named() {
		return t, diag.Input("--server names the target: drop --url, --catalog and the -- COMMAND")
	}
	st, err := tf.Suite(*tf.config, *tf.Server, t.Timeout)
	if err != nil && tf.NoServer != nil && tf.NoServer(err) {
		return st, diag.Input("--server %q: %v", *tf.Server, err)
	}
	return st, err
}

// LoadInput is LoadLists for a command: a catalog file that cannot be read
// is wrong input (FileError); a server that cannot be reached (or refuses
// the bearer token, *AuthError) an operational failure.
func LoadInput(t Target, getenv func(string) string, lists Lists) (*Catalog, error) {
	cat, err := LoadLists(context.Background(), t, getenv, lists)
	if err != nil && t.Catalog != "" {
		return nil, FileError(err)
	}
	return cat, err
}

// FileError is the error for a catalog file that was refused: its
// positioned errors as they are (printed with their source lines), any
// other failure as wrong input.
func FileError(err error) error {
	var l diag.List
	if errors.As(err, &l) {
		return l
	}
	return &diag.InputError{Err: err}
}
