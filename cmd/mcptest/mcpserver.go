package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/mcpserver"
)

// mcpServer is `mcptest mcp-server`: the front door on stdio, or with
// --install its entry in an agent's MCP config.
func (c *Command) mcpServer(args []string) error {
	fs := c.newFlags("mcp-server", "mcptest mcp-server [--enable-writes] [--root DIR] | --install [--enable-writes] [--install-path FILE]")
	writes := fs.Bool("enable-writes", false, "open the write-gated verbs (run_tool_test, propose_assertions, trigger_run, record_cassette) and raw command targets")
	install := fs.Bool("install", false, "write the mcptest entry into the agent config (--install-path) instead of serving")
	installPath := fs.String("install-path", mcpserver.DefaultInstallPath, "the agent config `FILE` --install writes (a Claude Code, Cursor or VS Code mcp.json)")
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
		changed, err := mcpserver.Install(*installPath, exe, *writes)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(c.Stdout, "%s: mcptest installed (%s mcp-server", *installPath, exe)
		} else {
			fmt.Fprintf(c.Stdout, "%s: mcptest already installed, unchanged (%s mcp-server", *installPath, exe)
		}
		if *writes {
			fmt.Fprint(c.Stdout, " --enable-writes")
		}
		fmt.Fprintln(c.Stdout, ")")
		return nil
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	// On an interrupt or a terminate the front door stops the recordings it
	// started (they write their cassettes) before it leaves.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	in, _ := c.Stdin.(io.ReadCloser)
	if in == nil {
		in = io.NopCloser(c.Stdin)
	}
	out, _ := c.Stdout.(io.WriteCloser)
	if out == nil {
		out = nopWriteCloser{c.Stdout}
	}
	// The front door reads its frames itself: a malformed line is answered
	// with a JSON-RPC error and the session goes on.
	return mcpserver.Serve(ctx, c.mcpOptions(abs, exe, *writes), &mcpserver.StdioTransport{Reader: in, Writer: out})
}

// mcpOptions hands the front door the CLI's own renderers, so validate_suite
// and the list verbs answer with exactly what the CLI prints.
func (c *Command) mcpOptions(root, exe string, writes bool) mcpserver.Options {
	return mcpserver.Options{
		Root:         root,
		EnableWrites: writes,
		Version:      version,
		Exe:          exe,
		Getenv:       c.Getenv,
		Validate: func(name string, data []byte) (any, error) {
			l, err := validateData(name, data)
			if err != nil {
				return nil, err
			}
			return validationDocument(l), nil
		},
		Catalog: func(ctx context.Context, what string, t live.Target) (any, error) {
			cat, err := live.Load(ctx, t, c.Getenv)
			if err != nil {
				var ae *live.AuthError
				if errors.As(err, &ae) {
					return nil, ae
				}
				return nil, err
			}
			// Round-trip through JSON so the verb answers the bytes the CLI prints.
			b, err := json.Marshal(catalogDoc(what, cat))
			return json.RawMessage(b), err
		},
		NewRunID: func() string { return newRunID(time.Now()) },
	}
}
