package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/report"
)

// The rules of passThrough's scan, one by one: what it leaves to the
// decoder (a type it cannot check), what it reads in any layout, and that
// a case cut short at any byte is left to the decoder without a panic.

type jsonByValue struct{ V int }

func (jsonByValue) UnmarshalJSON([]byte) error { return nil }

type jsonByPointer struct{ V int }

func (*jsonByPointer) UnmarshalJSON([]byte) error { return nil }

type textByValue struct{ V int }

func (textByValue) UnmarshalText([]byte) error { return nil }

type textByPointer struct{ V int }

func (*textByPointer) UnmarshalText([]byte) error { return nil }

type namedKey string

// TestShapeOfLeavesToTheDecoder: a type with a decoding method of its own
// (UnmarshalJSON or UnmarshalText, on the value or the pointer), a map
// whose key is a string type other than string, a struct with a field
// whose JSON name holds a byte past ASCII, a backslash or a quote, and a
// struct of more than 64 fields have no shape the scan checks (the case
// is decoded); their plain counterparts do.
func TestShapeOfLeavesToTheDecoder(t *testing.T) {
	fields := func(n int, tag string) reflect.Type {
		var fs []reflect.StructField
		for i := range n {
			f := reflect.StructField{Name: "F" + strings.Repeat("x", i), Type: reflect.TypeFor[int]()}
			if i == 0 && tag != "" {
				f.Tag = reflect.StructTag(`json:"` + tag + `"`)
			}
			fs = append(fs, f)
		}
		return reflect.StructOf(fs)
	}
	for _, c := range []struct {
		what string
		t    reflect.Type
		want shapeKind
	}{
		{"UnmarshalJSON on the value", reflect.TypeFor[jsonByValue](), shapeUnknown},
		{"UnmarshalJSON on the pointer", reflect.TypeFor[jsonByPointer](), shapeUnknown},
		{"UnmarshalText on the value", reflect.TypeFor[textByValue](), shapeUnknown},
		{"UnmarshalText on the pointer", reflect.TypeFor[textByPointer](), shapeUnknown},
		{"a plain struct", reflect.TypeFor[struct{ V int }](), shapeStruct},
		{"a map of a named string key", reflect.TypeFor[map[namedKey]int](), shapeUnknown},
		{"a map of string keys", reflect.TypeFor[map[string]int](), shapeMap},
		{"a map of int keys", reflect.TypeFor[map[int]int](), shapeUnknown},
		{"a name with the byte 0x80", fields(1, `a\x80b`), shapeUnknown},
		{"a name past ASCII", fields(1, "é"), shapeUnknown},
		{"a name with a backslash", fields(1, `a\\b`), shapeUnknown},
		{"a name with a quote", fields(1, `a\"b`), shapeUnknown},
		{"a plain name", fields(1, "ab"), shapeStruct},
		{"64 fields", fields(64, ""), shapeStruct},
		{"65 fields", fields(65, ""), shapeUnknown},
	} {
		if got := shapeOf(c.t, map[reflect.Type]*shape{}).kind; got != c.want {
			t.Errorf("%s (%v): kind %d, want %d", c.what, c.t, got, c.want)
		}
	}
}

// ruleCases are cases of the generator corpus with an escape in a string
// (a quote, a backslash, a \u escape of a letter) and a literal in them.
func ruleCases(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	for _, k := range []int{5, 997} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k, prCase(k))
		w.Flush()
		data := bytes.Replace(b.Bytes(), []byte(`"message":"assertion #0`), []byte(`"message":"a \"quoted\" \\ \u00e9 assertion #0`), 1)
		out = append(out, data)
	}
	return out
}

// TestPassThroughAnyLayout: a case indented (white space between every
// token) passes through as it does on one line, read the same.
func TestPassThroughAnyLayout(t *testing.T) {
	for _, data := range ruleCases(t) {
		var one, indented leanCase
		if !passThrough(data, &one) {
			t.Fatalf("not passed through: %s", data)
		}
		var b bytes.Buffer
		if err := json.Indent(&b, data, " \r", "\t "); err != nil {
			t.Fatal(err)
		}
		if !passThrough(b.Bytes(), &indented) {
			t.Fatalf("indented, not passed through: %s", b.Bytes())
		}
		if !reflect.DeepEqual(one, indented) {
			t.Fatalf("indented, read %+v; on one line %+v", indented, one)
		}
		var byCase, byScan report.Counter
		passThroughHolds(t, b.Bytes(), &byCase, &byScan)
	}
}

// TestPassThroughCutShort: a case cut at any byte (an escape, a \u
// escape, a literal, a number cut in two, an assertions or floors list
// after its bracket or a comma) is not passed through, and the scan does
// not read past its end, whether it notes the comparison's keys
// (passThroughKeys) or not.
func TestPassThroughCutShort(t *testing.T) {
	cases := ruleCases(t)
	// A figure with an exponent (the case is left to the decoder whole;
	// cut in its exponent, the scan must not read past the end either).
	cases = append(cases, bytes.Replace(cases[0], []byte(`"tool_selection.f1":67`), []byte(`"tool_selection.f1":6.7E+1,"x":-1e-2`), 1))
	// Values of any type nested in a matcher (objects and arrays read as
	// any value).
	cases = append(cases, bytes.Replace(cases[0], []byte(`"matcher":{">=":50}`), []byte(`"matcher":{">=":{"a":[1,{"b":null,"c":true,"d":"e"}],"f":false}}`), 1))
	for _, data := range cases {
		var b bytes.Buffer
		if err := json.Indent(&b, data, "", " "); err != nil {
			t.Fatal(err)
		}
		for _, text := range [][]byte{data, b.Bytes()} {
			for i := range len(text) {
				cut := make([]byte, i) // its own array, no capacity past its end: nothing there to read
				copy(cut, text)
				var lc leanCase
				if passThrough(cut, &lc) {
					t.Fatalf("passed through a case cut at byte %d: %s", i, cut)
				}
				var spans caseSpans
				var keys sameKeys
				if passThroughKeys(cut, &lc, &spans, &keys) {
					t.Fatalf("the comparison's scan (its keys noted) passed through a case cut at byte %d: %s", i, cut)
				}
			}
		}
	}
}

// TestPassThroughEveryEscape: a \u escape of each of the 65,536 code
// units, in lower and upper case hex, in a case's string: passed through
// unless it spells a character Check refuses in a one-line field (the C0
// and C1 controls, DEL, the line and paragraph separators, the bidi
// embeddings and isolates), and where passed through, what decoding and
// checking give.
func TestPassThroughEveryEscape(t *testing.T) {
	data := []byte(`{"name":"n","verdict":"pass","definition_sha256":"a \u00e9 b"}`)
	at := bytes.Index(data, []byte(`\u00e9`))
	refused := func(r rune) bool {
		return r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
	}
	var byCase, byScan report.Counter
	text := bytes.Clone(data)
	for r := rune(0); r <= 0xffff; r++ {
		for _, hex := range []string{"%04x", "%04X"} {
			_ = fmt.Appendf(text[:at+2], hex, r) // the four digits, in place
			var lc leanCase
			if got := passThrough(text, &lc); got == refused(r) {
				t.Fatalf("%s: passed through %v, want %v", text[at:at+6], got, !refused(r))
			}
			if r%251 == 0 && !refused(r) {
				passThroughHolds(t, text, &byCase, &byScan)
			}
		}
	}
}

// TestPassThroughEveryCharacter: each character of the Basic Multilingual
// Plane and a stride of the planes above it, written as itself (UTF-8) in
// a case's string, is passed through unless Check refuses it in a
// one-line field; a byte that is not UTF-8 (a lone continuation byte, a
// sequence cut short, 0xff) is left to the decoder.
func TestPassThroughEveryCharacter(t *testing.T) {
	refused := func(r rune) bool {
		return r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
	}
	head, tail := []byte(`{"name":"n","verdict":"pass","definition_sha256":"a `), []byte(` b"}`)
	var byCase, byScan report.Counter
	for r := rune(0x20); r <= 0x10ffff; r++ {
		if r > 0xffff && r%97 != 0 || r >= 0xd800 && r <= 0xdfff || r == '"' || r == '\\' {
			continue
		}
		text := append(utf8.AppendRune(bytes.Clone(head), r), tail...)
		var lc leanCase
		if got := passThrough(text, &lc); got == refused(r) {
			t.Fatalf("%U written as itself: passed through %v, want %v", r, got, !refused(r))
		}
		if r%509 == 0 && !refused(r) {
			passThroughHolds(t, text, &byCase, &byScan)
		}
	}
	for _, bad := range [][]byte{{0x80}, {0xbf}, {0xc3}, {0xe2, 0x80}, {0xff}, {0xfe}, {0xed, 0xa0, 0x80}} {
		text := slices.Concat(head, bad, tail)
		var lc leanCase
		if passThrough(text, &lc) {
			t.Fatalf("% x, not UTF-8, passed through", bad)
		}
	}
}

// TestPassThroughNumbers: a figure (a float field) with a fraction, a
// sign or a zero passes through, read as decoding reads it; one with an
// exponent is left to the decoder, and one JSON refuses (a leading zero,
// a point with no digit on one side, a lone sign) is refused. A count (an
// integer field) with a fraction is refused, as Unmarshal refuses it.
func TestPassThroughNumbers(t *testing.T) {
	data := ruleCases(t)[0]
	figure := []byte(`"tool_selection.f1":67`)
	count := []byte(`"reliability.runs":2`)
	if !bytes.Contains(data, figure) || !bytes.Contains(data, count) {
		t.Fatalf("no figure or count in %s", data)
	}
	var byCase, byScan report.Counter
	for _, c := range []struct {
		at, num string
		pass    bool
	}{
		{"figure", "0", true}, {"figure", "-0", true}, {"figure", "66.67", true}, {"figure", "-0.5", true},
		{"figure", "1.0", true}, {"figure", "123456789.125", true}, {"figure", "10.25", true},
		{"figure", "1e5", false}, {"figure", "1.5E-3", false}, {"figure", "1.", false}, {"figure", ".5", false},
		{"figure", "01", false}, {"figure", "-", false}, {"figure", "1.e5", false}, {"figure", "+1", false},
		{"count", "2", true}, {"count", "2.0", false}, {"count", "2e0", false}, {"count", "-2", true},
	} {
		old, field := figure, `"tool_selection.f1":`
		if c.at == "count" {
			old, field = count, `"reliability.runs":`
		}
		text := bytes.Replace(data, old, []byte(field+c.num), 1)
		var lc leanCase
		if got := passThrough(text, &lc); got != c.pass {
			t.Errorf("%s %s: passed through %v, want %v", c.at, c.num, got, c.pass)
			continue
		}
		if c.pass {
			passThroughHolds(t, text, &byCase, &byScan)
		}
	}
}

// TestIntegerIsParse holds the scan's integers to strconv over every
// integer kind and size, at and around each one's bounds, the 19, 20 and
// 21 digit lengths, and drawn values: read exactly when strconv.ParseInt
// or ParseUint reads the text at that size, to the same value.
func TestIntegerIsParse(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	var texts []string
	for _, base := range []string{"127", "128", "255", "256", "32767", "32768", "65535", "65536", "2147483647", "2147483648",
		"4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
		"99999999999999999999", "100000000000000000000", "1844674407370955161", "18446744073709551609", "18446744073709551610"} {
		n, _ := new(big.Int).SetString(base, 10)
		for d := int64(-3); d <= 3; d++ {
			v := new(big.Int).Add(n, big.NewInt(d))
			texts = append(texts, v.String(), new(big.Int).Neg(v).String())
		}
	}
	for range 3000 {
		digits := 1 + r.IntN(21)
		b := []byte{byte('1' + r.IntN(9))}
		for range digits - 1 {
			b = append(b, byte('0'+r.IntN(10)))
		}
		texts = append(texts, string(b), "-"+string(b))
	}
	texts = append(texts, "0", "-0")
	for _, text := range texts {
		for _, bits := range []int{8, 16, 32, 64} {
			for _, kind := range []shapeKind{shapeInt, shapeUint} {
				s := caseScan{b: []byte(text)}
				v, ok := s.integer(&shape{kind: kind, bits: bits})
				var want uint64
				var err error
				if kind == shapeInt {
					var w int64
					w, err = strconv.ParseInt(text, 10, bits)
					want = uint64(w)
				} else {
					want, err = strconv.ParseUint(text, 10, bits)
				}
				if ok != (err == nil) || ok && (uint64(v) != want || s.i != len(text)) {
					t.Fatalf("%s as a %d-bit %v: read %d %v, strconv %d %v", text, bits, map[shapeKind]string{shapeInt: "int", shapeUint: "uint"}[kind], v, ok, want, err)
				}
			}
		}
	}
}

// TestFloatRange: a number is read into a float32 when its integer part
// has at most 38 digits and into a float64 at most 308, whatever its sign
// and fraction (within each one's range, as strconv.ParseFloat confirms);
// one digit more is left to the decoder.
func TestFloatRange(t *testing.T) {
	for _, c := range []struct {
		bits, digits int
		ok           bool
	}{{32, 1, true}, {32, 38, true}, {32, 39, false}, {64, 1, true}, {64, 38, true}, {64, 39, true}, {64, 308, true}, {64, 309, false}} {
		for _, sign := range []string{"", "-"} {
			for _, frac := range []string{"", ".5"} {
				text := sign + "1" + strings.Repeat("0", c.digits-1) + frac
				s := caseScan{b: []byte(text)}
				if got := s.float(c.bits); got != c.ok || s.i != len(text) {
					t.Fatalf("%d digits%s as a float%d: read %v (to byte %d of %d), want %v", c.digits, sign+frac, c.bits, got, s.i, len(text), c.ok)
				}
				if _, err := strconv.ParseFloat(text, c.bits); c.ok && err != nil {
					t.Fatalf("%d digits%s read as a float%d, which strconv refuses: %v", c.digits, sign+frac, c.bits, err)
				}
			}
		}
	}
}

// TestPassThroughDepth: values of any type nested in a matcher pass
// through up to maxScanDepth levels of nesting in all (the case, its
// assertions, the assertion and its matcher are the first four), and one
// level more is left to the decoder.
func TestPassThroughDepth(t *testing.T) {
	data := ruleCases(t)[0]
	matcher := []byte(`"matcher":{">=":50}`)
	if !bytes.Contains(data, matcher) {
		t.Fatal("no matcher in the case")
	}
	const above = 4 // the case, assertions, the assertion, the matcher
	for _, d := range []int{1, maxScanDepth - above - 1, maxScanDepth - above, maxScanDepth - above + 1, maxScanDepth + 50} {
		nested := strings.Repeat("[", d) + "1" + strings.Repeat("]", d)
		text := bytes.Replace(data, matcher, []byte(`"matcher":{">=":`+nested+`}`), 1)
		var lc leanCase
		if got, want := passThrough(text, &lc), above+d <= maxScanDepth; got != want {
			t.Fatalf("%d levels in all: passed through %v, want %v", above+d, got, want)
		}
	}
}
