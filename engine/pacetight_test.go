package engine

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette"
)

// settle runs a few collections, each of which may run the folds'
// finalizer that sets the pace again.
func settle() {
	for range 3 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPaceTightRules holds paceTight to its rules: it sets tightPercent
// and the last of several nested ends puts back the percent from before
// the first (each end counted once); a fold that begins under it keeps
// the tight pace, collections included, takes over when it ends and puts
// back the percent from before both; a tight pace that begins under a
// fold ends into the fold's pace, and the fold that ends under it leaves
// the tight pace and hands it the percent to put back. Each part starts
// from a percent of its own, so a percent put back from an earlier part
// shows.
func TestPaceTightRules(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the paces keep the collector's as it is")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	want := func(what string, p int) {
		t.Helper()
		if got := gcPercent(t); got != p {
			t.Fatalf("%s: percent %d, want %d", what, got, p)
		}
	}

	debug.SetGCPercent(73)
	end1 := paceTight()
	want("tight", tightPercent)
	end2 := paceTight()
	want("tight twice", tightPercent)
	end1()
	end1()
	settle()
	want("one of two tight paces ended (twice)", tightPercent)
	end2()
	want("both tight paces ended", 73)

	debug.SetGCPercent(61)
	end := paceTight()
	fold := paceFold(3)
	want("a fold under the tight pace", tightPercent)
	settle()
	want("collections in a fold under the tight pace", tightPercent)
	end()
	if p := gcPercent(t); p < 100 {
		t.Fatalf("the tight pace ended in a fold: percent %d, want the fold's (100 or more)", p)
	}
	fold()
	want("the fold ended after the tight pace", 61)
	settle()
	want("collections after both", 61)

	debug.SetGCPercent(47)
	fold = paceFold(2)
	if p := gcPercent(t); p < 100 {
		t.Fatalf("a fold: percent %d, want 100 or more", p)
	}
	end = paceTight()
	want("a tight pace in a fold", tightPercent)
	settle()
	want("collections in a tight pace in a fold", tightPercent)
	fold()
	want("the fold ended under the tight pace", tightPercent)
	settle()
	want("collections after the fold, under the tight pace", tightPercent)
	end()
	want("the tight pace ended after the fold", 47)

}

// TestCatalogToolsCounts: catalogTools counts the tools of every server
// of a cassette's recorded catalog, none for none.
func TestCatalogToolsCounts(t *testing.T) {
	cas := &cassette.Cassette{}
	if n := catalogTools(cas); n != 0 {
		t.Fatalf("no catalog: %d tools, want 0", n)
	}
	cas.Catalog = []cassette.ServerCatalog{{Server: "a", Tools: make([]cassette.Tool, 3)}, {Server: "b"}, {Server: "c", Tools: make([]cassette.Tool, 4)}}
	if n := catalogTools(cas); n != 7 {
		t.Fatalf("three servers of 3, 0 and 4 tools: %d, want 7", n)
	}
}

// TestPaceLeftAlone: a fold of one file (or none) leaves the collector's
// pace as it is while it lasts, and GOGC or GOMEMLIMIT, either alone,
// leaves it to them for a fold of several files and for a tight pace.
func TestPaceLeftAlone(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the paces keep the collector's as it is")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	debug.SetGCPercent(67)
	for _, files := range []int{0, 1} {
		done := paceFold(files)
		if p := gcPercent(t); p != 67 {
			t.Fatalf("a fold of %d files: percent %d, want 67 kept", files, p)
		}
		done()
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, map[string]string{"GOGC": "80", "GOMEMLIMIT": "1GiB"}[env])
			fold := paceFold(3)
			if p := gcPercent(t); p != 67 {
				t.Fatalf("a fold of 3 files with %s set: percent %d, want 67 kept", env, p)
			}
			tight := paceTight()
			if p := gcPercent(t); p != 67 {
				t.Fatalf("a tight pace with %s set: percent %d, want 67 kept", env, p)
			}
			tight()
			fold()
			if p := gcPercent(t); p != 67 {
				t.Fatalf("with %s set, after the paces: percent %d, want 67", env, p)
			}
		})
	}
}

// TestPaceAtTightest: paces of several percents under way hold the least
// of them, whichever began first; as each ends the least of the rest
// holds, and the last puts back the percent from before the first.
func TestPaceAtTightest(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the paces keep the collector's as it is")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, order := range [][2]int{{recordingPercent, tightPercent}, {tightPercent, recordingPercent}} {
		debug.SetGCPercent(83)
		endA := paceAt(order[0])
		if got := gcPercent(t); got != order[0] {
			t.Fatalf("%v: one pace, percent %d", order, got)
		}
		endB := paceAt(order[1])
		if got := gcPercent(t); got != tightPercent {
			t.Fatalf("%v: both paces, percent %d, want %d", order, got, tightPercent)
		}
		endA()
		if got := gcPercent(t); got != order[1] {
			t.Fatalf("%v: the first ended, percent %d, want %d", order, got, order[1])
		}
		endB()
		endB()
		if got := gcPercent(t); got != 83 {
			t.Fatalf("%v: both ended, percent %d, want 83", order, got)
		}
	}
}

// TestRecordingPace: a recording of tightRecording bytes or more that is
// not an mcptest cassette is read with the collector at recordingPercent,
// as its run is handed out; a smaller one, and an mcptest cassette of any
// size, at the pace there was.
func TestRecordingPace(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the paces keep the collector's as it is")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	transcript := func(calls int) []byte {
		b := []byte(`[{"role": "user", "content": "go"}`)
		for k := range calls {
			b = fmt.Appendf(b, `, {"role": "assistant", "content": null, "tool_calls": [{"id": "c%d", "type": "function", "function": {"name": "t", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c%d", "content": "ok"}`, k, k)
		}
		return append(b, ']')
	}
	cassetteOf := func(calls int) []byte {
		b := []byte(`{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [`)
		for k := range calls {
			if k > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"tool": "t%d", "arguments": {"padding": "%0200d"}}`, k, k)
		}
		return append(b, `], "final_response": "done"}]}]}`...)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want int
	}{
		{"a large transcript", transcript(30_000), recordingPercent},
		{"a small transcript", transcript(100), 97},
		{"a large cassette", cassetteOf(20_000), 97},
	} {
		if strings.HasPrefix(tc.name, "a large") && len(tc.data) < tightRecording {
			t.Fatalf("%s: %d bytes, under %d", tc.name, len(tc.data), tightRecording)
		}
		debug.SetGCPercent(97)
		got := -1
		_, err := streamRecording("r.json", tc.data, func(*cassette.Cassette, *cassette.Run) { got = gcPercent(t) })
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s (%d bytes): percent %d while read, want %d", tc.name, len(tc.data), got, tc.want)
		}
		if after := gcPercent(t); after != 97 {
			t.Errorf("%s: percent %d after, want 97", tc.name, after)
		}
	}
}
