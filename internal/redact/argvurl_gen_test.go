package redact

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// schemeBytes are the bytes a URL scheme is made of after its first letter
// (RFC 3986: letters, digits, + . -), the ends of each range first.
const schemeBytes = "azAZ09+.-mQ5"

// notSchemeBytes are bytes next to those ranges and the ones an argument
// puts before a URL (--url=, KEY=, a quote, a path): none is a scheme's.
const notSchemeBytes = "`{@[/:=\"' ,;(_"

// TestAddArgvURLGenerated is a generator test of AddArgv's URLs: an
// argument that holds a URL after anything else (--db=postgres://…,
// DATABASE_URL=…, a quote, another URL's text) gives the secrets of the
// URL read from its scheme's first byte, so the password and every secret
// parameter are masked by value wherever they show (a message that prints
// the password alone). The scheme is drawn from every byte a scheme may
// hold, its last byte being the first one read back (schemeLen reads from
// the "://" backwards), and the bytes before it from those next to the
// scheme's ranges, which end it. Each argument adds what AddURL adds for
// the URL cut out by the test itself, and nothing when its URL carries no
// secret.
func TestAddArgvURLGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 81))
	for i := range 400 {
		scheme := string(rune('a' + r.IntN(26)))
		for range r.IntN(4) {
			scheme += string(schemeBytes[r.IntN(len(schemeBytes))])
		}
		// the byte read first is drawn from the ends of the ranges
		scheme += string(schemeBytes[r.IntN(len(schemeBytes))])
		prefix := ""
		switch r.IntN(4) {
		case 0:
		case 1:
			prefix = "--url="
		case 2:
			prefix = "DATABASE_URL="
		default:
			prefix = "x" + string(notSchemeBytes[r.IntN(len(notSchemeBytes))])
		}
		pass := fmt.Sprintf("pw%x", r.Uint64())
		tok := fmt.Sprintf("tk%x", r.Uint64())
		secret := r.IntN(4) != 0
		u := scheme + "://"
		if secret {
			u += "user:" + pass + "@"
		}
		u += "db.example/x"
		if r.IntN(2) == 0 {
			u += "?page=2&api_key=" + tok
		}
		arg := prefix + u

		var got, want Known
		got.AddArgv([]string{"server", arg})
		want.AddURL(u)
		if got.Len() != want.Len() {
			t.Fatalf("draw %d: AddArgv([server %q]) added %d spellings; the URL %q alone gives %d", i, arg, got.Len(), u, want.Len())
		}
		text := "failed with " + pass + " and " + tok
		if g, w := got.Mask(text), want.Mask(text); g != w {
			t.Fatalf("draw %d: AddArgv([server %q]) masks %q as %q; the URL alone: %q", i, arg, text, g, w)
		}
		if secret && strings.Contains(got.Mask(text), pass) {
			t.Fatalf("draw %d: AddArgv([server %q]) left the URL's password in %q", i, arg, got.Mask(text))
		}
	}
}

// TestSchemeLenRules states schemeLen's rule: the letters, digits, + . -
// that end the text, up to the first other byte.
func TestSchemeLenRules(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"https", 5},
		{"--url=https", 5},
		{"x`a", 1}, {"x{z", 1}, {"x@A", 1}, {"x[Z", 1}, {"x/0", 1}, {"x:9", 1},
		{"git+ssh", 7}, {"a.b-c", 5},
		{"=", 0}, {"ab=", 0},
	} {
		if got := schemeLen(c.s); got != c.want {
			t.Errorf("schemeLen(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	// every byte: a scheme's is counted, any other ends the scheme
	for b := range 256 {
		in := slices.Contains([]byte("+.-"), byte(b)) || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
		want := 0
		if in {
			want = 2
		}
		if got := schemeLen("=" + string([]byte{'q', byte(b)})); got != want {
			t.Errorf("schemeLen(\"=q\"+%q) = %d, want %d", byte(b), got, want)
		}
	}
}
