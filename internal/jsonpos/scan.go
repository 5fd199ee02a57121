package jsonpos

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Space returns the offset of the first byte at or after i that is not
// JSON white space.
func Space(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the offset just after the string starting at i.
func StringEnd(data []byte, i int) int {
	for i++; i < len(data); {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return len(data)
		}
		i += j
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for k := i - 1; k >= 0 && data[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
	return len(data)
}

// Skip returns the offset just after the value starting at i.
func Skip(data []byte, i int) int {
	switch data[i] {
	case '"':
		return StringEnd(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = StringEnd(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	return ScalarEnd(data, i)
}

// MaxDepth bounds the nesting the readers of positioned JSON walk, as
// encoding/json bounds what it unmarshals, so a document of 16 MiB of "["
// cannot exhaust the stack.
const MaxDepth = 10000

// FitsFloat64 reports whether lit, a JSON number, is within the range of a
// float64, as encoding/json needs to decode it into an interface value.
// A number without an exponent of fewer than 300 characters always is.
func FitsFloat64(lit []byte) bool {
	if len(lit) < 300 && bytes.IndexAny(lit, "eE") < 0 {
		return true
	}
	_, err := strconv.ParseFloat(string(lit), 64)
	return err == nil
}

// ScalarEnd returns the offset just after the number or literal (true,
// false, null) starting at i.
func ScalarEnd(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// String decodes raw, a JSON string with its quotes, as encoding/json
// does: a string of printable ASCII without escapes is copied, any other
// goes through Unquote.
func String(raw []byte) string {
	if body, ok := plain(raw); ok {
		return string(body)
	}
	return Unquote(raw[1 : len(raw)-1])
}

// StringIs reports whether String(raw) is s, without making the string
// when raw holds no escape and no byte past ASCII.
func StringIs(raw []byte, s string) bool {
	if body, ok := plain(raw); ok {
		return string(body) == s
	}
	return String(raw) == s
}

// plain is the body of the JSON string raw (quotes included) when it
// holds no escape and no byte past ASCII: the string's text as it is.
func plain(raw []byte) ([]byte, bool) {
	if len(raw) < 2 {
		return nil, true
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			return nil, false
		}
	}
	return body, true
}

// Unquote decodes the content of a JSON string (between its quotes) as
// encoding/json does: each byte that is not part of a UTF-8 character,
// and each lone surrogate, becomes U+FFFD.
func Unquote(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for r := 0; r < len(raw); {
		c := raw[r]
		switch {
		case c == '\\' && r+1 < len(raw):
			r += 2
			switch raw[r-1] {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				rr := hex4(raw[r:])
				r += 4
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(raw) && raw[r] == '\\' && raw[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(raw[r+2:])); dec != utf8.RuneError {
							b.WriteRune(dec)
							r += 6
							break
						}
					}
					rr = utf8.RuneError
				}
				b.WriteRune(rr)
			default: // '"', '\\', '/'
				b.WriteByte(raw[r-1])
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRune(raw[r:])
			b.WriteRune(rr)
			r += size
		}
	}
	return b.String()
}

// hex4 reads the four hex digits of a \u escape (known to be valid).
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
