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

	"github.com/mcptest/mcptest/report"
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
	if sum.Classes != (report.ClassCounts{StablePass: wantClass["stable_pass"], Flaky: wantClass["flaky"], StableFail: wantClass["stable_fail"]}) {
		t.Errorf("classes %+v, want %v", sum.Classes, wantClass)
	}
	t.Logf("pass^1..4 %v (exact %s, %s, %s, %s); classes %+v", got, sum.PassHat[0].Exact, sum.PassHat[1].Exact, sum.PassHat[2].Exact, sum.PassHat[3].Exact, sum.Classes)
}

// tauDiff is one entry of a τ-bench final-state diff.
type tauDiff struct {
	Path   []string `json:"path"`
	Op     string   `json:"op"`
	Before any      `json:"before"`
	After  any      `json:"after"`
}

// tauTrajectory is one line of
// v1_airline_gpt-4o_trajectories_sample20_replayed.jsonl: a recorded
// trajectory with the DB slice it touched and the final-state diffs of the
// gold actions and of the agent's calls, replayed upstream.
type tauTrajectory struct {
	TaskID int            `json:"task_id"`
	Trial  int            `json:"trial"`
	Seed   map[string]any `json:"seed_state_slice"`
	Calls  []struct {
		Name        string         `json:"name"`
		Kwargs      map[string]any `json:"kwargs"`
		Observation string         `json:"observation"`
	} `json:"agent_tool_calls"`
	Expected []tauDiff `json:"expected_final_diff"`
	Agent    []tauDiff `json:"agent_final_diff"`
	Replay   struct {
		RActions bool `json:"r_actions"`
	} `json:"replay"`
}

// tauWrites are the airline tools that change the DB.
var tauWrites = []string{"book_reservation", "cancel_reservation", "update_reservation_baggages", "update_reservation_flights",
	"update_reservation_passengers", "send_certificate"}

// applyTauDiff returns a copy of seed with a τ-bench diff applied.
func applyTauDiff(t *testing.T, seed map[string]any, diffs []tauDiff) map[string]any {
	t.Helper()
	var st map[string]any
	b, _ := json.Marshal(seed)
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		m := st
		for _, seg := range d.Path[:len(d.Path)-1] {
			next, _ := m[seg].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[seg] = next
			}
			m = next
		}
		if last := d.Path[len(d.Path)-1]; d.Op == "remove" {
			delete(m, last)
		} else {
			m[last] = d.After
		}
	}
	return st
}

// tauScenario turns one recorded trajectory into a scenario and its
// cassette. The cassette is the agent's calls as recorded, in order (a call
// whose observation starts with "Error" is marked is_error, as τ-bench's
// Env.step caught it). The scenario's seed is the DB slice; every tool the
// agent called is a legal transition and transfer_to_human_agents an
// escalation; expect_state is the slice after the gold actions (the seed
// with expected_final_diff applied).
//
// The world's effect grammar (set, inc, dec, from_arg) cannot express the
// airline tools' code (prices, payment methods, certificates), so the
// writes are declared the way a scenario author who knows what they did
// would: the agent's last successful write sets every record the agent's
// replay changed to the value upstream's replay left it at. What the test
// holds is everything after that: the cassette replayed run by run, errored
// calls leaving the world alone, the final state compared path by path with
// the gold state, and the scenario object's diff, which must equal the
// agent diff τ-bench's own replay wrote.
func tauScenario(t *testing.T, r tauTrajectory) (scenario map[string]any, cassette string) {
	t.Helper()
	final := applyTauDiff(t, r.Seed, r.Agent)
	lastWrite := ""
	var calls []string
	for _, c := range r.Calls {
		isErr := strings.HasPrefix(c.Observation, "Error")
		if slices.Contains(tauWrites, c.Name) && !isErr {
			lastWrite = c.Name
		}
		args, _ := json.Marshal(c.Kwargs)
		obs, _ := json.Marshal(c.Observation)
		calls = append(calls, fmt.Sprintf(`{"server": "airline", "tool": %q, "arguments": %s, "is_error": %v, "result": {"content": [{"type": "text", "text": %s}]}}`,
			c.Name, args, isErr, obs))
	}
	cassette = fmt.Sprintf(`{"mcptest_cassette": 1, "agent": "tau-bench-tool-calling", "model": "gpt-4o", "runs": [{"turns": [{"calls": [%s], "final_response": "done"}]}]}`,
		strings.Join(calls, ","))

	var transitions []any
	seen := map[string]bool{}
	for _, c := range r.Calls {
		if seen[c.Name] || c.Name == "transfer_to_human_agents" {
			continue
		}
		seen[c.Name] = true
		tr := map[string]any{"tool": c.Name}
		if c.Name == lastWrite {
			effect := map[string]any{}
			for _, d := range r.Agent {
				// A removed key has no effect form: its parent object
				// is set to what it holds at the end instead.
				p := d.Path
				if d.Op == "remove" {
					p = p[:len(p)-1]
				}
				v, _ := getPath(final, p)
				effect[strings.Join(p, ".")] = map[string]any{"set": v}
			}
			tr["effect"] = effect
		}
		transitions = append(transitions, tr)
	}
	gold := applyTauDiff(t, r.Seed, r.Expected)
	scenario = map[string]any{
		"name":         fmt.Sprintf("airline task %d trial %d", r.TaskID, r.Trial),
		"cassette":     fmt.Sprintf("task-%d-%d.json", r.TaskID, r.Trial),
		"seed":         r.Seed,
		"transitions":  transitions,
		"escalation":   map[string]any{"tools": []string{"transfer_to_human_agents"}},
		"expect_state": map[string]any{"users": gold["users"], "reservations": gold["reservations"], "flights": gold["flights"]},
	}
	return scenario, cassette
}

func getPath(root map[string]any, p []string) (any, bool) {
	var v any = root
	for _, seg := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// TestTauBenchScenarioWorld replays the 20 recorded τ-bench trajectories
// through the scenario world, one scenario each: the final state matches
// the gold state exactly for the 10 whose upstream r_actions is true and
// for none of the other 10, and each run's diff is the agent diff
// τ-bench's replay wrote, path, op and values.
func TestTauBenchScenarioWorld(t *testing.T) {
	f, err := os.Open(filepath.Join(tauBenchDir, "v1_airline_gpt-4o_trajectories_sample20_replayed.jsonl"))
	if err != nil {
		t.Skipf("τ-bench data not available: %v", err)
	}
	defer f.Close()
	var records []tauTrajectory
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r tauTrajectory
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	if err := sc.Err(); err != nil || len(records) != 20 {
		t.Fatalf("%d records, %v", len(records), err)
	}
	dir := t.TempDir()
	var scenarios []any
	for _, r := range records {
		s, cas := tauScenario(t, r)
		scenarios = append(scenarios, s)
		if err := os.WriteFile(filepath.Join(dir, s["cassette"].(string)), []byte(cas), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// JSON is YAML: the suite is written as one JSON document.
	suite, _ := json.MarshalIndent(map[string]any{"scenarios": scenarios}, "", " ")
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, suite, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	env := run(t, s, Options{})
	matched := 0
	for i, r := range records {
		c := env.Cases[i]
		same := c.Targets["state_matched"] == 1
		if same {
			matched++
		}
		if same != r.Replay.RActions || (c.Verdict == report.Pass) != r.Replay.RActions {
			t.Errorf("%s: final state matches = %v, verdict %s; τ-bench r_actions = %v", c.Name, same, c.Verdict, r.Replay.RActions)
		}
		if c.Counts["invalid_actions"] != 0 || c.Scenario == nil || len(c.Scenario.Runs) != 1 {
			t.Fatalf("%s: invalid actions %d, scenario %+v", c.Name, c.Counts["invalid_actions"], c.Scenario)
		}
		run := c.Scenario.Runs[0]
		if run.StateMatched != same || len(run.ToolNames) != len(r.Calls) {
			t.Errorf("%s: scenario run %+v", c.Name, run)
		}
		var want []report.StateChange
		for _, d := range r.Agent {
			sc := report.StateChange{Path: strings.Join(d.Path, "."), Op: d.Op, Before: d.Before, After: d.After}
			want = append(want, sc)
		}
		slices.SortFunc(want, func(a, b report.StateChange) int { return strings.Compare(a.Path, b.Path) })
		got, _ := json.Marshal(run.Diff)
		w, _ := json.Marshal(orEmptyChanges(want))
		if string(got) != string(w) {
			t.Errorf("%s: diff\n got %s\nwant %s", c.Name, got, w)
		}
	}
	if matched != 10 {
		t.Errorf("%d of 20 final states match, want 10", matched)
	}
}

func orEmptyChanges(cs []report.StateChange) []report.StateChange {
	if cs == nil {
		return []report.StateChange{}
	}
	return cs
}
