package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// TestCanonicalJSON: the encoding is json.Marshal's, byte for byte, for
// the values where another encoder could slip: HTML characters, line
// separators and invalid UTF-8 in strings and keys, negative zero, the
// exponent thresholds, integers past 2^53.
func TestCanonicalJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, "", "plain", "<a & b>", "quote \" and \\", "tab\t", "é", "\u2028", "\xff", "a\xc3", "\x7f", "\U0001F600",
		0.0, math.Copysign(0, -1), 1.0, -7.0, 1e17, 1e18, -1e18, 1e20, 1e21, 1e-6, 1e-7, 0.5, 123456789.125,
		20000000000000127.0, 5e-324, math.MaxFloat64,
		[]any{}, map[string]any{}, map[string]any{"b": []any{1.0, "x"}, "a": nil, "é": true, "A": map[string]any{"<": 2.5}},
		map[string]any{"\xff": 1.0, "\xfe": 2.0},
	} {
		want, _ := json.Marshal(v)
		got, err := canonicalJSON(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%#v: got %s (%v), want %s", v, got, err, want)
		}
	}
}

// FuzzCanonicalJSON: for every document, the canonical encoding of its
// values is json.Marshal's.
func FuzzCanonicalJSON(f *testing.F) {
	f.Add([]byte("a: [1, -0.0, 1e300, 0.1, '<&>', \"\\u2028\", {z: ~, y: true}]\n"))
	files, _ := filepath.Glob("testdata/*/*.yml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := yamlpos.Read("f.yml", data, suiteYAML)
		want, err := json.Marshal(d.Root)
		if err != nil {
			return
		}
		got, err := canonicalJSON(d.Root)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v), want %s", got, err, want)
		}
	})
}

// canonicalInputs are the values the canonical encoding is taken of in a
// run, from the generator in the repository: the definition of every case
// of a 2,000-test suite (its digest is taken while the suite loads), and
// the arguments and results of every call of 200 cassettes (the evidence
// a report quotes).
func canonicalInputs(tb testing.TB) (defs, calls []any) {
	tb.Helper()
	d := yamlpos.Read("suite.yml", gen.TranscriptSuite(1, 2000), suiteYAML)
	root, _ := d.Root.(map[string]any)
	for _, key := range []string{"tests", "agents"} {
		if l, ok := root[key].([]any); ok {
			defs = append(defs, l...)
		}
	}
	for i := range 200 {
		c, err := cassette.Read("c.json", gen.Cassette(1, i))
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range c.Runs {
			for _, call := range r.Calls() {
				calls = append(calls, call.Arguments, call.Result)
			}
		}
	}
	if len(defs) == 0 || len(calls) == 0 {
		tb.Fatalf("no inputs: %d definitions, %d call values", len(defs), len(calls))
	}
	return defs, calls
}

// BenchmarkCanonical encodes the values of canonicalInputs with
// canonicalJSON (segmentio/encoding/json) and encoding/json, in turn
// within each iteration, the order alternating, so both see the same
// machine load. ns/op is canonicalJSON's time for all the values; x-stdlib
// is encoding/json's over it. (Measured at the commit before this one, the
// hand-written encoder canonicalJSON replaced took 1.1 to 1.4 times
// segmentio's time: docs/benchmarks.md.)
//
//	go test ./engine -run '^$' -bench BenchmarkCanonical -benchtime 20x -count 5
func BenchmarkCanonical(b *testing.B) {
	defs, calls := canonicalInputs(b)
	for _, in := range []struct {
		name   string
		values []any
	}{{"definitions", defs}, {"calls", calls}} {
		b.Run(in.name, func(b *testing.B) {
			encoders := []func(v any) ([]byte, error){canonicalJSON, json.Marshal}
			var spent [2]time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range encoders {
					e := (i + k) % len(encoders)
					start := time.Now()
					for _, v := range in.values {
						encoders[e](v)
					}
					spent[e] += time.Since(start)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "x-stdlib")
		})
	}
}
