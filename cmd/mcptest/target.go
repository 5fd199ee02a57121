package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

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
// that reads one: --url with --bearer-token-env, --server with --config,
// --catalog (unless the command needs a live server), a stdio command after
// -- or as --command with its --arg list, and --timeout.
type targetFlags struct {
	fs                                          *flag.FlagSet
	url, tokenEnv, server, config, catalog, cmd *string
	args                                        stringList
	timeout                                     timeoutFlag
	// command is the stdio server's argv, after --.
	command []string
}

// addTargetFlags adds the target flags to fs; withCatalog adds --catalog.
func addTargetFlags(fs *flag.FlagSet, withCatalog bool) *targetFlags {
	tf := &targetFlags{
		fs:       fs,
		url:      fs.String("url", "", "a streamable HTTP MCP server `URL`"),
		tokenEnv: fs.String("bearer-token-env", "", "the env `VAR` holding the bearer token for --url"),
		server:   fs.String("server", "", "a server `NAME` declared under servers: in --config"),
		config:   fs.String("config", "suite.yml", "the suite `FILE` declaring --server"),
		catalog:  new(string),
		// A client that launches mcptest as its server (the MCP Inspector)
		// keeps the -- for itself: the command then comes as flags.
		cmd: fs.String("command", "", "a stdio server's `COMMAND`, as an alternative to -- COMMAND ARGS for a launcher that keeps the -- for itself (the MCP Inspector)"),
	}
	fs.Var(&tf.args, "arg", "one `ARG` of --command, in order (repeatable)")
	if withCatalog {
		tf.catalog = fs.String("catalog", "", "a saved tools/list `FILE` (JSON or YAML)")
	}
	fs.Var(&tf.timeout, "timeout", "how long the server may take to start, answer initialize and answer each request, a `duration` such as 90s or 2m (default 30s, or the --server's timeout: in --config)")
	return tf
}

// parse parses args: the flags, then the stdio server's command after --.
// Any other argument is wrong input.
func (tf *targetFlags) parse(args []string) error {
	flags, command := splitCommand(args)
	rest, err := parse(tf.fs, flags)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return inputErr("unexpected argument %q: put a stdio server's command after --, or give it as --command CMD --arg A", rest[0])
	}
	switch {
	case *tf.cmd != "" && len(command) > 0:
		return inputErr("--command and -- COMMAND both name the server's command: give one of them")
	case *tf.cmd == "" && len(tf.args) > 0:
		return inputErr("--arg %q has no --command: --arg adds an argument to --command CMD", tf.args[0])
	case *tf.cmd != "":
		command = append([]string{*tf.cmd}, tf.args...)
	}
	tf.command = command
	return nil
}

// splitCommand splits the argv after a `--` off a command line.
func splitCommand(args []string) (flags, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// target builds the one target the flags and the command name. --server
// reads the server from --config with its timeout:, which --timeout
// overrides.
func (tf *targetFlags) target() (live.Target, error) {
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
	s, err := engine.LoadSuite(*tf.config)
	if err != nil {
		return t, err
	}
	st, ok := s.Target(*tf.server)
	if !ok {
		var names []string
		for _, srv := range s.Servers {
			names = append(names, srv.Name)
		}
		return t, inputErr("--server %q: %s declares no such server (it declares: %s)", *tf.server, *tf.config, strings.Join(names, ", "))
	}
	if tf.timeout > 0 {
		st.Timeout = time.Duration(tf.timeout)
	}
	return st, nil
}

// timeoutFlag is --timeout: a positive duration.
type timeoutFlag time.Duration

// override gives every server of the suite the timeout, when one was set.
func (f timeoutFlag) override(s *engine.Suite) {
	for i := range s.Servers {
		if f > 0 {
			s.Servers[i].Timeout = time.Duration(f)
		}
	}
}

func (f *timeoutFlag) String() string {
	if f == nil || *f == 0 {
		return ""
	}
	return time.Duration(*f).String()
}

// Set parses a positive Go duration; a bare number is refused with the
// unit it lacks.
func (f *timeoutFlag) Set(s string) error {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%s has no unit: write %ss (seconds) or 2m", s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return errors.New("expected a positive duration such as 30s, 2m or 1m30s")
	}
	*f = timeoutFlag(d)
	return nil
}
