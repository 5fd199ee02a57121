package envstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// TestMergeArenasReusedIsMerge draws suites of up to 3,000 cases in 1 to
// 80 shards, with failing cases whose evidence runs from none to several
// times a batch's bytes (a batch's buffer grows, or a case moves it
// while it is read) and cases written with a \u escape (decoded, not
// passed through, in a batch whose buffer is put back too). Every buffer
// put back (arenas) is overwritten with '#' at once, so a case read into
// it and not yet written would come out changed: the merge written as it
// merges and MergeFiles' each give byte for byte baseline.Merge's
// envelope, and buffers were put back and used again.
func TestMergeArenasReusedIsMerge(t *testing.T) {
	var put, grown int
	arenaWritten = func(b *[]byte) {
		put++
		if cap(*b) > batchBytes/2 {
			grown++
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
		var in []baseline.Input
		for i, sh := range shardsOf(env, shards) {
			p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			writeEnv(t, p, sh)
			decoded += escapeSome(t, r, p)
			paths = append(paths, p)
			read, err := baseline.ReadFile(p, "", report.Read)
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, baseline.Input{Name: p, Envelope: read})
		}
		want, err := baseline.Merge(in)
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
