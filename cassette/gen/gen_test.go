package gen_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

func TestCassetteIsDeterministic(t *testing.T) {
	for i := range 20 {
		a, b := gen.Cassette(gen.DefaultSeed, i), gen.Cassette(gen.DefaultSeed, i)
		if !bytes.Equal(a, b) {
			t.Fatalf("cassette %d: two calls gave different bytes", i)
		}
		if bytes.Equal(a, gen.Cassette(gen.DefaultSeed+1, i)) {
			t.Errorf("cassette %d: seeds %d and %d gave the same bytes", i, gen.DefaultSeed, gen.DefaultSeed+1)
		}
	}
	if bytes.Equal(gen.Cassette(gen.DefaultSeed, 0), gen.Cassette(gen.DefaultSeed, 1)) {
		t.Error("cassettes 0 and 1 are the same")
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, err := gen.Write(a, 30, 7)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := gen.Write(b, 30, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{gen.SuiteFile, gen.GroupedSuiteFile, gen.CaseSuiteFile} {
		pa = append(pa, filepath.Join(a, name))
		pb = append(pb, filepath.Join(b, name))
	}
	for i := range pa {
		x, err := os.ReadFile(pa[i])
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(pb[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two writes", filepath.Base(pa[i]))
		}
	}
}

// TestGeneratedCassettesRead reads every generated cassette with the real
// reader and checks the shape the package promises.
func TestGeneratedCassettesRead(t *testing.T) {
	dir := t.TempDir()
	const n = 300
	paths, err := gen.Write(dir, n, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != n {
		t.Fatalf("Write returned %d paths, want %d", len(paths), n)
	}
	var st genStats
	for _, p := range paths {
		c, err := cassette.ReadFile(p)
		if err != nil {
			t.Fatalf("%v", err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st.sizes = append(st.sizes, int(fi.Size()))
		st.cassette(t, p, c)
	}
	sizes := st.sizes
	slices.Sort(sizes)
	if med := sizes[len(sizes)/2]; med < 5<<10 || med > 40<<10 {
		t.Errorf("median cassette is %d bytes, want 5 to 40 KB", med)
	}
	if st.failed == 0 || st.failed > st.calls/8 {
		t.Errorf("%d of %d calls failed, want a few percent", st.failed, st.calls)
	}
	if st.delegated == 0 || st.delegated > st.runs/2 {
		t.Errorf("%d of %d runs delegate, want about one in five", st.delegated, st.runs)
	}
	t.Logf("%d cassettes: %d runs, %d calls (%d failed), %d delegating runs; size min %d, median %d, max %d bytes",
		n, st.runs, st.calls, st.failed, st.delegated, sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1])
}

// genStats tallies the generated cassettes read.
type genStats struct {
	sizes                          []int
	calls, failed, delegated, runs int
}

// cassette checks one generated cassette's provenance and runs.
func (st *genStats) cassette(t *testing.T, p string, c *cassette.Cassette) {
	t.Helper()
	if c.Format != cassette.FormatV1 || c.Model == "" || c.Provider == "" || c.RecordedAt == "" || c.Prompt == "" {
		t.Errorf("%s: provenance incomplete: %+v", p, c)
	}
	if len(c.Catalog) < 1 || len(c.Catalog) > 5 {
		t.Errorf("%s: %d servers in the catalog, want 1 to 5", p, len(c.Catalog))
	}
	if len(c.Runs) < 1 || len(c.Runs) > 3 {
		t.Errorf("%s: %d runs, want 1 to 3", p, len(c.Runs))
	}
	for ri, r := range c.Runs {
		st.runs++
		if len(r.Turns) < 2 || len(r.Turns) > 6 {
			t.Errorf("%s: run %d has %d turns, want 2 to 6", p, ri+1, len(r.Turns))
		}
		if r.Tokens == nil || r.Tokens.Total != r.Tokens.Input+r.Tokens.Output || r.CostMicros == nil {
			t.Errorf("%s: run %d: tokens or cost missing or inconsistent", p, ri+1)
		}
		if len(r.Delegations) > 0 {
			st.delegated++
		}
		for ti, tu := range r.Turns {
			st.turn(t, fmt.Sprintf("%s: run %d turn %d", p, ri+1, ti+1), tu)
		}
	}
}

// turn checks one turn of a generated run.
func (st *genStats) turn(t *testing.T, where string, tu cassette.Turn) {
	t.Helper()
	if len(tu.Calls) < 1 || len(tu.Calls) > 5 {
		t.Errorf("%s has %d calls, want 1 to 5", where, len(tu.Calls))
	}
	if tu.FinalResponse == "" {
		t.Errorf("%s has no final response", where)
	}
	for _, call := range tu.Calls {
		st.calls++
		if call.IsError {
			st.failed++
		}
		if call.Result == nil {
			t.Errorf("%s: call %s has no result", where, call.ID())
		}
		if slices.Contains(gen.Restricted, call.ID()) {
			t.Errorf("%s: call to restricted tool %s", where, call.ID())
		}
	}
}

// TestSuitesPass runs both generated suites through the engine: they load,
// and every case passes.
func TestSuitesPass(t *testing.T) {
	for _, seed := range []uint64{gen.DefaultSeed, 1, 2} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { suitesPass(t, seed) })
	}
}

func suitesPass(t *testing.T, seed uint64) {
	dir := t.TempDir()
	if _, err := gen.Write(dir, 250, seed); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{gen.SuiteFile, gen.GroupedSuiteFile} {
		s, err := engine.LoadSuite(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		env, err := engine.Run(s, engine.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := 1
		if name == gen.GroupedSuiteFile {
			want = 3
		}
		if env.Totals.Total != want || env.Verdict != report.Pass {
			for _, c := range env.Cases {
				for _, a := range c.Assertions {
					if !a.Passed {
						t.Errorf("%s: %s: %s", name, c.Name, a.Message)
					}
				}
			}
			t.Fatalf("%s: verdict %s over %d cases, want pass over %d", name, env.Verdict, env.Totals.Total, want)
		}
	}
}

func TestWriteRejectsBadN(t *testing.T) {
	if _, err := gen.Write(t.TempDir(), 0, 1); err == nil {
		t.Error("Write(n=0) succeeded")
	}
}

// TestManyCalls: the memory-measure cassette is the density it says (about
// 53 bytes a call) and reads as the runs and calls asked for.
func TestManyCalls(t *testing.T) {
	var buf bytes.Buffer
	if err := gen.ManyCalls(&buf, 20, 50); err != nil {
		t.Fatal(err)
	}
	if per := buf.Len() / 1000; per < 50 || per > 56 {
		t.Errorf("%d bytes for 1,000 calls: %d a call, want about 53", buf.Len(), per)
	}
	c, err := cassette.Read("many.json", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 20 || len(callsOf(&c.Runs[19])) != 50 || c.Runs[3].Turns[0].FinalResponse != "done" {
		t.Errorf("unexpected cassette: %d runs", len(c.Runs))
	}
}

// TestFailingSet: the failing set is deterministic, each cassette has
// three runs each calling the restricted filesystem.move_file once, and
// the suite gives every case a failing verdict through the engine.
func TestFailingSet(t *testing.T) {
	dir := t.TempDir()
	suite, err := gen.WriteFailing(dir, 12, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		data := gen.FailingCassette(gen.DefaultSeed, i)
		if !bytes.Equal(data, gen.FailingCassette(gen.DefaultSeed, i)) {
			t.Fatalf("failing cassette %d: two calls gave different bytes", i)
		}
		p := filepath.Join(dir, gen.CassetteDir, fmt.Sprintf("cassette-%06d.json", i))
		c, err := cassette.ReadFile(p)
		if err != nil {
			t.Fatalf("failing cassette %d: %v", i, err)
		}
		if len(c.Runs) != 3 {
			t.Errorf("failing cassette %d: %d runs, want 3", i, len(c.Runs))
		}
		for r, run := range c.Runs {
			n := 0
			for _, tu := range run.Turns {
				for _, call := range tu.Calls {
					if call.ID() == "filesystem.move_file" {
						n++
					}
				}
			}
			if n != 1 {
				t.Errorf("failing cassette %d run %d: %d calls of filesystem.move_file, want 1", i, r+1, n)
			}
		}
	}
	st, err := engine.LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	env, err := engine.Run(st, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if env.Totals.Failed != 12 {
		t.Errorf("%d of 12 failing cases failed", env.Totals.Failed)
	}
}
