package envstream

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestMergeArenasReusedIsMerge draws suites of up to 3,000 cases in 1 to
// 80 shards, with failing cases whose evidence runs from none to several
// times a batch's bytes (a batch's buffer grows, or a case moves it
// while it is read; one grown past maxArena is not put back) and cases written with a \u escape (decoded, not
// passed through, in a batch whose buffer is put back too). Every buffer
// put back (arenas) is overwritten with '#' at once, so a case read into
// it and not yet written would come out changed: the merge written as it
// merges and MergeFiles' each give byte for byte baseline.Merge's
// envelope, and buffers were put back and used again.
func TestMergeArenasReusedIsMerge(t *testing.T) {
	var put, grown int
	var over int
	arenaWritten = func(b *[]byte) {
		put++
		if cap(*b) > batchBytes/2 {
			grown++
		}
		if cap(*b) > maxArena {
			over++
		}
		clear((*b)[:cap(*b)])
		for i := range *b {
			(*b)[i] = '#'
		}
	}
	defer func() { arenaWritten = nil }()
	r := rand.New(rand.NewPCG(40, 7))
	decoded := 0
	for round := range 12 {
		n := 1 + r.IntN(3000)
		shards := []int{1, 2, 3, 7, 16, 64, 80}[r.IntN(7)]
		env := genEnvelope(r, n, fmt.Sprintf("arena round %d", round))
		for _, c := range env.Cases {
			if c.Verdict == report.Fail && r.IntN(6) == 0 {
				size := r.IntN(3 * batchBytes)
				c.Evidence = []report.RunEvidence{{Run: 1, Turns: []report.TurnEvidence{{Calls: []report.CallEvidence{{
					Tool: "fetch", Arguments: `{"url":"page"}`, Result: strings.Repeat("a long page ", size/12+1)}}}}}}
			}
		}
		env.Summarize(expr.JudgeFloor)
		env.Tally()
		dir := t.TempDir()
		var paths []string
		for i, sh := range shardsOf(env, shards) {
			p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			writeEnv(t, p, sh)
			decoded += escapeSome(t, r, p)
			paths = append(paths, p)
		}
		want, err := baseline.MergeFiles(paths)
		if err != nil {
			t.Fatal(err)
		}
		want.Run.ID = "merged"
		var wantJSON bytes.Buffer
		if err := (annotate.JSON{}).Report(&wantJSON, want); err != nil {
			t.Fatal(err)
		}
		files, err := mergeFilesBytes(paths, "merged")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		before := rewrites.Load()
		o := &renameOut{}
		if _, err := Merge(paths, "merged", true, o.out); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if rewrites.Load() != before {
			t.Fatalf("round %d: a merge of the shards a run writes was written twice", round)
		}
		for what, got := range map[string][]byte{"MergeFiles": files, "Merge": o.got} {
			if !bytes.Equal(got, wantJSON.Bytes()) {
				t.Fatalf("round %d (%d cases, %d shards): %s differs from baseline.Merge at byte %d",
					round, n, shards, what, firstDiff(got, wantJSON.Bytes()))
			}
		}
	}
	if put == 0 || grown == 0 || decoded == 0 {
		t.Fatalf("buffers put back %d, of them grown past their first size %d, cases decoded %d: each must be drawn", put, grown, decoded)
	}
	if over > 0 {
		t.Fatalf("%d buffers grown past %d bytes were put back: a large case's buffer is left to the collector", over, maxArena)
	}
}

// escapeSome rewrites, in the shard envelope at path, the first letter
// 'a' of a few cases' assertion messages as the escape \u0061, which
// decodes to the same case but is not what the reporter writes (the
// merge decodes the case, not passing its bytes through); it returns how
// many.
func escapeSome(t *testing.T, r *rand.Rand, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	n := 0
	for i, l := range lines {
		at := bytes.Index(l, []byte(`"message":"assertion`))
		if at < 0 || r.IntN(40) != 0 {
			continue
		}
		at += len(`"message":"`)
		lines[i] = append(append(append([]byte{}, l[:at]...), `\u0061`...), l[at+1:]...)
		n++
	}
	if err := os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestMergeAllocatesLittleACase merges generated runs of 5,000 and of
// 25,000 cases, each in 64 shards (report/envgen), and holds the
// allocations the merge makes for each case more under one and a half:
// the cases' bytes are read into buffers used again (arenas), not a new
// one a case, nor a new result of the scan a case (3.3 allocations and
// 1,300 bytes a case before, the cases' own 770 bytes among them, which
// made the collector run 7 or 8 times in a merge of 100,000 cases; one
// is left, the scan's verdict made a string of 4 bytes). The bytes are
// logged, not held: a collection that empties the pool makes the next
// merge's batches allocate their buffers again.
func TestMergeAllocatesLittleACase(t *testing.T) {
	const small, large, perCase = 5000, 25000, 1.5
	// The small run is merged twice, the first time to fill arenas.
	var mallocs, bytes [3]uint64
	for i, n := range []int{small, small, large} {
		dir := t.TempDir()
		rel, err := envgen.WriteSuite(dir, n, 64)
		if err != nil {
			t.Fatal(err)
		}
		paths := make([]string, len(rel))
		for j, p := range rel {
			paths[j] = filepath.Join(dir, p)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Merge(paths, "merged", true, func(fill func(io.Writer) error) error { return fill(io.Discard) })
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		mallocs[i], bytes[i] = after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
	}
	each := float64(mallocs[2]-min(mallocs[1], mallocs[2])) / (large - small)
	t.Logf("merge of %d cases: %d allocations, %d bytes; of %d cases: %d allocations, %d bytes; %.3f allocations and %.0f bytes a case more",
		small, mallocs[1], bytes[1], large, mallocs[2], bytes[2], each, float64(bytes[2]-min(bytes[1], bytes[2]))/(large-small))
	if each > perCase {
		t.Fatalf("a merge makes %.3f allocations for each case more, over %.1f", each, perCase)
	}
}
