package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/redact"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// walkServer is one discovered server in `doctor --format json`.
type walkServer struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Client  string `json:"client"`
	Scope   string `json:"scope,omitempty"`
	Target  string `json:"target"`
	Status  string `json:"status"` // ok, fail or skipped
	Detail  string `json:"detail,omitempty"`
	Tools   int    `json:"tools,omitempty"`
	Surface int    `json:"tool_surface_tokens,omitempty"`
}

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
	var results []walkServer
	for _, s := range servers {
		results = append(results, c.diagnose(s, root, home, timeout))
	}
	failed := 0
	for _, r := range results {
		if r.Status == "fail" {
			failed++
		}
	}
	if format == "json" {
		if err := writeJSON(c.Stdout, struct {
			Servers []walkServer `json:"servers"`
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

// diagnose starts one discovered server (unless it cannot be) and reads
// its catalog.
func (c *Command) diagnose(s mcpserver.Discovered, root, home string, timeout time.Duration) walkServer {
	r := walkServer{Name: s.Name, File: mcpserver.Relative(s.File, root, home), Client: s.Client, Scope: s.Scope}
	t := discoveredTarget(s, root, c.Getenv)
	t.Timeout = timeout
	hide := secretsOf(s, c.Getenv)
	r.Target = hide(shownTarget(s))
	switch {
	case len(s.Prompts) > 0:
		r.Status, r.Detail = "skipped", "not started: it asks VS Code for the input(s) "+strings.Join(s.Prompts, ", ")+" when it starts; diagnose it with --url or -- COMMAND and the values"
		return r
	case len(s.Unset) > 0:
		r.Status, r.Detail = "skipped", "not started: it references the unset environment variable(s) "+strings.Join(s.Unset, ", ")+"; set them and run again"
		return r
	}
	cat, err := live.Load(context.Background(), t, c.Getenv)
	if err != nil {
		var ae *live.AuthError
		layer := "connect"
		if errors.As(err, &ae) {
			layer = fmt.Sprintf("auth (HTTP %d)", ae.Status)
		}
		r.Status, r.Detail = "fail", hide(layer+": "+flatErr(err))
		return r
	}
	r.Status, r.Tools = "ok", len(cat.Tools)
	r.Surface = toolSurface(cat)
	info := "server did not name itself"
	if cat.ServerInfo != nil {
		info = fmt.Sprintf("server %s %s", cat.ServerInfo.Name, cat.ServerInfo.Version)
	}
	r.Detail = hide(fmt.Sprintf("initialize ok (protocol %s, %s); %d tools, %d resources, %d prompts", cat.ProtocolVersion, info, len(cat.Tools), len(cat.Resources), len(cat.Prompts)))
	return r
}

// shownTarget is a discovered entry's target as its config writes it: the
// url or the argv with their ${VAR} references unexpanded, so the walk
// names where a value comes from and never prints the value.
func shownTarget(s mcpserver.Discovered) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(s.Command, " ")
}

// secretsOf returns what the walk passes every line it prints about s
// through: each value an entry's ${VAR} reference expands to (its env,
// headers, args or url may hold a token) is shown as its reference, and
// redact.String masks what is left (a password in a url's user-info, a
// literal key of a known shape).
func secretsOf(s mcpserver.Discovered, getenv func(string) string) func(string) string {
	var pairs [][2]string // value, reference
	for _, v := range s.Strings() {
		for _, ref := range mcpserver.References(v) {
			if val := mcpserver.Expand(ref, getenv); len(val) >= 2 && val != ref {
				pairs = append(pairs, [2]string{val, ref})
			}
		}
	}
	// Longer values first, so a value that contains another is masked whole.
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	return func(text string) string {
		for _, p := range pairs {
			text = strings.ReplaceAll(text, p[0], p[1])
		}
		return redact.String(text)
	}
}

// discoveredTarget is the live target a discovered entry describes, with
// its variables expanded as the client would; a remote server's
// "Authorization: Bearer ${VAR}" header becomes --bearer-token-env VAR.
func discoveredTarget(s mcpserver.Discovered, root string, getenv func(string) string) live.Target {
	t := live.Target{Name: s.Name, URL: mcpserver.Expand(s.URL, getenv)}
	for _, a := range s.Command {
		t.Command = append(t.Command, mcpserver.Expand(a, getenv))
	}
	if len(s.Env) > 0 {
		t.Env = map[string]string{}
		for k, v := range s.Env {
			t.Env[k] = mcpserver.Expand(v, getenv)
		}
	}
	if len(t.Command) > 0 && s.Scope == "" {
		t.Dir = root
	}
	for k, v := range s.Headers {
		if strings.EqualFold(k, "authorization") {
			if m := bearerRef.FindStringSubmatch(v); m != nil {
				t.BearerTokenEnv = m[1]
			}
		}
	}
	return t
}

// writeWalk prints the server list, then each server's diagnosis.
func writeWalk(c *Command, results []walkServer) {
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
