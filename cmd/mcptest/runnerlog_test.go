package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate/runnertest"
)

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
	runnertest.CheckOwnCommands(t, stderr)
	if !strings.Contains(stderr, ":2:3: tests: expected a list") || !strings.Contains(stderr, "\n    \\u003a:error file=x::forged\n    ^\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	_, stderr, _ = mcptest(t, nil, "run", "--config", suite)
	if !strings.Contains(stderr, "\n    ::error file=x::forged\n    ^\n") {
		t.Errorf("outside Actions the line is not echoed as written:\n%s", stderr)
	}
}
