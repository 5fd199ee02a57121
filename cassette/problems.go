package cassette

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// kind is the diag.Error Kind of every error of this package.
const kind = "cassette"

// seg is one step of a path into the decoded document: an object key, or an
// array index when idx >= 0.
type seg struct {
	key string
	idx int
}

// problem is an error found while reading the document. It is placed at
// the byte offset off when the reader knew it, else by its JSON Pointer:
// the line and column are worked out from the bytes at the end, once, and
// only when there are problems.
type problem struct {
	ptr string
	// off is the byte offset of the offending value (or key), -1 to place
	// the problem by ptr.
	off int
	// atKey places a problem found by ptr on the member's key rather than
	// its value (an unexpected key).
	atKey bool
	msg   string
	hint  string
	// hide marks a problem about a file that is not a recording: its
	// source line is not to be shown (diag.Error.HideSource).
	hide bool
}

// walker carries the path of the value being read and collects the
// problems found. Paths are built into strings only when a problem is
// recorded, so the success path pays for a slice push and pop per value.
type walker struct {
	path  []seg
	probs []problem
	// dups are the repeated keys found, in the order found.
	dups []dupProblem
	// dropped counts the problems past maxProblems, not recorded.
	dropped int
	// spent are the tool names read as something other than a call (see
	// spend in audit.go).
	spent map[string]bool
}

// maxProblems bounds the problems recorded for one file, so a file of a
// million broken calls costs no more memory to refuse than a few.
const maxProblems = 100

// full reports whether maxProblems problems are recorded.
func (w *walker) full() bool { return len(w.probs)+len(w.dups) >= maxProblems }

func (w *walker) push(key string) { w.path = append(w.path, seg{key: key, idx: -1}) }
func (w *walker) pushIdx(i int)   { w.path = append(w.path, seg{idx: i}) }
func (w *walker) pop()            { w.path = w.path[:len(w.path)-1] }

// errorf records a problem on the current value, to be placed by its
// pointer. The message is prefixed with the human-readable path of the
// value (runs[0].turns[1]) unless the value is the document root.
func (w *walker) errorf(format string, args ...any) {
	w.errorAt(-1, format, args...)
}

// errorAt records a problem on the current value, which starts at byte
// offset off (-1 to place it by its pointer).
func (w *walker) errorAt(off int, format string, args ...any) {
	if w.full() {
		w.dropped++
		return
	}
	w.probs = append(w.probs, problem{
		ptr: pointer(w.path),
		off: off,
		msg: prefixed(w.path, fmt.Sprintf(format, args...)),
	})
}

// unknownKeyAt is unknownKey for a key that starts at byte offset off.
func (w *walker) unknownKeyAt(off int, key string, valid []string) {
	if w.full() {
		w.dropped++
		return
	}
	quoted := make([]string, len(valid))
	for i, v := range valid {
		quoted[i] = strconv.Quote(v)
	}
	msg := prefixed(w.path, fmt.Sprintf("unexpected key %q: expected one of %s (or an \"x-\" extension key)",
		key, strings.Join(quoted, ", ")))
	hint := ""
	if s := diag.Suggest(key, valid); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	}
	w.push(key)
	w.probs = append(w.probs, problem{ptr: pointer(w.path), off: off, atKey: true, msg: msg, hint: hint})
	w.pop()
}

// typeError records that the current value is not what was expected.
func (w *walker) typeError(v any, expected string) {
	w.errorf("expected %s, found %s", expected, describe(v))
}

// typeErrorAt is typeError for a value that starts at byte offset off.
func (w *walker) typeErrorAt(off int, v any, expected string) {
	w.errorAt(off, "expected %s, found %s", expected, describe(v))
}

// prefixed puts the human-readable path in front of msg.
func prefixed(path []seg, msg string) string {
	if len(path) == 0 {
		return msg
	}
	return humanPath(path) + ": " + msg
}

// humanPath renders a path as runs[0].turns[1].calls[0]; keys that are not
// plain identifiers are quoted: catalog["my server"]. A path longer than
// diag.PathBytes keeps its first and last steps (diag.Path), so a problem
// deep in a hostile file costs its message a bounded size.
func humanPath(path []seg) string {
	return diag.Path("", len(path), func(i int) diag.Step {
		s := path[i]
		return diag.Step{Key: s.key, Index: s.idx, Item: s.idx >= 0}
	})
}

// pointer renders a path as an RFC 6901 JSON Pointer.
func pointer(path []seg) string {
	var b strings.Builder
	for _, s := range path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(jsonpos.EscapePointer(s.key))
		}
	}
	return b.String()
}

// describe names the JSON type of a decoded value for a message, with the
// value itself when it is a short scalar: `the string "yes"`, `the number
// -3`, `an object`.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "the boolean " + strconv.FormatBool(v)
	case float64:
		return "the number " + formatNumber(v)
	case string:
		if utf8.RuneCountInString(v) > 40 {
			r := []rune(v)
			return fmt.Sprintf("the string %q", string(r[:40])+"…")
		}
		return fmt.Sprintf("the string %q", v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// errorsAt turns the problems the walker found in data into positioned
// diag errors, sorted and deduplicated: a single *diag.Error, or a
// diag.List when there are several. Problems without an offset are placed
// by their pointer; each repeated key becomes an error at its repetition
// naming the first; a last error counts the problems not recorded.
func errorsAt(file string, data []byte, w *walker) error {
	probs, dups := w.probs, w.dups
	want := map[string]*jsonpos.Target{}
	for _, p := range probs {
		if p.off < 0 {
			// The pointer and its ancestors: a member that is missing is
			// placed on the nearest value that is there.
			for ptr := p.ptr; want[ptr] == nil; ptr = jsonpos.ParentPointer(ptr) {
				want[ptr] = jsonpos.NewTarget()
				if ptr == "" {
					break
				}
			}
		}
	}
	if len(want) > 0 {
		jsonpos.Locate(data, want)
	}
	offsets := make([]int, 0, 2*len(want)+len(probs)+2*len(dups))
	for _, t := range want {
		offsets = append(offsets, t.Key, t.Val)
	}
	for _, p := range probs {
		offsets = append(offsets, p.off)
	}
	for _, dp := range dups {
		offsets = append(offsets, dp.first, dp.again)
	}
	lc := jsonpos.LineCols(data, offsets)
	list := make(diag.List, 0, len(probs)+len(dups))
	for _, p := range probs {
		off := p.off
		if off < 0 {
			t := want[p.ptr]
			off = t.Val
			if p.atKey && t.Key >= 0 {
				off = t.Key
			}
			for ptr := p.ptr; off < 0 && ptr != ""; {
				ptr = jsonpos.ParentPointer(ptr)
				off = want[ptr].Val
			}
		}
		pos := diag.Pos{File: file}
		if off >= 0 {
			l := lc[off]
			pos.Line, pos.Col = l[0], l[1]
		}
		e := &diag.Error{Pos: pos, Pointer: p.ptr, Message: p.msg, Hint: p.hint, Kind: kind, HideSource: p.hide}
		if p.ptr != "" {
			// An error inside the document: it parsed to an object or an
			// array, so its lines may be shown.
			e.Source = data
		}
		list = append(list, e)
	}
	for _, dp := range dups {
		first, again := lc[dp.first], lc[dp.again]
		list = append(list, &diag.Error{
			Pos:     diag.Pos{File: file, Line: again[0], Col: again[1]},
			Pointer: pointer(append(dp.path, seg{key: dp.key, idx: -1})),
			Message: prefixed(dp.path, fmt.Sprintf("duplicate key %q (first at %d:%d)", diag.ClipKey(dp.key), first[0], first[1])),
			Kind:    kind,
			Source:  data,
		})
	}
	list = list.Sorted()
	if w.dropped > 0 {
		list = append(list, &diag.Error{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: kind,
			Message: fmt.Sprintf("%d more problems not shown: the file has %d, these are the first %d", w.dropped, w.dropped+len(list), len(list))})
	}
	return asError(list)
}

// dupProblem is a repeated key with the path of the object holding it.
type dupProblem struct {
	path         []seg
	key          string
	first, again int
}

// asError returns the only error of l, or l itself.
func asError(l diag.List) error {
	if len(l) == 1 {
		return l[0]
	}
	return l
}

// errorAt is one positioned error at a byte offset of data.
func errorAt(file string, data []byte, offset int, ptr, msg string) *diag.Error {
	line, col := diag.LineCol(data, int64(offset))
	return &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: col}, Pointer: ptr, Message: msg, Kind: kind}
}
