package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestTrajectoryAndBudgetOnEveryReader gates the recordings of every
// reader (examples/traces: Chat Completions, Claude Code stream-json,
// OpenTelemetry, promptfoo, OpenAI Responses) with trajectory: and
// budget: blocks: server prefixes as each reader records them (or none),
// and timings only where the recording has them.
func TestTrajectoryAndBudgetOnEveryReader(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"chat-completion.json", "claude-code.jsonl", "otel-traces.json", "promptfoo-runs.jsonl", "responses-mcp.json"} {
		data, err := os.ReadFile(filepath.Join("../examples/traces/cassettes", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite := `agents:
  - name: chat
    cassette: chat-completion.json
    trajectory: {match: strict, steps: [{tool: weather.get_forecast, args: {city: Sacramento, days: {">=": 3}}}]}
    budget: {}
  - name: chat under a latency floor
    cassette: chat-completion.json
    budget: {max_run_ms: 100}
  - name: claude code
    cassette: claude-code.jsonl
    trajectory: {match: strict, steps: [{tool: github.search_issues}, {tool: Task}, {tool: get_issue, args: {number: 17}}]}
    budget: {}
  - name: otel superset
    cassette: otel-traces.json
    trajectory: {match: superset, steps: [{tool: search_flights, args: {origin: JFK}}]}
    budget: {}
  - name: otel strict
    cassette: otel-traces.json
    trajectory: {match: strict, steps: [{tool: search_flights}, {tool: airline.book_reservation}]}
  - name: promptfoo subset
    cassette: promptfoo-runs.jsonl
    trajectory: {match: subset, steps: [{tool: search_flights}, {tool: book_reservation, args: {flight: {regex: "^HAT"}}}]}
  - name: responses unordered
    cassette: responses-mcp.json
    trajectory: {match: unordered, steps: [{tool: deepwiki.read_wiki_structure}, {tool: deepwiki.ask_question}]}
`
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	env, err := Run(s, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	const absent = -1
	want := map[string]map[string]float64{
		"chat":                {"trajectory.match_pct": 100, "steps.calls": 1, "steps.turns": 1, "latency.run_ms": absent, "latency.run_ms_p50": absent},
		"claude code":         {"trajectory.match_pct": 100, "steps.calls": 3, "latency.run_ms": absent},
		"otel superset":       {"trajectory.match_pct": 100, "steps.calls": 2, "latency.run_ms": 750, "latency.run_ms_p50": 200, "latency.run_ms_p95": 750},
		"otel strict":         {"trajectory.match_pct": 50},
		"promptfoo subset":    {"trajectory.match_pct": 67},
		"responses unordered": {"trajectory.match_pct": 100},
	}
	for _, c := range env.Cases {
		if c.Name == "chat under a latency floor" {
			// No timings cannot show the run within max_run_ms.
			if c.Verdict != report.Fail || len(c.Floors) != 1 || c.Floors[0].Passed || c.Floors[0].Name != "budget floor" {
				t.Errorf("%s: verdict %s, floors %+v: want a failing budget floor", c.Name, c.Verdict, c.Floors)
			}
			if _, ok := c.Targets["latency.run_ms"]; ok {
				t.Errorf("%s: latency.run_ms without timings", c.Name)
			}
		} else if c.Verdict != report.Pass && !strings.HasPrefix(c.Name, "otel strict") && c.Name != "promptfoo subset" {
			t.Errorf("%s: verdict %s", c.Name, c.Verdict)
		}
		for k, w := range want[c.Name] {
			v, ok := c.Targets[k]
			if w == absent && ok {
				t.Errorf("%s: %s = %v, want no value", c.Name, k, v)
			}
			if w != absent && (!ok || v != w) {
				t.Errorf("%s: %s = %v (present %v), want %v", c.Name, k, v, ok, w)
			}
		}
	}
}
