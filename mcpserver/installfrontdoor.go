package mcpserver

import (
	"fmt"
	"io"

	"github.com/mcptest/mcptest/internal/diag"
)

// InstallRequest is what `mcptest mcp-server --install` was asked to write.
type InstallRequest struct {
	Root, Client, Path string // --root, --client, --install-path
	// Absolute writes Exe (this binary's absolute path) as the command
	// instead of mcptest from PATH.
	Absolute bool
	Writes   bool // --enable-writes
	Exe      string
	Getenv   func(string) string
}

// InstallFrontDoor writes the mcptest entry into each file InstallTargets
// resolves, with the command mcptest (found on PATH) unless r.Absolute or
// the file is Claude Desktop's, and prints a line per file to w. An
// unknown client, or mcptest missing from PATH, is a *diag.InputError.
func InstallFrontDoor(w io.Writer, r InstallRequest) error {
	targets, err := InstallTargets(r.Root, r.Client, r.Path, r.Getenv)
	if err != nil {
		return &diag.InputError{Err: err}
	}
	for _, t := range targets {
		command := "mcptest"
		if r.Absolute || t.Client.Path == "" {
			command = r.Exe
		} else if !OnPath(r.Getenv("PATH"), "mcptest") {
			return &diag.InputError{Err: fmt.Errorf("mcptest is not on PATH, so %s's command `mcptest` would not start: install it (go install github.com/mcptest/mcptest/cmd/mcptest@latest, or a release archive) or pass --absolute to write %s (a path that is only right on this machine)", t.Path, r.Exe)}
		}
		changed, err := InstallFor(t.Path, t.Client, command, r.Writes, t.Within)
		if err != nil {
			return err
		}
		state := "mcptest installed"
		if !changed {
			state = "mcptest already installed, unchanged"
		}
		line := fmt.Sprintf("%s: %s for %s (%s mcp-server", t.Path, state, t.Client.Name, command)
		if r.Writes {
			line += " --enable-writes"
		}
		fmt.Fprintln(w, line+")")
	}
	return nil
}
