package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tauBenchDir is the τ-bench data folder, reached from the repository root
// as ../shared/data (see its README for the sources, the commits and the
// MIT licence). Tests that read it are skipped where it is absent.
const tauBenchDir = "../../shared/data/tau_bench"

// tauTrial is one line of v1_airline_gpt-4o_all200_summary.jsonl: one
// recorded trial of one task, with its reward.
type tauTrial struct {
	TaskID int      `json:"task_id"`
	Trial  int      `json:"trial"`
	Reward float64  `json:"reward"`
	Calls  []string `json:"agent_tool_call_names"`
}

func readTauTrials(t *testing.T) map[int][]tauTrial {
	t.Helper()
	f, err := os.Open(filepath.Join(tauBenchDir, "v1_airline_gpt-4o_all200_summary.jsonl"))
	if err != nil {
		t.Skipf("τ-bench data not available: %v", err)
	}
	defer f.Close()
	tasks := map[int][]tauTrial{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr tauTrial
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		tasks[tr.TaskID] = append(tasks[tr.TaskID], tr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tasks
}

// tauBenchSuite lays out, from the recorded trials, one cassette per task
// (its trials as runs, in trial order: the agent's tool calls and, as the
// final response, the reward τ-bench gave the trial) and a suite with one
// test per task asserting on every run that the reward was 1. It returns
// the suite and the task ids in suite order.
func tauBenchSuite(t *testing.T, tasks map[int][]tauTrial, head string) (*Suite, []int) {
	t.Helper()
	dir := t.TempDir()
	var ids []int
	for id := range tasks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var suite strings.Builder
	suite.WriteString(head + "agents:\n")
	for _, id := range ids {
		trials := tasks[id]
		slices.SortFunc(trials, func(a, b tauTrial) int { return a.Trial - b.Trial })
		var runs []string
		for _, tr := range trials {
			var calls []string
			for _, name := range tr.Calls {
				calls = append(calls, fmt.Sprintf(`{"server": "airline", "tool": %q, "arguments": {}}`, name))
			}
			runs = append(runs, fmt.Sprintf(`{"turns": [{"calls": [%s], "final_response": "reward=%g"}]}`, strings.Join(calls, ","), tr.Reward))
		}
		name := fmt.Sprintf("task-%02d.json", id)
		body := fmt.Sprintf(`{"mcptest_cassette": 1, "agent": "tau-bench-tool-calling", "model": "gpt-4o", "runs": [%s]}`, strings.Join(runs, ","))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&suite, "  - name: airline task %d\n    runs: %d\n    cassette: %s\n    expect:\n      - final_response: { exact: \"reward=1\" }\n", id, len(trials), name)
	}
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(suite.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, ids
}

// TestTauBenchPassHat holds the summary against τ-bench's published
// airline row for gpt-4o (tool calling): from the 200 recorded trials (50
// tasks × 4), pass^1..4 = 0.420 / 0.273 / 0.220 / 0.200, which the summary
// gives as 42.0 / 27.3 / 22.0 / 20.0 (percent, rounded half up to one
// decimal). The tasks whose four trials all had reward 1 are stable_pass,
// those with none stable_fail, the rest flaky, counted from the file.
func TestTauBenchPassHat(t *testing.T) {
	tasks := readTauTrials(t)
	if len(tasks) != 50 {
		t.Fatalf("%d tasks, want 50", len(tasks))
	}
	s, ids := tauBenchSuite(t, tasks, "floors:\n  - summary.pass_hat_1: { \">=\": 40 }\n  - summary.pass_hat_4: { \">=\": 20 }\n")
	env := run(t, s, Options{})

	sum := env.Summary
	if sum == nil {
		t.Fatal("no summary")
	}
	var got []float64
	for _, p := range sum.PassHat {
		got = append(got, p.Value)
		if p.Cases != 50 {
			t.Errorf("pass^%d is over %d cases, want 50", p.K, p.Cases)
		}
	}
	if want := []float64{42.0, 27.3, 22.0, 20.0}; !slices.Equal(got, want) {
		t.Errorf("pass^1..4 = %v, want τ-bench's %v", got, want)
	}
	if sum.PassRate.Value != 42.0 || sum.Runs != 200 || sum.Cases != 50 {
		t.Errorf("pass rate %v over %d runs of %d cases", sum.PassRate.Value, sum.Runs, sum.Cases)
	}
	if !env.Floors[0].Passed || !env.Floors[1].Passed {
		t.Errorf("floors %+v", env.Floors)
	}

	wantClass := map[string]int64{}
	for i, id := range ids {
		c, n := 0, len(tasks[id])
		for _, tr := range tasks[id] {
			if tr.Reward == 1 {
				c++
			}
		}
		class := "flaky"
		switch c {
		case n:
			class = "stable_pass"
		case 0:
			class = "stable_fail"
		}
		wantClass[class]++
		cr := env.Cases[i]
		if cr.Labels["reliability.class"] != class || cr.Counts["reliability.passed_runs"] != int64(c) {
			t.Errorf("task %d: class %s with %d passed, want %s with %d", id, cr.Labels["reliability.class"], cr.Counts["reliability.passed_runs"], class, c)
		}
	}
	if sum.Classes != (ClassCounts{StablePass: wantClass["stable_pass"], Flaky: wantClass["flaky"], StableFail: wantClass["stable_fail"]}) {
		t.Errorf("classes %+v, want %v", sum.Classes, wantClass)
	}
	t.Logf("pass^1..4 %v (exact %s, %s, %s, %s); classes %+v", got, sum.PassHat[0].Exact, sum.PassHat[1].Exact, sum.PassHat[2].Exact, sum.PassHat[3].Exact, sum.Classes)
}
