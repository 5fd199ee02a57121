package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/mcpserver"
)

// doctorWalk is `mcptest doctor` with no target: the discovery walk over the
// MCP configs of the workspace (Claude Code's .mcp.json, Cursor's and VS
// Code's mcp.json) and of the user (~/.claude.json, ~/.cursor/mcp.json,
// Claude Desktop's config). It lists every server with its file, then
// diagnoses each layer by layer; a server whose entry references an unset
// environment variable or a VS Code input prompt is reported, not started.
// only picks one server by name; timeout, when set, bounds each server
// (--timeout). It exits 1 when a diagnosed server fails.
func (c *Command) doctorWalk(dir, only, format string, timeout time.Duration) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	servers, checked, err := mcpserver.Discover(root, c.Getenv)
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	if only != "" {
		var names []string
		var picked []mcpserver.Discovered
		for _, s := range servers {
			names = append(names, s.Name)
			if s.Name == only {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return inputErr("--server %q: no MCP config declares it (found: %s)%s", only, strings.Join(names, ", "), didYouMean(only, names))
		}
		servers = picked
	}
	home := c.Getenv("HOME")
	if len(servers) == 0 {
		fmt.Fprintf(c.Stdout, "no MCP servers found; looked in:\n")
		for _, f := range checked {
			fmt.Fprintf(c.Stdout, "  %s\n", mcpserver.Relative(f, root, home))
		}
		fmt.Fprintln(c.Stdout, "\nRegister one, or mcptest itself with `mcptest mcp-server --install`; diagnose a server directly with `mcptest doctor -- COMMAND ARGS...` or `--url URL`.")
		return nil
	}
	var results []mcpserver.WalkServer
	for _, s := range servers {
		results = append(results, mcpserver.Diagnose(context.Background(), s, root, home, timeout, c.Getenv))
	}
	failed := 0
	for _, r := range results {
		if r.Status == "fail" {
			failed++
		}
	}
	if format == "json" {
		if err := writeJSON(c.Stdout, struct {
			Servers []mcpserver.WalkServer `json:"servers"`
		}{results}); err != nil {
			return err
		}
	} else {
		writeWalk(c, results)
	}
	if failed > 0 {
		return errFailed
	}
	return nil
}

// writeWalk prints the server list, then each server's diagnosis.
func writeWalk(c *Command, results []mcpserver.WalkServer) {
	fmt.Fprintf(c.Stdout, "%d MCP servers in the workspace and user configs:\n", len(results))
	for _, r := range results {
		from := r.File + " (" + r.Client
		if r.Scope != "" {
			from += ", " + r.Scope
		}
		fmt.Fprintf(c.Stdout, "  %-16s  %s)  %s\n", annotate.Clean(r.Name), annotate.Clean(from), annotate.Clean(r.Target))
	}
	fmt.Fprintln(c.Stdout)
	for _, r := range results {
		fmt.Fprintf(c.Stdout, "%-16s  %-7s  %s\n", annotate.Clean(r.Name), strings.ToUpper(r.Status), annotate.Clean(r.Detail))
	}
}
