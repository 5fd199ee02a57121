package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// The memory a cassette may cost while it is replayed (SECURITY.md): at
// most shapeFileFactor times its size, plus shapeCallBytes a recorded call
// and shapeRunBytes a recorded run (a call is decoded into a 112-byte
// cassette.Call however short its JSON, its arguments kept as their
// compact text; a run keeps its verdict row for the envelope), plus a
// constant: shapeConstant of heap, shapeRSSConstant of the built binary's
// resident set, which holds the program itself (about 30 MiB, 41 MiB with
// token_efficiency's cl100k_base table) besides its heap.
const (
	shapeFileFactor  = 3
	shapeCallBytes   = 128
	shapeRunBytes    = 256
	shapeConstant    = 8 << 20
	shapeRSSConstant = 48 << 20
)

// cassetteShape writes a v1 cassette of runs runs of calls calls each to
// the 20 tools of one server, whose recorded schemas require an integer id
// the calls never send (every call invalid under arguments:), each call
// with an arguments value of about argBytes, distinct from call to call
// (none when 0), and a result text of resultBytes, on one line as a
// program writes it.
func cassetteShape(runs, calls, argBytes, resultBytes int) string {
	var b strings.Builder
	writeShapeCatalog(&b)
	arg := strings.Repeat("a", argBytes)
	res := strings.Repeat("lorem ipsum ", resultBytes/12)
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
			fmt.Fprintf(&b, `{"server":"s","tool":"t%d"`, (r+c)%20)
			if argBytes > 0 {
				fmt.Fprintf(&b, `,"arguments":{"q":"%d%s"}`, n, arg)
			}
			if resultBytes > 0 {
				fmt.Fprintf(&b, `,"result":{"content":[{"type":"text","text":%q}]}`, res)
			}
			fmt.Fprintf(&b, `,"duration_ms":%d}`, 1+n%7)
			n++
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// writeShapeCatalog starts a v1 cassette of the memory tests: a catalog of
// the 20 tools t0 to t19 of server s, each requiring an integer id, then
// the opening of its runs.
func writeShapeCatalog(b *strings.Builder) {
	b.WriteString(`{"mcptest_cassette":1,"catalog":{"s":{"tools":[`)
	for t := range 20 {
		if t > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"name":"t%d","inputSchema":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}}`, t)
	}
	b.WriteString(`]}},"runs":[`)
}

// TestCassetteShapesMemoryIsBounded replays cassettes of every shape that
// costs memory (many runs of one call, one run of many one-word calls,
// long results, and random mixes of the three, seeded) and holds them to
// the bound SECURITY.md states: 3 times the file, 128 bytes a call, 256 a
// run, plus a constant. The heap's peak of a replay with no gate is held
// to it with 8 MiB, and the peak resident set of the built binary as a
// process (rusage Maxrss) with 48 MiB, once with no gate and once with
// every gate of the registry switched on in turn (catalogGateBlocks:
// selection F1, a 20-step superset trajectory:, budget:, arguments: with
// every call invalid, tool_edges:, token_efficiency:, tool_selection:,
// distractors:, discovery: ...), every call's arguments distinct so no
// verdict is reused; under arguments: the per-file terms count twice (the
// validator's garbage, see the limit). Each gate is held besides to the
// fold rule over the same replay with no gate (foldLimit), whatever the
// shape: tool_selection: kept a row for every run, 100,000 runs of one
// call peaking at 100 to 124 MiB against 55 to 65 for the replay alone.
// Before a call's arguments were kept as their text, each was a Go map of
// about 300 bytes: one run of a million calls with {"q":1} held 388 MB of
// model and peaked at 577 MB resident with no gate and 1.26 GB under
// arguments: (a bound of 312 MiB); before the reader sized long call
// lists at once, a 13 MB run of a million calls peaked at 651 MB of heap.
func TestCassetteShapesMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of tens of MB")
	}
	tl := buildTools(t)
	type shape struct {
		name                          string
		runs, calls, args, resultSize int
	}
	shapes := []shape{
		{"many runs", 100_000, 1, 0, 0},
		{"many one-word calls", 1, 300_000, 0, 0},
		{"long results", 1, 1_000, 8, 12_000},
		{"one run of short calls with arguments", 1, 200_000, 1, 0},
		{"short calls with arguments", 1_000, 200, 8, 0},
		// Results of 100 bytes: decoded as the cassette was read, each
		// took about 0.9 KB of Go maps: a heap peak of 241.7 MB for this
		// 43.2 MB run, against a limit of 163.6.
		{"one run of short results", 1, 200_000, 1, 100},
	}
	rng := rand.New(rand.NewPCG(28, 4))
	mixes := 1 // MCPTEST_LONG=1: three drawn mixes
	if long() {
		mixes = 3
	}
	for i := range mixes {
		runs, args, result := 1+rng.IntN(2000), rng.IntN(64), rng.IntN(2)*rng.IntN(4000)
		perCall := 60 + args + result + 40                       // about the bytes of one call
		calls := 1 + rng.IntN(max(1, 12_000_000/(runs*perCall))) // at most about 12 MB
		shapes = append(shapes, shape{fmt.Sprintf("mix %d", i), runs, calls, args, result})
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			text := cassetteShape(sh.runs, sh.calls, sh.args, sh.resultSize)
			if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			size, calls := int64(len(text)), int64(sh.runs*sh.calls)
			perItem := shapeFileFactor*size + shapeCallBytes*calls + shapeRunBytes*int64(sh.runs)
			rss := map[string]int64{} // KiB, by gate; "none" first
			for _, g := range catalogGateBlocks {
				suite := "agents:\n  - name: " + g.name + "\n    cassette: c.json\n" + g.block
				if g.block == "" {
					suite += "    expect:\n      - target: final_response\n        matcher: { contains: done }\n"
				}
				path := filepath.Join(dir, "suite-"+g.name+".yml")
				if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
					t.Fatal(err)
				}
				if g.name == "none" {
					s, err := engine.LoadSuite(path)
					if err != nil {
						t.Fatal(err)
					}
					runtime.GC()
					stop := gen.HeapPeak()
					env, err := engine.Run(s, engine.Options{Emit: func(*report.CaseResult) error { return nil }})
					peak := int64(stop())
					if err != nil || env.Verdict != report.Pass {
						t.Fatalf("run: %v, verdict %v", err, env)
					}
					limit := perItem + shapeConstant
					t.Logf("%d runs × %d calls, %.1f MB: heap peak %.1f MB (%.1f× the file), limit %.1f MB",
						sh.runs, sh.calls, float64(size)/1e6, float64(peak)/1e6, float64(peak)/float64(size), float64(limit)/1e6)
					if peak > limit {
						t.Errorf("heap peak %d bytes over the limit %d (3 × %d bytes + %d calls × 128 + %d runs × 256 + 8 MiB)", peak, limit, size, calls, sh.runs)
					}
				}
				limit := (perItem + shapeRSSConstant) >> 10
				if g.name == "arguments" {
					// Validating a call that broke its schema allocates the
					// validator's error tree and the decoded arguments,
					// garbage the collector (GOGC=100) lets grow to the live
					// heap's size before it collects: what is held stays in
					// the bound, the peak may reach it twice over when no two
					// calls send the same arguments (a repeated text reuses
					// its verdict and allocates nothing).
					limit = (2*perItem + shapeRSSConstant) >> 10
				}
				// A gate is held to SECURITY.md's bound and to the fold rule
				// over the replay alone (foldLimit).
				over := func(kib int64) bool {
					return kib > limit || g.name != "none" && kib > foldLimit(g.name, rss["none"], calls)
				}
				kib := launchLower(t, tl, dir, g.name, over)
				rss[g.name] = kib
				t.Logf("%d runs × %d calls, %.1f MB, %s: peak RSS %d KiB, limit %d KiB", sh.runs, sh.calls, float64(size)/1e6, g.name, kib, limit)
				if kib > limit {
					t.Errorf("%s: peak RSS %d KiB over the limit %d KiB (3 × %d bytes + %d calls × 128 + %d runs × 256 + 48 MiB)",
						g.name, kib, limit, size, calls, sh.runs)
				}
				if fold := foldLimit(g.name, rss["none"], calls); g.name != "none" && kib > fold {
					t.Errorf("%s: peak RSS %d KiB over the replay alone (%d KiB) and what a gate may add: %d KiB", g.name, kib, rss["none"], fold)
				}
			}
		})
	}
}

// launchLower runs the built binary over dir's suite-GATE.yml and returns
// its peak resident set in KiB, the lower of two runs when the first is
// over (the collector's timing moves a peak by a few MiB).
func launchLower(t *testing.T, tl tools, dir, gate string, over func(kib int64) bool) int64 {
	t.Helper()
	kib := int64(0)
	for try := 0; try < 2 && (try == 0 || over(kib)); try++ {
		k, code, stderr := tl.launch(t, dir, tl.mcptest, "run", "--config", "suite-"+gate+".yml",
			"--format", "json", "--output", "out.json", "--no-cache")
		if code > 1 {
			t.Fatalf("%s: exit %d\n%s", gate, code, stderr)
		}
		if try == 0 || k < kib {
			kib = k
		}
	}
	return kib
}

// TestTextReportMemoryIsFlat: the text reporter's memory does not grow
// with the number of failing cases. It runs the built binary with
// --format text over 500 and over 4,000 generated cassettes (250 and
// 2,000 without MCPTEST_LONG=1), one test each and every test failing
// (its final response lacks what it expects), and holds the peak
// resident set at the larger to 1.5 times the one at the smaller plus
// 16 MiB, the rule BenchmarkCasesMemory holds the json
// reporter to. The report streams: each case's lines are written to a
// spool as the case comes, as its JSON is for the stored envelope; it
// used to render from the whole envelope, about 85 KiB a failing case
// (694 MiB at 8,000).
func TestTextReportMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 4,500 cassettes and runs the built binary")
	}
	tl := buildTools(t)
	rss := map[int]int64{}
	sizes := []int{250, 2000} // MCPTEST_LONG=1: 500 and 4,000
	if long() {
		sizes = []int{500, 4000}
	}
	for _, n := range sizes {
		dir := t.TempDir()
		paths, err := gen.Write(dir, n, gen.DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("agents:\n")
		for i, p := range paths {
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprintf(&b, "  - name: case %d\n    cassette: %s\n    expect:\n      - target: final_response\n        matcher: { contains: \"words no agent said\" }\n", i, rel)
		}
		if err := os.WriteFile(filepath.Join(dir, "failing.yml"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		kib, code, stderr := tl.launch(t, dir, tl.mcptest, "run", "--config", "failing.yml", "--format", "text", "--output", "out.txt", "--no-cache")
		if code != 1 {
			t.Fatalf("%d failing cases: exit %d, want 1\n%s", n, code, stderr)
		}
		out, err := os.ReadFile(filepath.Join(dir, "out.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(out), "FAIL  case "); got != n {
			t.Fatalf("%d failing cases: the report names %d", n, got)
		}
		rss[n] = kib
	}
	small, big := sizes[0], sizes[1]
	limit := rss[small]*3/2 + 16<<10
	t.Logf("text report, peak RSS: %d KiB at %d failing cases, %d KiB at %d (limit %d KiB)", rss[small], small, rss[big], big, limit)
	if rss[big] > limit {
		t.Errorf("text report: %d KiB at %d failing cases, over 1.5 × %d KiB + 16 MiB at %d", rss[big], big, rss[small], small)
	}
}
