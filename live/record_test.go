package live

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine/cassette"
)

// TestRecordingCassette: each client session is a run, in the order of
// its first call, after the runs of the cassette appended to; arguments
// and results are redacted; the stdio session is a run even without a
// call, an HTTP recording without a call has none.
func TestRecordingCassette(t *testing.T) {
	cat := &Catalog{Tools: []*mcp.Tool{{Name: "echo", InputSchema: map[string]any{"type": "object"}}}}
	result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
	rec := &Recording{}
	rec.Add(ProxyCall{Session: "b", Tool: "echo", Arguments: map[string]any{"api_key": "sk-live-0123456789abcdef0123"}, Result: result, DurationMS: 3})
	rec.Add(ProxyCall{Session: "a", Tool: "echo", Arguments: map[string]any{}, Result: result})
	rec.Add(ProxyCall{Session: "b", Tool: "echo", Arguments: map[string]any{}, Result: result})
	if calls, sessions := rec.Counts(); calls != 3 || sessions != 2 {
		t.Errorf("counts %d %d", calls, sessions)
	}
	prior := &cassette.File{Version: cassette.Version, Agent: "old", Runs: []cassette.FileRun{{Turns: []cassette.FileTurn{{Calls: []cassette.FileCall{}}}}}}
	doc := rec.Cassette(prior, "srv", "", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), cat, false)
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
	if n := len((&Recording{}).Cassette(nil, "srv", "", time.Now(), cat, true).Runs); n != 1 {
		t.Errorf("a stdio session without a call: %d runs, want 1", n)
	}
	if n := len((&Recording{}).Cassette(nil, "srv", "", time.Now(), cat, false).Runs); n != 0 {
		t.Errorf("an HTTP recording without a call: %d runs, want 0", n)
	}
}
