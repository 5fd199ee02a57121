package cassette_test

// The benchmark over gen's cassettes is an external test: gen writes its
// cassettes with this package's File.

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
)

// readRunsOf streams a cassette run by run, as `mcptest run` reads it.
func readRunsOf(path string, data []byte, each func(*cassette.Run)) error {
	_, err := cassette.Stream(path, data, func(_ *cassette.Cassette, r *cassette.Run) { each(r) })
	return err
}

// manyCallsFile is the cassette of BenchmarkReadManyCalls: gen.ManyCalls
// with 1,000 runs of 1,000 calls, a 53 MB file of 1,000,000 calls.
func manyCallsFile(b *testing.B) []byte {
	b.Helper()
	var buf bytes.Buffer
	if err := gen.ManyCalls(&buf, 1000, 1000); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReadManyCalls reads a 53 MB cassette of 1,000,000 calls the way
// `mcptest run` does, run by run (Stream), and reports per byte of the
// file what the read allocates (alloc-B/file-B) and the highest heap it
// reached (peak-heap-B/file-B). Run it with
//
//	go test ./cassette -run '^$' -bench ReadManyCalls -benchtime 3x
func BenchmarkReadManyCalls(b *testing.B) {
	data := manyCallsFile(b)
	b.SetBytes(int64(len(data)))
	var peak, alloc uint64
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		stop := gen.HeapPeak()
		calls := 0
		if err := readRunsOf("many.json", data, func(r *cassette.Run) { calls += len(r.Turns[0].Calls) }); err != nil {
			b.Fatal(err)
		}
		peak = max(peak, stop())
		runtime.ReadMemStats(&after)
		alloc = after.TotalAlloc - before.TotalAlloc
		if calls != 1_000_000 {
			b.Fatalf("%d calls", calls)
		}
	}
	b.ReportMetric(float64(alloc)/float64(len(data)), "alloc-B/file-B")
	b.ReportMetric(float64(peak)/float64(len(data)), "peak-heap-B/file-B")
}
