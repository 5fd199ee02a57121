package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/live"
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
		return mcpserver.InstallFrontDoor(c.Stdout, mcpserver.InstallRequest{Root: *root, Client: *client, Path: *installPath, Absolute: *absolute, Writes: *writes, Exe: exe, Getenv: c.Getenv})
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
	in, out := live.Streams(c.Stdin, c.protocolOut())
	// The front door reads its frames itself: a malformed line is answered
	// with a JSON-RPC error and the session goes on.
	return mcpserver.Serve(ctx, c.mcpOptions(abs, exe, *writes), &mcpserver.StdioTransport{Reader: in, Writer: out})
}

// mcpOptions are the front door's options.
func (c *Command) mcpOptions(root, exe string, writes bool) mcpserver.Options {
	return mcpserver.Options{Root: root, EnableWrites: writes, Version: version, Exe: exe, Getenv: c.Getenv}
}
