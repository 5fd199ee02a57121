package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Color reports whether output to w may be coloured: only on a terminal,
// and never when NO_COLOR is set (https://no-color.org).
func Color(getenv func(string) string, w io.Writer) bool {
	return getenv("NO_COLOR") == "" && IsTerminal(w)
}

// Progress rewrites one line of a terminal as work is done, at most every
// 100 ms; it stays silent when its writer is not a terminal, so logs and
// machine-read output stay clean.
type Progress struct {
	w      io.Writer
	format string
	last   time.Time
	shown  bool
}

// NewProgress returns the progress line on w, which prints format with the
// done and total counts (fmt verbs %d, %d); silent unless w is a terminal.
func NewProgress(w io.Writer, format string) *Progress {
	if !IsTerminal(w) {
		return &Progress{}
	}
	return &Progress{w: w, format: format, last: time.Now()}
}

// Update shows done of total, unless the line was rewritten under 100 ms
// ago and the work is not finished.
func (p *Progress) Update(done, total int) {
	if p.w == nil || (time.Since(p.last) < 100*time.Millisecond && done != total) {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r"+p.format, done, total)
}

// Clear erases the line, if it was shown.
func (p *Progress) Clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
