// Package envstream merges and compares run envelopes as streams: `mcptest
// report merge` and `mcptest report --compare` read their inputs one case
// at a time (report.CaseReader), on a goroutine per input, and write their
// output one case at a time, so their memory does not grow with the number
// of cases. What they compute is what baseline.Merge and baseline.Compare
// compute from whole envelopes, byte for byte.
package envstream
