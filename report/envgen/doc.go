// Package envgen writes a run's envelopes at any size without running
// anything: the pull request's run of an n-case suite as shard envelopes
// and its baseline, each case one line of compact JSON as the JSON
// reporter writes it, deterministically (case k's bytes depend on k
// alone). It is what TestMillionCaseMergeAndCompare (report/envstream)
// merges and compares, and what .ci/bench's merge scaling shape merges.
//
// The pull request's run differs from the baseline as a real one does:
// cases added and gone, failing, fixed and with moved figures (PRCase and
// BaseCase). It imports only report, to read an envelope back through
// the case stream (ReadStream).
package envgen
