package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// drawText is a drawn stream: lines of words, among them the known
// secrets in their spellings, URLs with and without credentials, the
// secrets cut by line breaks, and now and then a line far longer than
// a chunk.
func drawText(r *rand.Rand, secrets []string, k *Known) string {
	words := []string{"case", "passed", `"name":`, "tool", "{", "}", ",", "\t", "https://example.com/mcp", "http://u:pw123456@h/x?token=abcdefgh1",
		"file:///tmp/a", "://", "?api_key=", "é", "\"", "a=b", "&sig=", "x9y8z7w6", "#token=", "http", ":"}
	var b strings.Builder
	for range r.IntN(400) {
		switch n := r.IntN(20); {
		case n == 0 && len(secrets) > 0:
			s := secrets[r.IntN(len(secrets))]
			k.mu.RLock()
			spell := k.vals[r.IntN(len(k.vals))]
			k.mu.RUnlock()
			if r.IntN(2) == 0 {
				s = spell
			}
			if b.Len() > 0 && !strings.ContainsAny(b.String()[b.Len()-1:], " \r\n") {
				// a secret glued to a URL's value is masked in both, the
				// two masks may cut it differently: not this test's rule
				b.WriteByte(' ')
			}
			b.WriteString(s)
		case n == 1:
			b.WriteString([]string{"\n", "\r", "\r\n"}[r.IntN(3)])
		case n == 2 && r.IntN(40) == 0:
			b.WriteString(strings.Repeat("z", r.IntN(3*StreamChunk)))
		default:
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(3) != 0 { // else the next word runs on, as a URL's parts do
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// writeChunks writes text to w in drawn pieces, small ones and chunks of
// StreamChunk bytes or more, as a buffered stream and a logger mix them.
func writeChunks(r *rand.Rand, w *Writer, text string, chunked bool) {
	for len(text) > 0 {
		n := 1 + r.IntN(64)
		if chunked || r.IntN(3) != 0 {
			n = StreamChunk + r.IntN(4*StreamChunk)
		}
		n = min(n, len(text))
		w.Write([]byte(text[:n]))
		text = text[n:]
	}
	w.Flush()
}

// TestKnownWriterIsWriter: over drawn streams, drawn sets of secrets (none,
// one, several, a nil Known) and drawn cuts into writes, NewKnownWriter
// passes on byte for byte what NewWriter with the same Known's Mask
// does (its lines passed on without a copy are exactly those the mask
// leaves alone), and no secret comes out of a stream written in chunks.
func TestKnownWriterIsWriter(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	for i := range 3000 {
		var k *Known
		var secrets []string
		if i%7 != 0 {
			k = &Known{}
			for j := range r.IntN(4) {
				s := fmt.Sprintf("sec%d-%x", j, r.Uint64())
				if r.IntN(3) == 0 {
					s += " &/=%"
				}
				secrets = append(secrets, s)
			}
			k.Add(secrets...)
		}
		text := drawText(r, secrets, orEmpty(k))
		seed, chunked := r.Uint64(), i%2 == 0
		var want, got bytes.Buffer
		writeChunks(rand.New(rand.NewPCG(seed, 1)), NewWriter(&want, k.Mask), text, chunked)
		writeChunks(rand.New(rand.NewPCG(seed, 1)), NewKnownWriter(&got, k), text, chunked)
		// in chunks both writers cut at line breaks alone; in small
		// writes NewKnownWriter also holds what may begin a secret or a
		// URL's credentials, so it masks what the whole text's mask does
		if whole := k.Mask(text); chunked && got.String() != want.String() || got.String() != whole {
			t.Fatalf("stream %d (chunked %v): NewKnownWriter gave\n%q\nNewWriter\n%q\nthe whole text's mask\n%q", i, chunked, got.String(), want.String(), whole)
		}
		for _, s := range append(secrets, "pw123456", "abcdefgh1") {
			if strings.Contains(got.String(), s) {
				j := strings.Index(got.String(), s)
				t.Fatalf("stream %d: the secret %q came out: %q", i, s, got.String()[max(0, j-80):j+20])
			}
		}
	}
}

// orEmpty is k, or an empty set for drawing when k is nil.
func orEmpty(k *Known) *Known {
	if k == nil {
		return &Known{}
	}
	return k
}

// TestKnownClean: over drawn texts, Clean is true only where Mask leaves
// the text as it is.
func TestKnownClean(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	clean := 0
	for i := range 5000 {
		k := &Known{}
		secrets := []string{fmt.Sprintf("tok%x", r.Uint32()), "pass word"}
		k.Add(secrets...)
		text := drawText(r, secrets, k)
		if i%3 == 0 {
			text = strings.NewReplacer("://", ":/", "sec", "s", "tok", "t").Replace(text)
		}
		if k.Clean([]byte(text)) {
			clean++
			if m := k.Mask(text); m != text {
				t.Fatalf("Clean said the mask leaves %q alone; it gives %q", text, m)
			}
		}
	}
	if clean == 0 {
		t.Fatal("no drawn text was clean: the test proves nothing")
	}
}

// TestKnownWriterMultiline: a secret that holds a line break, cut by a
// chunk boundary or not, is masked as by NewWriter (the whole write
// masked at once).
func TestKnownWriterMultiline(t *testing.T) {
	k := &Known{}
	k.Add("first-line\nsecond-line")
	text := strings.Repeat("x", StreamChunk) + "\nkey: first-line\nsecond-line\n" + strings.Repeat("y", StreamChunk) + "\n"
	var want, got bytes.Buffer
	w, g := NewWriter(&want, k.Mask), NewKnownWriter(&got, k)
	w.Write([]byte(text))
	g.Write([]byte(text))
	w.Flush()
	g.Flush()
	if got.String() != want.String() || strings.Contains(got.String(), "first-line\nsecond") {
		t.Fatalf("multiline secret: got %q, NewWriter %q", got.String(), want.String())
	}
}

// BenchmarkKnownWriter is BenchmarkWriter through NewKnownWriter, and a
// report with no URL in 64 KiB chunks (the merged envelope's write).
func BenchmarkKnownWriter(b *testing.B) {
	var k Known
	k.AddURL("http://alice:hunter22pw@h/mcp?api_key=abcdefgh12")
	line := `{"name":"case-0042","verdict":"pass","runs":3,"message":"call 3 of tool search returned 12 results"}` + "\n"
	chunk := []byte(strings.Repeat(line, (64<<10)/len(line)))
	for _, c := range []struct {
		name string
		w    *Writer
	}{{"Writer", NewWriter(nilWriter{}, k.Mask)}, {"KnownWriter", NewKnownWriter(nilWriter{}, &k)},
		{"Writer-none", NewWriter(nilWriter{}, (&Known{}).Mask)}, {"KnownWriter-none", NewKnownWriter(nilWriter{}, &Known{})}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			for b.Loop() {
				c.w.Write(chunk)
			}
		})
	}
}

// nilWriter discards what it is given (io.Discard's WriteString would
// hide the cost of the string a Writer makes).
type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestIndexSep: over drawn strings of colons, slashes and letters,
// indexSep finds the first "://" where strings.Index does, in a string
// and in bytes.
func TestIndexSep(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	alphabet := ":/a\"h"
	found := 0
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		want := strings.Index(string(b), "://")
		if want >= 0 {
			found++
		}
		if got := indexSep(string(b)); got != want {
			t.Fatalf("indexSep(%q) = %d, strings.Index %d", b, got, want)
		}
		if got := indexSep(b); got != want {
			t.Fatalf("indexSep([]byte %q) = %d, strings.Index %d", b, got, want)
		}
	}
	if found == 0 {
		t.Fatal("no drawn string held a \"://\"")
	}
}

// TestSmallWritesMaskWhole: a known secret, a URL with credentials and a
// URL's scheme written apart from its "://", cut into three small
// writes at every pair of places: the output is the whole text's mask.
func TestSmallWritesMaskWhole(t *testing.T) {
	k := &Known{}
	sec := "tok-9f8e7d6c &/=%"
	k.Add(sec)
	text := "ran :// " + sec + "https://u:pw123456@h/x?token=abcdefgh1 \"" + sec + "\"\r\x1b[K 1:23 http"
	want := k.Mask(text)
	for a := 1; a < len(text); a++ {
		for b := a + 1; b < len(text); b++ {
			var got bytes.Buffer
			w := NewKnownWriter(&got, k)
			for _, p := range []string{text[:a], text[a:b], text[b:]} {
				w.Write([]byte(p))
			}
			w.Flush()
			if got.String() != want {
				t.Fatalf("cut at %d and %d: %q, want %q", a, b, got.String(), want)
			}
		}
	}
}

// TestIsSchemeByte: every byte against the letters, digits and + . - a
// URL's scheme is made of.
func TestIsSchemeByte(t *testing.T) {
	const scheme = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-"
	for c := 0; c < 256; c++ {
		if got, want := isSchemeByte(byte(c)), strings.IndexByte(scheme, byte(c)) >= 0; got != want {
			t.Errorf("isSchemeByte(%q) = %v", byte(c), got)
		}
	}
}

// TestHoldFrom: where a small write's end is held, at each edge: the
// longest end that begins a secret, not the secret whole, a secret
// whole across a URL's cut, the start of "://".
func TestHoldFrom(t *testing.T) {
	k := &Known{}
	k.Add("secret-1 x")
	for _, c := range []struct {
		text string
		want int
	}{
		{"ran ", 4},
		{"ran s", 4},
		{"ran secret-1 ", 4},
		{"ran secret-1 x", 14},
		{"ran secret-1 x.", 15},
		{"ran http:", 4},
		{"ran http:/", 4},
		{"ran http:/x", 11},
		{"ran http://h", 4},
		{"1:23", 4},
		{"secret-1 x://h", 0},
		{"ran secret-1 x:", 4},
		{"a secret-1 xsecret-1 x://h", 12},
		{"a secret-1 x secret-1 x://h", 13},
	} {
		if got := k.holdFrom([]byte(c.text)); got != c.want {
			t.Errorf("holdFrom(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}
