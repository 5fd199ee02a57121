package live

import (
	"sync"
	"time"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/redact"
)

// Recording collects the calls a proxy (ProxyServer) forwards, per client
// session, in the order the sessions opened (or, for a session it was not
// told of, made their first call), and renders them as a v1 cassette
// (`mcptest record`). It is safe for concurrent use.
type Recording struct {
	mu       sync.Mutex
	order    []string
	sessions map[string][]ProxyCall
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

// Counts returns how many calls and sessions were recorded.
func (r *Recording) Counts() (calls, sessions int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cs := range r.sessions {
		calls += len(cs)
	}
	return calls, len(r.order)
}

// Cassette is the v1 cassette: prior's runs (when appending) then one run
// per session, arguments and results redacted. A session that made no call
// (an agent that called nothing) is a run with no calls: over stdio always,
// over HTTP when the proxy told Open of it.
func (r *Recording) Cassette(prior *cassette.File, server, agent string, started time.Time, cat *Catalog, stdio bool) *cassette.File {
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
	order := r.order
	if len(order) == 0 && stdio {
		order = []string{""}
	}
	for _, id := range order {
		calls := []cassette.FileCall{}
		for _, c := range r.sessions[id] {
			calls = append(calls, cassette.FileCall{Server: server, Tool: c.Tool, Arguments: redact.Value(c.Arguments),
				IsError: c.IsError, Result: redact.Value(c.Result), DurationMS: c.DurationMS})
		}
		doc.Runs = append(doc.Runs, cassette.FileRun{Turns: []cassette.FileTurn{{Calls: calls}}})
	}
	return doc
}
