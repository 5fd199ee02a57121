// Package engine loads a suite, replays its cassettes and writes the run
// envelope.
//
// What flows through it: a suite.yml is decoded node by node by the shared
// YAML reader (package yamlpos; load.go is the only file here that calls
// it), so every value keeps its line and column;
// it is checked against the embedded JSON Schema (package schema) and the
// rules a schema cannot state, and every problem of the file is returned at
// once as a diag.List. Run then reads the cassettes of each case one file at
// a time, feeds every recorded run to the case's gates (package gate) and to
// its per-run assertions (package expr), and keeps only the numbers: memory
// grows with the largest cassette, not with how many there are. The result
// is a report.Envelope (package report), the document every reporter renders
// from.
// On more than one core the phases overlap: a suite loaded for a run with
// its options (LoadSuiteAhead, loadahead.go) has each replayed test
// computed as soon as it is built, the cases are computed on workers
// (runcases.go) and the files of one test over many read and decoded ahead
// of its fold (cassettes.go), all folded in suite order once the suite has
// loaded clean, so the envelope is the same on any number of cores and a
// broken suite fails as it would have on one.
// The gate blocks of an agent test are wired in one place, the gate
// registry (registry.go): each row names a block's suite key, its schema
// fragment, its targets and its default assertion, and reads the block into
// a Block whose caseGate (gate_<name>.go) feeds the block's gate one run at
// a time. The loader, the runner and the per-run verdicts read the rows;
// docs/architecture.md says how to add one.
// Each case also records the tools it reached (coverage.go), which
// report.Envelope.ToolCoverage sums into the run's tool coverage.
//
// Nothing here reads a clock or a random source: the same suite and
// cassettes give the same envelope, byte for byte, apart from the run id,
// start time and duration the caller fills in.
//
// The cases that talk to a live server are the exceptions to "offline":
// `tools:` tests make one call each (tooltest.go), `compliance:` checks
// speak JSON-RPC pinned to a spec revision (compliance.go), and a
// `tool_quality:` check that names a server reads its catalog (quality.go),
// all through package live; such a run's mode is "live" and its cases are
// never served from the cache. A `token_efficiency:` block prices the
// catalog the cassettes recorded, so it stays offline; `redteam:` and
// `evals:` cases need a model and are reported inconclusive (modelcase.go).
//
// An agent test whose every recorded run holds no call is inconclusive,
// not pass, unless it says no_calls: true (nocalls.go): no gate saw a call
// to judge, and a recording read without its calls would pass them all.
package engine
