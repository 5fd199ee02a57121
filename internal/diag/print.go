package diag

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShownLine bounds, in bytes, a source line a Printer shows.
const maxShownLine = 200

// Printer prints errors the way compilers do: the error, then the line of
// the file it points at and a caret under its column. It shows a line
// only from the bytes the error carries (Error.Source) and never opens a
// file: what a reader kept back stays unshown.
type Printer struct {
	// Clean makes a message or a source line safe for a terminal; nil
	// escapes every character that is not graphic or a space as \uXXXX.
	Clean func(string) string
	// Line maps a cleaned source line and a 1-based column in characters
	// to the line as printed and the caret's column (under GitHub Actions,
	// a line the runner would take for a workflow command is rewritten);
	// nil prints the line as it is.
	Line func(line string, col int) (string, int)
}

// Print writes the errors of l to w, each followed by its source line and
// caret where the error carries its source, then "N errors" when there
// are several. Of a list longer than MaxPrinted + 1 it prints the first
// MaxPrinted, how many it leaves out, and the last: a generated suite with
// one mistake in every test has as many errors as tests, the first ones
// say what the rest would, and the last is where the file stopped being
// checked.
func (p Printer) Print(w io.Writer, l List) {
	var lines lineCursor
	shown := l
	if len(l) > MaxPrinted+1 {
		shown = l[:MaxPrinted]
	}
	for _, e := range shown {
		p.print(w, e, &lines)
	}
	if len(shown) < len(l) {
		fmt.Fprintf(w, "... and %d more, not shown\n", len(l)-len(shown)-1)
		p.print(w, l[len(l)-1], &lines)
	}
	if len(l) > 1 {
		fmt.Fprintf(w, "%d errors\n", len(l))
	}
}

// print writes one error, with its source line and caret when it has one
// to show (found by lines).
func (p Printer) print(w io.Writer, e *Error, lines *lineCursor) {
	fmt.Fprintln(w, p.clean(e.Error()))
	if src, ok := lines.sourceLine(e); ok {
		shown, col := p.sourceLine(src, max(e.Pos.Col, 1))
		fmt.Fprintf(w, "  %s\n", shown)
		fmt.Fprintf(w, "  %s^\n", strings.Repeat(" ", min(col-1, utf8.RuneCountInString(shown))))
	}
}

// MaxPrinted is how many errors Print shows of a list.
const MaxPrinted = 50

// lineCursor finds the source lines of a list's errors, sorted by
// position, in one pass over a source they share: it keeps the start of
// the last line it found.
type lineCursor struct {
	src  []byte // the source of the last line found
	line int    // its number, 1-based
	off  int    // its start in src
}

// sourceLine returns the line of e's source at e.Pos, when e carries its
// source, may show it, and the line is short enough to show.
func (c *lineCursor) sourceLine(e *Error) (string, bool) {
	if e.HideSource || e.Source == nil || e.Pos.Line < 1 {
		return "", false
	}
	data := e.Source
	line, off := 1, 0
	if len(c.src) > 0 && len(data) == len(c.src) && &data[0] == &c.src[0] && c.line <= e.Pos.Line {
		line, off = c.line, c.off
	}
	for ; line < e.Pos.Line; line++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return "", false
		}
		off += j + 1
	}
	c.src, c.line, c.off = data, line, off
	text := data[off:]
	if j := bytes.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	text = bytes.TrimRight(text, "\r")
	if len(text) > maxShownLine {
		return "", false
	}
	return string(text), true
}

// sourceLine is src as printed under an error, and col (1-based, in
// characters) mapped to the printed line: tabs become spaces, control
// characters escapes (Clean), then Line rewrites it.
func (p Printer) sourceLine(src string, col int) (string, int) {
	src = strings.ReplaceAll(src, "\t", " ")
	runes := []rune(src)
	col = utf8.RuneCountInString(p.clean(string(runes[:min(col-1, len(runes))]))) + 1
	shown := p.clean(src)
	if p.Line != nil {
		shown, col = p.Line(shown, col)
	}
	return shown, col
}

func (p Printer) clean(s string) string {
	if p.Clean != nil {
		return p.Clean(s)
	}
	return escapeControls(s)
}

// escapeControls writes every character of s that is neither graphic nor
// a space as a \uXXXX escape.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == ' ' || unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}
