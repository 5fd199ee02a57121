package jsonpos

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCanonicalDepthEdge: arrays nested MaxDepth+1 deep (the value at i
// is at depth 0, the deepest at MaxDepth) are written; one level more is
// left to the caller, as Values refuses it. (Objects stop sooner, at
// ObjectDepth: TestCanonicalObjectDepthGenerated.)
func TestCanonicalDepthEdge(t *testing.T) {
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, nest := range []func(int) string{arrays} {
		at := nest(MaxDepth + 1)
		if got, end, ok := AppendCanonical(nil, []byte(at), 0, nil); !ok || string(got) != at || end != len(at) {
			t.Errorf("%.12s... nested %d deep: ok %v, end %d of %d", at, MaxDepth+1, ok, end, len(at))
		}
		if _, _, ok := AppendCanonical(nil, []byte(nest(MaxDepth+2)), 0, nil); ok {
			t.Errorf("%.12s... nested %d deep: written, want it left to the caller", at, MaxDepth+2)
		}
	}
}

// TestCanonicalNoValue: where no value starts at i (the end of the data,
// or only white space after i) AppendCanonical says not ok, with no
// panic.
func TestCanonicalNoValue(t *testing.T) {
	for _, c := range []struct {
		data string
		i    int
	}{{"", 0}, {"[1]", 3}, {"[1]  \n", 3}, {" ", 0}} {
		if got, _, ok := AppendCanonical([]byte("x"), []byte(c.data), c.i, nil); ok {
			t.Errorf("AppendCanonical(%q at %d) = %q, ok", c.data, c.i, got)
		}
	}
}

// TestAppendStringIsEncoder is a generator test: over drawn Go strings of
// every byte class (control characters, quote and backslash, 0x7f, 0x80
// and 0xff alone, cut and whole multi-byte runes, U+2028 and U+2029, HTML's
// < > &), AppendString writes what an Encoder that does not escape HTML
// writes.
func TestAppendStringIsEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 14))
	pieces := []string{"a", "\x00", "\x1f", " ", "\"", "\\", "\x7f", "\x80", "\xff", "é", "\xc3", "\u2028", "\u2029", "<", ">", "&", "🚀", "\xf0\x9f", "\t", "\n", "\b", "\f", "\r"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got[1:]) != strings.TrimSuffix(want.String(), "\n") || got[0] != 'x' {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got[1:], want.String())
		}
	}
}

// TestCanonicalInvalidUTF8: a string whose bytes are not UTF-8 (0x80 and
// 0xff alone, a cut rune), which json.Valid accepts, is written as
// encoding/json writes what it decodes it to, U+FFFD for each bad byte.
func TestCanonicalInvalidUTF8(t *testing.T) {
	for _, s := range []string{"\"\x80\"", "\"a\xffb\"", "\"\xc3\"", "\"\xf0\x9f\x9a\"", "{\"\x80\": \"\x80\"}"} {
		if !checkCanonical(t, []byte(s)) {
			t.Errorf("%q: not written", s)
		}
	}
}

// TestCanonicalIntegerEdge: an integer of 15 digits is written as it is;
// one of 16, which a float64 may not hold, is written as the float64 it
// decodes to (9999999999999999 as 10000000000000000), with or without its
// minus.
func TestCanonicalIntegerEdge(t *testing.T) {
	for _, s := range []string{"999999999999999", "-999999999999999", "9999999999999999", "-9999999999999999", "9007199254740993", "-0", "0"} {
		if !checkCanonical(t, []byte(s)) {
			t.Errorf("%s: not written", s)
		}
	}
}

// TestCanonicalPlainStringCopied: a string written as encoding/json writes
// it (no escape; ASCII, spaces included, or UTF-8 without U+2028 and
// U+2029) is copied as it is, with no allocation; one that must be
// rewritten is decoded first.
func TestCanonicalPlainStringCopied(t *testing.T) {
	dst := make([]byte, 0, 256)
	for _, c := range []struct {
		s      string
		copied bool
	}{
		{`"plain text, with spaces"`, true},
		{`"é and ü"`, true},
		{`"a\nb"`, false},
		{"\"a\u2028b\"", false},
	} {
		data := []byte(c.s)
		allocs := testing.AllocsPerRun(20, func() { AppendCanonical(dst[:0], data, 0, nil) })
		if copied := allocs == 0; copied != c.copied {
			t.Errorf("%s: %v allocations, copied as written: %v, want %v", c.s, allocs, copied, c.copied)
		}
	}
}

// drawNest writes a value nested depth deep, each level an object or an
// array drawn from r (objects with one to three members, the nest under
// a drawn one of them), and returns the depth of its deepest object
// (counted as AppendCanonical counts it, 0 at the top; -1 for none).
func drawNest(r *rand.Rand, depth int) (string, int) {
	var b strings.Builder
	var closers []byte
	deepest := -1
	for d := range depth {
		if r.IntN(2) == 0 {
			b.WriteString("[1, ")
			closers = append(closers, ']')
			continue
		}
		deepest = d
		b.WriteString(`{"k": 2, "`)
		b.WriteString([]string{"a", "m", "z"}[r.IntN(3)])
		b.WriteString(`": `)
		closers = append(closers, '}')
	}
	b.WriteString(`"leaf"`)
	for i := len(closers) - 1; i >= 0; i-- {
		if closers[i] == '}' {
			b.WriteString(`, "n": null}`)
		} else {
			b.WriteString("]")
		}
	}
	return b.String(), deepest
}

// TestCanonicalObjectDepthGenerated is a generator test over drawn nests
// of objects and arrays on both sides of ObjectDepth: a nest whose
// deepest object lies within ObjectDepth is written as encoding/json
// writes it, and one with an object deeper is left to the caller; a nest
// of arrays alone is written to MaxDepth.
func TestCanonicalObjectDepthGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(64, 1))
	for range 300 {
		depth := 1 + r.IntN(3*ObjectDepth)
		nest, deepest := drawNest(r, depth)
		written := checkCanonical(t, []byte(nest))
		if want := deepest <= ObjectDepth; written != want {
			t.Fatalf("%d deep, deepest object at %d: written %v, want %v", depth, deepest, written, want)
		}
	}
	at := strings.Repeat(`{"a":`, ObjectDepth+1) + "1" + strings.Repeat("}", ObjectDepth+1)
	if !checkCanonical(t, []byte(at)) {
		t.Errorf("objects %d deep (the deepest at %d): not written", ObjectDepth+1, ObjectDepth)
	}
	if _, _, ok := AppendCanonical(nil, []byte(`[`+at+`]`), 0, nil); ok {
		t.Errorf("an object at %d: written, want it left to the caller", ObjectDepth+1)
	}
}

// BenchmarkCanonicalDeepObjects: a tool schema of objects nested 8,000
// deep (48 KB). Each object skips its members to sort them, so without
// ObjectDepth every byte was read once for each object around it (0.94 s,
// against 8.9 ms with it).
func BenchmarkCanonicalDeepObjects(b *testing.B) {
	const depth = 8000
	data := []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		AppendCanonical(nil, data, 0, nil)
	}
}
