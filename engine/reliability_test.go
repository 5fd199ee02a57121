package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// fourTrials is a cassette of four runs of which runs 1, 3 and 4 say
// "reward=1": c = 3 of n = 4, as τ-bench's airline task 2 reads.
var fourTrials = map[string]string{"c.json": cassetteJSON(
	runJSON("reward=1", "airline.get_user_details"),
	runJSON("reward=0", "airline.get_user_details"),
	runJSON("reward=1", "airline.get_user_details"),
	runJSON("reward=1", "airline.get_user_details"),
)}

const trialSuite = `
agents:
  - name: books the flight
    runs: 4
    cassette: c.json
    expect:
      - final_response: { exact: "reward=1" }
`

// TestReliabilityFigures checks the per-run verdicts and the reliability
// targets of a case with 3 passing runs of 4: pass^k = C(3,k)/C(4,k).
func TestReliabilityFigures(t *testing.T) {
	env := run(t, writeSuite(t, trialSuite, fourTrials), Options{})
	c := env.Cases[0]
	wantTargets := map[string]float64{
		"reliability.pass_rate": 75, "reliability.pass_hat_1": 75, "reliability.pass_hat_2": 50,
		"reliability.pass_hat_3": 25, "reliability.pass_hat_4": 0,
		// pass@k = 1 - C(1,k)/C(4,k): 1 - 1/4, then 1 - 0.
		"reliability.pass_at_1": 75, "reliability.pass_at_2": 100, "reliability.pass_at_4": 100,
		// Clopper-Pearson, one-sided 95%: 3 of 4 certifies 0.2486 (mpmath).
		"reliability.certified_lower": 24,
	}
	for k, v := range wantTargets {
		if got, ok := c.Targets[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if c.Labels["reliability.class"] != "flaky" || c.Counts["reliability.runs"] != 4 || c.Counts["reliability.passed_runs"] != 3 {
		t.Errorf("labels %v counts %v", c.Labels, c.Counts)
	}
	r := c.Reliability
	if r == nil || r.Class != "flaky" || r.Judged || len(r.Rows) != 4 {
		t.Fatalf("reliability = %+v", r)
	}
	want := []report.RunVerdict{{Run: 1, Passed: true}, {Run: 2, Failed: []string{"assertion #0 (`final_response`)"}}, {Run: 3, Passed: true}, {Run: 4, Passed: true}}
	if !reflect.DeepEqual(r.Rows, want) {
		t.Errorf("rows = %+v\nwant %+v", r.Rows, want)
	}
	// Without a reliability: block the verdict is as it always was: a run
	// that fails an assertion fails the case.
	if c.Verdict != report.Fail {
		t.Errorf("verdict %s, want fail: every run must pass without a reliability: block", c.Verdict)
	}
}

// TestReliabilityFloors judges the same 3-of-4 case by the floors of a
// reliability: block: each floor is decided exactly and says what failed.
func TestReliabilityFloors(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		pass        bool
		line        string
	}{
		{"rate met", "min_pass_rate: 75", true, ""},
		{"rate missed", "min_pass_rate: 80", false, "FLOOR books the flight: pass rate 75% is below the 80% floor (3 of 4 runs passed)"},
		{"pass^2 met", "min_pass_hat: {k: 2, min: 50}", true, ""},
		{"pass^3 missed", "min_pass_hat: {k: 3, min: 30}", false, "FLOOR books the flight: pass^3 25% is below the 30% floor (C(3,3)/C(4,3))"},
		{"pass@2 met", "min_pass_at: {k: 2, min: 100}", true, ""},
		{"pass@1 missed", "min_pass_at: {k: 1, min: 80}", false, "FLOOR books the flight: pass@1 75% is below the 80% floor (1 - C(1,1)/C(4,1))"},
		{"certified", "min_certified_lower: 25", false, "FLOOR books the flight: certified lower bound 24% at 95% confidence is below the 25% floor"},
		{"flaky refused", "allow_flaky: false", false, "FLOOR books the flight: the case is flaky (3 of 4 runs passed) and `allow_flaky: false`"},
		{"flaky allowed", "allow_flaky: true, min_pass_rate: 50", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			suite := trialSuite + "    reliability: {" + tc.block + "}\n"
			env := run(t, writeSuite(t, suite, fourTrials), Options{})
			c := env.Cases[0]
			fl := c.Floors[len(c.Floors)-1]
			if fl.Name != "reliability floor" {
				t.Fatalf("floors = %+v", c.Floors)
			}
			if (c.Verdict == report.Pass) != tc.pass || fl.Passed != tc.pass {
				t.Errorf("verdict %s, floor %v; want pass=%v (%+v)", c.Verdict, fl.Passed, tc.pass, fl)
			}
			if tc.line != "" && (len(fl.Lines) == 0 || fl.Lines[0] != tc.line) {
				t.Errorf("lines = %q\nwant first %q", fl.Lines, tc.line)
			}
			if !tc.pass && !strings.Contains(strings.Join(fl.Lines, "\n"), "  run 2: assertion #0 (`final_response`)") {
				t.Errorf("the failing run is not named: %q", fl.Lines)
			}
			// The per-run assertion still shows its failure, and says the
			// block judges the case.
			if a := c.Assertions[0]; a.Passed || !strings.Contains(a.Message, "`reliability:` judges the case by its runs") {
				t.Errorf("assertion = %+v", a)
			}
		})
	}
}

// TestReliabilityStableFailFails: a block never passes a case no run of
// which passed, whatever its floors.
func TestReliabilityStableFailFails(t *testing.T) {
	files := map[string]string{"c.json": cassetteJSON(runJSON("reward=0"), runJSON("reward=0"))}
	env := run(t, writeSuite(t, trialSuite+"    reliability: {allow_flaky: true}\n", files), Options{})
	c := env.Cases[0]
	if c.Verdict != report.Fail || c.Labels["reliability.class"] != "stable_fail" {
		t.Fatalf("verdict %s class %s", c.Verdict, c.Labels["reliability.class"])
	}
	if fl := c.Floors[0]; !strings.Contains(fl.Lines[0], "no run passed (0 of 2)") {
		t.Errorf("lines %q", fl.Lines)
	}
}

// TestReliabilitySuiteDefault: the suite's reliability: block applies to a
// case without one, its confidence to every certified bound; a case's own
// block replaces the default.
func TestReliabilitySuiteDefault(t *testing.T) {
	suite := `
reliability:
  confidence: 90
  min_pass_rate: 70
agents:
  - name: books the flight
    cassette: c.json
    expect:
      - final_response: { exact: "reward=1" }
  - name: strict
    cassette: c.json
    reliability: { allow_flaky: false }
    expect:
      - final_response: { exact: "reward=1" }
`
	env := run(t, writeSuite(t, suite, fourTrials), Options{})
	a, b := env.Cases[0], env.Cases[1]
	if a.Verdict != report.Pass || b.Verdict != report.Fail {
		t.Errorf("verdicts %s %s, want pass (default 70%% floor) and fail (own block)", a.Verdict, b.Verdict)
	}
	// One-sided 90%: 3 of 4 certifies 0.3205 (mpmath).
	if a.Targets["reliability.certified_lower"] != 32 || a.Reliability.Confidence != 90 {
		t.Errorf("certified_lower %v at %v", a.Targets["reliability.certified_lower"], a.Reliability.Confidence)
	}
	if !strings.Contains(a.Floors[0].Message, "at 90% confidence") {
		t.Errorf("floor message %q", a.Floors[0].Message)
	}
}

// TestReliabilityAssertions: reliability targets are assertable like any
// case target, the class included, and a typo is a suite error.
func TestReliabilityAssertions(t *testing.T) {
	suite := `
agents:
  - name: books the flight
    cassette: c.json
    expect:
      - final_response: { exact: "reward=1" }
      - reliability.pass_hat_2: { ">=": 50 }
      - reliability.class: { exact: flaky }
      - reliability.pass_rate: { ">=": 80 }
`
	env := run(t, writeSuite(t, suite, fourTrials), Options{})
	c := env.Cases[0]
	var got []bool
	for _, a := range c.Assertions {
		got = append(got, a.Passed)
	}
	if !reflect.DeepEqual(got, []bool{false, true, true, false}) || c.Verdict != report.Fail {
		t.Errorf("assertions %v verdict %s: %+v", got, c.Verdict, c.Assertions)
	}
	if a := c.Assertions[2]; a.Actual != "flaky" {
		t.Errorf("the class is asserted as a word: %+v", a)
	}

	_, err := loadSuite(t, `
agents:
  - name: x
    cassette: c.json
    expect:
      - reliability.pass_hat: { ">=": 50 }
`, fourTrials)
	if err == nil || !strings.Contains(err.Error(), "unknown target `reliability.pass_hat`") {
		t.Errorf("err = %v", err)
	}
}

// TestReliabilitySingleRun: a case with one run and no block has no
// reliability figures: its envelope is as before.
func TestReliabilitySingleRun(t *testing.T) {
	files := map[string]string{"c.json": cassetteJSON(runJSON("reward=1"))}
	env := run(t, writeSuite(t, trialSuite, files), Options{})
	c := env.Cases[0]
	if c.Reliability != nil || c.Labels != nil {
		t.Errorf("a single run has no reliability figures: %+v %v", c.Reliability, c.Labels)
	}
	for k := range c.Targets {
		if strings.HasPrefix(k, "reliability.") {
			t.Errorf("target %s", k)
		}
	}
}

// TestGateAssertionsPerRun: each gate block's assertions are checked on
// the run's own figures, so the run that called a restricted tool and the
// run that missed the fetch class fail, while the pooled targets are as
// before.
func TestGateAssertionsPerRun(t *testing.T) {
	suite := `
agents:
  - name: research
    cassette: c.json
` + classes + `      expect:
        - tool_selection.recall: { ">=": 100 }
    tool_edges:
      allowed: [brave.web_search, http.get]
      restricted: [shell.exec]
`
	files := map[string]string{"c.json": cassetteJSON(
		runJSON("ok", "brave.web_search", "http.get"),
		runJSON("ok", "brave.web_search"),
		runJSON("ok", "brave.web_search", "http.get", "shell.exec"),
	)}
	env := run(t, writeSuite(t, suite, files), Options{})
	c := env.Cases[0]
	want := []report.RunVerdict{
		{Run: 1, Passed: true},
		{Run: 2, Failed: []string{"assertion #0 (`tool_selection.recall`) in equal_function_sets"}},
		{Run: 3, Failed: []string{"default gate of `tool_edges:` (`edges.restricted_attempts` <= 0)"}},
	}
	if !reflect.DeepEqual(c.Reliability.Rows, want) {
		t.Errorf("rows = %+v\nwant %+v", c.Reliability.Rows, want)
	}
	if c.Targets["tool_selection.recall"] != 83 || c.Labels["reliability.class"] != "flaky" {
		t.Errorf("targets %v labels %v", c.Targets, c.Labels)
	}
}

// loadSuite lays out a suite as writeSuite does and returns what LoadSuite
// says, error included.
func loadSuite(t *testing.T, suite string, files map[string]string) (*Suite, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadSuite(path)
}

// TestSummaryAndFloors: the summary is the mean of each case's pass^k over
// the cases with at least k runs, and a suite floor on it decides the run;
// on a shard the floor is deferred.
func TestSummaryAndFloors(t *testing.T) {
	suite := `
floors:
  - summary.pass_hat_2: { ">=": 40 }
  - target: summary.pass_hat_3
    matcher: { ">=": 20 }
  - summary.stable_pass: { ">=": 1 }
agents:
  - name: four trials
    cassette: c.json
    expect:
      - final_response: { exact: "reward=1" }
  - name: two trials
    cassette: d.json
    expect:
      - final_response: { exact: "reward=1" }
`
	files := map[string]string{"c.json": fourTrials["c.json"], "d.json": cassetteJSON(runJSON("reward=1"), runJSON("reward=1"))}
	env := run(t, writeSuite(t, suite, files), Options{})
	s := env.Summary
	if s == nil || s.Cases != 2 || s.Runs != 6 || s.PassedRuns != 5 || s.Classes != (report.ClassCounts{StablePass: 1, Flaky: 1}) {
		t.Fatalf("summary = %+v", s)
	}
	// pass^1 = (3/4 + 1)/2 = 7/8; pass^2 = (1/2 + 1)/2 = 3/4; pass^3 and
	// pass^4 are over the one case with four runs: 1/4 and 0.
	want := []report.PassHatFigure{
		{K: 1, SummaryFigure: report.SummaryFigure{Value: 87.5, Exact: "7/8", Cases: 2}},
		{K: 2, SummaryFigure: report.SummaryFigure{Value: 75, Exact: "3/4", Cases: 2}},
		{K: 3, SummaryFigure: report.SummaryFigure{Value: 25, Exact: "1/4", Cases: 1}},
		{K: 4, SummaryFigure: report.SummaryFigure{Value: 0, Exact: "0", Cases: 1}},
	}
	if !reflect.DeepEqual(s.PassHat, want) || s.PassRate != want[0].SummaryFigure {
		t.Errorf("pass_hat = %+v\nwant %+v", s.PassHat, want)
	}
	// pass@1 = 7/8 again; pass@2 = (1 - C(1,2)/C(4,2) + 1)/2 = 1.
	wantAt := []report.PassHatFigure{
		{K: 1, SummaryFigure: report.SummaryFigure{Value: 87.5, Exact: "7/8", Cases: 2}},
		{K: 2, SummaryFigure: report.SummaryFigure{Value: 100, Exact: "1", Cases: 2}},
		{K: 3, SummaryFigure: report.SummaryFigure{Value: 100, Exact: "1", Cases: 1}},
		{K: 4, SummaryFigure: report.SummaryFigure{Value: 100, Exact: "1", Cases: 1}},
	}
	if !reflect.DeepEqual(s.PassAt, wantAt) {
		t.Errorf("pass_at = %+v\nwant %+v", s.PassAt, wantAt)
	}
	if v, ok := s.Value("summary.pass_at_2"); !ok || v != 100 {
		t.Errorf("summary.pass_at_2 = %v, %v", v, ok)
	}
	if len(env.Floors) != 3 || !env.Floors[0].Passed || !env.Floors[1].Passed || !env.Floors[2].Passed || env.Floors[1].Actual != 25.0 {
		t.Errorf("floors = %+v", env.Floors)
	}
	if env.Floors[1].Position.Line != 4 {
		t.Errorf("floor position %v", env.Floors[1].Position)
	}

	failing := strings.Replace(suite, `{ ">=": 20 }`, `{ ">=": 30 }`, 1)
	env = run(t, writeSuite(t, failing, files), Options{})
	f := env.Floors[1]
	if f.Passed || env.Verdict != report.Fail || f.Message != "floor #1 (`summary.pass_hat_3`) failed: 25 is less than the minimum 30" {
		t.Errorf("verdict %s floor %+v", env.Verdict, f)
	}
	shard := run(t, writeSuite(t, failing, files), Options{Shard: report.Shard{Index: 1, Count: 1}})
	if f := shard.Floors[1]; !f.Deferred || !f.Passed || shard.Verdict == report.Fail && shard.Totals.Failed == 0 {
		t.Errorf("a shard defers its floors: %+v, verdict %s", f, shard.Verdict)
	}
}

// TestFloorErrors: a floor names a summary figure; anything else is a
// suite error at its position, with a did-you-mean.
func TestFloorErrors(t *testing.T) {
	_, err := loadSuite(t, "floors:\n  - summary.pass_hat1: { \">=\": 40 }\n  - tool_selection.f1: { \">=\": 40 }\nagents:\n  - name: x\n    cassette: c.json\n", fourTrials)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"suite.yml:2:5: unknown summary target `summary.pass_hat1`",
		"did you mean `summary.pass_hat_1`?",
		"suite.yml:3:5: unknown summary target `tool_selection.f1`",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	_, err = loadSuite(t, "floors:\n  - summary.pass_hat_21: { \">=\": 1 }\nagents:\n  - name: x\n    cassette: c.json\n", fourTrials)
	if err == nil || !strings.Contains(err.Error(), "suite.yml:2:5: `summary.pass_hat_21`: the summary's pass^k and pass@k go up to k = 20") {
		t.Errorf("err = %v", err)
	}
	_, err = loadSuite(t, "agents:\n  - name: x\n    runs: 2\n    cassette: c.json\n    reliability: {min_pass_at: {k: 3, min: 10}}\n", fourTrials)
	if err == nil || !strings.Contains(err.Error(), "suite.yml:5:36: min_pass_at k = 3 needs at least 3 runs, and test \"x\" declares `runs: 2`") {
		t.Errorf("err = %v", err)
	}
	_, err = loadSuite(t, "agents:\n  - name: x\n    runs: 2\n    cassette: c.json\n    reliability: {min_pass_hat: {k: 3, min: 10}}\n", fourTrials)
	if err == nil || !strings.Contains(err.Error(), "suite.yml:5:37: min_pass_hat k = 3 needs at least 3 runs, and test \"x\" declares `runs: 2`") {
		t.Errorf("err = %v", err)
	}
	_, err = loadSuite(t, "reliability: {confidence: 99.99999}\nagents:\n  - name: x\n    cassette: c.json\n", fourTrials)
	if err == nil || !strings.Contains(err.Error(), "confidence 99.99999 has more than three decimals") {
		t.Errorf("err = %v", err)
	}
}
