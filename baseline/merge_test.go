package baseline_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// genSuite writes a random suite of agent tests, with equal_function_sets
// and tool_edges blocks, per-run assertions, reliability: blocks, suite
// floors and v1 cassettes (one or more files of one or more runs), into dir
// and loads it.
func genSuite(t *testing.T, r *rand.Rand, dir string) *engine.Suite {
	t.Helper()
	tools := []string{"s0.search", "s0.fetch", "s1.search", "s1.delete", "s2.exec", "s2.summarize", "plain"}
	pick := func(n int) []string {
		var out []string
		for _, i := range r.Perm(len(tools))[:n] {
			out = append(out, tools[i])
		}
		return out
	}
	var b strings.Builder
	// Suite floors on the reliability summary: deferred on every shard and
	// decided on the merged summary, which must equal the unsharded one.
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, "floors:\n  - summary.pass_hat_1: { \">=\": %d }\n  - summary.pass_hat_2: { \">=\": %d }\n  - summary.flaky: { \"<=\": %d }\n", r.IntN(100), r.IntN(100), r.IntN(4))
	}
	b.WriteString("tests:\n")
	n := 1 + r.IntN(14)
	for i := range n {
		name := fmt.Sprintf("case %d %x", i, r.Uint32())
		fmt.Fprintf(&b, "  - name: %q\n    type: agent\n", name)
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "    runs: %d\n", 1+r.IntN(4))
		}
		// The cassette: a single file or a directory of files.
		files := 1 + r.IntN(3)
		casDir := filepath.Join(dir, "cassettes", fmt.Sprint(i))
		if err := os.MkdirAll(casDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if files == 1 && r.IntN(2) == 0 {
			fmt.Fprintf(&b, "    cassette: cassettes/%d/run-0.json\n", i)
		} else {
			fmt.Fprintf(&b, "    cassette: cassettes/%d\n", i)
		}
		for f := range files {
			var runs []string
			for range 1 + r.IntN(3) {
				var calls []string
				for _, id := range pick(r.IntN(5)) {
					server, tool, ok := strings.Cut(id, ".")
					if !ok {
						server, tool = "", id
					}
					calls = append(calls, fmt.Sprintf(`{"server": %q, "tool": %q, "arguments": {"q": "v%d"}}`, server, tool, r.IntN(3)))
				}
				runs = append(runs, fmt.Sprintf(`{"turns": [{"calls": [%s], "final_response": "answer %d"}]}`, strings.Join(calls, ", "), r.IntN(3)))
			}
			doc := fmt.Sprintf(`{"mcptest_cassette": 1, "model": "m", "runs": [%s]}`, strings.Join(runs, ", "))
			if err := os.WriteFile(filepath.Join(casDir, fmt.Sprintf("run-%d.json", f)), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		blocks := 1 + r.IntN(3) // 1: selection, 2: edges, 3: both
		if blocks&1 != 0 {
			b.WriteString("    equal_function_sets:\n      classes:\n")
			for k := range 1 + r.IntN(3) {
				fmt.Fprintf(&b, "        - name: k%d\n          members: [%s]\n", k, strings.Join(pick(1+r.IntN(2)), ", "))
			}
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "      expect:\n        - tool_selection.f1: { \">=\": %d }\n", r.IntN(60))
			}
		}
		if blocks&2 != 0 {
			restricted := "s9.never_called"
			if r.IntN(3) == 0 {
				restricted = pick(1)[0]
			}
			fmt.Fprintf(&b, "    tool_edges:\n      allowed: [%s]\n      restricted: [%s]\n", strings.Join(pick(2), ", "), restricted)
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "      expect:\n        - edges.allowed_pct: { \">=\": %d }\n", r.IntN(60))
			}
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "    expect:\n      - target: final_response\n        matcher: { contains: \"answer %d\" }\n", r.IntN(3))
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "    reliability: { min_pass_rate: %d, allow_flaky: %v }\n", r.IntN(100), r.IntN(2) == 0)
		}
	}
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := engine.LoadSuite(path)
	if err != nil {
		t.Fatalf("generated suite does not load: %v\n%s", err, b.String())
	}
	return s
}

// canonical is the envelope's JSON without the fields that differ between
// two runs over the same inputs.
func canonical(t *testing.T, e *report.Envelope) string {
	t.Helper()
	c := *e
	c.Run.ID, c.Run.StartedAt, c.Run.DurationMS = "", "", 0
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// roundTrip passes the envelope through JSON, as a shard's artifact does.
func roundTrip(t *testing.T, e *report.Envelope) *report.Envelope {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var out report.Envelope
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestMergeEqualsUnsharded is the property the design promises: for
// generated suites and every n from 1 to 8, merging the n shard envelopes
// gives exactly the unsharded envelope, apart from run id, start time and
// duration, case for case and number for number.
func TestMergeEqualsUnsharded(t *testing.T) {
	seeds := 25
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 8))
		s := genSuite(t, r, t.TempDir())
		whole, err := engine.Run(s, engine.Options{Version: "test"})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want := canonical(t, whole)
		for n := 1; n <= 8; n++ {
			var in []baseline.Input
			total := 0
			for _, i := range r.Perm(n) { // shards in any order
				sh := report.Shard{Index: i + 1, Count: n}
				env, err := engine.Run(s, engine.Options{Version: "test", Shard: sh})
				if err != nil {
					t.Fatalf("seed %d shard %s: %v", seed, sh, err)
				}
				if env.Run.Shard != sh.String() {
					t.Fatalf("run.shard = %q, want %q", env.Run.Shard, sh)
				}
				total += len(env.Cases)
				in = append(in, baseline.Input{Name: "shard " + sh.String(), Envelope: roundTrip(t, env)})
			}
			if total != len(whole.Cases) {
				t.Fatalf("seed %d n=%d: the shards hold %d cases, the suite %d", seed, n, total, len(whole.Cases))
			}
			merged, err := baseline.Merge(in)
			if err != nil {
				t.Fatalf("seed %d n=%d: %v", seed, n, err)
			}
			if got := canonical(t, merged); got != want {
				t.Fatalf("seed %d n=%d: merged envelope differs from the unsharded one\n--- merged\n%s\n--- unsharded\n%s", seed, n, got, want)
			}
			// A complete, comparable merge compares with the whole run
			// without a flip or a not-comparable case.
			cmp := baseline.Compare(whole, merged, baseline.Options{})
			if s := cmp.Summary; s.Flips != 0 || s.NotComparable != 0 || s.New != 0 || s.Removed != 0 || s.Unchanged != s.Cases || cmp.Gate.Failed {
				t.Fatalf("seed %d n=%d: merged vs whole: %+v %+v", seed, n, s, cmp.Gate)
			}
		}
	}
}

func TestMergeErrors(t *testing.T) {
	env := func(shard string, names ...string) *report.Envelope {
		e := &report.Envelope{SchemaVersion: 1, Tool: report.ToolInfo{Name: "mcptest", Version: "1"},
			Run: report.RunInfo{Mode: "replay", Shard: shard}, Suite: report.SuiteInfo{Path: "s.yml", SHA256: "abc"}}
		for _, n := range names {
			e.Cases = append(e.Cases, &report.CaseResult{Name: n, Verdict: report.Pass})
		}
		return e
	}
	// Names and the shard of 2 each belongs to.
	var one, two []string
	for i := 0; len(one) < 2 || len(two) < 2; i++ {
		n := fmt.Sprintf("case %d", i)
		if (report.Shard{Index: 1, Count: 2}).Holds(n) {
			one = append(one, n)
		} else {
			two = append(two, n)
		}
	}
	other := env("2/2", two...)
	other.Suite.SHA256 = "def"
	newer := env("2/2", two...)
	newer.Tool.Version = "2"
	v2 := env("2/2", two...)
	v2.SchemaVersion = 2
	moved := env("2/2", two...)
	moved.Suite.Path = "other/s.yml"
	src := env("2/2", two...)
	src.Source = &report.Source{Commit: "abc"}
	pricedA, pricedB := env("1/2", one...), env("2/2", two...)
	pricedA.Prices = &report.PriceTable{Source: "embedded", SHA256: "aaa"}
	pricedB.Prices = &report.PriceTable{Source: "mine.json", SHA256: "bbb"}
	tests := []struct {
		name string
		in   []*report.Envelope
		err  string
	}{
		{"none", nil, "no envelopes given"},
		{"other suite", []*report.Envelope{env("1/2", one...), other}, "are not shards of one run: suite sha256 abc vs def"},
		{"other version", []*report.Envelope{env("1/2", one...), newer}, "mcptest version mcptest 1 vs mcptest 2"},
		{"other schema", []*report.Envelope{env("1/2", one...), v2}, "schema_version 1 vs 2"},
		{"other path", []*report.Envelope{env("1/2", one...), moved}, "suite path s.yml vs other/s.yml"},
		{"other source", []*report.Envelope{env("1/2", one...), src}, "source (none) vs @abc ()"},
		{"shard twice", []*report.Envelope{env("1/2", one...), env("1/2", one...)}, "shard 1/2 is given twice (a.json and b.json)"},
		{"missing", []*report.Envelope{env("1/3")}, "incomplete: shards 2/3, 3/3 missing"},
		{"mixed counts", []*report.Envelope{env("1/2", one...), env("2/3")}, "b.json is shard 2/3 but a.json is one of 2 shards"},
		{"mixed whole", []*report.Envelope{env("1/2", one...), env("", two...)}, "a.json is shard 1/2 of a run but b.json is not a shard"},
		{"overlap", []*report.Envelope{env("", one[0]), env("", one[0])}, "case \"" + one[0] + "\" is in both a.json and b.json"},
		{"wrong shard", []*report.Envelope{env("1/2", two[0]), env("2/2")}, "a.json is shard 1/2 but holds case \"" + two[0] + "\", which belongs to another shard"},
		{"bad shard", []*report.Envelope{env("2/1")}, "a.json: run.shard: shard 2/1"},
		{"other prices", []*report.Envelope{pricedA, pricedB}, "are not shards of one run: price table aaa vs bbb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in []baseline.Input
			for i, e := range tt.in {
				in = append(in, baseline.Input{Name: string(rune('a'+i)) + ".json", Envelope: e})
			}
			_, err := baseline.Merge(in)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
	// The happy path keeps the earliest start and the longest duration,
	// and counts the cases each shard served from its cache.
	a, b := env("1/2", one...), env("2/2", two...)
	b.Prices = &report.PriceTable{Source: "embedded", SHA256: "aaa"} // a priced no run
	a.Run.StartedAt, a.Run.DurationMS, a.Run.Cached = "2026-11-02T00:00:00Z", 5, 1
	b.Run.StartedAt, b.Run.DurationMS, b.Run.Cached = "2026-11-01T00:00:00Z", 3, 2
	m, err := baseline.Merge([]baseline.Input{{Name: "a", Envelope: a}, {Name: "b", Envelope: b}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Prices == nil || m.Prices.SHA256 != "aaa" {
		t.Errorf("merged prices = %+v, want the table of the shard that priced runs", m.Prices)
	}
	if m.Run.StartedAt != "2026-11-01T00:00:00Z" || m.Run.DurationMS != 5 || m.Run.Cached != 3 || m.Run.Shard != "" || m.Totals.Total != 4 || m.Verdict != report.Pass {
		t.Errorf("merged run = %+v, totals %+v, verdict %s", m.Run, m.Totals, m.Verdict)
	}
}
