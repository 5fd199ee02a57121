package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// The history reads an envelope as a stream and does not count lines: an
// error it can place (a floor over the decode budget, a text cut short)
// is placed by reading the file again up to the offset, on the error
// path only.

// budgetAt is the decode budget's error of a value that starts at offset
// start of its file (be.At is within the value).
type budgetAt struct {
	be    *report.BudgetError
	start int64
}

func (e budgetAt) Error() string { return e.be.Error() }

// placeIn is name with the line and column of the offset in its file
// where the budget runs out (and the error then says it is placed
// there); name alone when r cannot be read again (it is not a file).
func (e budgetAt) placeIn(r io.Reader, name string) string {
	line, col, ok := lineColAt(r, e.start+int64(e.be.At))
	if !ok {
		return name
	}
	e.be.Placed = true
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// cutShort reports whether err is the decoder's for a text that ends
// before the envelope does.
func cutShort(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.As(err, &se) && strings.HasPrefix(se.Error(), "unexpected end")
}

// lineColAt is the line and column of offset at (-1: the end) of the
// file r, counted by reading it again from its start, a block at a time;
// false when r cannot be read again (it is not a file) or ends before at.
func lineColAt(r io.Reader, at int64) (line, col int, ok bool) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return 0, 0, false
	}
	line, col = 1, 1
	buf := make([]byte, 64<<10)
	for off := int64(0); at < 0 || off < at; {
		want := int64(len(buf))
		if at >= 0 {
			want = min(want, at-off)
		}
		// a short read is the end or an error; a full block may come
		// with io.EOF
		n, _ := ra.ReadAt(buf[:want], off)
		for _, c := range buf[:n] {
			if c == '\n' {
				line, col = line+1, 1
			} else if c&0xc0 != 0x80 { // a character's first byte
				col++
			}
		}
		off += int64(n)
		if int64(n) < want {
			return line, col, at < 0
		}
	}
	return line, col, true
}
