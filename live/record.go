package live

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/redact"
)

// Recording collects the calls a proxy (ProxyServer) forwards, per client
// session, in the order the sessions opened (or, for a session it was not
// told of, made their first call), and renders them as a v1 cassette
// (`mcptest record`). It is safe for concurrent use.
type Recording struct {
	mu       sync.Mutex
	order    []string
	sessions map[string][]ProxyCall
	// seen are the connections (client session ids, "" over stdio) that
	// sent anything, initialized or not.
	seen map[string]bool
}

// Seen records that a connection sent a message, whether or not it ever
// initializes a session: one that never does (the MCP TypeScript SDK's
// server/discover probe, which starts a stdio server only to ask what it
// speaks) is no run, and is counted as skipped.
func (r *Recording) Seen(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[session] = true
}

// Middleware is the proxy's receiving middleware for a recording: every
// message marks its connection seen, and any but server/discover and ping
// opens its session as a run: the initialize request of a client of the
// 2025 protocol revisions (as the initialized notification does), the
// first request of a session of the sessionless 2026-07-28 revision, which
// has no initialize. A connection that only asked server/discover (a
// client library's probe of what the server speaks) is no run.
func (r *Recording) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		id := req.GetSession().ID()
		r.Seen(id)
		res, err := next(ctx, method, req)
		if err == nil && method != "server/discover" && method != "ping" {
			r.Open(id)
		}
		return res, err
	}
}

// Open records that a client session initialized: it is a run of the
// cassette even if it never calls a tool.
func (r *Recording) Open(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open(session)
}

func (r *Recording) open(session string) {
	if r.sessions == nil {
		r.sessions = map[string][]ProxyCall{}
	}
	if _, ok := r.sessions[session]; !ok {
		r.order = append(r.order, session)
		r.sessions[session] = nil
	}
}

// Add records one forwarded call.
func (r *Recording) Add(call ProxyCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open(call.Session)
	r.sessions[call.Session] = append(r.sessions[call.Session], call)
}

// Counts returns how many calls and sessions (runs) were recorded, and
// how many connections were skipped: seen, but never a session.
func (r *Recording) Counts() (calls, sessions, skipped int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cs := range r.sessions {
		calls += len(cs)
	}
	for id := range r.seen {
		if _, ok := r.sessions[id]; !ok {
			skipped++
		}
	}
	return calls, len(r.order), skipped
}

// Cassette is the v1 cassette: prior's runs (when appending) then one run
// per session, arguments and results redacted. A session that initialized
// and made no call (an agent that called nothing) is a run with no calls;
// a connection that never initialized a session is none.
func (r *Recording) Cassette(prior *cassette.File, server, agent string, started time.Time, cat *Catalog) *cassette.File {
	// A call still being forwarded may land while the cassette is built.
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := prior
	if doc == nil {
		doc = &cassette.File{Version: cassette.Version, Runs: []cassette.FileRun{}}
	}
	if doc.Catalog == nil {
		doc.Catalog = map[string]cassette.FileServer{}
	}
	tools := make([]any, 0, len(cat.Tools))
	for _, t := range cat.RawTools() {
		tools = append(tools, t)
	}
	doc.Catalog[server] = cassette.FileServer{Tools: tools}
	doc.RecordedAt = started.Format(time.RFC3339)
	if agent != "" {
		doc.Agent = agent
	}
	for _, id := range r.order {
		calls := []cassette.FileCall{}
		for _, c := range r.sessions[id] {
			calls = append(calls, cassette.FileCall{Server: server, Tool: c.Tool, Arguments: redact.Value(c.Arguments),
				IsError: c.IsError, Result: redact.Value(c.Result), DurationMS: c.DurationMS})
		}
		doc.Runs = append(doc.Runs, cassette.FileRun{Turns: []cassette.FileTurn{{Calls: calls}}})
	}
	return doc
}
