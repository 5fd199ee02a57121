package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// catalogShape is a recorded catalog the memory tests draw: tools tools
// on server s (t0 to t<tools-1>), descriptions of up to desc bytes,
// schemas of up to width properties nested up to depth deep, and how
// many cassettes offer the same catalog.
type catalogShape struct {
	tools, desc, width, depth, cassettes int
	// gates names the gates of catalogGateBlocks a test runs over the
	// shape; none: every one.
	gates []string
}

// catalogCassette writes a v1 cassette whose catalog is sh's (its members
// in the order a server writes them, not in key order; escapes, odd
// numbers and annotations drawn) and whose 20 runs of 10 calls each call
// only t0 to t19 of it, so nearly every tool is never called.
func catalogCassette(rng *rand.Rand, sh catalogShape) string {
	var b strings.Builder
	b.WriteString(`{"mcptest_cassette":1,"catalog":{"s":{"tools":[`)
	for t := range sh.tools {
		if t > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"t%d","description":%q,"inputSchema":`, t, drawDescription(rng, sh.desc))
		writeDrawnSchema(&b, rng, sh.width, sh.depth, true)
		switch rng.IntN(4) {
		case 0:
			b.WriteString(`,"annotations":{"readOnlyHint":true,"title":"T\u00e9"}`)
		case 1:
			b.WriteString(`,"annotations":{"destructiveHint":true,"idempotentHint":false},"title":null`)
		case 2:
			b.WriteString(`,"annotations":null,"x-vendor":{"rank":1E2,"weight":-0.50}`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]},"u":{"tools":[{"name":"extra","inputSchema":{"type":"object"}}]}},"runs":[`)
	for r := range 20 {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range 10 {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"server":"s","tool":"t%d","arguments":{"q":"%d-%d"},"duration_ms":%d}`, (r+c)%20, r, c, 1+c%7)
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// drawDescription draws a description of at most n bytes, with the
// characters JSON escapes now and then.
func drawDescription(rng *rand.Rand, n int) string {
	words := []string{"Search", "the", "records", "of", "a", "<kind>", "&", "\"quoted\"", "café", "line\nbreak", "sep\u2028", "tab\t"}
	var b strings.Builder
	for want := rng.IntN(n + 1); b.Len() < want; {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// writeDrawnSchema writes a JSON Schema object of up to width properties,
// nested up to depth deep; the top one requires an integer id.
func writeDrawnSchema(b *strings.Builder, rng *rand.Rand, width, depth int, top bool) {
	b.WriteString(`{"type":"object","properties":{`)
	if top {
		b.WriteString(`"id":{"type":"integer","minimum":0,"maximum":1e6}`)
	}
	for p := range rng.IntN(width + 1) {
		if top || p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `"p%d":`, p)
		switch {
		case depth > 0 && rng.IntN(3) == 0:
			writeDrawnSchema(b, rng, width/2, depth-1, false)
		case rng.IntN(2) == 0:
			fmt.Fprintf(b, `{"type":"string","maxLength":%d,"description":"field \u00e9 %d"}`, 1+rng.IntN(500), p)
		default:
			b.WriteString(`{"type":"array","items":{"type":"number","multipleOf":0.25},"maxItems":1.0e1}`)
		}
	}
	b.WriteString(`}`)
	if top {
		b.WriteString(`,"required":["id"]`)
	}
	b.WriteString(`}`)
}

// catalogGateBlocks are gateBlocks with distractors: besides, the gates a
// recorded catalog passes through.
var catalogGateBlocks = append(gateBlocks[:len(gateBlocks):len(gateBlocks)], gateBlock{
	"distractors", "    distractors:\n      count: 2\n      source: { from: catalog }\n      correct: [s.t0, s.t1]\n"})

// TestCatalogsMemoryIsBounded replays cassettes whose recorded catalog
// holds many tools (20,000 small ones, 300,000 with no gate and under
// token_efficiency:, then seeded draws of up to tens of
// thousands, deep and wide schemas, long descriptions with escapes,
// annotations, odd numbers, several cassettes offering the same catalog,
// nearly every tool never called) through the built binary, with no gate
// and with each gate that reads the catalog switched on, and holds each
// to SECURITY.md's bound (3 times the files, 128 bytes a call, 256 a run,
// 48 MiB; under arguments: the per-file terms twice, as
// TestCassetteShapesMemoryIsBounded says) and to CPU linear in the files.
// Before a catalog's tools were kept as their text, each was decoded
// whole, about 15 times its text: the 20,000 tools (3.7 MB) peaked at
// 94 MiB against a bound of 59.
func TestCatalogsMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of MBs of catalog through the built binary")
	}
	tl := buildTools(t)
	rng := rand.New(rand.NewPCG(40, 11))
	shapes := []catalogShape{{tools: 20_000, desc: 30, width: 2, depth: 0, cassettes: 1},
		// 65 MB of catalog, where the bound's fixed term is an eighth of
		// it: token_efficiency: was 18 % over it at 300,000 tools.
		{tools: 300_000, desc: 30, cassettes: 1, gates: []string{"none", "tokens"}}}
	draws := 2 // MCPTEST_LONG=1: five draws
	if long() {
		draws = 5
	}
	for range draws {
		sh := catalogShape{desc: rng.IntN(1500), width: rng.IntN(24), depth: rng.IntN(6), cassettes: 1 + rng.IntN(3)}
		perTool := 150 + sh.desc/2 + sh.width*60*(1+sh.depth) // about a tool's bytes
		sh.tools = 20 + rng.IntN(max(1, 8_000_000/perTool))   // at most about 8 MB
		shapes = append(shapes, sh)
	}
	for i, sh := range shapes {
		t.Run(fmt.Sprintf("catalog %d", i), func(t *testing.T) {
			dir := t.TempDir()
			size := int64(0)
			for c := range sh.cassettes {
				text := catalogCassette(rng, sh)
				size += int64(len(text))
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%d.json", c)), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			runs := int64(20 * sh.cassettes)
			perItem := 3*size + 128*10*runs + 256*runs
			cpuLimit := 3*time.Second + time.Duration(size)*2*time.Microsecond
			for _, g := range catalogGateBlocks {
				if sh.gates != nil && !slices.Contains(sh.gates, g.name) {
					continue
				}
				writeGateSuite(t, dir, `"c*.json"`, g)
				runGateBounded(t, tl, dir, g, perItem, cpuLimit,
					fmt.Sprintf("%d tools (descriptions ≤ %d B, %d wide, %d deep) × %d cassettes, %.1f MB", sh.tools, sh.desc, sh.width, sh.depth, sh.cassettes, float64(size)/1e6))
			}
		})
	}
}

// BenchmarkCatalogMemory replays one cassette of n small catalog tools
// (descriptions of up to 30 bytes, schemas of one property: the 20,000
// and 300,000 tools of docs/benchmarks.md, "A recorded catalog kept as
// its text") through the built binary, with no gate and under each gate
// that reads the catalog, and reports its peak resident set (peak-KiB),
// SECURITY.md's bound for it (limit-KiB) and its CPU, user and system
// (cpu-ms), the least of b.N runs.
func BenchmarkCatalogMemory(b *testing.B) {
	tl := buildTools(b)
	for _, n := range []int{20_000, 300_000} {
		dir := b.TempDir()
		text := catalogCassette(rand.New(rand.NewPCG(40, 13)), catalogShape{tools: n, desc: 30, cassettes: 1})
		if err := os.WriteFile(filepath.Join(dir, "c0.json"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		perItem := 3*int64(len(text)) + 128*200 + 256*20
		for _, g := range catalogGateBlocks {
			writeGateSuite(b, dir, `"c*.json"`, g)
			limit := gateRSSLimit(g.name, perItem)
			b.Run(fmt.Sprintf("tools=%d/gate=%s", n, g.name), func(b *testing.B) {
				kib, cpu := int64(0), time.Duration(0)
				for range b.N {
					l := tl.launchEnv(b, dir, []string{"MCPTEST_DIR=" + b.TempDir()}, tl.mcptest, "run", "--config", "suite-"+g.name+".yml",
						"--format", "json", "--output", "out.json", "--no-cache")
					if l.code > 1 {
						b.Fatalf("exit %d\n%s", l.code, l.stderr)
					}
					if kib == 0 || l.kib < kib {
						kib, cpu = l.kib, l.cpu
					}
				}
				b.ReportMetric(float64(kib), "peak-KiB")
				b.ReportMetric(float64(limit), "limit-KiB")
				b.ReportMetric(float64(cpu.Milliseconds()), "cpu-ms")
			})
		}
	}
}
