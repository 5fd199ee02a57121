package history

import (
	"fmt"
	"io"

	"github.com/mcptest/mcptest/report"
)

// The history reads an envelope as a stream and does not count lines: a
// floor over the decode budget is placed by reading the file again up to
// the offset, on the error path only (and a text that is not JSON by
// report.Placed).

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
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return name
	}
	line, col, ok := report.LineColAt(ra, e.start+int64(e.be.At))
	if !ok {
		return name
	}
	e.be.Placed = true
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}
