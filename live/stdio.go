package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exitGrace is how long closing a stdio session waits for the server to
// exit once its stdin is closed; a server still running then is sent
// SIGTERM, which a server may handle to finish its work. A server that
// exits on end of input (as the MCP stdio transport asks; the filesystem
// and memory reference servers take 5 to 15 ms) is gone within it; one
// that keeps running (a pending timer, as the everything server's log
// interval, or a request to the client still waiting for its answer)
// costs no more than this on every command that reads a live catalog.
const exitGrace = 20 * time.Millisecond

// killGrace is how long a server has to exit after SIGTERM before it is
// killed.
const killGrace = 2 * time.Second

// stdioTransport runs a stdio MCP server and talks to it over its stdin and
// stdout, newline-delimited JSON, with the SDK's framing. Closing it closes
// the server's stdin, waits exitGrace for the server to exit, then sends
// SIGTERM, waits killGrace, then kills it.
type stdioTransport struct {
	cmd *exec.Cmd
}

// Connect starts the command.
func (st *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := st.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := st.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := st.cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: st.cmd, stdin: stdin}
	// Closing the connection closes the server's input, not its output:
	// the process ends it.
	return (&mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: p}).Connect(ctx)
}

// process is a running stdio server's input; closing it ends the server.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	once  sync.Once
	err   error
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server once: stdin closed, exitGrace to exit, SIGTERM,
// killGrace to exit, SIGKILL. The error is the process's exit error when
// the server did not exit on its own, nil when it did.
func (p *process) Close() error {
	p.once.Do(func() { p.err = p.end() })
	return p.err
}

func (p *process) end() error {
	closeErr := p.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	wait := func(d time.Duration) bool {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-exited:
			return true
		case <-timer.C:
			return false
		}
	}
	if wait(exitGrace) {
		return closeErr
	}
	// Signal fails where SIGTERM does not exist (Windows): kill at once.
	if p.cmd.Process.Signal(syscall.SIGTERM) == nil && wait(killGrace) {
		return nil
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop the server: %w", err)
	}
	if !wait(killGrace) {
		return errors.New("stop the server: it did not exit after SIGKILL")
	}
	return nil
}

// workspaceRoot is the one root a stdio server is given when it asks
// (roots/list): the target's directory, else the working directory.
func workspaceRoot(t Target) *mcp.Root {
	dir := t.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &mcp.Root{URI: rootURI(dir), Name: filepath.Base(dir)}
}

// rootURI is the file URI of an absolute directory.
func rootURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// newClient is the MCP client for a target. A stdio server is offered the
// roots capability and answered with the workspace root; an HTTP server,
// which may be another machine, is offered no roots, so no local path
// leaves the machine. Elicitation and sampling are declared only when the
// target asks for them (a test scripts the answers), with the slot the
// session's Asker goes in; the slot is nil otherwise.
func newClient(t Target) (*mcp.Client, *askSlot) {
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if t.URL == "" && t.Catalog == "" {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	var ask *askSlot
	if t.Elicitation || t.Sampling {
		ask = &askSlot{}
	}
	if t.Elicitation {
		opts.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
		opts.ElicitationHandler = ask.elicit
	}
	if t.Sampling {
		opts.Capabilities.Sampling = &mcp.SamplingCapabilities{}
		opts.CreateMessageHandler = ask.sample
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptest", Version: "v1"}, opts)
	if opts.Capabilities.RootsV2 != nil {
		c.AddRoots(workspaceRoot(t)) //nolint:staticcheck // roots are deprecated from the next revision on; servers of this one ask for them
	}
	return c, ask
}
