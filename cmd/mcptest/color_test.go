package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestColorEnvironment runs the built binary with the environment a user
// or a runner gives it, stdout a pipe (not a terminal): colour comes on in
// a GitHub Actions log, with CLICOLOR_FORCE=1 and with --color always;
// NO_COLOR wins over all of them but --color always, the flag of one
// invocation (the NO_COLOR convention); --color never turns it off in Actions;
// a file is never coloured. run, report and scenario run take --color.
func TestColorEnvironment(t *testing.T) {
	suite, _ := filepath.Abs("../../examples/quickstart/suite.yml")
	scenario, _ := filepath.Abs("../../examples/scenario-world/suite.yml")
	dir := t.TempDir()
	envelope := filepath.Join(dir, "run.json")
	if _, stderr, code := runBinIn(t, dir, nil, "run", suite, "--format", "json", "--output", envelope); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		env   []string
		flags []string
		want  bool
	}{
		{nil, nil, false},
		{[]string{"GITHUB_ACTIONS=true", "CI=true"}, nil, true},
		{[]string{"GITHUB_ACTIONS=true", "CI=true", "NO_COLOR=1"}, nil, false},
		{[]string{"GITHUB_ACTIONS=true"}, []string{"--color", "never"}, false},
		{[]string{"CLICOLOR_FORCE=1"}, nil, true},
		{[]string{"CLICOLOR_FORCE=1", "NO_COLOR=1"}, nil, false},
		{[]string{"CI=true"}, nil, false},
		{nil, []string{"--color", "always"}, true},
		{[]string{"NO_COLOR=1"}, []string{"--color=always"}, true},
		{[]string{"NO_COLOR=1", "GITHUB_ACTIONS=true"}, []string{"--color", "always"}, true},
		{[]string{"NO_COLOR=1", "CLICOLOR_FORCE=1"}, []string{"--color=never"}, false},
	} {
		for _, args := range [][]string{{"run", suite}, {"report", envelope}, {"scenario", "run", scenario}} {
			args = append(args, tc.flags...)
			out, stderr, code := runBinIn(t, dir, tc.env, args...)
			if code != ExitOK || out == "" {
				t.Fatalf("%v %v: exit %d: %s", tc.env, args, code, stderr)
			}
			if got := strings.Contains(out, "\x1b["); got != tc.want {
				t.Errorf("%v mcptest %s: colour %v, want %v", tc.env, strings.Join(args, " "), got, tc.want)
			}
		}
	}
	file := filepath.Join(dir, "run.txt")
	if _, stderr, code := runBinIn(t, dir, []string{"GITHUB_ACTIONS=true", "CLICOLOR_FORCE=1"}, "run", suite, "--color", "always", "--output", file); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(file); len(data) == 0 || strings.Contains(string(data), "\x1b[") {
		t.Errorf("a report file was coloured, or is empty: %q", data)
	}
	if _, stderr, code := runBinIn(t, dir, nil, "run", suite, "--color", "sometimes"); code != ExitInput || !strings.Contains(stderr, `--color "sometimes": expected auto, always or never`) {
		t.Errorf("--color sometimes: exit %d: %s", code, stderr)
	}
}
