package jsonpos

import (
	"bytes"
	"unicode/utf8"
)

// Lines gives the 1-based line and column (in characters) of offsets of
// Data asked in increasing order, counting each byte once, so a document
// on one line is placed in time linear in its bytes.
type Lines struct {
	Data []byte
	// at is how far positions have been counted: at sits on line line
	// (0-based) at column col (0-based, in characters).
	at, line, col int
}

// At returns the line and column of offset off, no lower than the offset
// asked before. A value starts on an ASCII byte, so the bytes between two
// of them hold whole UTF-8 sequences.
func (l *Lines) At(off int) (line, col int) {
	for l.at < off {
		seg := l.Data[l.at:off]
		nl := bytes.IndexByte(seg, '\n')
		if nl < 0 {
			l.col += utf8.RuneCount(seg)
			l.at = off
			break
		}
		l.at += nl + 1
		l.line, l.col = l.line+1, 0
	}
	return l.line + 1, l.col + 1
}

// Error is a problem of a document found at a 1-based line and column.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return e.Msg }
