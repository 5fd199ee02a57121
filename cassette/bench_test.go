package cassette

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genConfig sizes a generated cassette.
type genConfig struct {
	Runs, Turns, CallsPerTurn int
	Seed                      uint64
}

// benchConfig is the cassette the benchmarks read: 10 runs of 3 turns of 1
// to 2 calls of a customer-support agent over 3 servers, about 45 KB.
var benchConfig = genConfig{Runs: 10, Turns: 3, CallsPerTurn: 2, Seed: 1}

// generate writes a realistic v1 cassette, deterministically from the
// config: a catalog of 3 servers, calls with nested arguments and text and
// structured results (one in eight failing), hand-offs, token counts and
// costs, indented with tabs.
func generate(cfg genConfig) []byte {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	type tool struct{ server, name, desc string }
	tools := []tool{
		{"crm", "get_customer", "Look up a customer by id or email. Returns profile, plan and open tickets."},
		{"crm", "update_ticket", "Update a support ticket's status, priority or assignee. Writes to the CRM."},
		{"billing", "list_invoices", "List a customer's invoices, newest first, with amounts in cents and status."},
		{"billing", "issue_refund", "Refund an invoice fully or partly. Irreversible; needs a reason."},
		{"kb", "search_articles", "Full-text search over the help-center articles; returns titles, urls and snippets."},
	}
	catalog := map[string]any{}
	for _, t := range tools {
		entry, _ := catalog[t.server].(map[string]any)
		if entry == nil {
			entry = map[string]any{"tools": []any{}}
			catalog[t.server] = entry
		}
		entry["tools"] = append(entry["tools"].([]any), map[string]any{
			"name":        t.name,
			"description": t.desc,
			"inputSchema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"customer_id": map[string]any{"type": "string", "description": "The customer's id, cus_…"},
					"query":       map[string]any{"type": "string"},
					"limit":       map[string]any{"type": "integer", "minimum": 1, "maximum": 50},
				},
				"required": []any{"customer_id"},
			},
			"annotations": map[string]any{"readOnlyHint": !strings.Contains(t.desc, "Writes") && !strings.Contains(t.desc, "Irreversible")},
		})
	}
	words := strings.Fields("the customer was charged twice for the annual plan after upgrading from monthly; " +
		"refund policy allows a full refund within 30 days of purchase when the duplicate charge is confirmed " +
		"by billing and the ticket is marked resolved with a note for the finance team")
	sentence := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	runs := make([]any, cfg.Runs)
	for r := range runs {
		turns := make([]any, cfg.Turns)
		for tu := range turns {
			calls := []any{}
			for c := range 1 + rng.IntN(cfg.CallsPerTurn) {
				t := tools[(r+tu+c)%len(tools)]
				cust := fmt.Sprintf("cus_%08d", 1000+r*7+tu)
				call := map[string]any{
					"server": t.server,
					"tool":   t.name,
					"arguments": map[string]any{
						"customer_id": cust,
						"query":       sentence(4),
						"limit":       10,
						"status":      []any{"open", "pending"},
					},
					"duration_ms": float64(rng.IntN(900)) + 0.25,
					"agent":       []string{"triage", "billing", "writer"}[c%3],
				}
				if rng.IntN(8) == 0 {
					call["is_error"] = true
					call["result"] = map[string]any{"isError": true, "content": []any{
						map[string]any{"type": "text", "text": "upstream timeout after 30s: " + sentence(5)},
					}}
				} else {
					items := []any{}
					for i := range 1 {
						items = append(items, map[string]any{
							"id": fmt.Sprintf("inv_%d%d%d", r, tu, i), "amount_cents": 1999 + 100*i,
							"status": "paid", "memo": sentence(4),
						})
					}
					call["result"] = map[string]any{
						"content":           []any{map[string]any{"type": "text", "text": sentence(12)}},
						"structuredContent": map[string]any{"customer_id": cust, "items": items, "has_more": false},
					}
				}
				calls = append(calls, call)
			}
			turns[tu] = map[string]any{"calls": calls, "final_response": sentence(12)}
		}
		in := 2000 + rng.IntN(3000)
		out := 200 + rng.IntN(600)
		runs[r] = map[string]any{
			"turns":       turns,
			"delegations": []any{map[string]any{"from": "triage", "to": "billing"}},
			"tokens":      map[string]any{"input": in, "output": out, "total": in + out},
			"cost_micros": in*3 + out*15,
		}
	}
	doc := map[string]any{
		"mcptest_cassette": 1,
		"agent":            "support-desk",
		"model":            "claude-sonnet-4-5-20250929",
		"provider":         "anthropic",
		"recorded_at":      "2026-11-01T12:00:00Z",
		"prompt":           "A customer says they were charged twice for the annual plan. Sort it out.",
		"catalog":          catalog,
		"runs":             runs,
	}
	data, err := json.MarshalIndent(doc, "", "\t")
	if err != nil {
		panic(err)
	}
	return data
}

func TestGenerate(t *testing.T) {
	data := generate(benchConfig)
	if n := len(data); n < 20<<10 || n > 50<<10 {
		t.Errorf("generated cassette is %d bytes, want 20–50 KB", n)
	}
	c, err := Read("bench.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != benchConfig.Runs || len(c.Catalog) != 3 || c.Catalog[0].Server != "billing" {
		t.Errorf("unexpected cassette: %d runs, catalog %+v", len(c.Runs), c.Catalog)
	}
}

// BenchmarkRead and BenchmarkUnmarshalAny read the same generated cassette:
// the reader's cost is meant to stay within 1.25x of a bare json.Unmarshal
// into any. Compare them with
//
//	go test ./cassette -run '^$' -bench 'Read$|UnmarshalAny' -count 10
func BenchmarkRead(b *testing.B) {
	data := generate(benchConfig)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read("bench.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalAny(b *testing.B) {
	data := generate(benchConfig)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}
