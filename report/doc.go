// Package report is the run envelope: the canonical JSON document of one
// run that every reporter renders from, baselines compare and shards merge.
//
// It holds the envelope's types (Envelope, CaseResult, the verdicts and
// kinds, the per-gate details), what is computed from an envelope alone
// (the suite summary and its floors, the totals, the tool coverage, shard
// membership), and Read, which decodes and validates a saved envelope: an
// untrusted input when it comes from an artifact or a pull request. Every
// reader of an envelope (Read, the CaseReader stream, baseline's and
// history's) refuses a text that is not JSON with Locate's one error, at
// the first byte encoding/json refuses.
//
// It is a format, beside the runner rather than under it: it imports only
// the leaves of internal/ (diag, expr, redact, stats), so the reporters
// (annotate) and the comparison (baseline) link neither the runner
// (engine) nor the MCP client (live).
package report
