package live

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The recording proxy's handshakes. A client library opens a session in one
// of two ways: the initialize request of the 2025 revisions, or, first, the
// server/discover request of the 2026-07-28 revision (SEP-2575), which some
// libraries send with a short timeout (the AI SDK's @ai-sdk/mcp 2: one
// second) before falling back to initialize on the same connection. The
// proxy answers server/discover itself, at once, from what it knows of the
// upstream server, and its answer never touches the session's state, so an
// initialize after a discover opens the session as one without it would.
//
// What the proxy claims is what the upstream answered it, never more:
// before the upstream has answered (its process is still starting), the
// 2025 revisions only, served by initialize, which waits for the upstream,
// and no capability; after, the revisions up to the one the upstream
// negotiated and the capabilities of the upstream that the proxy forwards.

// modernRevision is the first protocol revision with server/discover and
// sessionless requests.
const modernRevision = "2026-07-28"

// proxyVersions are the protocol revisions the proxy serves over an
// upstream that negotiated upstream ("" before it answered): the revisions
// the SDK serves that are no newer than the upstream's, newest first; none
// of the sessionless ones before the upstream answered, or when the
// proxy's transport does not serve them (modern false: the SDK's stateful
// streamable HTTP handler, which `record --listen` serves on). An upstream
// older than every revision the SDK serves gets the oldest.
func proxyVersions(upstream string, modern bool) []string {
	all := mcp.SupportedProtocolVersions()
	var out []string
	for _, v := range all {
		if (upstream == "" || !modern) && v >= modernRevision {
			continue
		}
		if upstream == "" || v <= upstream {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		out = all[len(all)-1:]
	}
	return out
}

// proxyCapabilities are the capabilities the proxy claims over the catalog
// of the upstream (nil before it answered: none): those of the upstream's
// that the proxy forwards (tools, resources, prompts), with no list-changed
// notification or resource subscription, which the proxy does not relay.
func proxyCapabilities(cat *Catalog) *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{}
	if cat == nil || cat.Capabilities == nil {
		return caps
	}
	if cat.Capabilities.Tools != nil || len(cat.Tools) > 0 {
		caps.Tools = &mcp.ToolCapabilities{}
	}
	if cat.Capabilities.Resources != nil || len(cat.Resources) > 0 || len(cat.ResourceTemplates) > 0 {
		caps.Resources = &mcp.ResourceCapabilities{}
	}
	if cat.Capabilities.Prompts != nil || len(cat.Prompts) > 0 {
		caps.Prompts = &mcp.PromptCapabilities{}
	}
	return caps
}

// proxyDiscover is the proxy's answer to server/discover over the catalog
// of the upstream (nil before it answered), on a transport that serves the
// sessionless revisions or not (modern).
func proxyDiscover(cat *Catalog, modern bool) *mcp.DiscoverResult {
	res := &mcp.DiscoverResult{Capabilities: proxyCapabilities(cat)}
	if cat == nil {
		res.SupportedVersions = proxyVersions("", modern)
		return res
	}
	res.SupportedVersions = proxyVersions(cat.ProtocolVersion, modern)
	res.Instructions = cat.Instructions
	if cat.ServerInfo != nil {
		res.Meta = mcp.Meta{mcp.MetaKeyServerInfo: cat.ServerInfo}
	}
	return res
}

// handshakeMiddleware answers server/discover with proxyDiscover(cat, modern),
// never calling the SDK's handler, which would record the discover's
// client as the session's and so refuse an initialize after it
// ("duplicate initialize received"), and negotiates an initialize down to
// the upstream's revision. The proxy's server serves every revision of the
// SDK's, so that no request of a revision it does not claim is refused
// before this sees it (the SDK refuses those before any middleware, a
// server/discover among them, which a client then takes for a refusal of
// the revision it asked rather than for a fall back to initialize).
func handshakeMiddleware(cat *Catalog, modern bool) mcp.Middleware {
	res := proxyDiscover(cat, modern)
	newest := res.SupportedVersions[0]
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "server/discover":
				answer := *res
				return &answer, nil
			case "initialize":
				if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil && p.ProtocolVersion > newest {
					p.ProtocolVersion = newest
				}
			}
			return next(ctx, method, req)
		}
	}
}

// stdioFront is the recording proxy's stdio connection from the process's
// start: it reads the client at once, answers each server/discover itself
// (from the upstream's catalog once Ready, before that as proxyDiscover(nil)
// says), and keeps every other message, in order, for the proxy's session,
// which Serve starts once the upstream has answered.
type stdioFront struct {
	conn   mcp.Connection
	cancel context.CancelFunc
	msgs   chan frontMsg
	// cat is the upstream's catalog, nil until Ready.
	cat atomic.Pointer[Catalog]
	wmu sync.Mutex
}

type frontMsg struct {
	msg jsonrpc.Message
	err error
}

// startFront starts reading the client on in and out.
func startFront(ctx context.Context, in io.Reader, out io.Writer) (*stdioFront, error) {
	r, w := Streams(in, out)
	conn, err := (&mcp.IOTransport{Reader: r, Writer: w}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &stdioFront{conn: conn, cancel: cancel, msgs: make(chan frontMsg, 64)}
	go f.read(ctx)
	return f, nil
}

// Ready sets the upstream's catalog, which later discovers are answered
// from.
func (f *stdioFront) Ready(cat *Catalog) { f.cat.Store(cat) }

func (f *stdioFront) read(ctx context.Context) {
	defer close(f.msgs)
	for {
		msg, err := f.conn.Read(ctx)
		if err != nil {
			select {
			case f.msgs <- frontMsg{err: err}:
			case <-ctx.Done():
			}
			return
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "server/discover" && req.IsCall() {
			// A failed write ends the connection: the next read says so.
			_ = f.answerDiscover(ctx, req)
			continue
		}
		select {
		case f.msgs <- frontMsg{msg: msg}:
		case <-ctx.Done():
			return
		}
	}
}

// answerDiscover writes the proxy's answer to a server/discover request,
// marked complete and naming the server as the SDK marks an answer of the
// 2026-07-28 revision.
func (f *stdioFront) answerDiscover(ctx context.Context, req *jsonrpc.Request) error {
	data, err := json.Marshal(proxyDiscover(f.cat.Load(), true))
	if err != nil {
		return err
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	fields["resultType"] = "complete"
	result, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return f.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: result})
}

// Connect hands the proxy's session the connection: what the client sent
// before, then what it sends.
func (f *stdioFront) Connect(context.Context) (mcp.Connection, error) { return f, nil }

// Read is the next message of the client that is not a server/discover.
func (f *stdioFront) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m, ok := <-f.msgs:
		if !ok {
			return nil, io.EOF
		}
		return m.msg, m.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes a message to the client.
func (f *stdioFront) Write(ctx context.Context, msg jsonrpc.Message) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return f.conn.Write(ctx, msg)
}

// Close ends the connection.
func (f *stdioFront) Close() error {
	f.cancel()
	err := f.conn.Close()
	if errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// SessionID is "": a stdio connection has no session id.
func (f *stdioFront) SessionID() string { return "" }

// Serve serves the proxy to the client until it leaves or ctx is
// cancelled; neither is an error.
func (f *stdioFront) Serve(ctx context.Context, proxy *mcp.Server) error {
	err := proxy.Run(ctx, f)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return err
	}
	return nil
}
