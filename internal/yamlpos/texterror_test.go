package yamlpos

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
)

// textErrorByRune is textError as it was before its ASCII table: every
// character decoded as a rune. The table must place the same error.
func textErrorByRune(file string, data []byte, o Options) *diag.Error {
	if isUTF16(data) {
		return nil
	}
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		if (r == utf8.RuneError && size == 1) || !printable(r) {
			// The words are textError's own; what the table may change is
			// only where it stops.
			line, col := diag.LineCol(body, int64(i))
			return &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: col}}
		}
		i += size
	}
	return nil
}

// pieces are what drawn texts are made of: plain ASCII and YAML's
// punctuation, each control character, DEL, characters of two to four
// bytes (allowed and refused), invalid and cut UTF-8, a byte order mark.
var textPieces = func() [][]byte {
	p := [][]byte{[]byte("tests:\n"), []byte("  - name: a\n"), []byte("\t"), []byte("\r\n"), []byte(" ~!\"#}")}
	for c := range 0x20 {
		p = append(p, []byte{byte(c)})
	}
	for _, r := range []rune{0x7e, 0x7f, 0x80, 0x85, 0x9f, 0xa0, 0xe9, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x10ffff} {
		p = append(p, utf8.AppendRune(nil, r))
	}
	p = append(p, []byte{0xff}, []byte{0xc3}, []byte{0xe2, 0x82}, []byte{0xed, 0xa0, 0x80}, []byte(utf8BOM))
	return p
}()

// TestTextErrorTable draws texts of those pieces, mostly plain, and holds
// textError to decoding every rune: the same text refused at the same
// line and column, or the same text let through.
func TestTextErrorTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 31))
	for d := range 5000 {
		var b []byte
		if rng.IntN(4) == 0 {
			b = append(b, utf8BOM...)
		}
		for range rng.IntN(40) {
			if rng.IntN(3) > 0 {
				b = append(b, textPieces[rng.IntN(5)]...)
			} else {
				b = append(b, textPieces[rng.IntN(len(textPieces))]...)
			}
		}
		checkTextError(t, fmt.Sprintf("draw %d", d), b)
	}
}

func checkTextError(t *testing.T, what string, b []byte) {
	t.Helper()
	got, want := textError("f", b, Options{}), textErrorByRune("f", b, Options{})
	if (got == nil) != (want == nil) || got != nil && got.Pos != want.Pos {
		t.Fatalf("%s %q: textError %v, decoding every rune %v", what, b, got, want)
	}
}

func FuzzTextError(f *testing.F) {
	for _, p := range textPieces {
		f.Add(append([]byte("a: b\n"), p...))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkTextError(t, "fuzzed", b) })
}
