package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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
// escape, a literal, a number cut in two) is not passed through, and the
// scan does not read past its end.
func TestPassThroughCutShort(t *testing.T) {
	for _, data := range ruleCases(t) {
		var b bytes.Buffer
		if err := json.Indent(&b, data, "", " "); err != nil {
			t.Fatal(err)
		}
		for _, text := range [][]byte{data, b.Bytes()} {
			for i := range len(text) {
				cut := bytes.Clone(text[:i]) // its own array: nothing past the end to read
				var lc leanCase
				if passThrough(cut, &lc) {
					t.Fatalf("passed through a case cut at byte %d: %s", i, cut)
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
