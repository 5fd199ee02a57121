package engine_test

import "os"

// long reports whether the long tests run in full: MCPTEST_LONG=1, which
// .ci/run sets. Without it the memory tests that replay tens of MB through
// the built binary run a smaller table (docs/testing.md), so that a
// newcomer's `go test ./...` fits go test's default limit on a busy
// two-core machine.
func long() bool { return os.Getenv("MCPTEST_LONG") == "1" }
