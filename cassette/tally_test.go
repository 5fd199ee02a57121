package cassette

import (
	"fmt"
	"reflect"
	"testing"
)

// sameAsStreamWithoutArguments checks that Tally reads data as Stream
// does, but for the calls' arguments: the same error, or the same
// cassette and the same runs in the same order, each call's Arguments
// left out of the comparison. It returns how many calls Tally kept the
// arguments of, none for an mcptest cassette.
func sameAsStreamWithoutArguments(t *testing.T, name string, data []byte) (kept int) {
	t.Helper()
	var streamed, tallied []Run
	bare := func(r *Run) Run {
		run := *r
		run.Turns = append([]Turn(nil), r.Turns...)
		for i := range run.Turns {
			run.Turns[i].Calls = append([]Call(nil), run.Turns[i].Calls...)
			for j := range run.Turns[i].Calls {
				if run.Turns[i].Calls[j].Arguments != "" {
					kept++
				}
				run.Turns[i].Calls[j].Arguments = ""
			}
		}
		return run
	}
	c1, err1 := Stream("f.json", data, func(_ *Cassette, r *Run) { streamed = append(streamed, bare(r)) })
	kept = 0
	c2, err2 := Tally("f.json", data, func(_ *Cassette, r *Run) { tallied = append(tallied, bare(r)) })
	if fmt.Sprint(err1) != fmt.Sprint(err2) {
		t.Fatalf("%s: Stream says %v\n---\nTally says %v", name, err1, err2)
	}
	if err1 != nil {
		return 0
	}
	if kept > 0 && c2.Format == FormatV1 {
		t.Fatalf("%s: Tally kept the arguments of %d calls of a %s recording", name, kept, c2.Format)
	}
	if !reflect.DeepEqual(c1, c2) {
		t.Fatalf("%s: the cassettes differ:\n%+v\n---\n%+v", name, c1, c2)
	}
	if !reflect.DeepEqual(streamed, tallied) {
		t.Fatalf("%s: the runs differ beyond their arguments", name)
	}
	return kept
}

// TestTallyOnFuzzSeeds holds Tally to Stream over every seed of the
// readers' fuzzers (the corpus files, the inline cases, the recordings
// that lost their calls, the generated runs in every format).
func TestTallyOnFuzzSeeds(t *testing.T) {
	for i, seed := range fuzzSeeds(t) {
		sameAsStreamWithoutArguments(t, fmt.Sprintf("fuzz seed %d", i), seed)
	}
}

// SameAsStreamWithoutArguments is for the generated recordings' test of
// the package cassette_test (tally_gen_test.go), which imports
// cassette/gen.
var SameAsStreamWithoutArguments = sameAsStreamWithoutArguments

// FuzzTally holds Tally to Stream on arbitrary bytes.
//
//	go test ./cassette -run '^$' -fuzz FuzzTally -fuzztime 60s
func FuzzTally(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsStreamWithoutArguments(t, "fuzz", data)
	})
}
