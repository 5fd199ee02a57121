package envstream

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcptest/mcptest/report/envgen"
)

// runID is the run's id line, which `mcptest report merge` stamps anew.
var runID = regexp.MustCompile(`(?m)^    "id": "[^"\n]*",$`)

// TestMergeEveryCoreProcess runs the built binary's `report merge` over
// generated runs (report/envgen) in 64 shards and in 3 (4 and 16 batches
// held ahead an input) at GOMAXPROCS 1, 2 and 4: the merged envelope is
// the same bytes on every number of cores, and those of the merge in
// process (MergeFiles, which TestMergeStreamIsMerge holds to
// baseline.Merge), the run's id aside.
func TestMergeEveryCoreProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	for _, c := range []struct{ n, shards int }{{5000, 64}, {3000, 3}} {
		sub := filepath.Join(dir, fmt.Sprintf("s%d", c.shards))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		paths, err := envgen.WriteSuite(sub, c.n, c.shards)
		if err != nil {
			t.Fatal(err)
		}
		var abs []string
		for _, p := range paths {
			abs = append(abs, filepath.Join(sub, p))
		}
		m, err := MergeFiles(abs)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := m.Write(&want); err != nil {
			t.Fatal(err)
		}
		m.Close()
		wantText := runID.ReplaceAll(want.Bytes(), []byte(`    "id": "ID",`))
		for _, procs := range []string{"1", "2", "4"} {
			out := filepath.Join(sub, "merged-"+procs+".json")
			cmd := exec.Command(bin, append([]string{"report", "merge", "--output", out}, paths...)...)
			cmd.Dir = sub
			cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs, "CI=", "GITHUB_ACTIONS=")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%d shards, GOMAXPROCS=%s: %v\n%s", c.shards, procs, err, msg)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(runID.FindAll(got, -1)) != 1 {
				t.Fatalf("%d shards, GOMAXPROCS=%s: not one run id line in the merged envelope", c.shards, procs)
			}
			if got = runID.ReplaceAll(got, []byte(`    "id": "ID",`)); !bytes.Equal(got, wantText) {
				t.Fatalf("%d shards, GOMAXPROCS=%s: the merged envelope (%d bytes) is not the merge in process's (%d bytes)", c.shards, procs, len(got), len(wantText))
			}
		}
	}
}
