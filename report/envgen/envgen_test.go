package envgen_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestWriteSuiteShardsAsRun writes suites of drawn sizes in drawn numbers
// of shards and reads every envelope back with the envelope's reader
// (decoded and checked): each shard holds exactly the pull request's
// cases report.Shard.Holds gives it, in suite order, and the baseline
// holds the baseline's cases, in order.
func TestWriteSuiteShardsAsRun(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	for range 6 {
		n, shards := 1+r.IntN(3000), 1+r.IntN(70)
		dir := t.TempDir()
		paths, err := envgen.WriteSuite(dir, n, shards)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != shards {
			t.Fatalf("%d shards: %d paths", shards, len(paths))
		}
		seen := 0
		for i, p := range paths {
			env := read(t, filepath.Join(dir, p))
			sh, err := report.ParseShard(env.Run.Shard)
			if err != nil || env.Run.Shard != fmt.Sprintf("%d/%d", i+1, shards) {
				t.Fatalf("%s: shard %q, %v", p, env.Run.Shard, err)
			}
			var want []int
			for k := range n {
				if envgen.PRCase(k).In && sh.Holds(envgen.Name(k)) {
					if envgen.ShardOf(k, shards) != i+1 {
						t.Fatalf("ShardOf(%d, %d) = %d, report.Shard says %d", k, shards, envgen.ShardOf(k, shards), i+1)
					}
					want = append(want, k)
				}
			}
			same(t, p, env, want, envgen.PRCase)
			seen += len(want)
		}
		var base []int
		run := 0
		for k := range n {
			if envgen.BaseCase(k).In {
				base = append(base, k)
			}
			if envgen.PRCase(k).In {
				run++
			}
		}
		if seen != run {
			t.Fatalf("n %d: the shards hold %d cases, the run %d", n, seen, run)
		}
		same(t, "baseline.json", read(t, filepath.Join(dir, "baseline.json")), base, envgen.BaseCase)
	}
}

func read(t *testing.T, path string) *report.Envelope {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env, err := report.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// same checks that env holds the cases want, in that order, each passing
// or failing as side says, with its f1, and that its head's totals and
// verdict are those its cases count to (report.Envelope.Tally), as a
// run's are: a merge predicts its head from them.
func same(t *testing.T, what string, env *report.Envelope, want []int, side func(int) envgen.Side) {
	t.Helper()
	head := *env
	head.Tally()
	if head.Totals != env.Totals || head.Verdict != env.Verdict {
		t.Fatalf("%s: head %s %+v, its cases count %s %+v", what, env.Verdict, env.Totals, head.Verdict, head.Totals)
	}
	if len(env.Cases) != len(want) {
		t.Fatalf("%s: %d cases, want %d", what, len(env.Cases), len(want))
	}
	for i, c := range env.Cases {
		k := want[i]
		s := side(k)
		v := report.Pass
		if s.Fail {
			v = report.Fail
		}
		if c.Name != envgen.Name(k) || c.Verdict != v || c.Targets["tool_selection.f1"] != float64(s.F1) {
			t.Fatalf("%s: case %d is %q %s f1 %v, want %q %s f1 %d", what, i, c.Name, c.Verdict, c.Targets["tool_selection.f1"], envgen.Name(k), v, s.F1)
		}
	}
}
