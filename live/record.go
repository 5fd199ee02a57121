package live

import (
	"sync"
	"time"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/redact"
)

// Recording collects the calls a proxy (ProxyServer) forwards, per client
// session, in the order the sessions made their first call, and renders
// them as a v1 cassette (`mcptest record`). It is safe for concurrent use.
type Recording struct {
	mu       sync.Mutex
	order    []string
	sessions map[string][]ProxyCall
}

// Add records one forwarded call.
func (r *Recording) Add(call ProxyCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions == nil {
		r.sessions = map[string][]ProxyCall{}
	}
	if _, ok := r.sessions[call.Session]; !ok {
		r.order = append(r.order, call.Session)
	}
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
// per session, arguments and results redacted. The stdio session is a run
// even when it made no call (an agent that called nothing); over HTTP only
// the sessions that called a tool are seen.
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
