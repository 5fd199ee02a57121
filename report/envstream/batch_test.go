package envstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// TestDepthFor: the batches the inputs hold ready ahead of the fold stay
// within aheadBytes, all inputs together, for any number of inputs, and
// each input holds at least one and at most 16.
func TestDepthFor(t *testing.T) {
	for n := 0; n <= 5000; n++ {
		d := depthFor(n)
		if d < 1 || d > 16 {
			t.Fatalf("depthFor(%d) = %d, not in [1, 16]", n, d)
		}
		if d > 1 && n*d*batchBytes > aheadBytes {
			t.Fatalf("depthFor(%d) = %d: %d bytes ahead, over %d", n, d, n*d*batchBytes, aheadBytes)
		}
		if d < 16 && n > 0 && n*(d+1)*batchBytes <= aheadBytes {
			t.Fatalf("depthFor(%d) = %d: one more batch an input fits in %d bytes", n, d, aheadBytes)
		}
	}
}

// TestMergeStreamBatchesIsMerge draws suites whose failing cases carry
// evidence from none to several times a batch's bytes, in 1 to 80 shards
// (so each input holds from 1 to 16 batches ahead): the streamed merge
// writes byte for byte what baseline.Merge's envelope encodes to.
func TestMergeStreamBatchesIsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	for round := range 10 {
		n := 1 + r.IntN(400)
		shards := []int{1, 2, 3, 5, 17, 31, 64, 80}[r.IntN(8)]
		env := genEnvelope(r, n, fmt.Sprintf("batch round %d", round))
		big := 0
		for _, c := range env.Cases {
			if c.Verdict == report.Fail && r.IntN(4) == 0 {
				size := r.IntN(3 * batchBytes)
				c.Evidence = []report.RunEvidence{{Run: 1, Turns: []report.TurnEvidence{{Calls: []report.CallEvidence{{
					Tool: "fetch", Arguments: `{"url":"page"}`, Result: strings.Repeat("a long page ", size/12+1)}}}}}}
				if size >= batchBytes {
					big++
				}
			}
		}
		env.Summarize(expr.JudgeFloor)
		env.Tally()
		dir := t.TempDir()
		var paths []string
		for i, sh := range shardsOf(env, shards) {
			p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			writeEnv(t, p, sh)
			paths = append(paths, p)
		}
		want, err := baseline.MergeFiles(paths)
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON bytes.Buffer
		if err := (annotate.JSON{}).Report(&wantJSON, want); err != nil {
			t.Fatal(err)
		}
		m, err := MergeFiles(paths)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var got bytes.Buffer
		if err := m.Write(&got); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if !bytes.Equal(got.Bytes(), wantJSON.Bytes()) {
			t.Fatalf("round %d (%d cases, %d of them over a batch's bytes, %d shards, %d batches ahead): the streamed merge differs from baseline.Merge",
				round, n, big, shards, depthFor(shards))
		}
	}
}
