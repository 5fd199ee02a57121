package main

import (
	"os"
	"testing"
)

// longEnv opts in to the tests that do not fit a newcomer's `go test ./...`
// on a busy two-core machine within go test's default 10-minute limit
// (docs/testing.md names them with their times); .ci/run sets it.
const longEnv = "MCPTEST_LONG"

// long reports whether the long tests run: MCPTEST_LONG=1.
func long() bool { return os.Getenv(longEnv) == "1" }

// longTest skips t unless the long tests run, naming the opt-in.
func longTest(t *testing.T) {
	t.Helper()
	if !long() {
		t.Skipf("a long test: %s=1 runs it (.ci/run sets it)", longEnv)
	}
}
