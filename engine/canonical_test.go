package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	segjson "github.com/segmentio/encoding/json"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/cassette/gen"
	"github.com/mcptest/mcptest/engine/yamlpos"
)

// TestAppendCanonical: the encoding is json.Marshal's, byte for byte, for
// the values where a hand-written encoder could slip.
func TestAppendCanonical(t *testing.T) {
	for _, v := range []any{
		nil, true, "", "plain", "<a & b>", "quote \" and \\", "tab\t", "é", "\u2028", "\xff",
		0.0, math.Copysign(0, -1), 1.0, -7.0, 1e17, 1e18, -1e18, 1e21, 1e-7, 0.5, 123456789.125,
		[]any{}, map[string]any{}, map[string]any{"b": []any{1.0, "x"}, "a": nil, "é": true, "A": map[string]any{"<": 2.5}},
	} {
		want, _ := json.Marshal(v)
		got, ok := appendCanonical(nil, v)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%#v: got %s (%v), want %s", v, got, ok, want)
		}
	}
	if _, ok := appendCanonical(nil, map[string]any{"a": 1}); ok {
		t.Error("an int (not a decoded value) should be left to encoding/json")
	}
}

// FuzzAppendCanonical: for every document, the canonical encoding of its
// values is json.Marshal's.
func FuzzAppendCanonical(f *testing.F) {
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
		got, ok := appendCanonical(nil, d.Root)
		if err != nil {
			return
		}
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v), want %s", got, ok, want)
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

// TestCanonicalLibraries: on the run's own values the copy, encoding/json
// and segmentio/encoding/json (a dependency of the MCP SDK, which sorts
// map keys too) write the same bytes, so BenchmarkCanonical compares like
// with like.
func TestCanonicalLibraries(t *testing.T) {
	defs, calls := canonicalInputs(t)
	for _, v := range append(defs, calls...) {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendCanonical(nil, v)
		seg, err := segjson.Marshal(v)
		if !ok || err != nil || !bytes.Equal(got, want) || !bytes.Equal(seg, want) {
			t.Fatalf("%#v:\ncopy      %s\nsegmentio %s\nstdlib    %s", v, got, seg, want)
		}
	}
}

// BenchmarkCanonical encodes the values of canonicalInputs with the copy
// (appendCanonical), encoding/json and segmentio/encoding/json, the three
// in turn within each iteration, the order rotating, so all see the same
// machine load. ns/op is the copy's time for all the values; x-stdlib and
// x-segmentio are each library's time over the copy's.
//
//	go test ./engine -run '^$' -bench BenchmarkCanonical -benchtime 20x -count 5
func BenchmarkCanonical(b *testing.B) {
	defs, calls := canonicalInputs(b)
	for _, in := range []struct {
		name   string
		values []any
	}{{"definitions", defs}, {"calls", calls}} {
		b.Run(in.name, func(b *testing.B) {
			encoders := []func(v any) []byte{
				func(v any) []byte { out, _ := appendCanonical(nil, v); return out },
				func(v any) []byte { out, _ := json.Marshal(v); return out },
				func(v any) []byte { out, _ := segjson.Marshal(v); return out },
			}
			var spent [3]time.Duration
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
			b.ReportMetric(float64(spent[2])/float64(spent[0]), "x-segmentio")
		})
	}
}
