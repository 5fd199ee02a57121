package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

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
func (c *Command) loadCatalog(t live.Target, lists live.Lists) (*live.Catalog, error) {
	cat, err := live.LoadLists(context.Background(), t, c.Getenv, lists)
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
		fs := c.newFlags(what, "mcptest "+what+" [--format text|json] "+targetSynopsis)
		tf := addTargetFlags(fs, true)
		format := fs.String("format", "text", "text or json")
		if err := tf.parse(args); err != nil {
			return err
		}
		if *format != "text" && *format != "json" {
			return inputErr("--format %q: expected text or json", *format)
		}
		t, err := tf.target()
		if err != nil {
			return err
		}
		cat, err := c.loadCatalog(t, map[string]live.Lists{"tools": live.ListTools, "resources": live.ListResources, "prompts": live.ListPrompts}[what])
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
	server, err := live.MockServer(cat)
	if err != nil {
		return &exitError{code: ExitInput, err: fmt.Errorf("%s: %w", *from, err)}
	}
	return c.serveStdio(ctx, server)
}
