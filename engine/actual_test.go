package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/redact"
)

// unescapedJSON is v as the envelope writes it: compact, without HTML
// escaping.
func unescapedJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// drawString draws a string of n characters from a mix that JSON writes
// in one to six bytes: ASCII, quotes and backslashes, control characters,
// two- to four-byte characters, U+2028, an invalid byte, and a secret
// redact.String masks.
func drawString(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(12) {
		case 0:
			b.WriteString(`"\`)
		case 1:
			b.WriteByte(byte(r.IntN(0x20)))
		case 2:
			b.WriteString("é")
		case 3:
			b.WriteString("水")
		case 4:
			b.WriteString("🙂")
		case 5:
			b.WriteString("\u2028")
		case 6:
			b.WriteByte(0xff)
		case 7:
			if r.IntN(8) == 0 {
				b.WriteString(" ghp_" + strings.Repeat("a1B2", 6) + " ")
			}
		default:
			b.WriteString("abc def <&>")
		}
	}
	return b.String()
}

// drawActual draws a decoded JSON value up to depth levels deep and of
// about nodes values at most: lists and maps from empty to wide, strings
// from empty to long, numbers of every magnitude encoding/json writes in
// either form, and keys redact masks.
func drawActual(r *rand.Rand, depth int, nodes *int) any {
	*nodes--
	k := r.IntN(8)
	if (depth == 0 || *nodes <= 0) && k >= 5 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []float64{0, 1, -1, 1e-7, 1e20, 1e21, -3.25e-9, 123456.789, math.MaxFloat64, float64(r.Int64())}[r.IntN(10)]
	case 3, 4:
		if r.IntN(50) == 0 {
			return drawString(r, 70000)
		}
		return drawString(r, []int{0, 1, 10, 40, 200, 5000}[r.IntN(6)])
	case 5, 6:
		n := []int{0, 1, 3, 40, 300, 3000}[r.IntN(6)]
		l := make([]any, 0, n)
		for range n {
			if *nodes <= 0 {
				break
			}
			l = append(l, drawActual(r, depth-1, nodes))
		}
		return l
	}
	n := []int{0, 1, 4, 30, 200}[r.IntN(5)]
	m := make(map[string]any, n)
	keys := []string{"api_key", "accessToken", "tokens", "id", "é", `q"`, "\u2028"}
	for range n {
		if *nodes <= 0 {
			break
		}
		key := drawString(r, r.IntN(12))
		if r.IntN(4) == 0 {
			key = keys[r.IntN(len(keys))]
		}
		m[key] = drawActual(r, depth-1, nodes)
	}
	return m
}

// TestActualOfDrawn draws decoded JSON values and holds actualOf to its
// rule: the value masked as redact.Value masks it, whole when its compact
// JSON is at most maxActualBytes (not cut), else cut to at most that
// many bytes, keeping a prefix of it in JSON order: the lists' first
// elements, the maps' first members by key, the strings' first
// characters, each kept part as the whole has it.
func TestActualOfDrawn(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 24))
	whole, cut := 0, 0
	for i := range 1000 {
		nodes := 1 + r.IntN(1500)
		v := drawActual(r, r.IntN(6), &nodes)
		got, clipped := actualOf(v)
		masked := redact.Value(v)
		want := unescapedJSON(t, masked)
		gotJSON := unescapedJSON(t, got)
		if len(want) <= maxActualBytes {
			whole++
			if clipped || !bytes.Equal(gotJSON, want) {
				t.Fatalf("value %d (%d bytes): cut %v, %.300s, want it whole: %.300s", i, len(want), clipped, gotJSON, want)
			}
			continue
		}
		cut++
		if !clipped || len(gotJSON) > maxActualBytes {
			t.Fatalf("value %d (%d bytes): cut %v, %d bytes, want it cut to at most %d", i, len(want), clipped, len(gotJSON), maxActualBytes)
		}
		if why := prefixOf(got, masked); why != "" {
			t.Fatalf("value %d: the cut value is not a prefix of the whole: %s\n%.300s", i, why, gotJSON)
		}
	}
	if whole < 150 || cut < 150 {
		t.Fatalf("drew %d values kept whole and %d cut: want both kinds", whole, cut)
	}
}

// prefixOf says how part is not a prefix of whole in JSON order, or "".
func prefixOf(part, whole any) string {
	switch w := whole.(type) {
	case []any:
		p, ok := part.([]any)
		if !ok || len(p) > len(w) {
			return "a list became another thing or longer"
		}
		for i := range p {
			if i < len(p)-1 && !sameJSON(p[i], w[i]) {
				return "a list's element before the last kept differs"
			}
			if why := prefixOf(p[i], w[i]); why != "" {
				return why
			}
		}
	case map[string]any:
		p, ok := part.(map[string]any)
		if !ok || len(p) > len(w) {
			return "a map became another thing or larger"
		}
		// The members kept are the first in key order.
		keys := sortedKeys(w)
		for i, k := range keys[:len(p)] {
			x, ok := p[k]
			if !ok {
				return "a map's member " + k + " left out before one kept"
			}
			if i < len(p)-1 && !sameJSON(x, w[k]) {
				return "a map's member before the last kept differs"
			}
			if why := prefixOf(x, w[k]); why != "" {
				return why
			}
		}
	case string:
		p, ok := part.(string)
		if !ok || !strings.HasPrefix(w, p) {
			return "a string is not a prefix of its whole"
		}
	default:
		if !sameJSON(part, whole) {
			return "a scalar changed"
		}
	}
	return ""
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestJSONSizesDrawn holds jsonStringSize and scalarSize to the bytes
// encoding/json writes for drawn strings and numbers.
func TestJSONSizesDrawn(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 25))
	for range 2000 {
		s := drawString(r, r.IntN(300))
		if got, want := jsonStringSize(s), len(unescapedJSON(t, s)); got != want {
			t.Fatalf("jsonStringSize(%q) = %d, want %d", s, got, want)
		}
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		for _, x := range []float64{f, float64(float32(f)), math.Round(f / 1e300), float64(r.IntN(1e6)) / 1e9} {
			if math.IsInf(x, 0) {
				continue
			}
			if got, want := scalarSize(x), len(unescapedJSON(t, x)); got != want {
				t.Fatalf("scalarSize(%v) = %d, want %d", x, got, want)
			}
		}
	}
	for _, x := range []any{nil, true, false} {
		if got, want := scalarSize(x), len(unescapedJSON(t, x)); got != want {
			t.Fatalf("scalarSize(%v) = %d, want %d", x, got, want)
		}
	}
}

// TestActualOfTight holds actualOf to the exact cut of values whose
// bytes are counted by hand: a value of exactly maxActualBytes is kept
// whole, a larger one keeps every byte that fits and nothing after the
// first thing that does not.
func TestActualOfTight(t *testing.T) {
	strs := func(n int, s string) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = s
		}
		return l
	}
	nums := func(n int, f float64) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = f
		}
		return l
	}
	a := strings.Repeat("a", 5000)
	for _, tc := range []struct {
		name string
		v    any
		want string // the cut value's JSON, or "" for v whole
	}{
		// "[" + 1,023 times `"a",` + `""]`: 4,096 bytes.
		{"one-letter strings", strs(2000, "a"), "[" + strings.Repeat(`"a",`, 1023) + `""]`},
		{"a string of 4,094 letters", a[:4094], ""},
		{"a string of 4,095 letters", a[:4095], `"` + a[:4094] + `"`},
		{"a string of three-byte letters", strings.Repeat("水", 2000), `"` + strings.Repeat("水", 1364) + `"`},
		{"a member's string", map[string]any{"k0000": a}, `{"k0000":"` + a[:4084] + `"}`},
		// A key that does not fit ends the copy: the number after it is
		// not taken though it would fit.
		{"a key too long", []any{map[string]any{strings.Repeat("k", 4090): 1.0}, 2.0}, "[{}]"},
		// 682 times 1e+21 (five bytes) and its comma, 4,093 bytes.
		{"numbers written with an exponent", nums(1000, 1e21), "[" + strings.Repeat("1e+21,", 681) + "1e+21]"},
		{"numbers written without one", nums(1000, 1e-6), "[" + strings.Repeat("0.000001,", 454) + "0.000001]"},
		{"an exponent of one digit", nums(1000, 1e-7), "[" + strings.Repeat("1e-7,", 818) + "1e-7]"},
	} {
		got, cut := actualOf(tc.v)
		j := string(unescapedJSON(t, got))
		want := tc.want
		if want == "" {
			want = string(unescapedJSON(t, tc.v))
		}
		if j != want || cut != (tc.want != "") {
			t.Errorf("%s: cut %v, %d bytes %.60s…; want cut %v, %d bytes %.60s…", tc.name, cut, len(j), j, tc.want != "", len(want), want)
		}
		if len(j) > maxActualBytes {
			t.Errorf("%s: %d bytes, over %d", tc.name, len(j), maxActualBytes)
		}
	}
}
