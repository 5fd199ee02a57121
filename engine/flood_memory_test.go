package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// floodCassette writes a v1 cassette of runs runs of calls calls each to
// the 20 tools of one server's catalog (t0 to t19) and to tools no
// catalog offers: each call names one of distinct tool names (a new name
// with nearly every call when distinct is large), now and then a long
// one (up to longBytes), on server s or on none, with arguments distinct
// from call to call.
func floodCassette(rng *rand.Rand, runs, calls, distinct, longBytes int) string {
	var b strings.Builder
	writeShapeCatalog(&b)
	n := 0
	for r := range runs {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range calls {
			if c > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("t%d", rng.IntN(distinct))
			if longBytes > 0 && rng.IntN(100) == 0 {
				name += strings.Repeat("x", rng.IntN(longBytes))
			}
			server := `"server":"s",`
			if rng.IntN(5) == 0 {
				server = ""
			}
			fmt.Fprintf(&b, `{%s"tool":%q,"arguments":{"q":"%d"},"duration_ms":%d}`, server, name, n, 1+n%7)
			n++
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestNameFloodsAreBounded replays recordings that call a new tool name
// with nearly every call (one run of 300,000 calls, then seeded mixes of
// runs, calls, distinct names and long names) through the built binary,
// once with no gate and once with each gate switched on, and holds each
// to SECURITY.md's bound (3 times the file, 128 bytes a call, 256 a run,
// 48 MiB; under arguments: the per-file terms twice, as
// TestCassetteShapesMemoryIsBounded says), to CPU linear in the file
// (3 s plus 2 µs a byte, TestBoundedWorkGenerated's rule), and its case
// to bounded findings (65 a gate, each message at most 4,200 bytes) and
// tools (the catalog's 20 and 1,000 others). Before the gates named at
// most 50 tools and a case listed at most 1,000 unoffered ones, the
// 300,000 calls peaked at 207 MiB resident with no gate (a bound of 155),
// 365 MiB under equal_function_sets:, and the two gates that name the
// unexpected tools took 238 and 242 s: a finding a tool, each compared
// with every one before it.
func TestNameFloodsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of tens of MB through the built binary")
	}
	tl := buildTools(t)
	rng := rand.New(rand.NewPCG(60, 4))
	type flood struct{ runs, calls, distinct, long int }
	floods := []flood{{1, 300_000, 1 << 30, 0}}
	mixes := 1 // MCPTEST_LONG=1: three drawn mixes
	if long() {
		mixes = 3
	}
	for range mixes {
		runs := 1 + rng.IntN(200)
		floods = append(floods, flood{runs, 1 + rng.IntN(200_000/runs), 1 + rng.IntN(400_000), rng.IntN(4) * 2000})
	}
	for i, fl := range floods {
		t.Run(fmt.Sprintf("flood %d", i), func(t *testing.T) {
			dir := t.TempDir()
			text := floodCassette(rng, fl.runs, fl.calls, fl.distinct, fl.long)
			if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			size, calls := int64(len(text)), int64(fl.runs*fl.calls)
			perItem := 3*size + 128*calls + 256*int64(fl.runs)
			cpuLimit := 3*time.Second + time.Duration(size)*2*time.Microsecond
			for _, g := range gateBlocks {
				writeGateSuite(t, dir, "c.json", g)
				runGateBounded(t, tl, dir, g, perItem, cpuLimit,
					fmt.Sprintf("%d runs × %d calls over %d names, %.1f MB", fl.runs, fl.calls, fl.distinct, float64(size)/1e6))
				checkFloodCase(t, filepath.Join(dir, "out.json"), g.name)
			}
		})
	}
}

// checkFloodCase holds the one case of a flood's envelope to 65 findings
// a gate, each message at most 4,200 bytes, and 1,020 tools.
func checkFloodCase(t *testing.T, path, gate string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Cases []struct {
			Findings []struct{ Gate, Message string }
			Tools    []json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &env); err != nil || len(env.Cases) != 1 {
		t.Fatalf("%s: %v, %d cases", gate, err, len(env.Cases))
	}
	c := env.Cases[0]
	perGate := map[string]int{}
	for _, f := range c.Findings {
		perGate[f.Gate]++
		if len(f.Message) > 4200 {
			t.Errorf("%s: a finding of %d bytes", gate, len(f.Message))
		}
	}
	for g, n := range perGate {
		if n > 65 {
			t.Errorf("%s: %d findings of gate %q", gate, n, g)
		}
	}
	if len(c.Tools) > 1020 {
		t.Errorf("%s: the case lists %d tools", gate, len(c.Tools))
	}
}

// TestSelectionRowsBounded: a tool_selection: detail lists the rows of
// the first report.MaxSelectionRows runs and counts the rest, while its
// pair and its floor count every run (drawn run counts about the bound).
func TestSelectionRowsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 8))
	for range 4 {
		runs := report.MaxSelectionRows - 2 + rng.IntN(300)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(cassetteShape(runs, 1, 0, 0)), 0o644); err != nil {
			t.Fatal(err)
		}
		suite := "agents:\n  - name: ts\n    cassette: c.json\n    tool_selection:\n      expected_tool: t0\n      min_selection_rate: 0.5\n"
		path := filepath.Join(dir, "suite.yml")
		if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := engine.LoadSuite(path)
		if err != nil {
			t.Fatal(err)
		}
		env, err := engine.Run(s, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := env.Cases[0].ToolSelection
		want := min(runs, report.MaxSelectionRows)
		if len(d.Runs) != want || d.OmittedRuns != runs-want || len(d.Pairs) != 1 || d.Pairs[0].Runs != int64(runs) {
			t.Fatalf("%d runs: %d rows, %d omitted, pairs %+v", runs, len(d.Runs), d.OmittedRuns, d.Pairs)
		}
		// Run r calls t(r-1 mod 20): one run in 20 selects t0.
		if sel := int64((runs + 19) / 20); d.Pairs[0].Selected != sel {
			t.Fatalf("%d runs: %d selected, want %d", runs, d.Pairs[0].Selected, sel)
		}
	}
}
