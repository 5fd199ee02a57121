// Package docs holds mcptest's user documentation (the Markdown pages
// beside this file) and the tests that keep it true of the tree: every
// relative link and anchor of the repository's Markdown resolves
// (TestLinks), every page is in the README's index (TestIndex), the package
// graph drawn in architecture.md is the one `go list` reports
// (TestPackageGraph) and points one way (TestPackageLayers), and no
// function of the repository is over cyclomatic complexity 25 unless a
// `// complexity: <why>` comment says why (TestComplexity). The
// `$ mcptest ...` examples of these pages are run by TestREADMECommands in
// cmd/mcptest, which has the binary in process.
//
// The package has no code of its own: it exists for its tests.
package docs
