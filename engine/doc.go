// Package engine loads a suite, replays its cassettes and writes the run
// envelope.
//
// What flows through it: a suite.yml is decoded node by node (load.go is the
// only file that knows YAML), so every value keeps its line and column;
// it is checked against the embedded JSON Schema (package schema) and the
// rules a schema cannot state, and every problem of the file is returned at
// once as a diag.List. Run then reads the cassettes of each case one file at
// a time, feeds every recorded run to the case's gates (package gate) and to
// its per-run assertions (package expr), and keeps only the numbers: memory
// grows with the largest cassette, not with how many there are. The result
// is an Envelope, the canonical JSON document every reporter renders from.
//
// Nothing here reads a clock or a random source: the same suite and
// cassettes give the same envelope, byte for byte, apart from the run id,
// start time and duration the caller fills in.
//
// The one exception to "offline" is a `tool_quality:` check that names a
// server rather than a catalog file: it reads that server's catalog through
// package live (quality.go), and scores it with package gate/quality. A
// `token_efficiency:` block prices the catalog the cassettes recorded, so
// it stays offline.
package engine
