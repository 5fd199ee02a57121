package engine

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// appendCanonical appends the canonical JSON encoding of a generic value
// (map[string]any, []any, string, float64, bool, nil), byte for byte what
// encoding/json writes for it (map keys sorted, HTML characters escaped),
// without json.Marshal's reflection and its allocations per value: the
// digest of every case's definition is taken while a suite loads. A
// string that needs escaping and a number that is not an integer are
// handed to encoding/json itself; ok is false for a value of any other
// type (the caller then encodes the whole value with encoding/json).
func appendCanonical(b []byte, v any) (out []byte, ok bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return appendJSONString(b, x), true
	case float64:
		return appendJSONNumber(b, x)
	case []any:
		return appendCanonicalList(b, x)
	case map[string]any:
		return appendCanonicalMap(b, x)
	}
	return b, false
}

func appendCanonicalList(b []byte, l []any) ([]byte, bool) {
	b = append(b, '[')
	for i, e := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendCanonical(b, e); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

func appendCanonicalMap(b []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, k), ':')
		var ok bool
		if b, ok = appendCanonical(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONString quotes s as encoding/json does: printable ASCII but
// the quote, the backslash and <, >, & is written as is; any other string
// is left to encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONNumber writes an integer below 2^53 in magnitude as
// encoding/json does (all its digits, no exponent, 0 for +0); any other
// number is left to encoding/json. Above 2^53 the shortest decimal that
// reads back as the same float64 may end in zeros where the integer has
// digits (encoding/json writes 20000000000000127 as 20000000000000130).
func appendJSONNumber(b []byte, f float64) ([]byte, bool) {
	const exact = 1 << 53 // every integer up to it is a float64
	if f > -exact && f < exact && f == float64(int64(f)) && (f != 0 || !math.Signbit(f)) {
		return strconv.AppendInt(b, int64(f), 10), true
	}
	q, err := json.Marshal(f)
	if err != nil {
		return b, false
	}
	return append(b, q...), true
}
