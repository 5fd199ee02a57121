package engine

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/redact"
)

// An assertion's actual value is, with its findings, the part of a case a
// recording decides: a check whose target is the run's calls, a result's
// text or the final response holds whatever the recording holds there,
// and the case carries it into the envelope, the reports and the
// comparison. Every assertion result takes its value through actualOf
// (evaluate and runCheck.result are the only two that set one): a copy
// with its secrets masked (redact.Value), whole when its compact JSON is
// at most maxActualBytes, else the part of it that fits, in the order
// JSON writes it (a map's keys sorted), the assertion marked
// actual_clipped. The copy is made as the value is read, so a value of
// a million calls costs the bytes kept, not a masked copy of every call.

// maxActualBytes bounds an assertion's actual value in compact JSON.
const maxActualBytes = 4 << 10

// actualOf is v masked and bounded, and whether it was cut.
func actualOf(v any) (any, bool) {
	c := clipper{left: maxActualBytes}
	out := c.value(v)
	return out, c.cut
}

// clipper copies a value masked (redact.Value) with at most left bytes
// of compact JSON, noting that it cut it; once cut, it copies nothing
// more.
type clipper struct {
	left int
	cut  bool
}

func (c *clipper) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return c.object(v)
	case []any:
		return c.list(len(v), func(i int) any { return v[i] })
	case string:
		return c.str(redact.String(v))
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = x
		}
		return c.object(m)
	case []string:
		return c.list(len(v), func(i int) any { return v[i] })
	case expr.List:
		return c.list(v.Len(), v.At)
	}
	c.left -= scalarSize(v)
	return v
}

// object copies m, its members in key order while they fit: a member
// goes in only with room for its key and the least of its value (fits).
func (c *clipper) object(m map[string]any) any {
	out := make(map[string]any, min(len(m), 16))
	c.left -= 2 // {}
	for i, k := range slices.Sorted(maps.Keys(m)) {
		x := m[k]
		if redact.SecretKey(k) {
			x = redact.Mask
		}
		head := jsonStringSize(k) + 1 // the key and its colon
		if i > 0 {
			head++ // the comma
		}
		if !c.fits(head, x) {
			break
		}
		out[k] = c.value(x)
	}
	return out
}

// list copies a list of n elements, at(i) the i-th, in order while they
// fit: of a list whose elements are built when read (expr.List), those
// that fit are built, and the one that does not.
func (c *clipper) list(n int, at func(int) any) any {
	out := make([]any, 0, min(n, 16))
	c.left -= 2 // []
	for i := range n {
		head := 0
		if i > 0 {
			head = 1 // the comma
		}
		x := at(i)
		if !c.fits(head, x) {
			break
		}
		out = append(out, c.value(x))
	}
	return out
}

// fits takes head bytes for the next member or element x when they and
// the least of x (a scalar whole, a string or container empty) fit in
// what is left, and notes the cut when they do not; once cut, nothing
// fits.
func (c *clipper) fits(head int, x any) bool {
	least := 2
	switch x.(type) {
	case map[string]any, []any, string, map[string]string, []string, expr.List:
	default:
		least = scalarSize(x)
	}
	if c.cut || c.left < head+least {
		c.cut = true
		return false
	}
	c.left -= head
	return true
}

// str is s whole when its JSON fits, else the characters that fit.
func (c *clipper) str(s string) string {
	n := jsonStringSize(s)
	if n <= c.left {
		c.left -= n
		return s
	}
	c.cut = true
	room := c.left - 2 // the quotes
	end := 0
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		w := runeJSONSize(r, size)
		if w > room {
			break
		}
		room -= w
		end += size
	}
	c.left = 0
	return s[:end]
}

// jsonStringSize is the bytes of s as a JSON string as the envelope
// writes it (encoding/json without HTML escaping).
func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeJSONSize(r, size)
		i += size
	}
	return n
}

// runeJSONSize is the bytes one character of a string takes in JSON: a
// quote, backslash or the control characters with a short escape take
// two, another control character, an invalid byte (written as U+FFFD)
// and U+2028 and U+2029 six, any other its UTF-8 bytes.
func runeJSONSize(r rune, size int) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2
	case r < 0x20, r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
		return 6
	}
	return size
}

// scalarSize is the bytes of a number, boolean or null in JSON, as
// encoding/json writes a float64 (an exponent below 1e-6 and from 1e21,
// a negative one of one digit without its leading zero).
func scalarSize(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case bool:
		if v {
			return 4
		}
		return 5
	case float64:
		f := byte('f')
		if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
			f = 'e'
		}
		var buf [32]byte
		b := strconv.AppendFloat(buf[:0], v, f, -1, 64)
		if n := len(b); n >= 5 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			return n - 1 // 1e-07 is written 1e-7
		}
		return len(b)
	}
	return 24 // another number type: no more digits than this
}
