package baseline

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// part is an unsharded envelope of the cases at the positions given
// ("file:line:col" as a diag.Pos), with a run's start, duration, cached
// count and mode.
func part(start string, ms int64, cached int, mode string, cases ...diag.Pos) *report.Envelope {
	e := &report.Envelope{SchemaVersion: 1, Suite: report.SuiteInfo{Path: "suite.yml", SHA256: "s"},
		Run: report.RunInfo{StartedAt: start, DurationMS: ms, Cached: cached, Mode: mode}}
	for _, p := range cases {
		e.Cases = append(e.Cases, &report.CaseResult{Name: p.String(), Kind: report.KindAgent, Verdict: report.Pass, Position: p})
	}
	return e
}

// TestMergeRules: the merged run starts at the earliest start given (an
// empty one is none), lasts the longest duration, sums the cached cases,
// is live when any part is, and orders its cases by file, then line, then
// column.
func TestMergeRules(t *testing.T) {
	a := part("2026-01-02T00:00:00Z", 50, 1, "replay", diag.Pos{File: "b.yml", Line: 1, Col: 1}, diag.Pos{File: "a.yml", Line: 9, Col: 5})
	b := part("", 70, 2, "live", diag.Pos{File: "a.yml", Line: 9, Col: 3}, diag.Pos{File: "a.yml", Line: 2, Col: 9})
	c := part("2026-01-01T00:00:00Z", 10, 0, "replay")
	out, err := Merge([]Input{{"a", a}, {"b", b}, {"c", c}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Run.StartedAt != "2026-01-01T00:00:00Z" || out.Run.DurationMS != 70 || out.Run.Cached != 3 || out.Run.Mode != "live" {
		t.Errorf("run %+v; want the earliest start, 70 ms, 3 cached, live", out.Run)
	}
	var order []string
	for _, c := range out.Cases {
		order = append(order, c.Name)
	}
	if want := []string{"a.yml:2:9", "a.yml:9:3", "a.yml:9:5", "b.yml:1:1"}; !slices.Equal(order, want) {
		t.Errorf("cases %q, want %q", order, want)
	}
	out, err = Merge([]Input{{"b", part("", 1, 0, "replay")}, {"a", part("2026-01-03T00:00:00Z", 1, 0, "replay")}})
	if err != nil || out.Run.StartedAt != "2026-01-03T00:00:00Z" || out.Run.Mode != "replay" {
		t.Errorf("a first part with no start: %+v, %v; want the second's start, replay", out.Run, err)
	}
	out, err = Merge([]Input{{"a", part("2026-01-03T00:00:00Z", 1, 0, "replay")}, {"b", part("", 1, 0, "replay")}})
	if err != nil || out.Run.StartedAt != "2026-01-03T00:00:00Z" {
		t.Errorf("a last part with no start: %+v, %v; want the first's start", out.Run, err)
	}
	// Cases at one position (a tampered or hand-made envelope) keep the
	// parts' order: the sort is stable.
	same := diag.Pos{File: "a.yml", Line: 3, Col: 1}
	x, y := part("", 1, 0, "replay", same), part("", 1, 0, "replay", same)
	x.Cases[0].Name, y.Cases[0].Name = "first", "second"
	out, err = Merge([]Input{{"x", x}, {"y", y}})
	if err != nil || len(out.Cases) != 2 || out.Cases[0].Name != "first" || out.Cases[1].Name != "second" {
		t.Errorf("two cases at one position: %v; want them in the parts' order", err)
	}
}

// TestMergePricesAndServers: parts that priced nothing name no table, the
// others must name one table, which the merged run names; each server
// lists the union of the tools the parts saw, sorted, once each, and none
// when no part saw one.
func TestMergePricesAndServers(t *testing.T) {
	p1, p2 := &report.PriceTable{Source: "t", SHA256: "1"}, &report.PriceTable{Source: "t", SHA256: "2"}
	a, b, c := part("", 1, 0, "replay"), part("", 1, 0, "replay"), part("", 1, 0, "replay")
	b.Prices, c.Prices = p1, p1
	a.Servers = []report.ServerInfo{{Name: "s", Tools: []string{"z", "a"}}, {Name: "idle"}}
	b.Servers = []report.ServerInfo{{Name: "s", Tools: []string{"a", "m"}}}
	out, err := Merge([]Input{{"a", a}, {"b", b}, {"c", c}})
	if err != nil || out.Prices == nil || *out.Prices != *p1 {
		t.Fatalf("prices %+v, %v; want the one table", out.Prices, err)
	}
	if len(out.Servers) != 2 || !slices.Equal(out.Servers[0].Tools, []string{"a", "m", "z"}) || out.Servers[1].Tools != nil {
		t.Errorf("servers %+v; want s with a, m, z and idle with none", out.Servers)
	}
	c.Prices = p2
	if _, err := Merge([]Input{{"a", a}, {"b", b}, {"c", c}}); err == nil || !strings.Contains(err.Error(), "b and c are not shards of one run: price table 1 vs 2") {
		t.Errorf("two tables: %v", err)
	}
}

// TestMergeMissingShards: the shards missing are named, "shard" for one,
// "shards" for more.
func TestMergeMissingShards(t *testing.T) {
	one := part("", 1, 0, "replay")
	one.Run.Shard = "1/3"
	for _, tc := range []struct {
		in   []Input
		want string
	}{
		{[]Input{{"one", one}}, "shards 2/3, 3/3 missing"},
	} {
		if _, err := Merge(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
	two := part("", 1, 0, "replay")
	two.Run.Shard = "2/3"
	if _, err := Merge([]Input{{"one", one}, {"two", two}}); err == nil || !strings.Contains(err.Error(), "incomplete: shard 3/3 missing (every shard 1/3 .. 3/3 is needed)") {
		t.Errorf("one shard missing: %v", err)
	}
}
