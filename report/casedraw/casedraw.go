package casedraw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"unicode"
)

// JSON writes a value for a Go type t drawn from r, as a JSON text an
// envelope may hold: mostly of the type (every field of a struct in a
// drawn order, some with their names in another case, some given twice,
// some unknown), sometimes of another type or null, with strings that
// hold escapes, control characters, invalid UTF-8 and non-ASCII text and
// numbers that are fractional, exponents or out of range. It is driven by
// the type alone, so a field added to CaseResult is drawn too.
func JSON(r *rand.Rand, b *bytes.Buffer, t reflect.Type, depth int, strict bool) {
	if !strict && (depth > 6 || r.IntN(40) == 0) {
		drawAny(r, b, depth+1, strict)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if r.IntN(6) == 0 || depth > 6 {
			b.WriteString("null")
			return
		}
		JSON(r, b, t.Elem(), depth, strict)
	case reflect.Struct:
		drawStruct(r, b, t, depth, strict)
	case reflect.Slice:
		if r.IntN(10) == 0 {
			b.WriteString("null")
			return
		}
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			space(r, b)
			JSON(r, b, t.Elem(), depth+1, strict)
		}
		b.WriteByte(']')
	case reflect.Map:
		if r.IntN(10) == 0 {
			b.WriteString("null")
			return
		}
		b.WriteByte('{')
		keys := []string{"reliability.class", "reliability.runs", "reliability.passed_runs", "tool_selection.f1", "a", "A", "é", "x\ny"}
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			String(r, b, keys[r.IntN(len(keys))], strict)
			b.WriteByte(':')
			JSON(r, b, t.Elem(), depth+1, strict)
		}
		b.WriteByte('}')
	case reflect.String:
		words := []string{"pass", "fail", "inconclusive", "agent", "scenario", "stable_pass", "flaky", "replay", "suite.yml", "search"}
		if r.IntN(2) == 0 {
			String(r, b, words[r.IntN(len(words))], strict)
		} else {
			String(r, b, drawText(r), strict)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		nums := []string{"0", "1", "2", "-1", "-0", "7", "9223372036854775807", "2147483648", "1.0", "1e2", "1.5", "9223372036854775808", "99999999999999999999"}
		if strict {
			nums = nums[:8]
		}
		b.WriteString(nums[r.IntN(len(nums))])
	case reflect.Float64:
		nums := []string{"0", "1", "0.5", "-2.25", "1e2", "1E-3", "67", "-0", "100", "1e400"}
		if strict {
			nums = nums[:9]
		}
		b.WriteString(nums[r.IntN(len(nums))])
	case reflect.Bool:
		b.WriteString([]string{"true", "false"}[r.IntN(2)])
	default:
		drawAny(r, b, depth+1, strict)
	}
}

func space(r *rand.Rand, b *bytes.Buffer) {
	if r.IntN(3) == 0 {
		b.WriteString([]string{" ", "\n  ", "\t", "\r\n", ""}[r.IntN(5)])
	}
}

// drawAny is a JSON value of any type.
func drawAny(r *rand.Rand, b *bytes.Buffer, depth int, strict bool) {
	switch k := r.IntN(8); {
	case k == 0 || depth > 8:
		lits := []string{"null", "true", "false", "0", "-1.5e3", "12345678901234567890", "1e400"}
		if strict {
			lits = lits[:6]
		}
		b.WriteString(lits[r.IntN(len(lits))])
	case k == 1:
		String(r, b, drawText(r), strict)
	case k == 2:
		b.WriteString("[")
		for i := range r.IntN(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			drawAny(r, b, depth+1, strict)
		}
		b.WriteString("]")
	case k == 3:
		b.WriteString("{")
		for i := range r.IntN(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			String(r, b, drawText(r), strict)
			b.WriteByte(':')
			drawAny(r, b, depth+1, strict)
		}
		b.WriteString("}")
	default:
		b.WriteString(fmt.Sprint(r.IntN(100)))
	}
}

// drawText is a string's text, raw: ASCII, non-ASCII, control
// characters, invalid UTF-8.
func drawText(r *rand.Rand) string {
	parts := []string{"case", " ", "é", "日本", "\u2028", "\u202e", "\x7f", "\t", "\x01", "\xff", "\xc3", "\\", "\"", "/", "<b>", "K"}
	var s strings.Builder
	for range r.IntN(6) {
		s.WriteString(parts[r.IntN(len(parts))])
	}
	return s.String()
}

// String writes s as a JSON string, escaped in one of several ways:
// encoding/json's, \u escapes for some characters, or raw (a raw control
// character is invalid JSON, invalid UTF-8 is taken as U+FFFD).
func String(r *rand.Rand, b *bytes.Buffer, s string, strict bool) {
	switch r.IntN(6) {
	case 0:
		b.WriteByte('"')
		for _, c := range []byte(s) {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 && (strict || r.IntN(8) > 0):
				fmt.Fprintf(b, `\u%04x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	case 1:
		b.WriteByte('"')
		for _, c := range s {
			if c == unicode.ReplacementChar || c < 0x80 && c != '"' && c != '\\' && c >= 0x20 {
				b.WriteRune(c)
				continue
			}
			fmt.Fprintf(b, `\u%04x`, c)
		}
		b.WriteByte('"')
	default:
		data, _ := json.Marshal(s)
		b.Write(data)
	}
}

// Mutate changes data at a drawn place: cut, a byte dropped, replaced or
// added.
func Mutate(r *rand.Rand, data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	i := r.IntN(len(data))
	out := bytes.Clone(data)
	switch r.IntN(4) {
	case 0:
		return out[:i]
	case 1:
		return append(out[:i], data[i+1:]...)
	case 2:
		out[i] = `{}[],:" \x0a0-e.tn\`[r.IntN(17)]
		return out
	default:
		return append(append(out[:i:i], `{}[],:"`[r.IntN(7)]), data[i:]...)
	}
}

// drawStruct writes a struct's members, as JSON does for a struct.
func drawStruct(r *rand.Rand, b *bytes.Buffer, t reflect.Type, depth int, strict bool) {
	b.WriteByte('{')
	n := 0
	member := func(name string, ft reflect.Type) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		space(r, b)
		String(r, b, name, strict)
		space(r, b)
		b.WriteByte(':')
		space(r, b)
		JSON(r, b, ft, depth+1, strict)
	}
	for _, i := range r.Perm(t.NumField()) {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || r.IntN(5) == 0 {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if r.IntN(12) == 0 {
			name = strings.ToUpper(name[:1]) + name[1:]
		}
		if r.IntN(30) == 0 {
			name = strings.ToUpper(name)
		}
		member(name, f.Type)
		if r.IntN(25) == 0 {
			member(name, f.Type) // given twice: the last wins
		}
	}
	if r.IntN(8) == 0 {
		member("unknown_"+fmt.Sprint(r.IntN(3)), reflect.TypeFor[struct{}]())
	}
	space(r, b)
	b.WriteByte('}')
}
