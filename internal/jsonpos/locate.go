package jsonpos

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
)

// Target is where the member key and the value a pointer addresses start
// in the bytes, -1 when not found. Key stays -1 for an array element and
// the root.
type Target struct{ Key, Val int }

// NewTarget is a Target not found yet.
func NewTarget() *Target { return &Target{Key: -1, Val: -1} }

// Locate finds, in data (known to be valid JSON), the byte offsets of the
// values (and member keys) addressed by the RFC 6901 pointers in want
// ("" is the root). It descends only into values on the way to a wanted
// pointer and skips the rest.
func Locate(data []byte, want map[string]*Target) {
	locate(data, want, false)
}

// LocateFirst is Locate for want holding one pointer and its ancestors:
// it keeps the first of repeated keys, as the cassette decoder does, and
// so stops reading once the deepest of them that the document holds has
// been read: a pointer near the start of a long document costs its
// prefix, not the document.
func LocateFirst(data []byte, want map[string]*Target) {
	locate(data, want, true)
}

func locate(data []byte, want map[string]*Target, first bool) {
	prefixes := make(map[string]bool, len(want))
	for p := range want {
		for {
			prefixes[p] = true
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	l := locator{data: data, want: want, prefixes: prefixes, first: first, left: len(want)}
	l.value(Space(data, 0), "")
}

type locator struct {
	data     []byte
	want     map[string]*Target
	prefixes map[string]bool
	// first keeps the first value of a pointer; left counts the wanted
	// values not found yet, and with first the walk ends at 0.
	first bool
	left  int
}

// settled returns end, the offset after the value at ptr, or with first
// and ptr wanted the end of the document: the chain of wanted pointers
// below ptr was all read in it, and those above were found before it.
func (l *locator) settled(ptr string, end int) int {
	if l.first && l.want[ptr] != nil {
		return len(l.data)
	}
	return end
}

// found reports whether the walk may stop: first and every value found.
func (l *locator) found() bool { return l.first && l.left == 0 }

// value records the value starting at i under ptr and returns the index
// just after it.
func (l *locator) value(i int, ptr string) int {
	if t := l.want[ptr]; t != nil {
		switch {
		case t.Val < 0:
			t.Val = i
			l.left--
		case !l.first:
			t.Val = i
		}
		if l.found() {
			return len(l.data)
		}
	}
	if i >= len(l.data) {
		return i
	}
	if !l.prefixes[ptr] {
		return Skip(l.data, i)
	}
	switch l.data[i] {
	case '{':
		return l.settled(ptr, l.object(i, ptr))
	case '[':
		return l.settled(ptr, l.array(i, ptr))
	}
	return Skip(l.data, i)
}

// object locates in the members of the object starting at i.
func (l *locator) object(i int, ptr string) int {
	d := l.data
	i = Space(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	for i < len(d) {
		keyStart := i
		end := StringEnd(d, i)
		child := ptr + "/" + EscapePointer(String(d[keyStart:end]))
		if t := l.want[child]; t != nil && (t.Val < 0 || !l.first) {
			t.Key = keyStart
		}
		i = Space(d, end)
		if i < len(d) && d[i] == ':' {
			i++
		}
		i = l.value(Space(d, i), child)
		i = Space(d, i)
		if i >= len(d) || d[i] == '}' || l.found() {
			return i + 1
		}
		i = Space(d, i+1) // ','
	}
	return i
}

// array locates in the elements of the array starting at i.
func (l *locator) array(i int, ptr string) int {
	d := l.data
	i = Space(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for n := 0; i < len(d); n++ {
		i = l.value(i, ptr+"/"+strconv.Itoa(n))
		i = Space(d, i)
		if i >= len(d) || d[i] == ']' || l.found() {
			return i + 1
		}
		i = Space(d, i+1) // ','
	}
	return i
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// EscapePointer escapes an object key for an RFC 6901 pointer.
func EscapePointer(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return pointerEscaper.Replace(key)
}

// ParentPointer is the pointer of the value holding ptr's ("" for the
// root's members).
func ParentPointer(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

// LineCols converts byte offsets of data to 1-based line and column (in
// characters, as diag.LineCol counts them) in one pass over data.
// Negative offsets are skipped.
func LineCols(data []byte, offsets []int) map[int][2]int {
	out := make(map[int][2]int, len(offsets))
	maxOff := -1
	for _, o := range offsets {
		if o >= 0 {
			out[o] = [2]int{}
			maxOff = max(maxOff, o)
		}
	}
	if maxOff < 0 {
		return out
	}
	line, col := 1, 1
	i := 0
	for {
		if _, ok := out[i]; ok {
			out[i] = [2]int{line, col}
		}
		if i >= len(data) || i >= maxOff {
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
		i += size
	}
	// Offsets inside a multi-byte character or past the end (never produced
	// by Locate) fall back to the exact conversion.
	for o, l := range out {
		if l[0] == 0 {
			line, col := diag.LineCol(data, int64(o))
			out[o] = [2]int{line, col}
		}
	}
	return out
}
