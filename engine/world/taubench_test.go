package world

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tauBench is the τ-bench v1 airline sample (20 recorded gpt-4o
// trajectories with their seeded DB slice and the final-state diffs of the
// gold and the agent replay). It lives outside the repository, in
// ../shared/data beside the repository root (this package is two levels
// below it; see ../shared/data/tau_bench/README.md). Where it is absent the
// test is skipped, and fails under CI=true, where .ci/run expects it.
var tauBench = filepath.Join("..", "..", "..", "shared", "data", "tau_bench", "v1_airline_gpt-4o_trajectories_sample20_replayed.jsonl")

type tauDiff struct {
	Path  []string `json:"path"`
	Op    string   `json:"op"`
	After any      `json:"after"`
}

type tauRecord struct {
	TaskID   int            `json:"task_id"`
	Trial    int            `json:"trial"`
	Seed     map[string]any `json:"seed_state_slice"`
	Expected []tauDiff      `json:"expected_final_diff"`
	Agent    []tauDiff      `json:"agent_final_diff"`
	Replay   struct {
		RActions bool `json:"r_actions"`
	} `json:"replay"`
}

// replayDiff turns a recorded diff into world transitions, one synthetic
// write call per entry, and replays them. τ-bench's remove (a deleted key)
// has no effect form, so it is applied to the state directly.
func replayDiff(t *testing.T, seed map[string]any, diffs []tauDiff) map[string]any {
	var rules Rules
	for i, d := range diffs {
		if d.Op == "remove" {
			continue
		}
		rules.Transitions = append(rules.Transitions, Transition{Tool: "write" + string(rune('a'+i)),
			Effects: []Effect{{Path: Path(d.Path), Op: OpSet, Value: d.After}}})
	}
	w := New(seed, &rules)
	for i, d := range diffs {
		if d.Op == "remove" {
			parent, ok := Get(w.state, Path(d.Path[:len(d.Path)-1]))
			if m, isMap := parent.(map[string]any); ok && isMap {
				delete(m, d.Path[len(d.Path)-1])
			}
			continue
		}
		tool := "write" + string(rune('a'+i))
		if res := w.Call(Step{Tool: tool, ID: tool}); res.Outcome != Applied {
			t.Fatalf("%s at %s: %s %s", d.Op, strings.Join(d.Path, "."), res.Outcome, res.Reason)
		}
	}
	return w.State()
}

// TestTauBenchFinalState is a held-out check on real data: replaying the
// agent's and the gold writes onto the seeded airline DB, the world's diff
// says "final state matches" exactly when τ-bench's r_actions is true
// (10 of the 20 records), and neither replay mutates the seed.
func TestTauBenchFinalState(t *testing.T) {
	f, err := os.Open(tauBench)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("τ-bench sample not available: %v: CI runs with ../shared/data beside the repository", err)
		}
		t.Skipf("τ-bench sample not available: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	n, matched := 0, 0
	for sc.Scan() {
		var r tauRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		n++
		before, _ := json.Marshal(r.Seed)
		gold := replayDiff(t, r.Seed, r.Expected)
		agent := replayDiff(t, r.Seed, r.Agent)
		if after, _ := json.Marshal(r.Seed); string(after) != string(before) {
			t.Fatalf("task %d trial %d: the seed was mutated", r.TaskID, r.Trial)
		}
		// The gold replay changes exactly the paths of the gold diff.
		if got := Diff(r.Seed, gold); len(r.Expected) == 0 && len(got) != 0 {
			t.Errorf("task %d trial %d: an empty gold diff changed %v", r.TaskID, r.Trial, got)
		}
		same := len(Diff(agent, gold)) == 0
		if same {
			matched++
		}
		if same != r.Replay.RActions {
			t.Errorf("task %d trial %d: final state matches = %v, τ-bench r_actions = %v (diff %v)", r.TaskID, r.Trial, same, r.Replay.RActions, Diff(gold, agent))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 20 || matched != 10 {
		t.Errorf("%d records, %d matched; want 20 and 10", n, matched)
	}
}
