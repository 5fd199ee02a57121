// Package docs holds mcptest's user documentation (the Markdown pages
// beside this file) and the tests that keep it true of the tree: every
// relative link and anchor of the README and docs/*.md resolves, the
// package graph drawn in architecture.md is the one `go list` reports, and
// no function of the repository is over cyclomatic complexity 25 unless it
// says why. The `$ mcptest ...` examples of these pages are run by
// TestREADMECommands in cmd/mcptest, which has the binary in process.
//
// The package has no code of its own: it exists for its tests.
package docs
