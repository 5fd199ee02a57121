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
// ("" is the root), the last of repeated keys. It descends only into
// values on the way to a wanted pointer and skips the rest. (For one
// pointer, LocatePath reads less and builds no pointer.)
func Locate(data []byte, want map[string]*Target) {
	locate(data, want)
}

// LocatePath finds, in data (a JSON document, valid or cut short), the
// value the RFC 6901 pointer ptr addresses and each value on the way to
// it: path[0] is the root, path[k] the value the pointer's first k tokens
// address (Key the offset of its member key, -1 for an array element and
// the root), {-1, -1} from the first token not found on, so the last
// found is the nearest value holding what is missing. Of repeated keys it
// follows the first, as the cassette decoder keeps it. It descends into
// the values on the way and skips their siblings, so it reads each byte
// at most once and the pointer once: a pointer 10,000 levels deep costs
// the document's prefix, where a map of every ancestor's pointer (each
// a copy of the path) cost the cube of the depth (8,000 levels: 26 s).
func LocatePath(data []byte, ptr string) []Target {
	var tokens []string
	if rest, ok := strings.CutPrefix(ptr, "/"); ok {
		tokens = strings.Split(rest, "/")
	}
	path := make([]Target, len(tokens)+1)
	for k := range path {
		path[k] = Target{Key: -1, Val: -1}
	}
	i := Space(data, 0)
	if i >= len(data) {
		return path
	}
	path[0].Val = i
	for k, tok := range tokens {
		key, v := -1, -1
		switch data[i] {
		case '{':
			key, v = memberAt(data, i, unescapePointer(tok))
		case '[':
			if n, err := strconv.Atoi(tok); err == nil && n >= 0 && strconv.Itoa(n) == tok {
				v = elementAt(data, i, n)
			}
		}
		if v < 0 || v >= len(data) {
			return path
		}
		path[k+1] = Target{Key: key, Val: v}
		i = v
	}
	return path
}

// memberAt finds the first member key of the object at i: the offsets of
// its key and value, -1 when it has none.
func memberAt(data []byte, i int, key string) (int, int) {
	j := Space(data, i+1)
	for j < len(data) && data[j] == '"' {
		kEnd := StringEnd(data, j)
		v := Space(data, Space(data, kEnd)+1)
		if v >= len(data) {
			return -1, -1
		}
		if sameKey(data[j:kEnd], key) {
			return j, v
		}
		j = afterValue(data, Skip(data, v))
	}
	return -1, -1
}

// sameKey reports whether raw, a member key as written, decodes to key.
func sameKey(raw []byte, key string) bool {
	if len(raw) < 2 {
		return false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			return String(raw) == key
		}
	}
	return string(body) == key
}

// elementAt finds the n-th element of the array at i, -1 when it has
// fewer.
func elementAt(data []byte, i, n int) int {
	j := Space(data, i+1)
	for k := 0; j < len(data) && data[j] != ']'; k++ {
		if k == n {
			return j
		}
		j = afterValue(data, Skip(data, j))
	}
	return -1
}

// unescapePointer decodes a pointer token: ~1 is /, ~0 is ~.
func unescapePointer(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

func locate(data []byte, want map[string]*Target) {
	prefixes := make(map[string]bool, len(want))
	for p := range want {
		// An ancestor already there brought its own ancestors.
		for !prefixes[p] {
			prefixes[p] = true
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	l := locator{data: data, want: want, prefixes: prefixes}
	l.value(Space(data, 0), "")
}

type locator struct {
	data     []byte
	want     map[string]*Target
	prefixes map[string]bool
}

// value records the value starting at i under ptr and returns the index
// just after it.
func (l *locator) value(i int, ptr string) int {
	if t := l.want[ptr]; t != nil {
		t.Val = i
	}
	if i >= len(l.data) {
		return i
	}
	if !l.prefixes[ptr] {
		return Skip(l.data, i)
	}
	switch l.data[i] {
	case '{':
		return l.object(i, ptr)
	case '[':
		return l.array(i, ptr)
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
		if t := l.want[child]; t != nil {
			t.Key = keyStart
		}
		i = Space(d, end)
		if i < len(d) && d[i] == ':' {
			i++
		}
		i = l.value(Space(d, i), child)
		i = Space(d, i)
		if i >= len(d) || d[i] == '}' {
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
		if i >= len(d) || d[i] == ']' {
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
