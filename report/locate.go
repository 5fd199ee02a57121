package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Every reader of a run envelope (Read, baseline.ReadBaseline, the case
// stream of report merge and report --compare, the history) names a text
// that is not JSON by one error, Locate's: the first byte where the text
// stops being JSON, by line and column. Each reader finds the trouble its
// own way (the whole document decoded at once, a case decoded on another
// goroutine after the scan went past it, a head reassembled from its
// members), so each would name another place, or none; on the error
// path, a reader that can read its file again asks Locate instead.

// syntaxError is a place where the scan of an envelope finds it is not
// JSON: off bytes into the file, placed by the scan (its column counts
// bytes), what says what was found there and what was expected.
type syntaxError struct {
	name string
	line int
	col  int64
	off  int64
	what string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: not a run envelope: %s", e.name, e.line, e.col, e.what)
}

// Placed is err, or, when the envelope named name is not JSON and r can
// be read again from its start (it is an io.ReaderAt: a file, a text in
// memory; or a limit in front of one), Locate's error for it: a text
// that is not JSON is refused as such, at its first byte that does not
// fit, by every reader, whatever each met first (a reader of one case at
// a time may meet a case of the wrong type before the bracket that
// makes the text not JSON). err is a decoder's error, not the decode
// budget's (which is checked before anything is decoded, and placed).
func Placed(err error, r any, name string) error {
	if err == nil {
		return nil
	}
	ra, ok := readerAt(r)
	if !ok {
		return err
	}
	if located := Locate(ra, name); located != nil {
		return located
	}
	return err
}

// readerAt is the file r reads from its start, when it can be read again
// at any offset: r itself, or the reader a limit (io.LimitReader) stands
// in front of (safefile.Open's).
func readerAt(r any) (io.ReaderAt, bool) {
	switch r := r.(type) {
	case *io.LimitedReader:
		return readerAt(r.R)
	case io.ReaderAt:
		return r, true
	}
	return nil, false
}

// Locate reads the envelope r holds from its start as the case stream
// reads it (memory for one value at a time), each value checked to be
// JSON as it is read, up to the first byte where the text stops being
// JSON, and returns the error every reader gives for it: "name:line:col:
// not a run envelope: " what was found and what was expected there, the
// column counted in characters. It returns nil when no such byte is
// found: the text is JSON of an envelope's shape, and what is wrong with
// it is of another kind.
func Locate(r io.ReaderAt, name string) error {
	se := locate(r, name)
	if se == nil {
		return nil
	}
	line, col, ok := LineColAt(r, se.off)
	if !ok {
		return nil
	}
	return fmt.Errorf("%s:%d:%d: not a run envelope: %s", name, line, col, se.what)
}

// locate is where Locate finds the text stops being JSON, nil for
// nowhere.
func locate(r io.ReaderAt, name string) *syntaxError {
	cr := &CaseReader{name: name, src: io.NewSectionReader(r, 0, MaxStreamBytes), buf: make([]byte, 0, chunk), checkJSON: true}
	err := cr.start()
	var raw []byte
	for err == nil {
		raw, err = cr.AppendRaw(raw[:0])
	}
	var se *syntaxError
	if !errors.As(err, &se) {
		return nil
	}
	return se
}

// anyJSON takes any JSON text and keeps nothing: decoding into it checks
// that the text is JSON (the decoder does before it decodes) and builds
// no value.
type anyJSON struct{}

func (*anyJSON) UnmarshalJSON([]byte) error { return nil }

// checkValue is a syntaxError at the first byte of raw, a value the scan
// read from offset start of the file, that is not JSON; nil when raw is
// a JSON text. A value that ends too soon (a literal or a number cut
// short) is an error at its end: where the scan stands.
func (cr *CaseReader) checkValue(raw []byte, start int64) error {
	var je *json.SyntaxError
	if !errors.As(json.Unmarshal(raw, new(anyJSON)), &je) {
		return nil
	}
	// The offset counts the bytes read through the one that does not
	// fit. At the text's end the decoder says it ended, or reads a space
	// past it to finish a literal or a number and names that space.
	if je.Offset >= int64(len(raw)) && (je.Error() == "unexpected end of JSON input" || strings.HasPrefix(je.Error(), "invalid character ' '")) {
		return cr.syntax("the rest of the value")
	}
	return &syntaxError{name: cr.name, off: start + je.Offset - 1, what: je.Error()}
}

// LineColAt is the line and column of offset at (-1: the end) of the
// file r as diag.LineCol counts them over the same bytes (characters, a
// byte that is not UTF-8 one each), counted by reading the file again
// from its start, a block at a time; false when r ends before at.
func LineColAt(r io.ReaderAt, at int64) (line, col int, ok bool) {
	line, col = 1, 1
	// buf[:utf8.UTFMax] takes what is left of a character a block cut,
	// ahead of the next block
	buf := make([]byte, utf8.UTFMax+64<<10)
	carry := 0
	for off := int64(0); ; {
		want := int64(len(buf) - utf8.UTFMax)
		if at >= 0 {
			want = min(want, at-off)
		}
		// a short read is the end or an error; a full block may come
		// with io.EOF
		n, _ := r.ReadAt(buf[utf8.UTFMax:utf8.UTFMax+want], off)
		off += int64(n)
		last := int64(n) < want || off == at
		data := buf[utf8.UTFMax-carry : utf8.UTFMax+n]
		i := 0
		for i < len(data) {
			c := data[i]
			if c < utf8.RuneSelf {
				if c == '\n' {
					line, col = line+1, 1
				} else {
					col++
				}
				i++
				continue
			}
			if !last && !utf8.FullRune(data[i:]) {
				break // the rest of the character is in the next block
			}
			_, w := utf8.DecodeRune(data[i:])
			col++
			i += w
		}
		carry = copy(buf[utf8.UTFMax-(len(data)-i):utf8.UTFMax], data[i:])
		if last {
			return line, col, at < 0 || off == at
		}
	}
}
