package cassette_test

import (
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
)

// BenchmarkReadTranscripts reads the first 200 transcripts of
// BenchmarkTranscripts (engine/scale_bench_test.go) in each of its two
// formats, as `mcptest run` reads a test's recording (Stream), so the
// reader's share of that run is measured alone:
//
//	go test ./cassette -run '^$' -bench ReadTranscripts -benchmem
func BenchmarkReadTranscripts(b *testing.B) {
	for _, format := range []string{gen.OpenAI, gen.V1} {
		files := make([][]byte, 200)
		size := 0
		for i := range files {
			files[i] = gen.Transcript(gen.DefaultSeed, i, format)
			size += len(files[i])
		}
		b.Run("format="+format, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, data := range files {
					if err := readRunsOf("transcript.json", data, func(*cassette.Run) {}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
