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

// MaxSuggestWord is the longest word Suggest looks for a near name for,
// in bytes: a longer one is no typo of a name, and gets no suggestion.
const MaxSuggestWord = 128

// MaxSuggestWork bounds the edit-distance cells one Suggest may compute
// (the word's runes, times the band of the distance allowed, times the
// candidates); over it there is no suggestion.
const MaxSuggestWork = 1 << 26

// Suggest returns the candidate closest to word by edit distance, or "" when
// none is close enough to be a plausible typo. Its work is bounded whatever
// the word and the candidates: a word over MaxSuggestWord bytes gets none,
// each distance is computed only within the band a typo allows (a
// candidate whose length is further off is skipped), and a search over
// MaxSuggestWork cells is not made.
func Suggest(word string, candidates []string) string {
	if len(word) > MaxSuggestWord {
		return ""
	}
	limit := len(word) / 3
	if limit < 2 {
		limit = 2
	}
	lw := []rune(strings.ToLower(word))
	if len(lw)*(2*limit+1)*len(candidates) > MaxSuggestWork {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		k := limit
		if bestD >= 0 {
			k = bestD
		}
		if len(c) > 4*(len(word)+k) {
			continue
		}
		d := bandDistance(lw, []rune(strings.ToLower(c)), k)
		if d < 0 {
			continue
		}
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// bandDistance is the Levenshtein distance between a and b when it is at
// most k, else -1, computed only on the cells within k of the diagonal.
func bandDistance(a, b []rune, k int) int {
	if abs(len(a)-len(b)) > k {
		return -1
	}
	const far = 1 << 30
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
		if j > k {
			prev[j] = far
		}
	}
	for i := 1; i <= len(a); i++ {
		// Cells off the band hold far: the one left of it here, the one
		// right of it for the next row.
		lo, hi := max(1, i-k), min(len(b), i+k)
		cur[0] = far
		if i <= k {
			cur[0] = i
		}
		if lo > 1 {
			cur[lo-1] = far
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		if rowMin > k {
			return -1
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > k {
		return -1
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// DidYouMean is " (did you mean "x"?)" for the candidate nearest word
// (Suggest), or "".
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
