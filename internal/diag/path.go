package diag

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A message names the value it is about by its path from the document's
// root (tools[0].inputSchema.properties.q, runs[0].turns[1].calls[0]).
// A hostile file can make that path as long as the file: objects nested
// 10,000 deep, or a key of a megabyte, and a problem repeated at the end
// of it (a duplicate key, a thousand times) then wrote the whole path into
// every message: a 46 KB catalog took 25 s and wrote 8 MB. Path is the
// one place every reader names a path through, and it spends a fixed
// budget on it, however deep or long: the first and the last steps, the
// steps between them counted, each key cut to KeyRunes characters. Its
// cost is that budget too, not the depth: it asks for the steps it shows
// and no others.

// PathBytes is the budget of a path in a message: a path that fits is
// written whole, one that does not keeps about PathBytes/2 bytes of its
// first steps and as many of its last (at least one step each) around
// the count of the steps left out.
const PathBytes = 240

// KeyRunes is the most characters of a key a path shows; a longer key is
// cut there and ends with "…".
const KeyRunes = 64

// Step is one step of a path: a member key, or (Item) an array index.
type Step struct {
	Key   string
	Index int
	Item  bool
}

// Path names the value n steps below root (a path already written, "" for
// the document's root): an index as [3], a key that is a plain identifier
// as .key (key alone as the first step of an empty root), any other key
// as ["quoted"]. step(i) is the i-th step; Path calls it for the steps it
// shows only, so its cost is bounded by PathBytes whatever n is.
func Path(root string, n int, step func(i int) Step) string {
	var b strings.Builder
	b.WriteString(root)
	// Forward while the whole path may still fit.
	i := 0
	for ; i < n && b.Len() <= PathBytes; i++ {
		writeStep(&b, step(i), i == 0 && root == "")
	}
	if i == n && b.Len() <= PathBytes {
		return b.String()
	}
	// It does not fit: the head is the first steps within half the
	// budget (at least one), the tail the last ones (at least one).
	b.Reset()
	b.WriteString(root)
	headEnd := 0
	for headEnd < n {
		var sb strings.Builder
		writeStep(&sb, step(headEnd), headEnd == 0 && root == "")
		if headEnd > 0 && b.Len()+sb.Len() > PathBytes/2 {
			break
		}
		b.WriteString(sb.String())
		headEnd++
	}
	var tail []string
	size, tailStart := 0, n
	for tailStart > headEnd {
		var sb strings.Builder
		writeStep(&sb, step(tailStart-1), false)
		if len(tail) > 0 && size+sb.Len() > PathBytes/2 {
			break
		}
		tail = append(tail, sb.String())
		size += sb.Len()
		tailStart--
	}
	if left := tailStart - headEnd; left > 0 {
		b.WriteString("<…")
		b.WriteString(strconv.Itoa(left))
		b.WriteString(" levels…>")
	}
	for k := len(tail) - 1; k >= 0; k-- {
		b.WriteString(tail[k])
	}
	return b.String()
}

// writeStep writes one step; first is the first step of a path with no
// root, a plain key written without its dot.
func writeStep(b *strings.Builder, s Step, first bool) {
	if s.Item {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(s.Index))
		b.WriteByte(']')
		return
	}
	key := ClipKey(s.Key)
	if PlainKey(key) {
		if !first {
			b.WriteByte('.')
		}
		b.WriteString(key)
		return
	}
	b.WriteString(`[`)
	b.WriteString(strconv.Quote(key))
	b.WriteString(`]`)
}

// ClipKey is key cut to KeyRunes characters, ending with "…" when cut.
func ClipKey(key string) string { return Clip(key, KeyRunes) }

// Clip is s cut to n characters, ending with "…" when cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	runes := 0
	for i := range s {
		if runes == n {
			return s[:i] + "…"
		}
		runes++
	}
	return s
}

// PlainKey reports whether a key is written bare in a path: ASCII letters,
// '_' and '-', and digits after the first character.
func PlainKey(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// KeyPrefix is a JSON string as written (raw, with its quotes) decoded to
// at most about KeyRunes+1 characters: enough for Path to show and to mark
// as cut, reading a bounded prefix of a key however long the key is. An
// escape is never split.
func KeyPrefix(raw []byte, decode func(raw []byte) string) string {
	const most = 12 * (KeyRunes + 1) // an escaped surrogate pair is 12 bytes
	if len(raw) <= most+2 {
		return decode(raw)
	}
	body := raw[1 : len(raw)-1]
	cut := 0
	for cut < most {
		if body[cut] == '\\' && cut+1 < len(body) {
			if body[cut+1] == 'u' {
				cut += 6
			} else {
				cut += 2
			}
			continue
		}
		_, size := utf8.DecodeRune(body[cut:])
		cut += size
	}
	cut = min(cut, len(body))
	return decode(append(append([]byte{'"'}, body[:cut]...), '"'))
}
