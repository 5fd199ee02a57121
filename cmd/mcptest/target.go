package main

import (
	"errors"
	"flag"
	"time"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/live"
)

// targetSynopsis is how a command's usage line names its target; a command
// that needs a live server leaves out --catalog.
const (
	targetSynopsis     = "(--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | --catalog FILE | -- COMMAND ARGS... | --command CMD [--arg A]...) [--timeout D]"
	liveTargetSynopsis = "(--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | -- COMMAND ARGS... | --command CMD [--arg A]...) [--timeout D]"
)

// targetFlags are the flags that name a target, shared by every command
// that reads one; command is the stdio server's argv once parsed.
type targetFlags struct {
	fs                                          *flag.FlagSet
	url, tokenEnv, server, config, catalog, cmd *string
	args                                        stringList
	timeout                                     timeoutFlag
	command                                     []string
	// know adds a built target's secrets to the command's mask.
	know func(live.Target)
}

// addTargetFlags adds the target flags to fs; withCatalog adds --catalog.
func (c *Command) addTargetFlags(fs *flag.FlagSet, withCatalog bool) *targetFlags {
	tf := &targetFlags{
		fs:       fs,
		know:     c.knowTarget,
		url:      fs.String("url", "", "a streamable HTTP MCP server `URL`"),
		tokenEnv: fs.String("bearer-token-env", "", "the env `VAR` holding the bearer token for --url"),
		server:   fs.String("server", "", "a server `NAME` declared under servers: in --config"),
		config:   fs.String("config", "suite.yml", "the suite `FILE` declaring --server"),
		catalog:  new(string),
		cmd:      fs.String("command", "", "a stdio server's `COMMAND`, as an alternative to -- COMMAND ARGS for a launcher that keeps the -- for itself (the MCP Inspector)"),
	}
	fs.Var(&tf.args, "arg", "one `ARG` of --command, in order (repeatable)")
	if withCatalog {
		tf.catalog = fs.String("catalog", "", "a saved tools/list `FILE` (JSON or YAML)")
	}
	fs.Var(&tf.timeout, "timeout", "how long the server may take to start, answer initialize and answer each request, a `duration` such as 90s or 2m (default 30s, or the --server's timeout: in --config)")
	return tf
}

// parse parses the flags and the stdio server's command (after --, or as
// --command with --arg: live.CommandLine); any other argument is wrong.
func (tf *targetFlags) parse(args []string) error {
	flags, command := cli.SplitCommand(args)
	rest, err := parse(tf.fs, flags)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return inputErr("unexpected argument %q: put a stdio server's command after --, or give it as --command CMD --arg A", rest[0])
	}
	if tf.command, err = live.CommandLine(command, *tf.cmd, tf.args); err != nil {
		return inputErr("%v", err)
	}
	return nil
}

// target builds the one target the flags name; --server reads it from
// --config (engine.ServerTarget), --timeout over its timeout:. Its secrets
// are added to the command's mask before anything names it.
func (tf *targetFlags) target() (live.Target, error) {
	t, err := tf.build()
	tf.know(t)
	return t, err
}

func (tf *targetFlags) build() (live.Target, error) {
	t := live.Target{URL: *tf.url, BearerTokenEnv: *tf.tokenEnv, Catalog: *tf.catalog, Command: tf.command, Timeout: time.Duration(tf.timeout)}
	if *tf.server == "" {
		if err := t.Validate(); err != nil {
			return t, inputErr("%v", err)
		}
		return t, nil
	}
	if t.URL != "" || t.Catalog != "" || len(t.Command) > 0 {
		return t, inputErr("--server names the target: drop --url, --catalog and the -- COMMAND")
	}
	st, err := engine.ServerTarget(*tf.config, *tf.server, t.Timeout)
	var none *engine.NoServerError
	if errors.As(err, &none) {
		return st, inputErr("--server %q: %v", *tf.server, err)
	}
	return st, err
}

// timeoutFlag is --timeout: a positive duration.
type timeoutFlag = cli.Duration
