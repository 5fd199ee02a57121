package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a user file. Line and Col are 1-based; Line 0 means
// the place is unknown and only File is meaningful.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String renders the position as file:line:col, or file alone when the line
// is unknown.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is one problem found in a user file.
type Error struct {
	Pos Pos
	// Pointer is the RFC 6901 JSON Pointer of the value in the document
	// ("" for the root).
	Pointer string
	// Message says what was wrong and what was expected.
	Message string
	// Hint is an optional did-you-mean, for example "did you mean `servers`?".
	Hint string
	// Kind names the family of the error, for example "syntax", "schema",
	// "cassette" or "expect".
	Kind string
	// HideSource tells a printer to show the error without echoing the
	// line of the file at Pos under it: the file may not be what it was
	// named as (a password or key file passed as a cassette), so nothing
	// of it may be shown beyond what Message quotes, which is at most the
	// offending token, clipped and escaped. Pos still says where to look.
	HideSource bool
	// Source is the content of Pos.File as its reader read it, so a
	// printer can show the line at Pos without reading the file again;
	// nil when the reader keeps the file's lines back (it may not be what
	// it was named as) or kept no copy.
	Source []byte
}

// Error renders file:line:col: message (hint) [kind].
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	if e.Kind != "" {
		b.WriteString(" [")
		b.WriteString(e.Kind)
		b.WriteString("]")
	}
	return b.String()
}

// List is every error found in one or more files. It is itself an error so
// a loader can return all of its findings at once.
type List []*Error

// Error joins the errors, one per line.
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Sorted returns the errors ordered by file, line, column and message, with
// exact duplicates removed.
func (l List) Sorted() List {
	out := append(List(nil), l...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		return a.Message < b.Message
	})
	dedup := out[:0]
	for i, e := range out {
		if i > 0 {
			p := dedup[len(dedup)-1]
			if p.Pos == e.Pos && p.Message == e.Message && p.Hint == e.Hint {
				continue
			}
		}
		dedup = append(dedup, e)
	}
	return dedup
}

// LineCol converts a byte offset in data to a 1-based line and a 1-based
// column counted in characters. An offset past the end points just after the
// last character.
func LineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	line, col = 1, 1
	for _, r := range string(data[:offset]) {
		if r == '\n' {
			line++
			col = 1
			continue
		}
		col++
	}
	return line, col
}

// Suggest returns the candidate closest to word by edit distance, or "" when
// none is close enough to be a plausible typo.
func Suggest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := distance(strings.ToLower(word), strings.ToLower(c))
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := len(word) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein edit distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
