package envstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// indexFrom indexes the envelope at path as a baseline, its second part
// read beside the first from mid (indexBaselineFrom; -1 for a read from
// the start alone): the index, the head, and the error as text ("" for
// none).
func indexFrom(t *testing.T, path string, mid int64) (*indexed, *report.Envelope, string) {
	t.Helper()
	f, rd, err := openEnvelope(path, "", report.MaxStreamBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr, err := newCaseReader(rd, path)
	if err != nil {
		return nil, nil, err.Error()
	}
	idx, head, err := indexBaselineFrom(f, cr, mid)
	if err != nil {
		return nil, nil, err.Error()
	}
	return idx, head, ""
}

// splitLayouts are the ways TestIndexSplitIsIndexFromStart writes a
// drawn envelope: as the JSON reporter writes it (a case a line: the
// place found near the middle is where a case starts), indented (each
// member a line: a place found may lie between two assertions of a case,
// where the read from the start does not stand), and compact (no line:
// no place found).
var splitLayouts = []string{"reporter", "indented", "compact"}

func layoutBytes(t *testing.T, env *report.Envelope, layout string) []byte {
	t.Helper()
	var data []byte
	var err error
	switch layout {
	case "reporter":
		path := filepath.Join(t.TempDir(), "env.json")
		writeEnv(t, path, env)
		data, err = os.ReadFile(path)
	case "indented":
		data, err = json.MarshalIndent(env, "", "  ")
	default:
		data, err = json.Marshal(env)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestIndexSplitIsIndexFromStart holds the baseline's index read in two
// parts beside each other to the index read from the start alone, over
// drawn envelopes (hundreds of cases, some with a second assertion, some
// given twice) in the three layouts, some broken (a byte of their cases,
// or what follows the cases: a syntax error), each split from drawn places and
// from its middle: the same cases at the same places (keys, blocks,
// lengths), the same cases dropped with the same warnings, the same
// head, or the same error, placed at the same line and column. The
// second part's read must be taken in most of the reporter's layouts,
// and a place found must be refused in some of the others.
func TestIndexSplitIsIndexFromStart(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2026))
	dir := t.TempDir()
	taken, refused := 0, 0
	for round := range 60 {
		n := 1 + r.IntN(400)
		layout := splitLayouts[round%len(splitLayouts)]
		data, broken := drawSplitBaseline(t, r, round, n, layout)
		path := filepath.Join(dir, fmt.Sprintf("base-%d.json", round))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantHead, wantErr := indexFrom(t, path, -1)
		if want != nil && want.parted {
			t.Fatalf("round %d: the read from the start says it was split", round)
		}
		mids := []int64{int64(len(data) / 2)}
		for range 4 {
			mids = append(mids, r.Int64N(int64(len(data))))
		}
		for _, mid := range mids {
			what := fmt.Sprintf("round %d (%d cases, %s, broken %v), split from %d of %d bytes", round, n, layout, broken, mid, len(data))
			got, head, err := indexFrom(t, path, mid)
			if err != wantErr {
				t.Fatalf("%s: error %q, from the start %q", what, err, wantErr)
			}
			if err != "" {
				continue
			}
			sameIndex(t, what, got, want, head, wantHead)
			if got.parted {
				taken++
			} else if layout == "indented" && foundSplit(t, path, mid) {
				refused++
			}
		}
	}
	t.Logf("second parts taken: %d; places found and refused: %d", taken, refused)
	if taken < 40 || refused == 0 {
		t.Fatalf("second parts taken %d times, places refused %d times: the drawn envelopes do not exercise both ways", taken, refused)
	}
}

// drawSplitBaseline is a drawn baseline of n cases in layout, some with a
// second assertion, some given twice, and whether it was broken (a byte
// of its cases, or what follows the cases).
func drawSplitBaseline(t *testing.T, r *rand.Rand, round, n int, layout string) ([]byte, bool) {
	env := genEnvelope(r, n, fmt.Sprintf("split %d", round))
	for _, c := range env.Cases {
		if r.IntN(4) == 0 {
			c.Assertions = append(c.Assertions, report.AssertionResult{Index: 1, Target: "reliability.pass_rate", Matcher: map[string]any{">=": 0},
				Actual: 50, Passed: true, Message: "assertion #1", Position: diag.Pos{File: "suite.yml", Line: 2, Col: 9}})
		}
	}
	if r.IntN(3) == 0 && n > 2 {
		// A case given twice: the first is kept, the second dropped.
		env.Cases[n-1-r.IntN(n/2)] = env.Cases[r.IntN(n/2)]
	}
	data := layoutBytes(t, env, layout)
	if r.IntN(2) != 0 && (layout != "reporter" || round%2 != 0) {
		return data, false
	}
	data = slices.Clone(data)
	if layout != "reporter" && r.IntN(2) == 0 {
		at := len(data)/3 + r.IntN(len(data)-len(data)/3)
		data[at] = "{}[],:\"x\n "[r.IntN(10)]
		return data, true
	}
	// Past the cases (the first array closed at the start of a line): an
	// error of the rest of the document, placed by the lines the second
	// part read.
	end := bytes.Index(data, []byte("}\n  ]")) + 5
	if end < 5 {
		end = bytes.LastIndexByte(data, ']') + 1
	}
	bad := []string{" x", "\n  x", " , ]"}[round/len(splitLayouts)%3]
	return slices.Concat(data[:end], []byte(bad), data[end:]), true
}

// sameIndex fails the test where the index got, and its head, are not
// want's: the same cases at the same places (keys, blocks, lengths), the
// same count, the same cases dropped with the same warnings.
func sameIndex(t *testing.T, what string, got, want *indexed, head, wantHead *report.Envelope) {
	t.Helper()
	if got.cr.Cases() != want.cr.Cases() {
		t.Fatalf("%s: %d cases read, from the start %d", what, got.cr.Cases(), want.cr.Cases())
	}
	if !reflect.DeepEqual(head, wantHead) {
		t.Fatalf("%s: head %+v, from the start %+v", what, head, wantHead)
	}
	a, b := got.baseIndex, want.baseIndex
	if a.n != b.n || !slices.Equal(a.keys, b.keys) || !slices.Equal(a.blockFirst, b.blockFirst) || !slices.Equal(a.blockAt, b.blockAt) ||
		!slices.Equal(a.rel, b.rel) || !slices.Equal(a.lens, b.lens) || !slices.Equal(a.dropped, b.dropped) || !slices.Equal(got.warnings, want.warnings) {
		t.Fatalf("%s: the index is not the one read from the start: %d cases, %d blocks, warnings %q; want %d, %d, %q",
			what, a.n, len(a.blockFirst), got.warnings, b.n, len(b.blockFirst), want.warnings)
	}
}

// foundSplit reports whether splitPoint finds a place in the file at path
// from mid.
func foundSplit(t *testing.T, path string, mid int64) bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, found := splitPoint(f, mid)
	return found
}

// TestSplitPointFindsACaseStart: splitPoint finds, from the middle of an
// envelope the JSON reporter wrote, the comma after a case, followed by
// the next case on its own line; and none in compact JSON.
func TestSplitPointFindsACaseStart(t *testing.T) {
	env := genEnvelope(rand.New(rand.NewPCG(40, 7)), 300, "point")
	for _, layout := range []string{"reporter", "compact"} {
		data := layoutBytes(t, env, layout)
		path := filepath.Join(t.TempDir(), "env.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		at, ok := splitPoint(f, int64(len(data)/2))
		f.Close()
		if layout == "compact" {
			if ok {
				t.Fatalf("compact: a place found at %d", at)
			}
			continue
		}
		if !ok || at < int64(len(data)/2) || data[at-1] != '}' || data[at] != ',' || !bytes.HasPrefix(bytes.TrimLeft(data[at+1:], " \n"), []byte(`{"name":"point case `)) {
			t.Fatalf("reporter: place %d %v: %.80q", at, ok, data[max(0, at-10):])
		}
	}
}
