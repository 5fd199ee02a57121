package report

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// scanByteByByte is scanState.scan as it read a string before
// quoteOrBackslash crossed eight bytes at a time: one byte a step but
// for IndexByte to the string's next quote or backslash. The tests' reference.
func (st *scanState) scanByteByByte(b []byte) (int, bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if st.inString {
			switch {
			case st.escaped:
				st.escaped = false
			case c == '\\':
				st.escaped = true
			case c == '"':
				st.inString = false
				if st.depth == 0 {
					return i + 1, true
				}
			}
			continue
		}
		switch c {
		case '"':
			st.inString = true
		case '{', '[':
			st.depth++
		case '}', ']':
			if st.depth == 0 {
				return i, true
			}
			st.depth--
			if st.depth == 0 {
				return i + 1, true
			}
		case ' ', '\t', '\r', '\n', ',', ':':
			if st.depth == 0 {
				return i, true
			}
		}
	}
	return len(b), false
}

// TestScanIsByteByByte draws byte strings rich in what the scan looks
// at (quotes, backslashes, brackets, delimiters, runs of plain bytes of
// every length around its eight-byte steps and its 64-byte switch to
// IndexByte, bytes past ASCII), cuts each into chunks of drawn sizes as
// the reader's buffer would, and holds scanState.scan to the byte-by-byte
// reference: the same count, end and state after every chunk.
func TestScanIsByteByByte(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	alphabet := []byte("\"\"\\\\{}[]:, \n\tab1\x00\x7f\xe9\xffz|~^\x02\x7b\xfb\xdb\xa2")
	for n := range 40000 {
		var b []byte
		for len(b) < 1+r.IntN(300) {
			if r.IntN(3) == 0 {
				b = append(b, bytes.Repeat([]byte{"xyz0é"[r.IntN(5)]}, r.IntN(140))...)
				continue
			}
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		var got, want scanState
		if r.IntN(2) == 0 { // inside a value already
			got.depth = 1 + r.IntN(2)
			want.depth = got.depth
		}
		if r.IntN(3) == 0 {
			got.inString, want.inString = true, true
		}
		for rest := b; ; {
			cut := min(len(rest), 1+r.IntN(90))
			gi, gend := got.scan(rest[:cut])
			wi, wend := want.scanByteByByte(rest[:cut])
			if gi != wi || gend != wend || got != want {
				t.Fatalf("draw %d: %q cut at %d: scan %d %v %+v, byte by byte %d %v %+v", n, b, cut, gi, gend, got, wi, wend, want)
			}
			if gend || cut == len(rest) {
				break
			}
			rest = rest[cut:]
		}
	}
}

// TestQuoteOrBackslashGenerated holds quoteOrBackslash to a loop over
// the bytes, the first quote or backslash put at every place of strings
// of every length up to 200 (both sides of the eight-byte steps and of
// the switch to IndexByte), with bytes that differ from '"' and '\\' by
// one bit around them.
func TestQuoteOrBackslashGenerated(t *testing.T) {
	near := []byte{'"' ^ 1, '"' ^ 0x80, '\\' ^ 1, '\\' ^ 0x80, 0, 0xff, 'a', '!', '#', '[', ']'}
	r := rand.New(rand.NewPCG(40, 6))
	for n := range 201 {
		for at := -1; at < n; at++ {
			for _, mark := range []byte{'"', '\\'} {
				b := make([]byte, n)
				for i := range b {
					b[i] = near[r.IntN(len(near))]
				}
				want := -1
				if at >= 0 {
					b[at] = mark
					want = at
					if r.IntN(2) == 0 && at+1 < n {
						b[at+1+r.IntN(n-at-1)] = '"' + ('\\'-'"')*byte(r.IntN(2))
					}
				}
				if got := quoteOrBackslash(b); got != want {
					t.Fatalf("%q: %d, want %d", b, got, want)
				}
			}
		}
	}
}
