package live

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
)

// TestRecordingCassette: each client session is a run, in the order of
// its first call, after the runs of the cassette appended to; arguments
// and results are redacted; a session that initialized is a run even
// without a call, a connection that never initialized is none and is
// counted skipped.
func TestRecordingCassette(t *testing.T) {
	cat := &Catalog{Tools: []*mcp.Tool{{Name: "echo", InputSchema: map[string]any{"type": "object"}}}}
	result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
	rec := &Recording{}
	rec.Add(ProxyCall{Session: "b", Tool: "echo", Arguments: map[string]any{"api_key": "sk-live-0123456789abcdef0123"}, Result: result, DurationMS: 3})
	rec.Add(ProxyCall{Session: "a", Tool: "echo", Arguments: map[string]any{}, Result: result})
	rec.Add(ProxyCall{Session: "b", Tool: "echo", Arguments: map[string]any{}, Result: result})
	rec.Seen("a")
	rec.Seen("probe")
	if calls, sessions, skipped := rec.Counts(); calls != 3 || sessions != 2 || skipped != 1 {
		t.Errorf("counts %d %d %d", calls, sessions, skipped)
	}
	prior := &cassette.File{Version: cassette.Version, Agent: "old", Runs: []cassette.FileRun{{Turns: []cassette.FileTurn{{Calls: []cassette.FileCall{}}}}}}
	doc := rec.Cassette(prior, "srv", "", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), cat)
	data, err := doc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Read("rec.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(c.Runs) != 3 || len(c.Runs[1].Turns[0].Calls) != 2 || len(c.Runs[2].Turns[0].Calls) != 1 || c.Agent != "old" {
		t.Errorf("runs %d, agent %q\n%s", len(c.Runs), c.Agent, data)
	}
	if strings.Contains(string(data), "sk-live-0123456789abcdef0123") {
		t.Errorf("a secret argument is recorded:\n%s", data)
	}
	idle := &Recording{}
	idle.Seen("")
	idle.Open("")
	if n := len(idle.Cassette(nil, "srv", "", time.Now(), cat).Runs); n != 1 {
		t.Errorf("a session that initialized and called nothing: %d runs, want 1", n)
	}
	probe := &Recording{}
	probe.Seen("")
	if n := len(probe.Cassette(nil, "srv", "", time.Now(), cat).Runs); n != 0 {
		t.Errorf("a connection that never initialized: %d runs, want 0", n)
	}
	if _, sessions, skipped := probe.Counts(); sessions != 0 || skipped != 1 {
		t.Errorf("a probe: %d sessions, %d skipped, want 0 and 1", sessions, skipped)
	}
}
