package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine"
)

// gateShapeCassette writes a v1 cassette of runs runs of calls calls each
// (turns of at most 50 calls), with arguments {"q": N}, to the 20 tools
// of one server whose recorded schemas require an integer id, so every
// call is invalid under arguments:, each call timed.
func gateShapeCassette(runs, calls int) string {
	var b strings.Builder
	writeShapeCatalog(&b)
	for r := range runs {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range calls {
			if c > 0 && c%50 == 0 {
				b.WriteString(`],"final_response":"more"},{"calls":[`)
			} else if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"server":"s","tool":"t%d","arguments":{"q":%d},"duration_ms":%d}`, (r+c)%20, c%10, 1+c%7)
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// gateBlock is one gate switched on under an agents: test: its name and
// the block's lines.
type gateBlock = struct{ name, block string }

// writeGateSuite writes suite-NAME.yml in dir: one agents: test over the
// cassettes glob with g's block (a check of the final response when the
// block is empty, so the test still reads every run).
func writeGateSuite(tb testing.TB, dir, cassettes string, g gateBlock) {
	tb.Helper()
	suite := "agents:\n  - name: " + g.name + "\n    cassette: " + cassettes + "\n" + g.block
	if g.block == "" {
		suite += "    expect:\n      - target: final_response\n        matcher: { contains: done }\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "suite-"+g.name+".yml"), []byte(suite), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// gateRSSLimit is SECURITY.md's bound as RSS in KiB for what a run's
// inputs cost (perItem: 3 times the file, 128 B a call, 256 B a run),
// twice that under arguments:, which places violations from a second
// copy of the bytes.
func gateRSSLimit(gate string, perItem int64) int64 {
	if gate == "arguments" {
		perItem *= 2
	}
	return (perItem + 48<<20) >> 10
}

// runGateBounded runs the built binary over dir's suite of g (written by
// writeGateSuite) and holds it to gateRSSLimit and to cpuLimit of CPU;
// what the run was is said in the failures and the log. A run over
// either is run again and the lower of the two held: the collector's
// timing on a busy machine moves a peak (20,000 catalog tools under
// token_efficiency: 50 MiB alone, 68 MiB once beside the other memory
// tests' runs).
func runGateBounded(t *testing.T, tl tools, dir string, g gateBlock, perItem int64, cpuLimit time.Duration, what string) {
	t.Helper()
	limit := gateRSSLimit(g.name, perItem)
	kib, cpu := int64(0), time.Duration(0)
	for try := 0; try < 2 && (try == 0 || kib > limit || cpu > cpuLimit); try++ {
		l := tl.launchEnv(t, dir, []string{"MCPTEST_DIR=" + t.TempDir()}, tl.mcptest, "run", "--config", "suite-"+g.name+".yml",
			"--format", "json", "--output", "out.json", "--no-cache")
		if l.code > 1 {
			t.Fatalf("%s, %s: exit %d\n%s", what, g.name, l.code, l.stderr)
		}
		if try == 0 || l.kib < kib {
			kib = l.kib
		}
		if try == 0 || l.cpu < cpu {
			cpu = l.cpu
		}
	}
	t.Logf("%s, %s: peak RSS %d KiB (limit %d), CPU %v (limit %v)", what, g.name, kib, limit, cpu.Round(time.Millisecond), cpuLimit)
	if kib > limit {
		t.Errorf("%s, %s: peak RSS %d KiB over the limit %d KiB", what, g.name, kib, limit)
	}
	if cpu > cpuLimit {
		t.Errorf("%s, %s: %v of CPU, over %v", what, g.name, cpu, cpuLimit)
	}
}

// gateBlocks are the gate blocks TestGatesFoldRunsInPlace switches on one
// at a time: the one-line key and its block under an agents: test.
var gateBlocks = []gateBlock{
	{"none", ""},
	{"selection", "    equal_function_sets:\n      classes:\n        - { name: a, members: [s.t0, s.t10] }\n        - { name: b, members: [s.t1] }\n        - { name: c, members: [nowhere] }\n"},
	{"trajectory", "    trajectory:\n      match: superset\n      steps:\n" + strings.Repeat("        - { tool: s.t3 }\n", 4) +
		"        - { tool: s.t1 }\n        - { tool: s.t2 }\n" + strings.Repeat("        - { tool: s.t5, args: { q: { \"<=\": 4 } } }\n", 14)},
	{"budget", "    budget:\n      max_calls: 10\n      max_turns: 1\n      max_run_ms: 20\n"},
	{"arguments", "    arguments: {}\n"},
	{"edges", "    tool_edges:\n      allowed: [s.t0, s.t1, s.t2]\n      restricted: [s.t19]\n"},
	{"tokens", "    token_efficiency:\n      classes:\n        - { name: a, members: [s.t0, s.t10] }\n        - { name: b, members: [s.t1] }\n"},
	{"orchestration", "    equal_function_sets:\n      classes:\n        - { name: a, members: [s.t0, s.t10] }\n    orchestration: {}\n"},
	{"tool_selection", "    tool_selection:\n      expected_tool: t0\n      min_selection_rate: 0.5\n"},
	{"tool_names", "    expect:\n      - tool_names: { contains: t0 }\n"},
	{"call_target", "    expect:\n      - target: calls[0].tool\n        matcher: { exact: t0 }\n"},
	{"discovery", "    discovery: { name_free: true }\n    equal_function_sets:\n      classes:\n        - { name: a, members: [s.t0] }\n"},
}

// TestMemoryTestsSwitchEveryGateOn: every gate of the registry is switched
// on by a row of gateBlocks, or of catalogGateBlocks for a gate that needs
// a recorded catalog, so a gate added to the registry is held to the
// memory rules (foldLimit, SECURITY.md's bound) by the tests that range
// over them: tool_selection: was in them but held to the fold rule only
// over 400 runs at most, and kept a row for every run (100,000 runs of
// one call: 100 to 124 MiB resident, against 60 MiB for the replay alone).
func TestMemoryTestsSwitchEveryGateOn(t *testing.T) {
	for _, key := range engine.GateKeys() {
		found := false
		for _, g := range catalogGateBlocks {
			for _, line := range strings.Split(g.block, "\n") {
				found = found || strings.HasPrefix(line, "    "+key+":")
			}
		}
		if !found {
			t.Errorf("no row of gateBlocks or catalogGateBlocks switches %s: on", key)
		}
	}
}

// foldLimit is the peak resident set, in KiB, a gate may reach where the
// replay alone (no gate) peaked at none KiB over calls calls: it folds
// each run where it lies and keeps bounded evidence, so it adds at most 64
// bytes a call and 16 MiB, whatever the number of runs. token_efficiency:
// adds besides the cl100k_base table it loads (11 MiB resident,
// SECURITY.md): without it the table took the 16 MiB whole, and CI's
// busier collector went past it (1,530 runs of 3 calls: 59,164 KiB
// against 41,960 alone, 53,460 on a quiet machine). Under arguments:,
// validating a call allocates the validator's error tree, garbage the
// collector lets grow to the size of the live heap (GOGC=100) before it
// collects: what is held is bounded (the first 40 calls' checks, 50
// findings), the peak is not below twice the replay's.
func foldLimit(gate string, none, calls int64) int64 {
	limit := none + (64*calls+16<<20)>>10
	switch gate {
	case "tokens":
		limit += 11 << 10
	case "arguments":
		limit += none
	}
	return limit
}

// TestGatesFoldRunsInPlace holds every memory rule a gate must keep to one
// measure: the peak resident set of the built binary replaying a cassette
// with the gate switched on, against the same replay with no gate. A gate
// folds each run where it lies and keeps bounded evidence, so it may add
// no more than 64 bytes a call (a strict trajectory's pointer to each
// call and its pairing) and 16 MiB, token_efficiency: its cl100k_base
// table besides; the arguments: gate's validation garbage may take the
// heap to twice the replay's (foldLimit). The cassettes are drawn (seeded) over runs,
// calls per run and turns, a 20-step superset trajectory among the
// gates, every call invalid under arguments:. Before gates folded in
// place, Selection F1 copied every run's calls (+112 bytes a call), a
// trajectory copied them with their places (+490 bytes a call over a
// million), and arguments: kept every call's check and a second copy of
// the cassette (+700 bytes a call).
func TestGatesFoldRunsInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of tens of MB through the built binary")
	}
	tl := buildTools(t)
	rng := rand.New(rand.NewPCG(40, 5))
	type shape struct{ runs, calls int }
	shapes := []shape{{1, 300_000}}
	drawn := 1 // MCPTEST_LONG=1: two drawn shapes
	if long() {
		drawn = 2
	}
	for range drawn {
		runs := 1 + rng.IntN(400)
		shapes = append(shapes, shape{runs, 1 + rng.IntN(300_000/runs)})
	}
	for _, sh := range shapes {
		dir := t.TempDir()
		text := gateShapeCassette(sh.runs, sh.calls)
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		calls := int64(sh.runs * sh.calls)
		rss := map[string]int64{}
		for _, g := range gateBlocks {
			writeGateSuite(t, dir, "c.json", g)
			// The lower of two runs: the collector's timing moves a peak by
			// a few MiB either way.
			best := int64(0)
			for range 2 {
				kib, code, stderr := tl.launch(t, dir, tl.mcptest, "run", "--config", "suite-"+g.name+".yml",
					"--format", "json", "--output", "out.json", "--no-cache")
				if code > 1 {
					t.Fatalf("%d runs × %d calls, %s: exit %d\n%s", sh.runs, sh.calls, g.name, code, stderr)
				}
				if best == 0 || kib < best {
					best = kib
				}
			}
			rss[g.name] = best
		}
		size := int64(len(text))
		bound := (3*size + 128*calls + 256*int64(sh.runs) + 48<<20) >> 10 // SECURITY.md, as RSS
		for _, g := range gateBlocks[1:] {
			limit := foldLimit(g.name, rss["none"], calls)
			t.Logf("%d runs × %d calls, %.1f MB, %s: %d KiB (replay alone %d KiB, limit %d; SECURITY.md's bound %d)",
				sh.runs, sh.calls, float64(size)/1e6, g.name, rss[g.name], rss["none"], limit, bound)
			if rss[g.name] > limit {
				t.Errorf("%d runs × %d calls, %s: peak RSS %d KiB, over the limit %d KiB (the replay alone %d KiB)",
					sh.runs, sh.calls, g.name, rss[g.name], limit, rss["none"])
			}
		}
	}
}
