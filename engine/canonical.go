package engine

import segjson "github.com/segmentio/encoding/json"

// canonicalJSON is the canonical JSON encoding of a generic value
// (map[string]any, []any, string, float64, bool, nil): map keys sorted,
// HTML characters escaped, byte for byte what encoding/json's Marshal
// writes (FuzzCanonicalJSON holds it to that). It is
// segmentio/encoding/json's, already linked through the MCP SDK, which is
// as fast as the hand-written encoder it replaced and faster than
// encoding/json on the values it is taken of (BenchmarkCanonical; the
// figures are in docs/benchmarks.md): the digest of every case's
// definition while a suite loads, and the arguments and results a report
// quotes.
func canonicalJSON(v any) ([]byte, error) { return segjson.Marshal(v) }
