package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
)

// RecordOptions is what `mcptest record` was asked to do.
type RecordOptions struct {
	Target Target
	Getenv func(string) string
	// Output is the cassette to write; with Append, its runs are kept and
	// the recording's added after them.
	Output string
	Append bool
	// Server names the server in the cassette (default: the target's
	// name, else "target"); Agent, when set, is the cassette's agent.
	Server, Agent string
	// Listen, when set, serves the agent over streamable HTTP on this
	// host:port until ctx is cancelled; else it is served on Stdin and
	// Stdout (ServeStdio).
	Listen string
	Stdin  io.Reader
	Stdout io.Writer
	// Log gets the progress lines; Listening, when set, is told the
	// address Listen serves.
	Log       io.Writer
	Listening func(addr string)
	// WriteFile, when set, writes the cassette (by rename); nil is
	// safefile.WriteOutput. The command line sets it to its writer, which
	// masks the secrets of the invocation.
	WriteFile func(path string, data []byte) error
}

// Record stands between an agent and the target: it serves the target's
// catalog to the agent, forwards every call, and when the agent leaves (or
// ctx is cancelled) writes what passed as a v1 cassette, one run per
// client session. The proxy and the target live until ctx is cancelled;
// the target's start, handshake and catalog are bounded by its timeout.
func Record(ctx context.Context, o RecordOptions) error {
	if o.Listen == "" && cli.IsTerminalInput(o.Stdin) {
		return diag.Input("%s", recordOnTerminal)
	}
	server := cmp.Or(o.Server, o.Target.Name, "target")
	if o.Append {
		// Refuse a file that is no cassette before the session starts; it
		// is read again when the session ends.
		if _, err := ReadRecording(o.Output); err != nil {
			return err
		}
	}
	// Over stdio the client is read from the start, while the upstream
	// starts: its server/discover is answered at once (handshake.go).
	var front *stdioFront
	if o.Listen == "" {
		var err error
		if front, err = startFront(ctx, o.Stdin, o.Stdout); err != nil {
			return err
		}
		defer front.Close()
	}
	upstream, err := Dial(ctx, o.Target, o.Getenv)
	if err != nil {
		return err
	}
	defer upstream.Close()
	cat, err := upstream.Catalog(ctx)
	if err != nil {
		return err
	}
	rec := &Recording{}
	proxy := ProxyServer(upstream, cat, front != nil, rec.Open, rec.Add)
	proxy.AddReceivingMiddleware(rec.Middleware)
	started := time.Now().UTC()
	if front != nil {
		rec.Seen("") // the process serves one connection, whatever it sends
		front.Ready(cat)
		err = front.Serve(ctx, proxy)
	} else {
		err = ProxyHTTP(ctx, proxy, o.Listen, o.Output, o.Log, o.Listening)
	}
	if err != nil {
		return err
	}
	calls, sessions, skipped := rec.Counts()
	status := fmt.Sprintf("mcptest: recorded %s in %s: appended %s, skipped %s that never initialized a session",
		plural(calls, "call"), plural(sessions, "session"), plural(sessions, "run"), plural(skipped, "connection"))
	if sessions == 0 {
		// Nothing to add: the file is left as it was, so a probe's
		// process cannot race the session's over it.
		fmt.Fprintf(o.Log, "%s; %s not written\n", status, o.Output)
		return nil
	}
	doc, err := o.write(rec, server, started, cat)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "%s; %s holds %s\n", status, o.Output, plural(len(doc.Runs), "run"))
	return nil
}

// appendWait bounds how long `record --append` waits for another record
// process that is writing the same directory.
const appendWait = 2 * time.Minute

// write writes the recording to o.Output and returns what it wrote. With
// Append, the file is read when the session ends, not when it started (a
// client may start its next session, another record process, before this
// one ended, and that one's runs are in the file now), and the read and the
// write hold the lock of the cassette's directory, so two sessions that end
// at the same instant both keep their runs.
func (o RecordOptions) write(rec *Recording, server string, started time.Time, cat *Catalog) (*cassette.File, error) {
	var prior *cassette.File
	path := o.Output
	if o.Append {
		// The directory is locked, so it must exist first: the write
		// creates a missing one too (--output cassettes/new.json). The
		// lock is the directory of the file the path resolves to, not of
		// a link to it: every spelling of one cassette (a link, the real
		// path) takes the same lock, reads and writes the same file.
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("--append %s: %w", o.Output, err)
		}
		path = safefile.Resolve(path)
		dir, named := filepath.Dir(path), filepath.Dir(o.Output)
		if abs, _ := filepath.Abs(named); abs != dir {
			named += " (" + dir + ")" // a link: say which directory
		}
		unlock, err := safefile.LockDir(dir, appendWait, func() {
			fmt.Fprintf(o.Log, "mcptest: waiting for another process writing in %s to finish\n", named)
		})
		if err != nil {
			return nil, fmt.Errorf("--append %s: %w", o.Output, err)
		}
		defer unlock()
		if prior, err = ReadRecording(path); err != nil {
			return nil, err
		}
	}
	doc := rec.Cassette(prior, server, o.Agent, started, cat)
	return doc, writeRecording(path, doc, o.WriteFile)
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeRecording writes the cassette after reading it back: a recording
// that is not a valid cassette is a bug, never a file.
func writeRecording(path string, doc *cassette.File, write func(string, []byte) error) error {
	data, err := doc.Encode()
	if err != nil {
		return err
	}
	if _, err := cassette.Read(path, data); err != nil {
		return fmt.Errorf("the recording is not a valid cassette (a bug): %w", err)
	}
	if write == nil {
		write = func(path string, data []byte) error { return safefile.WriteOutput(path, data, 0o644) }
	}
	if err := write(path, data); err != nil {
		return fmt.Errorf("write cassette: %w", err)
	}
	return nil
}

// ReadRecording reads the cassette a recording appends to: nothing when
// the file does not exist yet, else a valid v1 cassette. A file refused
// before it was read is its *diag.Error; one that is no v1 cassette is an
// *diag.InputError.
func ReadRecording(path string) (*cassette.File, error) {
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
		return nil, &diag.InputError{Err: err}
	}
	if cas.Format != cassette.FormatV1 {
		return nil, diag.Input("%s: --append adds to an mcptest v1 cassette, this is %s", path, cas.Format)
	}
	doc, err := cassette.DecodeFile(path, data)
	if err != nil {
		return nil, diag.Input("%v", err)
	}
	return doc, nil
}

// ProxyHTTP serves the recording proxy over streamable HTTP on listen
// until ctx is cancelled (an interrupt or a terminate), telling log (and
// listening, when set) where to point the agent. An address that cannot
// be listened on is an *diag.InputError.
func ProxyHTTP(ctx context.Context, proxy *mcp.Server, listen, output string, log io.Writer, listening func(string)) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return diag.Input("--listen %s: %v", listen, err)
	}
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return proxy }, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Fprintf(log, "mcptest: recording: point the agent at http://%s (interrupt to stop and write %s)\n", ln.Addr(), output)
	if listening != nil {
		listening(ln.Addr().String())
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// recordOnTerminal is the answer to `mcptest record` started by hand in a
// terminal, where what is typed would be read as MCP messages.
const recordOnTerminal = "record is an MCP server on stdin, and stdin is a terminal: an agent's MCP client starts it " +
	"in place of the server it records and talks JSON-RPC to it. Start it from the client's config, the server's command " +
	"after `--` (command: mcptest, args: [record, --output, cassettes/agent.json, --append, --, npx, -y, " +
	"@modelcontextprotocol/server-everything]), or record a client that connects over HTTP with --listen 127.0.0.1:8931 " +
	"(docs/cassettes.md)"
