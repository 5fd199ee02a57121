package cassette

import (
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// Locate returns the position in data, a JSON document, of the value the
// RFC 6901 pointer ptr addresses, or of the nearest value holding it when
// ptr names a member that is absent (a required argument a call left
// out): line and column are 1-based. ok is false when data holds neither,
// or is not JSON.
func Locate(file string, data []byte, ptr string) (pos diag.Pos, ok bool) {
	if !strings.HasPrefix(strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n"), "{") {
		return diag.Pos{File: file}, false
	}
	path := jsonpos.LocatePath(data, ptr)
	for k := len(path) - 1; k >= 0; k-- {
		if off := path[k].Val; off >= 0 && off < len(data) {
			line, col := diag.LineCol(data, int64(off))
			return diag.Pos{File: file, Line: line, Col: col}, true
		}
	}
	return diag.Pos{File: file}, false
}
