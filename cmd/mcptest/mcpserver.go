package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/mcpserver"
)

// mcpServer is `mcptest mcp-server`: the front door on stdio, or with
// --install its entry in an agent's MCP config.
func (c *Command) mcpServer(ctx context.Context, args []string) error {
	fs := c.newFlags("mcp-server", "mcptest mcp-server [--enable-writes] [--root DIR]\n       mcptest mcp-server --install [--client claude-code|cursor|vscode|claude-desktop] [--install-path FILE] [--absolute] [--enable-writes] [--root DIR]")
	writes := fs.Bool("enable-writes", false, "open the write-gated verbs (run_tool_test, propose_assertions, trigger_run, record_cassette) and raw command targets")
	install := fs.Bool("install", false, "write the mcptest entry into the client's MCP config instead of serving")
	client := fs.String("client", "", "with --install, the `CLIENT` whose file and shape to write: claude-code (.mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json) or claude-desktop (its user config); default: every client whose file is in --root, else claude-code")
	installPath := fs.String("install-path", "", "with --install, write this `FILE` instead of the client's (its shape from --client, else from its name)")
	absolute := fs.Bool("absolute", false, "with --install, write this binary's absolute path as the command instead of mcptest from PATH (the default for claude-desktop, whose file is not committed)")
	root := fs.String("root", ".", "the workspace `DIR`: its .mcptest/ store, mcptest.yml and cassettes")
	rest, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return inputErr("mcp-server takes no arguments, got %q", rest)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate the mcptest binary: %w", err)
	}
	if *install {
		return c.installFrontDoor(installRequest{root: *root, client: *client, path: *installPath, absolute: *absolute, writes: *writes, exe: exe})
	}
	if *client != "" || *installPath != "" || *absolute {
		return inputErr("--client, --install-path and --absolute go with --install")
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	// On an interrupt or a terminate (ctx is cancelled) the front door
	// stops the recordings it started (they write their cassettes) before
	// it leaves.
	in, out := c.stdio()
	// The front door reads its frames itself: a malformed line is answered
	// with a JSON-RPC error and the session goes on.
	return mcpserver.Serve(ctx, c.mcpOptions(abs, exe, *writes), &mcpserver.StdioTransport{Reader: in, Writer: out})
}

// installRequest is what `mcp-server --install` was asked to write.
type installRequest struct {
	root, client, path string
	absolute, writes   bool
	exe                string
}

// installFrontDoor is `mcp-server --install`: the mcptest entry in each
// target file, with the command mcptest (found on PATH) unless --absolute
// or the file is Claude Desktop's.
func (c *Command) installFrontDoor(r installRequest) error {
	targets, err := mcpserver.InstallTargets(r.root, r.client, r.path, c.Getenv)
	if err != nil {
		return inputErr("%v", err)
	}
	for _, t := range targets {
		command := "mcptest"
		if r.absolute || t.Client.Path == "" {
			command = r.exe
		} else if !mcpserver.OnPath(c.Getenv("PATH"), "mcptest") {
			return inputErr("mcptest is not on PATH, so %s's command `mcptest` would not start: install it (go install github.com/mcptest/mcptest/cmd/mcptest@latest, or a release archive) or pass --absolute to write %s (a path that is only right on this machine)", t.Path, r.exe)
		}
		changed, err := mcpserver.InstallFor(t.Path, t.Client, command, r.writes)
		if err != nil {
			return err
		}
		state := "mcptest installed"
		if !changed {
			state = "mcptest already installed, unchanged"
		}
		line := fmt.Sprintf("%s: %s for %s (%s mcp-server", t.Path, state, t.Client.Name, command)
		if r.writes {
			line += " --enable-writes"
		}
		fmt.Fprintln(c.Stdout, line+")")
	}
	return nil
}

// mcpOptions are the front door's options.
func (c *Command) mcpOptions(root, exe string, writes bool) mcpserver.Options {
	return mcpserver.Options{Root: root, EnableWrites: writes, Version: version, Exe: exe, Getenv: c.Getenv}
}
