package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// The memory a cassette may cost while it is replayed (SECURITY.md): at
// most shapeFileFactor times its size, plus shapeCallBytes a recorded call
// and shapeRunBytes a recorded run (a call is decoded into a 96-byte
// cassette.Call however short its JSON; a run keeps its verdict row for the
// envelope), plus a constant.
const (
	shapeFileFactor = 3
	shapeCallBytes  = 128
	shapeRunBytes   = 256
	shapeConstant   = 8 << 20
)

// cassetteShape writes a v1 cassette of runs runs of calls calls each,
// each call with an arguments value of argBytes and a result text of
// resultBytes, on one line as a program writes it.
func cassetteShape(runs, calls, argBytes, resultBytes int) string {
	var b strings.Builder
	b.WriteString(`{"mcptest_cassette":1,"runs":[`)
	arg := strings.Repeat("a", argBytes)
	res := strings.Repeat("lorem ipsum ", resultBytes/12)
	for r := range runs {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range calls {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"tool":"t"`)
			if argBytes > 0 {
				fmt.Fprintf(&b, `,"arguments":{"q":%q}`, arg)
			}
			if resultBytes > 0 {
				fmt.Fprintf(&b, `,"result":{"content":[{"type":"text","text":%q}]}`, res)
			}
			b.WriteByte('}')
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// TestCassetteShapesMemoryIsBounded replays cassettes of every shape that
// costs memory (many runs of one call, one run of many one-word calls, long
// results, and random mixes of the three, seeded) and checks the heap's
// peak against the bound SECURITY.md states: 3 times the file, 128 bytes
// a call, 256 a run, 8 MiB. Before the reader sized long call lists at
// once and the per-run document left out calls no check reads, a 13 MB
// run of a million calls peaked at 651 MB of heap (50 times the file).
func TestCassetteShapesMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of tens of MB")
	}
	type shape struct {
		name                          string
		runs, calls, args, resultSize int
	}
	shapes := []shape{
		{"many runs", 200_000, 1, 0, 0},
		{"many one-word calls", 1, 500_000, 0, 0},
		{"long results", 1, 1_000, 8, 12_000},
		{"short calls with arguments", 1_000, 500, 8, 0},
	}
	rng := rand.New(rand.NewPCG(28, 4))
	for i := range 3 {
		runs, args, result := 1+rng.IntN(2000), rng.IntN(64), rng.IntN(2)*rng.IntN(4000)
		perCall := 16 + args + result + 60                       // about the bytes of one call
		calls := 1 + rng.IntN(max(1, 16_000_000/(runs*perCall))) // at most about 16 MB
		shapes = append(shapes, shape{fmt.Sprintf("mix %d", i), runs, calls, args, result})
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			text := cassetteShape(sh.runs, sh.calls, sh.args, sh.resultSize)
			if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			suite := filepath.Join(dir, "suite.yml")
			if err := os.WriteFile(suite, []byte(oneCassetteSuite), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := LoadSuite(suite)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			stop := gen.HeapPeak()
			env, err := Run(s, Options{Emit: func(*report.CaseResult) error { return nil }})
			peak := stop()
			if err != nil || env.Verdict != report.Pass {
				t.Fatalf("run: %v, verdict %v", err, env)
			}
			size, calls := int64(len(text)), int64(sh.runs*sh.calls)
			limit := shapeFileFactor*size + shapeCallBytes*calls + shapeRunBytes*int64(sh.runs) + shapeConstant
			t.Logf("%d runs × %d calls, %.1f MB: heap peak %.1f MB (%.1f× the file), limit %.1f MB",
				sh.runs, sh.calls, float64(size)/1e6, float64(peak)/1e6, float64(peak)/float64(size), float64(limit)/1e6)
			if int64(peak) > limit {
				t.Errorf("heap peak %d bytes over the limit %d (3 × %d bytes + %d calls × 128 + %d runs × 256 + 8 MiB)", peak, limit, size, calls, sh.runs)
			}
		})
	}
}
