// Package envstream merges and compares run envelopes as streams: `mcptest
// report merge` and `mcptest report --compare` read their inputs one case
// at a time (report.CaseReader, which finds where each case ends without
// decoding it), decode and check the cases on every core (decode.go: a
// plainly written case with segmentio/encoding/json's decoder, any other
// with encoding/json, the two held to the same values and refusals; a
// merge passes a case through as its bytes where a scan proves decoding
// and checking it would accept it, passthrough.go; a comparison makes the
// delta of a case whose bytes are the baseline's from those bytes after
// the same scan, samecase.go, and appends each delta's JSON by hand,
// delta.go), and
// write their output one case at a time (a comparison in json as it is
// computed: its head, each case one line, then what only the cases tell,
// CompareJSON), so their memory does not grow with the number of cases. A
// merge reads each input's cases into a batch's buffer that is used again
// once the batch is written (merge.go: arenas), so it allocates next to
// nothing a case and the collector rarely runs. What they compute is what baseline.Merge and
// baseline.Compare compute from whole envelopes, byte for byte.
package envstream
