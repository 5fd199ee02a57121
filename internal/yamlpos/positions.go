package yamlpos

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// node holds what a Doc knows of one value beyond the value itself: where
// it and the key naming it were written, whether they were quoted, the
// number as written, and the nodes of the values within it. The nodes
// follow the shape of the values, so a value is found by walking its
// pointer, and no pointer string is built or kept per value: a few dozen
// bytes a value, where maps keyed by pointer took several hundred.
type node struct {
	// name is the key that names the value in its mapping.
	name string
	// kids are the nodes of a sequence's items in order, or of a
	// mapping's values sorted by name.
	kids       []node
	line, col  int32
	kline, kcl int32
	// num is 1 + the index in Doc.nums of the number as written; 0 when
	// the value is no number.
	num   int32
	flags uint8
}

const (
	hasValue uint8 = 1 << iota
	hasKey
	quoted
	quotedKey
	isSeq
)

// number is a number as written and, for an integer that fits an int64,
// its exact value.
type number struct {
	text  string
	i     int64
	exact bool
}

// setValue records the line and column of the value and reports whether
// the node had one already.
//
// A node is written before it is read (here the place before the flags;
// sequence and mapping set kids before flags): the nodes of a new slice
// often lie on a page the process has never touched, and a first read
// there maps the kernel's shared zero page, which the first write must
// then replace, interrupting the other core to flush its TLB when the
// run's other thread is on it. Over the 2,000 transcripts of .ci/bench
// at two cores, a read first was a fifth of those interrupts.
func (n *node) setValue(line, col int) (had bool) {
	n.line, n.col = int32(line), int32(col)
	had = n.flags&hasValue != 0
	n.flags |= hasValue
	return had
}

// setKey records the line and column of the key naming the value.
func (n *node) setKey(line, col int) {
	n.kline, n.kcl = int32(line), int32(col)
	n.flags |= hasKey
}

// keyLine is the line of the key name among the mapping's nodes recorded
// so far (not yet sorted), for the error of a repeated key.
func (n *node) keyLine(name string) int {
	for i := range n.kids {
		if n.kids[i].name == name {
			return int(n.kids[i].kline)
		}
	}
	return 0
}

func (n *node) sortKids() {
	slices.SortFunc(n.kids, func(a, b node) int { return strings.Compare(a.name, b.name) })
}

// child returns the node the pointer segment seg names within n, nil for
// none.
func (n *node) child(seg string) *node {
	if n.flags&isSeq != 0 {
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(n.kids) || strconv.Itoa(i) != seg {
			return nil
		}
		return &n.kids[i]
	}
	name := seg
	if strings.IndexByte(seg, '~') >= 0 {
		name = UnescapePointer(seg)
		if EscapePointer(name) != seg {
			return nil
		}
	}
	i, ok := slices.BinarySearchFunc(n.kids, name, func(k node, name string) int { return strings.Compare(k.name, name) })
	if !ok {
		return nil
	}
	return &n.kids[i]
}

// walk returns the node at ptr (nil when there is none) and the deepest
// node on the way to it, ptr's included, that holds a value (nil when
// none does).
func (d *Doc) walk(ptr string) (exact, deepest *node) {
	n := &d.root
	if n.flags&hasValue != 0 {
		deepest = n
	}
	if ptr == "" {
		return n, deepest
	}
	if ptr[0] != '/' {
		return nil, nil
	}
	for rest := ptr[1:]; n != nil; {
		seg, tail, more := strings.Cut(rest, "/")
		n = n.child(seg)
		if n != nil && n.flags&hasValue != 0 {
			deepest = n
		}
		if !more {
			break
		}
		rest = tail
	}
	return n, deepest
}

// find returns the node at ptr, nil when there is none.
func (d *Doc) find(ptr string) *node {
	n, _ := d.walk(ptr)
	return n
}

// At returns the position of the value at ptr, falling back to the nearest
// enclosing value.
func (d *Doc) At(ptr string) diag.Pos {
	_, n := d.walk(ptr)
	if n == nil {
		return diag.Pos{File: d.File, Line: 1, Col: 1}
	}
	return diag.Pos{File: d.File, Line: int(n.line), Col: int(n.col)}
}

// KeyAt returns the position of the key that names the value at ptr, or
// the value's own position for array items and the root.
func (d *Doc) KeyAt(ptr string) diag.Pos {
	if n := d.find(ptr); n != nil && n.flags&hasKey != 0 {
		return diag.Pos{File: d.File, Line: int(n.kline), Col: int(n.kcl)}
	}
	return d.At(ptr)
}

// IsKey reports whether ptr names the value of a mapping key.
func (d *Doc) IsKey(ptr string) bool { return d.flag(ptr, hasKey) }

// Quoted reports whether the scalar at ptr was written in quotes.
func (d *Doc) Quoted(ptr string) bool { return d.flag(ptr, quoted) }

// QuotedKey reports whether the key that names the value at ptr was
// written in quotes.
func (d *Doc) QuotedKey(ptr string) bool { return d.flag(ptr, quotedKey) }

func (d *Doc) flag(ptr string, f uint8) bool {
	n := d.find(ptr)
	return n != nil && n.flags&f != 0
}

// Number returns the number at ptr as it was written.
func (d *Doc) Number(ptr string) (string, bool) {
	if n := d.find(ptr); n != nil && n.num > 0 {
		return d.nums[n.num-1].text, true
	}
	return "", false
}

// Int returns the exact value of the integer at ptr when it fits an int64
// (Root holds every number as a float64).
func (d *Doc) Int(ptr string) (int64, bool) {
	if n := d.find(ptr); n != nil && n.num > 0 && d.nums[n.num-1].exact {
		return d.nums[n.num-1].i, true
	}
	return 0, false
}

// path is the pointer of a value being converted, as a chain up to the
// root (nil): the pointer string is built only for an error.
type path struct {
	up  *path
	key string
	// idx is the index of a sequence item; -1 for a mapping's value.
	idx int
}

// String is the RFC 6901 pointer of p.
func (p *path) String() string {
	if p == nil {
		return ""
	}
	seg := strconv.Itoa(p.idx)
	if p.idx < 0 {
		seg = EscapePointer(p.key)
	}
	return p.up.String() + "/" + seg
}
