package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// TestArgLocatorHolds: the locator holds exactly the bytes it was reset
// with, the same array from the same start at the same length; a copy of
// them, a part of them, or the bytes beside them are other bytes, and
// no bytes are held alike however they are spelled (nil or empty).
func TestArgLocatorHolds(t *testing.T) {
	data := []byte(`{"runs":[{"turns":[]}]}`)
	same := make([]byte, len(data))
	copy(same, data)
	var l argLocator
	l.reset(data)
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"the bytes", data, true},
		{"the bytes resliced", data[:len(data):len(data)], true},
		{"a copy", same, false},
		{"the first part", data[:len(data)-1], false},
		{"the last part", data[1:], false},
		{"nil", nil, false},
		{"empty", data[:0], false},
	} {
		if got := l.holds(c.b); got != c.want {
			t.Errorf("reset with the bytes, holds %s = %v, want %v", c.name, got, c.want)
		}
	}
	l.reset(nil)
	if !l.holds(nil) || !l.holds([]byte{}) || l.holds(data) {
		t.Error("reset with nil: want nil and empty held, the bytes not")
	}
}

// TestArgLocatorFarStart: a document that is not an object, or whose
// object opens past the first 64 bytes, is placed by cassette.Locate
// itself, to the same position as one placed by the locator.
func TestArgLocatorFarStart(t *testing.T) {
	doc := `{"runs":[{"turns":[{"calls":[{"tool":"t","arguments":{"q":1}}]}]}]}`
	for _, data := range []string{
		strings.Repeat(" ", 63) + doc,
		strings.Repeat(" ", 64) + doc,
		strings.Repeat("\n", 80) + doc,
		"[" + doc + "]",
		`"runs"`,
	} {
		for _, ptr := range []string{"/turns/0/calls/0/arguments/q", "/turns/0/calls/0/arguments", "/turns/1"} {
			var l argLocator
			l.reset([]byte(data))
			got, gok := l.locate("c.json", 0, ptr)
			want, wok := cassette.Locate("c.json", []byte(data), "/runs/0"+ptr)
			if got != want || gok != wok {
				t.Errorf("%.10q…: %s at %+v %v, want %+v %v", data, ptr, got, gok, want, wok)
			}
		}
	}
}

// TestArgLocatorKeepsItsPlace: over drawn cassettes asked in file order
// and in any order, after each violation placed in a run the cassette
// holds, the locator keeps that run's index and offset (a later run is
// found from there, an earlier one from the start) and the offset it
// placed; placed through cassette.Locate instead, every position would
// be the same, each found from the file's start. A run without turns is
// placed at the run itself.
func TestArgLocatorKeepsItsPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 37))
	kept := 0
	for d := range 300 {
		data := []byte(drawLocateDoc(rng))
		if rng.IntN(4) == 0 {
			data = []byte(strings.Replace(string(data), `{"turns":[`, `{"t":[`, 1))
		}
		var l argLocator
		l.reset(data)
		run, ask := 0, 0
		for range 1 + rng.IntN(20) {
			if rng.IntN(3) == 0 {
				run = rng.IntN(7)
			} else {
				run += rng.IntN(2)
			}
			ptr := fmt.Sprintf("/turns/%d/calls/%d/arguments/q", rng.IntN(3), rng.IntN(3))
			got, gok := l.locate("c.json", run, ptr)
			want, wok := cassette.Locate("c.json", data, fmt.Sprintf("/runs/%d%s", run, ptr))
			if got != want || gok != wok {
				t.Fatalf("draw %d ask %d: run %d %s at %+v %v, want %+v %v\n%s", d, ask, run, ptr, got, gok, want, wok, data)
			}
			if off := jsonpos.LocatePath(data, fmt.Sprintf("/runs/%d", run))[2].Val; off >= 0 {
				if l.run != run || l.runOff != off {
					t.Fatalf("draw %d ask %d: run %d at %d kept as run %d at %d\n%s", d, ask, run, off, l.run, l.runOff, data)
				}
				if line, col := diag.LineCol(data, int64(l.off)); line != l.line || col != l.col || l.off == 0 {
					t.Fatalf("draw %d ask %d: offset %d kept at %d:%d, want %d:%d", d, ask, l.off, l.line, l.col, line, col)
				}
				kept++
			}
			ask++
		}
	}
	if kept < 1000 {
		t.Fatalf("%d places kept: the draws lost their reach", kept)
	}
}
