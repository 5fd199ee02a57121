package jsonpos

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendCanonical appends to dst the value starting at i of data (a
// document json.Valid has accepted) as encoding/json writes the value it
// decodes to an interface, with an Encoder that does not escape HTML:
// objects compact with their members in key order, numbers as a float64
// is written, strings with encoding/json's escapes. It reads the bytes
// once and builds no map: what Values decodes and an Encoder writes, at a
// fraction of the memory. In the object at i itself, a member whose value
// is null and for whose key drop reports true is left out (drop may be
// nil).
//
// ok is false, and dst is then to be dropped, where the decoded value
// would not be written back as it is written here: an object that
// repeats a key (the last one wins in a decode), a number a float64
// cannot hold, a nesting deeper than MaxDepth; and where an object lies
// more than ObjectDepth objects and arrays deep. The caller decodes those.
// The key drop is given is valid only during the call.
func AppendCanonical(dst, data []byte, i int, drop func(key string) bool) (out []byte, end int, ok bool) {
	var c Canonical
	return c.Append(dst, data, i, drop)
}

// Canonical writes values as AppendCanonical does, keeping its scratch
// space (the members of the objects being sorted) from one call to the
// next: a reader that writes many values, a catalog's tools, allocates it
// once. The zero value is ready; one Canonical is not for several
// goroutines at once.
type Canonical struct {
	members []member
}

// Append is AppendCanonical.
func (k *Canonical) Append(dst, data []byte, i int, drop func(key string) bool) (out []byte, end int, ok bool) {
	c := canonical{data: data, out: dst, drop: drop, members: k.members[:0]}
	end, ok = c.value(Space(data, i), 0)
	k.members = c.members[:0]
	return c.out, end, ok
}

type canonical struct {
	data []byte
	out  []byte
	drop func(string) bool
	// members is a stack of the members of the objects being written,
	// each object's after its parent's.
	members []member
}

// member is a member of an object: its decoded key and its value's
// offset.
type member struct {
	key string
	v   int
}

func (c *canonical) value(i, depth int) (int, bool) {
	if depth > MaxDepth || i >= len(c.data) {
		return i, false
	}
	switch c.data[i] {
	case '{':
		return c.object(i, depth)
	case '[':
		c.out = append(c.out, '[')
		j := Space(c.data, i+1)
		for n := 0; j < len(c.data) && c.data[j] != ']'; n++ {
			if n > 0 {
				c.out = append(c.out, ',')
			}
			end, ok := c.value(j, depth+1)
			if !ok {
				return end, false
			}
			j = afterValue(c.data, end)
		}
		c.out = append(c.out, ']')
		return j + 1, true
	case '"':
		end := StringEnd(c.data, i)
		c.out = appendString(c.out, c.data[i:end])
		return end, true
	case 't', 'f', 'n':
		end := ScalarEnd(c.data, i)
		c.out = append(c.out, c.data[i:end]...)
		return end, true
	}
	end := ScalarEnd(c.data, i)
	out, ok := appendNumber(c.out, c.data[i:end])
	c.out = out
	return end, ok
}

// ObjectDepth is the deepest an object may lie for AppendCanonical to
// write it. An object skips each member's value to sort its members
// before writing them, so every byte is read once more for each object
// around it: without a bound, a document of objects nested d deep costs
// d times its size (8,000 levels, 48 KB: 0.94 s; 8.9 ms with it). No byte is
// read more than ObjectDepth+2 times, and a deeper document goes to the
// caller's decoder, which is linear.
const ObjectDepth = 64

func (c *canonical) object(i, depth int) (int, bool) {
	if depth > ObjectDepth {
		return i, false
	}
	mark := len(c.members)
	defer func() { c.members = c.members[:mark] }()
	j := Space(c.data, i+1)
	for j < len(c.data) && c.data[j] != '}' {
		kEnd := StringEnd(c.data, j)
		v := Space(c.data, Space(c.data, kEnd)+1)
		key := keyString(c.data[j:kEnd])
		if depth > 0 || c.drop == nil || c.data[v] != 'n' || !c.drop(key) {
			c.members = append(c.members, member{key: key, v: v})
		}
		j = afterValue(c.data, Skip(c.data, v))
	}
	end := j + 1
	ms := c.members[mark:]
	slices.SortFunc(ms, func(a, b member) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
	c.out = append(c.out, '{')
	for k := range ms {
		// ms may move as the values' objects push their members: read
		// it from the stack each time.
		m := c.members[mark+k]
		if k > 0 {
			if m.key == c.members[mark+k-1].key {
				return end, false
			}
			c.out = append(c.out, ',')
		}
		c.out = appendString(c.out, nil, m.key)
		c.out = append(c.out, ':')
		if _, ok := c.value(m.v, depth+1); !ok {
			return end, false
		}
	}
	c.out = append(c.out, '}')
	return end, true
}

// keyString is String for an object's key while its object is written:
// a key of printable ASCII without escapes is its bytes in data (read
// only, and not kept past the call), any other is decoded.
func keyString(raw []byte) string {
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			return String(raw)
		}
	}
	if len(body) == 0 {
		return ""
	}
	return unsafe.String(&body[0], len(body))
}

// appendString appends a string as encoding/json writes it without HTML
// escapes: raw is the string as written (with its quotes), copied when it
// is already so; else the decoded string (s, or raw decoded) is escaped.
func appendString(out, raw []byte, s ...string) []byte {
	if len(s) == 0 {
		if plainString(raw[1 : len(raw)-1]) {
			return append(out, raw...)
		}
		s = []string{String(raw)}
	}
	const hex = "0123456789abcdef"
	str := s[0]
	out = append(out, '"')
	for k := 0; k < len(str); {
		b := str[k]
		if b < utf8.RuneSelf {
			switch {
			case b >= 0x20 && b != '"' && b != '\\':
				out = append(out, b)
			case b == '"' || b == '\\':
				out = append(out, '\\', b)
			case b == '\b':
				out = append(out, '\\', 'b')
			case b == '\f':
				out = append(out, '\\', 'f')
			case b == '\n':
				out = append(out, '\\', 'n')
			case b == '\r':
				out = append(out, '\\', 'r')
			case b == '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(str[k:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			out = append(out, str[k:k+size]...)
		}
		k += size
	}
	return append(out, '"')
}

// AppendString appends s as a JSON string, as encoding/json writes it
// without HTML escapes.
func AppendString(dst []byte, s string) []byte {
	return appendString(dst, nil, s)
}

// plainString reports whether the body of a string as written is what
// encoding/json writes for it: no escape, and UTF-8 without U+2028 and
// U+2029 (which it escapes).
func plainString(body []byte) bool {
	ascii := true
	for _, b := range body {
		if b == '\\' || b < 0x20 {
			return false
		}
		if b >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(body) && !bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029"))
}

// appendNumber appends a number as encoding/json writes the float64 it
// decodes to; false when a float64 cannot hold it.
func appendNumber(out, lit []byte) ([]byte, bool) {
	if shortInt(lit) {
		return append(out, lit...), true
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return out, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	out = strconv.AppendFloat(out, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(out); n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
			out[n-2] = out[n-1]
			out = out[:n-1]
		}
	}
	return out, true
}

// shortInt reports whether lit is an integer a float64 holds exactly and
// writes as it is: at most 15 digits, no leading zero.
func shortInt(lit []byte) bool {
	d := lit
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for _, b := range d {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}
