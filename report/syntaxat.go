package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// syntaxAt is name with the line and column where data stops being JSON,
// when err is encoding/json's syntax error for it (its offset counts the
// bytes read through the byte that does not fit, or all of them when the
// text ends too soon); name alone for any other error.
func syntaxAt(name string, data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return name
	}
	off := min(se.Offset, int64(len(data)))
	// At the text's end the decoder reads a space past it to finish a
	// literal or a number cut short, and names that space, or says the
	// input ended: the error is then at the end, not at the last byte.
	atEnd := off == int64(len(data)) && (strings.HasPrefix(se.Error(), "unexpected end") || strings.HasPrefix(se.Error(), "invalid character ' '"))
	if !atEnd {
		off-- // the byte that does not fit (the offset counts it)
	}
	line, col := diag.LineCol(data, off)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}
