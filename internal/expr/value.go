package expr

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// maxRender is how many characters of a rendered value a message shows
// before it is clipped with "…".
const maxRender = 200

// renderRoom is the bytes Render writes before it stops: a character
// takes at most 4, so once that many are written the clipped text is
// known, and a value of a million calls is not written whole to show 200
// characters of it.
const renderRoom = 4 * (maxRender + 1)

// Number reports v as a float64 when it is a number. Decoded JSON and
// YAML give float64; the integer types are accepted too so that values
// built in Go compare the same way.
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// FormatNumber renders f the shortest way that reads back exactly, without
// a trailing ".0": 80, 0.5, -3.25. As in JavaScript, only numbers from
// 1e21 up or below 1e-6 use an exponent (1e+21, 1e-7), so that no number
// takes hundreds of digits.
func FormatNumber(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strings.Replace(strconv.FormatFloat(f, 'g', -1, 64), "e-0", "e-", 1)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Equal compares two generic values: numbers numerically, maps by their
// keys, lists (a []any or a List) element by element in order.
func Equal(a, b any) bool {
	if x, ok := Number(a); ok {
		y, ok := Number(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case []any:
		if y, ok := b.([]any); ok {
			return slices.EqualFunc(x, y, Equal)
		}
		y, ok := b.(List)
		return ok && equalLists(sliceList(x), y)
	case List:
		y, ok := listOf(b)
		return ok && equalLists(x, y)
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// equalLists compares two lists element by element, building one
// element of each at a time.
func equalLists(x, y List) bool {
	if x.Len() != y.Len() {
		return false
	}
	for i := range x.Len() {
		if !Equal(x.At(i), y.At(i)) {
			return false
		}
	}
	return true
}

// copyValue returns a deep copy of a generic value, so that a Matcher does
// not share maps or lists with its caller.
func copyValue(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	}
	return v
}

// Render writes v as compact JSON for a message: keys sorted, numbers as
// formatNumber writes them, no HTML escaping, clipped to maxRender
// characters. Values JSON cannot hold (NaN, Go types) are still rendered.
// It writes no more of v than the clipped text shows (renderRoom).
func Render(v any) string {
	var b strings.Builder
	writeValue(&b, v)
	return clip(b.String())
}

func writeValue(b *strings.Builder, v any) {
	if b.Len() > renderRoom {
		return
	}
	if f, ok := Number(v); ok {
		b.WriteString(FormatNumber(f))
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(quoteJSON(x))
	case []any:
		writeList(b, sliceList(x))
	case List:
		writeList(b, x)
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if b.Len() > renderRoom {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON(k))
			b.WriteByte(':')
			writeValue(b, x[k])
		}
		b.WriteByte('}')
	default:
		data, err := json.Marshal(x)
		if err != nil {
			b.WriteString(quoteJSON(strings.TrimSpace(strings.ReplaceAll(err.Error(), "\n", " "))))
			return
		}
		b.Write(data)
	}
}

// writeList writes l's elements while the text is within renderRoom.
func writeList(b *strings.Builder, l List) {
	b.WriteByte('[')
	for i := range l.Len() {
		if b.Len() > renderRoom {
			return
		}
		if i > 0 {
			b.WriteByte(',')
		}
		writeValue(b, l.At(i))
	}
	b.WriteByte(']')
}

// quoteJSON quotes s as a JSON string without escaping <, > and &.
func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// clip shortens s to maxRender characters, marking the cut with "…".
func clip(s string) string { return diag.Clip(s, maxRender) }

// describe names the JSON type of v and shows it, for wrong-type messages:
// `string "abc"`, `number 5`, `null`.
func describe(v any) string {
	if _, ok := Number(v); ok {
		return "number " + Render(v)
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + Render(v)
	case string:
		return "string " + Render(v)
	case []any, List:
		return "list " + Render(v)
	case map[string]any:
		return "object " + Render(v)
	}
	return Render(v)
}

// firstNonFinite returns the first NaN or infinite number found in v (in
// key order), which JSON cannot hold. Whether there is one is found
// first in any order, sorting no keys: a value decoded from JSON has none.
func firstNonFinite(v any) (float64, bool) {
	if !holdsNonFinite(v) {
		return 0, false
	}
	return firstInKeyOrder(v)
}

// holdsNonFinite reports whether v holds a NaN or infinite number.
func holdsNonFinite(v any) bool {
	switch x := v.(type) {
	case []any:
		return slices.ContainsFunc(x, holdsNonFinite)
	case map[string]any:
		for _, e := range x {
			if holdsNonFinite(e) {
				return true
			}
		}
		return false
	case List:
		for i := range x.Len() {
			if holdsNonFinite(x.At(i)) {
				return true
			}
		}
		return false
	}
	f, ok := Number(v)
	return ok && (math.IsNaN(f) || math.IsInf(f, 0))
}

// firstInKeyOrder is firstNonFinite's walk in key order.
func firstInKeyOrder(v any) (float64, bool) {
	if f, ok := Number(v); ok {
		return f, math.IsNaN(f) || math.IsInf(f, 0)
	}
	if l, ok := listOf(v); ok {
		for i := range l.Len() {
			if f, bad := firstInKeyOrder(l.At(i)); bad {
				return f, true
			}
		}
		return 0, false
	}
	if x, ok := v.(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if f, bad := firstInKeyOrder(x[k]); bad {
				return f, true
			}
		}
	}
	return 0, false
}
