package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/live"
)

// record stands between an agent and one MCP server: it serves the
// server's catalog to the agent (over stdio, or streamable HTTP with
// --listen), forwards every call, and writes what passed as a v1 cassette.
// Each client session is one run; --append adds the runs to an existing
// cassette, so several sessions make a multi-run cassette.
func (c *Command) record(ctx context.Context, args []string) error {
	fs := c.newFlags("record", "mcptest record --output CASSETTE.json [--append] [--name SERVER] [--agent NAME] [--listen ADDR] "+liveTargetSynopsis)
	tf := addTargetFlags(fs, false)
	output := fs.String("output", "", "write the cassette to `FILE` (required)")
	appendRuns := fs.Bool("append", false, "add this recording's runs to the cassette already at --output (a multi-run cassette)")
	name := fs.String("name", "", "the server's `NAME` in the cassette (default: the --server name, else \"target\")")
	agent := fs.String("agent", "", "the agent's `NAME`, recorded as the cassette's agent")
	listen := fs.String("listen", "", "serve the agent over streamable HTTP on `ADDR` (host:port) instead of stdio; stop with an interrupt")
	if err := tf.parse(args); err != nil {
		return err
	}
	if *output == "" {
		return inputErr("record needs --output CASSETTE.json: where to write the recording")
	}
	t, err := tf.target()
	if err != nil {
		return err
	}
	server := *name
	if server == "" {
		server = t.Name
	}
	if server == "" {
		server = "target"
	}
	var prior *cassette.File
	if *appendRuns {
		if prior, err = readRecording(*output); err != nil {
			return err
		}
	}

	// The proxy lives until ctx is cancelled (an interrupt or a terminate),
	// and the child server as long; its start, handshake and catalog are
	// bounded by the target's timeout.
	upstream, err := live.Dial(ctx, t, c.Getenv)
	if err != nil {
		return err
	}
	defer upstream.Close()
	cat, err := upstream.Catalog(ctx)
	if err != nil {
		return err
	}

	rec := &live.Recording{}
	proxy := live.ProxyServer(upstream, cat, rec.Open, rec.Add)
	started := time.Now().UTC()
	if *listen == "" {
		err = c.serveStdio(ctx, proxy)
	} else {
		err = c.proxyHTTP(ctx, proxy, *listen, *output)
	}
	if err != nil {
		return err
	}

	doc := rec.Cassette(prior, server, *agent, started, cat, *listen == "")
	data, err := doc.Encode()
	if err != nil {
		return err
	}
	if _, err := cassette.Read(*output, data); err != nil {
		return fmt.Errorf("the recording is not a valid cassette (a bug): %w", err)
	}
	if err := safefile.WriteOutput(*output, data, 0o644); err != nil {
		return fmt.Errorf("write cassette: %w", err)
	}
	calls, sessions := rec.Counts()
	fmt.Fprintf(c.Stderr, "mcptest: recorded %d calls in %d session(s); %s holds %d run(s)\n", calls, sessions, *output, len(doc.Runs))
	return nil
}

// readRecording reads the cassette --append adds to: nothing when the file
// does not exist yet, else a valid v1 cassette.
func readRecording(path string) (*cassette.File, error) {
	data, err := cassette.Load(path, path)
	var refused *diag.Error
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case errors.As(err, &refused):
		return nil, refused
	case err != nil:
		return nil, fmt.Errorf("read cassette: %w", err)
	}
	cas, err := cassette.Read(path, data)
	if err != nil {
		return nil, &exitError{code: ExitInput, err: err}
	}
	if cas.Format != cassette.FormatV1 {
		return nil, inputErr("%s: --append adds to an mcptest v1 cassette, this is %s", path, cas.Format)
	}
	doc, err := cassette.DecodeFile(path, data)
	if err != nil {
		return nil, inputErr("%v", err)
	}
	return doc, nil
}

// serveStdio serves an MCP server (the recording proxy, the mock) to a
// client on stdin and stdout until the client leaves or ctx is cancelled.
func (c *Command) serveStdio(ctx context.Context, s *mcp.Server) error {
	in, out := c.stdio()
	err := s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return err
	}
	return nil
}

// stdio is the command's stdin and stdout as a transport needs them, with
// a Close that does nothing where the stream has none.
func (c *Command) stdio() (io.ReadCloser, io.WriteCloser) {
	in, _ := c.Stdin.(io.ReadCloser)
	if in == nil {
		in = io.NopCloser(c.Stdin)
	}
	out, _ := c.Stdout.(io.WriteCloser)
	if out == nil {
		out = nopWriteCloser{c.Stdout}
	}
	return in, out
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// proxyHTTP serves the recording proxy over streamable HTTP on listen
// until ctx is cancelled (an interrupt or a terminate).
func (c *Command) proxyHTTP(ctx context.Context, proxy *mcp.Server, listen, output string) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return inputErr("--listen %s: %v", listen, err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return proxy }, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Fprintf(c.Stderr, "mcptest: recording: point the agent at http://%s (interrupt to stop and write %s)\n", ln.Addr(), output)
	if c.listening != nil {
		c.listening(ln.Addr().String())
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
