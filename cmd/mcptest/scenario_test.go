package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenarioRun(t *testing.T) {
	const ok = "../../examples/scenario-world/suite.yml"
	const failing = "../../examples/scenario-world-failing/suite.yml"
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"passing world", []string{"scenario", "run", ok}, ExitOK, "2 passed, 0 failed", ""},
		{"every failing variant", []string{"scenario", "run", failing}, ExitFail, "0 passed, 4 failed", ""},
		{"a forbidden call", []string{"scenario", "run", failing, "--name", "forbidden bulk delete"}, ExitFail, "turn 1, call 2 `drop_inventory`: forbidden transition", ""},
		{"a guard violation", []string{"scenario", "run", failing, "--name", "remove from an empty shelf"}, ExitFail, "turn 2, call 1 `remove_widget`: invalid action: guard `inventory.widgets` {min: 1} failed: it holds 0", ""},
		{"an invented tool", []string{"scenario", "run", "--name", "invented restock tool", failing}, ExitFail, "the agent invented an action", ""},
		{"a wrong final state", []string{"scenario", "run", failing, "--name", "shelf left short"}, ExitFail, "expect_state `inventory.widgets`: expected 5, actual 4", ""},
		{"two names", []string{"scenario", "run", failing, "--name", "shelf left short", "--name", "invented restock tool"}, ExitFail, "0 passed, 2 failed", ""},
		{"cassette dir", []string{"scenario", "run", ok, "--cassette-dir", "testdata/nope"}, ExitOK, "2 passed", ""},
		{"unknown name", []string{"scenario", "run", failing, "--name", "shelf left shrt"}, ExitInput, "", `no scenario is named "shelf left shrt" (did you mean "shelf left short"?)`},
		{"no scenarios", []string{"scenario", "run", "../../examples/quickstart/suite.yml"}, ExitInput, "", "the suite declares no `scenarios:`"},
		{"no suite", []string{"scenario", "run"}, ExitInput, "", "no suite: no mcptest.yml or suite.yml in"},
		{"missing suite", []string{"scenario", "run", "testdata/nope.yml"}, ExitInput, "", "no such file"},
		{"no subcommand", []string{"scenario"}, ExitInput, "", "scenario expects the subcommand `run`, got nothing"},
		{"wrong subcommand", []string{"scenario", "replay", ok}, ExitInput, "", "got \"replay\""},
		{"bad flag", []string{"scenario", "run", ok, "--bogus"}, ExitInput, "", "unknown flag --bogus; 'mcptest help scenario' lists its flags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.out) || !strings.Contains(stderr, tt.err) {
				t.Errorf("stdout:\n%s\nstderr:\n%s\nwant %q on stdout and %q on stderr", stdout, stderr, tt.out, tt.err)
			}
		})
	}
}

// TestScenarioRunJSON: --json writes the run envelope, with scenario cases,
// and mcptest run reports the same cases.
func TestScenarioRunJSON(t *testing.T) {
	const failing = "../../examples/scenario-world-failing/suite.yml"
	stdout, _, code := mcptest(t, nil, "scenario", "run", failing, "--json")
	if code != ExitFail {
		t.Fatalf("exit %d", code)
	}
	var env struct {
		Cases []struct {
			Kind    string             `json:"kind"`
			Targets map[string]float64 `json:"targets"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Cases) != 4 || env.Cases[0].Kind != "scenario" || env.Cases[0].Targets["forbidden_transitions"] != 1 {
		t.Errorf("envelope cases %+v", env.Cases)
	}
	viaRun, _, _ := mcptest(t, nil, "run", "--config", failing, "--reporter", "json")
	if normalize(viaRun) != normalize(stdout) {
		t.Error("scenario run --json and run --reporter json differ on a suite of scenarios only")
	}
	pretty, _, _ := mcptest(t, nil, "scenario", "run", failing)
	golden(t, filepath.Join("testdata", "golden", "scenario-run-failing.pretty"), pretty)
}
