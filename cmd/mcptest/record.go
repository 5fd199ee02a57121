package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/redact"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/live"
)

// recordContext is the lifetime of a `record --listen` proxy: until an
// interrupt. Tests replace it.
var recordContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// recordListening is told the proxy's address once --listen is serving.
var recordListening = func(addr string) {}

// record stands between an agent and one MCP server: it serves the
// server's catalog to the agent (over stdio, or streamable HTTP with
// --listen), forwards every call, and writes what passed as a v1 cassette.
// Each client session is one run; --append adds the runs to an existing
// cassette, so several sessions make a multi-run cassette.
func (c *Command) record(args []string) error {
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
	var prior map[string]any
	if *appendRuns {
		if prior, err = readRecording(*output); err != nil {
			return err
		}
	}

	ctx, cancel := recordContext()
	defer cancel()
	// The child server lives as long as ctx; its start, handshake and
	// catalog are bounded by the target's timeout.
	upstream, err := live.Dial(ctx, t, c.Getenv)
	if err != nil {
		return err
	}
	defer upstream.Close()
	cat, err := upstream.Catalog(ctx)
	if err != nil {
		return err
	}

	rec := &recording{}
	proxy := live.ProxyServer(upstream, cat, rec.add)
	started := time.Now().UTC()
	if *listen == "" {
		in, _ := c.Stdin.(io.ReadCloser)
		if in == nil {
			in = io.NopCloser(c.Stdin)
		}
		out, _ := c.Stdout.(io.WriteCloser)
		if out == nil {
			out = nopWriteCloser{c.Stdout}
		}
		err = proxy.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
			return err
		}
	} else {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return inputErr("--listen %s: %v", *listen, err)
		}
		srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return proxy }, nil), ReadHeaderTimeout: 10 * time.Second}
		go func() { <-ctx.Done(); srv.Close() }()
		fmt.Fprintf(c.Stderr, "mcptest: recording: point the agent at http://%s (interrupt to stop and write %s)\n", ln.Addr(), *output)
		recordListening(ln.Addr().String())
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}

	doc := rec.cassette(prior, server, *agent, started, cat, *listen == "")
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if _, err := cassette.Read(*output, data); err != nil {
		return fmt.Errorf("the recording is not a valid cassette (a bug): %w", err)
	}
	if err := safefile.WriteOutput(*output, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write cassette: %w", err)
	}
	runs, _ := doc["runs"].([]any)
	calls, sessions := rec.counts()
	fmt.Fprintf(c.Stderr, "mcptest: recorded %d calls in %d session(s); %s holds %d run(s)\n", calls, sessions, *output, len(runs))
	return nil
}

// recording collects the forwarded calls per client session, in the order
// the sessions made their first call.
type recording struct {
	mu       sync.Mutex
	order    []string
	sessions map[string][]live.ProxyCall
}

func (r *recording) add(call live.ProxyCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions == nil {
		r.sessions = map[string][]live.ProxyCall{}
	}
	if _, ok := r.sessions[call.Session]; !ok {
		r.order = append(r.order, call.Session)
	}
	r.sessions[call.Session] = append(r.sessions[call.Session], call)
}

// counts returns how many calls and sessions were recorded.
func (r *recording) counts() (calls, sessions int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cs := range r.sessions {
		calls += len(cs)
	}
	return calls, len(r.order)
}

// cassette renders the v1 cassette: prior's runs (when appending) then one
// run per session, arguments and results redacted. The stdio session is a
// run even when it made no call (an agent that called nothing); over HTTP
// only the sessions that called a tool are seen.
func (r *recording) cassette(prior map[string]any, server, agent string, started time.Time, cat *live.Catalog, stdio bool) map[string]any {
	// A call still being forwarded may land while the cassette is built.
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := map[string]any{"mcptest_cassette": cassette.Version}
	var runs []any
	catalog := map[string]any{}
	if prior != nil {
		for k, v := range prior {
			doc[k] = v
		}
		runs, _ = prior["runs"].([]any)
		if pc, ok := prior["catalog"].(map[string]any); ok {
			catalog = pc
		}
	}
	tools := make([]any, 0, len(cat.Tools))
	for _, t := range cat.RawTools() {
		tools = append(tools, t)
	}
	catalog[server] = map[string]any{"tools": tools}
	doc["catalog"] = catalog
	doc["recorded_at"] = started.Format(time.RFC3339)
	if agent != "" {
		doc["agent"] = agent
	}
	order := r.order
	if len(order) == 0 && stdio {
		order = []string{""}
	}
	for _, id := range order {
		calls := []any{}
		for _, c := range r.sessions[id] {
			calls = append(calls, map[string]any{
				"server":      server,
				"tool":        c.Tool,
				"arguments":   redact.Value(c.Arguments),
				"is_error":    c.IsError,
				"result":      redact.Value(c.Result),
				"duration_ms": c.DurationMS,
			})
		}
		runs = append(runs, map[string]any{"turns": []any{map[string]any{"calls": calls}}})
	}
	if runs == nil {
		runs = []any{}
	}
	doc["runs"] = runs
	return doc
}

// readRecording reads the cassette --append adds to: nothing when the file
// does not exist yet, else a valid v1 cassette.
func readRecording(path string) (map[string]any, error) {
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
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, inputErr("%s: %v", path, err)
	}
	return doc, nil
}
