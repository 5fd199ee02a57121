package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

// targetFlags are the flags every command that reads a catalog takes.
type targetFlags struct {
	url, tokenEnv, server, config, catalog *string
}

func addTargetFlags(fs *flag.FlagSet) *targetFlags {
	tf := addLiveTargetFlags(fs)
	tf.catalog = fs.String("catalog", "", "a saved tools/list `FILE` (JSON or YAML)")
	return tf
}

// addLiveTargetFlags is addTargetFlags without --catalog, for the commands
// that need a live server (record, generate).
func addLiveTargetFlags(fs *flag.FlagSet) *targetFlags {
	return &targetFlags{
		url:      fs.String("url", "", "a streamable HTTP MCP server `URL`"),
		tokenEnv: fs.String("bearer-token-env", "", "the env `VAR` holding the bearer token for --url"),
		server:   fs.String("server", "", "a server `NAME` declared under servers: in --config"),
		config:   fs.String("config", "suite.yml", "the suite `FILE` declaring --server"),
		catalog:  new(string),
	}
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

// target builds the one target the flags and the command name.
func (tf *targetFlags) target(command []string) (live.Target, error) {
	t := live.Target{URL: *tf.url, BearerTokenEnv: *tf.tokenEnv, Catalog: *tf.catalog, Command: command}
	if *tf.server != "" {
		if t.URL != "" || t.Catalog != "" || len(command) > 0 {
			return t, inputErr("--server names the target: drop --url, --catalog and the -- COMMAND")
		}
		s, err := engine.LoadSuite(*tf.config)
		if err != nil {
			return t, err
		}
		var names []string
		for _, srv := range s.Servers {
			names = append(names, srv.Name)
			if srv.Name == *tf.server {
				return live.Target{Name: srv.Name, Command: srv.Command, Env: srv.Env, URL: srv.URL, BearerTokenEnv: srv.BearerTokenEnv, Dir: s.Dir}, nil
			}
		}
		return t, inputErr("--server %q: %s declares no such server (it declares: %s)", *tf.server, *tf.config, strings.Join(names, ", "))
	}
	if err := t.Validate(); err != nil {
		return t, inputErr("%v", err)
	}
	return t, nil
}

// catalogFileErr is the error for a catalog file that was refused: its
// positioned errors as they are (printed with their source lines), any
// other failure as wrong input.
func catalogFileErr(err error) error {
	var l diag.List
	if errors.As(err, &l) {
		return l
	}
	return &exitError{code: ExitInput, err: err}
}

// loadCatalog reads the target's catalog; a missing catalog file is wrong
// input, a server that cannot be reached is an operational failure.
func (c *Command) loadCatalog(t live.Target) (*live.Catalog, error) {
	cat, err := live.Load(context.Background(), t, c.Getenv)
	if err != nil {
		if t.Catalog != "" {
			return nil, catalogFileErr(err)
		}
		var ae *live.AuthError
		if errors.As(err, &ae) {
			return nil, &exitError{code: ExitError, err: err}
		}
		return nil, err
	}
	return cat, nil
}

// listCommand is tools, resources, prompts or capabilities.
func (c *Command) listCommand(what string) func(*Command, []string) error {
	return func(c *Command, args []string) error {
		fs := c.newFlags(what, "mcptest "+what+" [--format text|json] (--url URL [--bearer-token-env VAR] | --server NAME --config suite.yml | --catalog FILE | -- COMMAND ARGS...)")
		tf := addTargetFlags(fs)
		format := fs.String("format", "text", "text or json")
		flags, command := splitCommand(args)
		rest, err := parse(fs, flags)
		if err != nil {
			return err
		}
		if len(rest) > 0 {
			return inputErr("unexpected argument %q: put a stdio server's command after --", rest[0])
		}
		if *format != "text" && *format != "json" {
			return inputErr("--format %q: expected text or json", *format)
		}
		t, err := tf.target(command)
		if err != nil {
			return err
		}
		cat, err := c.loadCatalog(t)
		if err != nil {
			return err
		}
		if *format == "json" {
			return writeJSON(c.Stdout, live.Document(what, cat))
		}
		if what == "tools" {
			for _, w := range security.DescriptionWarnings(cat.RawTools()) {
				fmt.Fprintf(c.Stderr, "warning: %s %s: %s\n", w.Rule, annotate.Clean(w.Tool), annotate.Clean(w.Summary))
			}
		}
		return writeList(c.Stdout, what, cat)
	}
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// writeList prints one line per entry: its name and the first line of its
// description, terminal-safe.
func writeList(w io.Writer, what string, cat *live.Catalog) error {
	type row struct{ name, desc string }
	var rows []row
	switch what {
	case "tools":
		for _, t := range cat.Tools {
			rows = append(rows, row{t.Name, t.Description})
		}
	case "resources":
		for _, r := range cat.Resources {
			rows = append(rows, row{r.URI, r.Description})
		}
		for _, r := range cat.ResourceTemplates {
			rows = append(rows, row{r.URITemplate, r.Description})
		}
	case "prompts":
		for _, p := range cat.Prompts {
			rows = append(rows, row{p.Name, p.Description})
		}
	default:
		return writeJSON(w, live.Document(what, cat))
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(annotate.Clean(r.name)))
	}
	for _, r := range rows {
		desc, _, _ := strings.Cut(strings.TrimSpace(r.desc), "\n")
		if len(desc) > 100 {
			desc = desc[:97] + "..."
		}
		fmt.Fprintf(w, "%-*s  %s\n", width, annotate.Clean(r.name), annotate.Clean(desc))
	}
	fmt.Fprintf(w, "%d %s\n", len(rows), what)
	return nil
}

// mock serves a catalog file as a deterministic MCP server on stdio.
func (c *Command) mock(args []string) error {
	fs := c.newFlags("mock", "mcptest mock --tools-from catalog.yml")
	from := fs.String("tools-from", "", "the catalog `FILE` to serve (a tools/list result, JSON or YAML)")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 || *from == "" {
		return inputErr("usage: mcptest mock --tools-from catalog.yml")
	}
	cat, err := live.ReadFile(*from)
	if err != nil {
		return catalogFileErr(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	in, _ := c.Stdin.(io.ReadCloser)
	if in == nil {
		in = io.NopCloser(c.Stdin)
	}
	out, _ := c.Stdout.(io.WriteCloser)
	if out == nil {
		out = nopWriteCloser{c.Stdout}
	}
	server, err := live.MockServer(cat)
	if err != nil {
		return &exitError{code: ExitInput, err: fmt.Errorf("%s: %w", *from, err)}
	}
	err = server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
