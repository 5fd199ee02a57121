package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// TestSnapshotAddressBound runs the built binary over generated runs
// (the generator corpus's passing suite of one test per cassette and its
// failing suite, drawn seeds and sizes) and holds each run's snapshot
// address to its documented bound (annotate.SnapshotBound: a one-case
// passing run in 2 KiB; 3.5 KiB, 320 bytes a passing case and 1 KiB a
// failing one), and checks the address reads back to the run it names.
// At 40 cases, the address is at most a fifth of the run's lean envelope:
// it grows far more slowly than the record it names.
func TestSnapshotAddressBound(t *testing.T) {
	bin := mcptestBin(t)
	r := rand.New(rand.NewPCG(41, 11))
	sizes := []int{1, 1, 1, 2, 2, 3, 5, 8, 13, 40}
	for i, n := range sizes {
		seed := gen.DefaultSeed
		if i > 0 {
			seed = r.Uint64()
		}
		for _, failing := range []bool{false, true} {
			name := fmt.Sprintf("%d cases seed %d failing %v", n, seed, failing)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				snapshotWithin(t, bin, n, seed, failing)
			})
		}
	}
}

// snapshotWithin runs the built binary over a generated run of n cases
// and holds its snapshot address to the bound.
func snapshotWithin(t *testing.T, bin string, n int, seed uint64, failing bool) {
	dir := t.TempDir()
	suite := filepath.Join(dir, gen.CaseSuiteFile)
	if failing {
		var err error
		if suite, err = gen.WriteFailing(dir, n, seed); err != nil {
			t.Fatal(err)
		}
	} else if _, err := gen.Write(dir, n, seed); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run.json")
	if out, err := exec.Command(bin, "run", "--config", suite, "--format", "json", "--output", run).CombinedOutput(); err != nil && !failing {
		t.Fatalf("mcptest run: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "view", run, "--snapshot", filepath.Join(dir, "viewer.html"), "--no-serve").Output()
	if err != nil {
		t.Fatalf("mcptest view --snapshot: %v", err)
	}
	_, frag, ok := strings.Cut(strings.TrimSpace(string(out)), "#")
	if !ok {
		t.Fatalf("no snapshot address in %q", out)
	}
	f, err := os.Open(run)
	if err != nil {
		t.Fatal(err)
	}
	env, err := report.Read(f, run)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	passing := env.Totals.Passed
	bound := annotate.SnapshotBound(passing, n-passing)
	if len(frag) > bound {
		t.Errorf("the snapshot address is %d bytes, over its bound %d (%d passing, %d not)", len(frag), bound, passing, n-passing)
	}
	st, err := os.Stat(run)
	if err != nil {
		t.Fatal(err)
	}
	if n >= 40 && int64(len(frag))*5 > st.Size() {
		t.Errorf("the snapshot address is %d bytes, over a fifth of the envelope's %d", len(frag), st.Size())
	}
	t.Logf("%d bytes (bound %d), envelope %d bytes", len(frag), bound, st.Size())
	snap, err := annotate.ReadSnapshotFragment(frag)
	if err != nil || snap.RunID != env.Run.ID || snap.Cases != n {
		t.Errorf("the address reads back as %+v, %v", snap, err)
	}
}
