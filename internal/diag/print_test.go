package diag

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPrinter(t *testing.T) {
	src := []byte("a: 1\n\tb: \x1b[2Jx\r\n" + strings.Repeat("y", 201) + "\n")
	at := func(line, col int) Pos { return Pos{File: "f.yml", Line: line, Col: col} }
	l := List{
		{Pos: at(1, 4), Message: "one", Source: src},
		{Pos: at(2, 9), Message: "two", Kind: "k", Source: src},
		{Pos: at(1, 1), Message: "hidden", Source: src, HideSource: true},
		{Pos: at(1, 1), Message: "no source"},
		{Pos: at(3, 1), Message: "long line", Source: src},
		{Pos: at(9, 1), Message: "past the end", Source: src},
		{Pos: Pos{File: "f.yml"}, Message: "whole file", Source: src},
		{Pos: at(1, 1), Message: "bell \a"},
	}
	var b bytes.Buffer
	Printer{}.Print(&b, l)
	want := `f.yml:1:4: one
  a: 1
     ^
f.yml:2:9: two [k]
   b: \u001b[2Jx
               ^
f.yml:1:1: hidden
f.yml:1:1: no source
f.yml:3:1: long line
f.yml:9:1: past the end
f.yml: whole file
f.yml:1:1: bell \u0007
8 errors
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Line rewrites the printed line and moves the caret with it.
	b.Reset()
	Printer{Clean: strings.ToUpper, Line: func(s string, col int) (string, int) { return ">>" + s, col + 2 }}.Print(&b, l[:1])
	if want := "F.YML:1:4: ONE\n  >>A: 1\n       ^\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// lineByScan is the source line of e found from the top of its source,
// as Print found each before it kept a cursor: the reference the cursor
// is held to.
func lineByScan(e *Error) (string, bool) {
	if e.HideSource || e.Source == nil || e.Pos.Line < 1 {
		return "", false
	}
	lines := strings.Split(string(e.Source), "\n")
	if e.Pos.Line > len(lines) {
		return "", false
	}
	line := strings.TrimRight(lines[e.Pos.Line-1], "\r")
	if len(line) > maxShownLine {
		return "", false
	}
	return line, true
}

// TestLineCursorIsScan draws sources (short and long lines, CRLF, empty
// lines, a last line with no newline, each line naming its source and
// number) and lists of errors over several of them: two drawn, one of the
// same length and other bytes, a prefix of the first sharing its memory,
// and an empty one; in order, shuffled and repeated. It holds the
// cursor's line for each error to the line found by scanning from the
// top.
func TestLineCursorIsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	draw := func(id byte) []byte {
		var b strings.Builder
		for n := range 1 + rng.IntN(60) {
			if rng.IntN(5) > 0 { // else an empty line
				name := fmt.Sprintf("%c%d ", id, n+1)
				width := []int{3, 40, maxShownLine - 1, maxShownLine, maxShownLine + 1, 500}[rng.IntN(6)]
				b.WriteString(name + strings.Repeat("x", max(0, width-len(name))))
			}
			b.WriteString([]string{"\n", "\r\n", "\n"}[rng.IntN(3)])
		}
		if rng.IntN(2) == 0 {
			b.WriteString("last")
		}
		return []byte(b.String())
	}
	for range 2000 {
		first := draw('a')
		// The same length, its lines cut elsewhere: its first newline
		// moved a byte on.
		same := bytes.Clone(first)
		if k := bytes.IndexByte(same, '\n'); k >= 0 && k+1 < len(same) {
			same[k], same[k+1] = same[k+1], same[k]
		}
		srcs := [][]byte{first, draw('b'), same, first[:len(first)/2], {}}
		var l List
		for range rng.IntN(40) {
			src := srcs[rng.IntN(len(srcs))]
			e := &Error{Pos: Pos{File: "f", Line: rng.IntN(70), Col: 1}, Source: src, HideSource: rng.IntN(10) == 0}
			if rng.IntN(10) == 0 {
				e.Source = nil
			}
			l = append(l, e)
		}
		if rng.IntN(2) == 0 {
			l = l.Sorted()
		}
		var c lineCursor
		for i, e := range l {
			got, gotOK := c.sourceLine(e)
			want, wantOK := lineByScan(e)
			if got != want || gotOK != wantOK {
				t.Fatalf("error %d (line %d): cursor %q %v, scan %q %v", i, e.Pos.Line, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestPrintStopsAtMaxPrinted: a list longer than MaxPrinted + 1 prints its
// first MaxPrinted errors, how many it left out, its last, and the count
// of all.
func TestPrintStopsAtMaxPrinted(t *testing.T) {
	src := []byte(strings.Repeat("  - {}\n", 500))
	var l List
	for i := range 500 {
		l = append(l, &Error{Pos: Pos{File: "s.yml", Line: i + 1, Col: 5}, Message: "missing name", Source: src})
	}
	var b bytes.Buffer
	Printer{}.Print(&b, l)
	out := b.String()
	if n := strings.Count(out, "missing name"); n != MaxPrinted+1 {
		t.Errorf("%d errors printed, want %d", n, MaxPrinted+1)
	}
	if !strings.HasSuffix(out, "s.yml:50:5: missing name\n    - {}\n      ^\n... and 449 more, not shown\n"+
		"s.yml:500:5: missing name\n    - {}\n      ^\n500 errors\n") {
		t.Errorf("the end of the output:\n%s", out[max(0, len(out)-200):])
	}
	b.Reset()
	Printer{}.Print(&b, l[:MaxPrinted+1])
	if strings.Contains(b.String(), "not shown") || strings.Count(b.String(), "missing name") != MaxPrinted+1 {
		t.Errorf("a list of MaxPrinted + 1 errors was not printed whole")
	}
}

// BenchmarkPrintManyErrors prints the errors of a generated suite with
// one mistake in each of 100,000 tests: linear in the file, whatever the
// errors' count (it was a scan from the top for each).
func BenchmarkPrintManyErrors(b *testing.B) {
	src := []byte(strings.Repeat("  - {}\n", 100_000))
	var l List
	for i := range 100_000 {
		l = append(l, &Error{Pos: Pos{File: "s.yml", Line: i + 1, Col: 5}, Message: "missing name", Source: src})
	}
	for b.Loop() {
		Printer{}.Print(io.Discard, l)
	}
}
