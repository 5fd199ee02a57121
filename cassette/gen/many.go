package gen

import (
	"bufio"
	"fmt"
	"io"
)

// ManyCalls writes a v1 cassette made for the reader's memory measures:
// runs runs of one turn each, every turn calls calls of the weather tool
// with a one-key argument object, one line per call, and a final response
// of "done". Calls are about 53 bytes of JSON each, the density of a
// recording of many short calls, so 1,000 runs of 1,000 calls are a 53 MB
// file of 1,000,000 calls. The output depends on runs and calls only.
func ManyCalls(w io.Writer, runs, calls int) error {
	cities := [...]string{"Paris", "Tokyo", "Lagos", "Quito", "Hanoi", "Cairo", "Perth", "Turin"}
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString("{\"mcptest_cassette\": 1, \"agent\": \"weather-bot\", \"runs\": [\n")
	for r := range runs {
		b.WriteString("{\"turns\": [{\"calls\": [\n")
		for c := range calls {
			sep := ",\n"
			if c == calls-1 {
				sep = "\n"
			}
			fmt.Fprintf(b, "{\"tool\":\"get_weather\",\"arguments\":{\"city\":%q}}%s", cities[(r+c)%len(cities)], sep)
		}
		b.WriteString("], \"final_response\": \"done\"}]}")
		if r < runs-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return b.Flush()
}
