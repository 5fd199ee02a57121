package redact

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// refNormalize is normalize written another way: character classes by
// regular expression, words split by their pattern.
func refNormalize(name string, camel bool) string {
	if camel {
		// A capital after a lowercase letter or digit, or a capital that
		// starts a word after capitals (the K of APIKey), starts a word.
		name = regexp.MustCompile(`([a-z0-9])([A-Z])`).ReplaceAllString(name, "${1}_${2}")
		for {
			next := regexp.MustCompile(`([A-Z])([A-Z][a-z])`).ReplaceAllString(name, "${1}_${2}")
			if next == name {
				break
			}
			name = next
		}
	}
	var b strings.Builder
	for _, c := range []byte(name) {
		switch {
		case strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZ", c) >= 0:
			b.WriteByte(c + 32)
		case c == '-':
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func refSecretName(n string) bool {
	if secretNames[n] {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) && n != s {
			return true
		}
	}
	return false
}

// refReference is isReference as a regular expression.
var refReference = regexp.MustCompile(`^\$(\{[A-Za-z0-9_]+\}|[A-Za-z0-9_]+)$`)

// TestSecretKeyAgreesGenerated is a generator test: names drawn from the
// secret words and the characters at the edges of each class the code
// tests ('@' 'A' 'Z' '[', '`' 'a' 'z' '{', '/' '0' '9' ':', '-', '_') read
// as secret exactly when the reference reading says so, and variable
// references are told from values the same way.
func TestSecretKeyAgreesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 9))
	words := []string{"api", "Api", "API", "key", "Key", "KEY", "token", "Token", "access", "Access", "secret", "Secret", "password", "x", "id", "Id", "ID", "auth", "cookie", "set", "private", "max", "count"}
	edges := []string{"@", "A", "Z", "[", "`", "a", "z", "{", "/", "0", "9", ":", "-", "_", ""}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			if r.IntN(3) == 0 {
				b.WriteString(edges[r.IntN(len(edges))])
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		name := b.String()
		want := refSecretName(refNormalize(name, false)) || refSecretName(refNormalize(name, true))
		if got := SecretKey(name); got != want {
			t.Fatalf("SecretKey(%q) = %v, the reference says %v (%q, %q)", name, got, want, refNormalize(name, false), refNormalize(name, true))
		}
	}
	for range 20000 {
		var b strings.Builder
		if r.IntN(8) != 0 {
			b.WriteString("$")
		}
		brace := r.IntN(3) == 0
		if brace {
			b.WriteString("{")
		}
		for range r.IntN(4) {
			b.WriteString(edges[r.IntN(len(edges))])
		}
		if brace && r.IntN(6) != 0 {
			b.WriteString("}")
		}
		v := b.String()
		if got, want := isReference(v), refReference.MatchString(v); got != want {
			t.Fatalf("isReference(%q) = %v, the reference says %v", v, got, want)
		}
	}
}
