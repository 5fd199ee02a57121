package diag

import (
	"bytes"
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
