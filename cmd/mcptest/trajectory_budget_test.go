package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyExample copies examples/<name> into a temporary directory, applying
// edit to the named cassette's text, and returns the copy's suite path.
func copyExample(t *testing.T, name, cassette string, edit func(string) string) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == filepath.Join("cassettes", cassette) {
			data = []byte(edit(string(data)))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "suite.yml")
}

// wantLines fails on every line of want that out does not contain.
func wantLines(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: no %q in\n%s", what, w, out)
		}
	}
}

// TestTrajectoryBinary runs the built binary on examples/trajectory: exit
// 1, the match percentages, each diverging run's first divergence at its
// run, turn and call, the figures in the envelope's evidence, and the
// compare output against a re-recording in which run 3 keeps the order.
func TestTrajectoryBinary(t *testing.T) {
	const suite = "../../examples/trajectory/suite.yml"
	stdout, stderr, code := runBin(t, "run", "--config", suite)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	wantLines(t, "run", stdout,
		"FAIL  refund follows the policy, in order  (4 runs)  trajectory.match_pct=50",
		"examples/trajectory/suite.yml:17:5: default gate of `trajectory:` (`trajectory.match_pct` >= 100) failed: 50 is less than the minimum 100",
		"failed in runs 3 and 4 of 4\n        run 3: strict trajectory: expected step 2 `policy.lookup`, got `refund.issue` (turn 1 call 2)",
		"\n        run 4: strict trajectory: step 3 `refund.issue` (turn 1 call 3): arguments `amount`: 400 is greater than the maximum 40",
		"PASS  refund makes the three calls, any order  (4 runs)  trajectory.match_pct=75",
		"PASS  refund reads the policy at least  (4 runs)  trajectory.match_pct=100",
		"PASS  refund stays within the read-only tools  (4 runs)  trajectory.match_pct=0")

	base := filepath.Join(t.TempDir(), "base.json")
	if _, stderr, code := runBin(t, "run", "--config", suite, "--reporter", "json", "--output", base); code != ExitFail {
		t.Fatalf("json: exit %d\n%s", code, stderr)
	}
	env := readEvidence(t, base)
	ev := env.Cases[0].Evidence // the failed runs only: 3 and 4
	if len(ev) != 2 || ev[0].Run != 3 || ev[1].Run != 4 || ev[0].Figures["trajectory.match_pct"] != 0 ||
		len(ev[0].Notes) != 1 || ev[0].Notes[0] != "trajectory: expected step 2 `policy.lookup`, got `refund.issue` (turn 1 call 2)" {
		t.Errorf("evidence of the strict test: %+v", ev)
	}
	if len(env.Cases[1].Evidence) != 0 {
		t.Errorf("a passing case carries evidence: %+v", env.Cases[1].Evidence)
	}

	// Run 3 (the cassette's second run) re-recorded in order.
	fixed := copyExample(t, "trajectory", "refund.json", func(s string) string {
		var cas map[string]any
		if err := json.Unmarshal([]byte(s), &cas); err != nil {
			t.Fatal(err)
		}
		calls := cas["runs"].([]any)[1].(map[string]any)["turns"].([]any)[0].(map[string]any)["calls"].([]any)
		calls[1], calls[2] = calls[2], calls[1]
		out, err := json.Marshal(cas)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	})
	cur := filepath.Join(t.TempDir(), "cur.json")
	runBin(t, "run", "--config", fixed, "--reporter", "json", "--output", cur)
	stdout, stderr, _ = runBin(t, "report", cur, "--compare", base)
	wantLines(t, "compare", stdout+stderr, "trajectory.match_pct  50 -> 75 (+25)")
}

// TestRunBudgetBinary runs the built binary on examples/run-budget: exit
// 1, the latency percentiles and step maxima, the floors at their lines of
// the suite, the run and call over budget, no latency for the run without
// timings, and the compare output against a re-recording whose slowest
// call is faster.
func TestRunBudgetBinary(t *testing.T) {
	const suite = "../../examples/run-budget/suite.yml"
	stdout, stderr, code := runBin(t, "run", "--config", suite)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	figures := "latency.run_ms=1110 latency.run_ms_p50=400 latency.run_ms_p95=1110 steps.calls=5 steps.turns=2"
	wantLines(t, "run", stdout,
		"PASS  ticket reply within its step budget  (4 runs)  "+figures,
		"FAIL  ticket reply within a tight budget  (3 runs)  "+figures,
		"examples/run-budget/suite.yml:28:7: `budget:` floor max_run_ms (`latency.run_ms` <= 1000) failed: 1110 is greater than the maximum 1000",
		"examples/run-budget/suite.yml:29:7: `budget:` floor max_calls (`steps.calls` <= 4) failed: 5 is greater than the maximum 4",
		"failed in run 3 of 3\n        run 3: 5 calls, over max_calls 4: call 5 is `tickets.reply` (turn 2 call 2)",
		"failed in run 3 of 3\n        run 3: 1110 ms, over max_run_ms 1000: the slowest call is `kb.search` (turn 2 call 1, 410 ms)",
		"warning: 1 of 4 runs record no timings (a call without duration_ms, or no call): latency.run_ms has no value for run 1",
		"`budget:` floor max_run_ms (`latency.run_ms` <= 2000)\n        failed in run 1 of 4",
		"budget floor: max_run_ms 2000: run 1 recorded no timings, so no value shows it stayed within the floor",
		"1 passed, 2 failed, 0 inconclusive (3 cases)")

	base := filepath.Join(t.TempDir(), "base.json")
	runBin(t, "run", "--config", suite, "--reporter", "json", "--output", base)
	env := readEvidence(t, base)
	// Each failing case carries the evidence of its failed runs only: run 3
	// of the tight budget, run 1 (the transcript's, with no timings) of the
	// latency floor on every recording.
	tight, every := env.Cases[1].Evidence, env.Cases[2].Evidence
	if len(env.Cases[0].Evidence) != 0 || len(tight) != 1 || len(every) != 1 || tight[0].Run != 3 || every[0].Run != 1 {
		t.Fatalf("evidence %+v, %+v, %+v: want none for the passing case, run 3 and run 1", env.Cases[0].Evidence, tight, every)
	}
	if _, ok := every[0].Figures["latency.run_ms"]; ok || every[0].Figures["steps.calls"] != 2 {
		t.Errorf("the transcript's run has figures %v: want steps.calls 2 and no latency.run_ms", every[0].Figures)
	}
	if tight[0].Figures["latency.run_ms"] != 1110 || tight[0].Figures["steps.turns"] != 2 || tight[0].Figures["steps.calls"] != 5 {
		t.Errorf("figures of the run over budget: %v", tight[0].Figures)
	}

	// The 410 ms search re-recorded at 110 ms: run 3 takes 810 ms.
	faster := copyExample(t, "run-budget", "support.json", func(s string) string {
		if strings.Count(s, `"duration_ms": 410`) != 1 {
			t.Fatal("the example has no single 410 ms call")
		}
		return strings.Replace(s, `"duration_ms": 410`, `"duration_ms": 110`, 1)
	})
	cur := filepath.Join(t.TempDir(), "cur.json")
	runBin(t, "run", "--config", faster, "--reporter", "json", "--output", cur)
	stdout, stderr, _ = runBin(t, "report", cur, "--compare", base)
	wantLines(t, "compare", stdout+stderr, "latency.run_ms  1110 -> 810 (-300)", "latency.run_ms_p95  1110 -> 810 (-300)")
}

// envelopeEvidence is what the tests read of a saved envelope.
type envelopeEvidence struct {
	Cases []struct {
		Evidence []struct {
			Run     int                `json:"run"`
			Figures map[string]float64 `json:"figures"`
			Notes   []string           `json:"notes"`
		} `json:"evidence"`
	} `json:"cases"`
}

func readEvidence(t *testing.T, path string) envelopeEvidence {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env envelopeEvidence
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	return env
}
