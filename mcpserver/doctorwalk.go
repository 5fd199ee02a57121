package mcpserver

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/gate/tokens"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/live"
)

// WalkOptions is what `mcptest doctor` with no target was asked.
type WalkOptions struct {
	Root   string // the workspace
	Only   string // the one server to diagnose by name, "" for all
	Format string // "text" or "json"
	// Timeout, when set, bounds each server (--timeout).
	Timeout time.Duration
	Getenv  func(string) string
}

// DoctorWalk is `mcptest doctor` with no target: the discovery walk over
// the MCP configs of the workspace (Claude Code's .mcp.json, Cursor's and
// VS Code's mcp.json) and of the user (~/.claude.json, ~/.cursor/mcp.json,
// Claude Desktop's config). It lists every server with its file, then
// diagnoses each layer by layer (Diagnose); a server whose entry
// references an unset environment variable or a VS Code input prompt is
// reported, not started. It returns how many diagnosed servers failed; a
// config that cannot be read, or an Only no config declares, is a
// *diag.InputError.
func DoctorWalk(ctx context.Context, w io.Writer, o WalkOptions) (failed int, err error) {
	if o.Root, err = filepath.Abs(o.Root); err != nil {
		return 0, err
	}
	servers, checked, err := Discover(o.Root, o.Getenv)
	if err != nil {
		return 0, &diag.InputError{Err: err}
	}
	if servers, err = pickServer(servers, o.Only); err != nil {
		return 0, err
	}
	home := o.Getenv("HOME")
	if len(servers) == 0 {
		fmt.Fprintf(w, "no MCP servers found; looked in:\n")
		for _, f := range checked {
			fmt.Fprintf(w, "  %s\n", Relative(f, o.Root, home))
		}
		fmt.Fprintln(w, "\nRegister one, or mcptest itself with `mcptest mcp-server --install`; diagnose a server directly with `mcptest doctor -- COMMAND ARGS...` or `--url URL`.")
		return 0, nil
	}
	var results []WalkServer
	for _, s := range servers {
		r := Diagnose(ctx, s, o.Root, home, o.Timeout, o.Getenv)
		if r.Status == "fail" {
			failed++
		}
		results = append(results, r)
	}
	if o.Format == "json" {
		return failed, WriteJSON(w, struct {
			Servers []WalkServer `json:"servers"`
		}{results})
	}
	writeWalk(w, results)
	return failed, nil
}

// pickServer keeps the server named only, when only is set.
func pickServer(servers []Discovered, only string) ([]Discovered, error) {
	if only == "" {
		return servers, nil
	}
	var names []string
	var picked []Discovered
	for _, s := range servers {
		names = append(names, s.Name)
		if s.Name == only {
			picked = append(picked, s)
		}
	}
	if len(picked) == 0 {
		hint := ""
		if s := diag.Suggest(only, names); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, &diag.InputError{Err: fmt.Errorf("--server %q: no MCP config declares it (found: %s)%s", only, strings.Join(names, ", "), hint)}
	}
	return picked, nil
}

// writeWalk prints the server list, then each server's diagnosis.
func writeWalk(w io.Writer, results []WalkServer) {
	fmt.Fprintf(w, "%d MCP servers in the workspace and user configs:\n", len(results))
	for _, r := range results {
		from := r.File + " (" + r.Client
		if r.Scope != "" {
			from += ", " + r.Scope
		}
		fmt.Fprintf(w, "  %-16s  %s)  %s\n", annotate.Clean(r.Name), annotate.Clean(from), annotate.Clean(r.Target))
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "%-16s  %-7s  %s\n", annotate.Clean(r.Name), strings.ToUpper(r.Status), annotate.Clean(r.Detail))
	}
}

// DoctorTarget is `mcptest doctor` with a target: its catalog read
// (live.LoadInput) and reported on, the connection layers by default
// (WriteLayers, after the auth failure's explanation in text), or the
// DESC-NNN description lint when lint is set (WriteLint).
func DoctorTarget(w io.Writer, t live.Target, getenv func(string) string, format string, lint bool) error {
	lists := live.AllLists
	if lint {
		lists = live.ListTools
	} else {
		// The tool-surface count needs the cl100k_base tables, a few
		// hundred ms to load: load them while the server starts.
		go tokens.Count("")
	}
	cat, err := live.LoadInput(t, getenv, lists)
	if !lint && format == "text" {
		WriteAuthFailure(w, t, err)
	}
	switch {
	case err != nil:
		return err
	case lint:
		return WriteLint(w, format, cat)
	}
	return WriteLayers(w, format, t, cat)
}
