package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestLineColAtIsLineCol draws texts of up to three blocks of lineColAt's
// reading (lines of ASCII, of two- to four-byte characters, empty ones,
// CRLF ends) and offsets anywhere in them, the end (-1) among them: the
// line and column it counts are diag.LineCol's over the same bytes. A
// reader that is not a file, and an offset past the end, are not placed.
func TestLineColAtIsLineCol(t *testing.T) {
	pieces := []string{"a", "case", " ", "\n", "\r\n", "é", "漢字", "🙂", "\n\n", strings.Repeat("x", 5000)}
	rng := rand.New(rand.NewPCG(29, 1))
	for d := range 60 {
		var b strings.Builder
		size := rng.IntN(200_000)
		for b.Len() < size {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := []byte(b.String())
		offs := []int64{-1, 0, int64(len(text))}
		for range 20 {
			offs = append(offs, int64(rng.IntN(len(text)+1)))
		}
		for _, at := range offs {
			// a character's first byte, as the decoder's offsets are
			for at > 0 && at < int64(len(text)) && text[at]&0xc0 == 0x80 {
				at--
			}
			want := at
			if at < 0 {
				want = int64(len(text))
			}
			wl, wc := diag.LineCol(text, want)
			line, col, ok := lineColAt(bytes.NewReader(text), at)
			if !ok || line != wl || col != wc {
				t.Fatalf("draw %d, %d bytes, offset %d: %d:%d (%v), want %d:%d", d, len(text), at, line, col, ok, wl, wc)
			}
		}
		if _, _, ok := lineColAt(bytes.NewReader(text), int64(len(text))+1); ok {
			t.Fatalf("draw %d: an offset past the end is placed", d)
		}
		if _, _, ok := lineColAt(io.MultiReader(bytes.NewReader(text)), 0); ok {
			t.Fatalf("draw %d: a reader that is not a file is placed", d)
		}
	}
}

// TestCutShort: the decoder's errors for a text that ends too soon, and
// no other.
func TestCutShort(t *testing.T) {
	for _, tc := range []struct {
		text string
		cut  bool
	}{
		{"", true}, {"{", true}, {`{"a":`, true}, {`{"a":[1,`, true}, {`{"a":"b`, true}, {`{"a":tr`, true},
		{`{"a":x}`, false}, {`{"a" 1}`, false}, {`[}`, false},
	} {
		dec := newTestDecoder(tc.text)
		var err error
		for err == nil {
			_, err = dec.Token()
		}
		if got := cutShort(err); got != tc.cut {
			t.Errorf("%q: %v: cut short %v, want %v", tc.text, err, got, tc.cut)
		}
	}
	if cutShort(errors.New("unexpected end")) {
		t.Error("an error that is not the decoder's is cut short")
	}
}

func newTestDecoder(text string) *json.Decoder { return json.NewDecoder(strings.NewReader(text)) }
