package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// runnerCommands lists the workflow commands a runner would run in a
// step's output: `::name ...::` after leading white space, and the legacy
// `##[name ...]` anywhere in a line; lines end at LF and at CR.
func runnerCommands(out string) []string {
	var names []string
	for _, l := range regexp.MustCompile(`\r\n|\n|\r`).Split(out, -1) {
		t := strings.TrimLeftFunc(l, unicode.IsSpace)
		if rest, ok := strings.CutPrefix(t, "::"); ok {
			if info, _, ok := strings.Cut(rest, "::"); ok {
				name, _, _ := strings.Cut(info, " ")
				names = append(names, name)
				continue
			}
		}
		if _, rest, ok := strings.Cut(l, "##["); ok {
			if info, _, ok := strings.Cut(rest, "]"); ok {
				name, _, _ := strings.Cut(info, " ")
				names = append(names, "legacy "+name)
			}
		}
	}
	return names
}

// checkOwnCommands fails when out holds a command mcptest does not emit,
// or one that carries the forged text.
func checkOwnCommands(t *testing.T, out string) {
	t.Helper()
	for _, n := range runnerCommands(out) {
		if n != "error" && n != "warning" && n != "notice" && n != "add-mask" {
			t.Errorf("the runner would run %q:\n%s", n, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") && strings.Contains(l, "forged") {
			t.Errorf("a command carries the forged text: %q", l)
		}
	}
}

const forgedSuite = "tests:\n  ::error file=x::forged\n"

// TestRunnerLogSourceLine: the source line echoed under a positioned error
// may start, after its indentation, with `::error ...::`; under GitHub
// Actions it is neutralised and the caret still points at its column.
// Outside Actions it is echoed as written.
func TestRunnerLogSourceLine(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "suite.yml")
	write(t, suite, []byte(forgedSuite))
	_, stderr, code := mcptest(t, map[string]string{"GITHUB_ACTIONS": "true"}, "run", "--config", suite)
	if code != ExitInput {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	checkOwnCommands(t, stderr)
	if !strings.Contains(stderr, ":2:3: tests: expected a list") || !strings.Contains(stderr, "\n    \\u003a:error file=x::forged\n    ^\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	_, stderr, _ = mcptest(t, nil, "run", "--config", suite)
	if !strings.Contains(stderr, "\n    ::error file=x::forged\n    ^\n") {
		t.Errorf("outside Actions the line is not echoed as written:\n%s", stderr)
	}
}
