package redact

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestNormalizeAgreesGenerated is a generator test: normalize writes every
// drawn name (secret words, words of other cases, and the bytes at the
// edges of each class it tests: '@' 'A' 'Z' '[', '`' 'a' 'z' '{', '/' '0'
// '9' ':', '-', '_') as the reference reading does, lowercase with '-' as
// '_', and with camel a '_' between the words of a camelCase name.
func TestNormalizeAgreesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 10))
	words := []string{"api", "Api", "API", "key", "Key", "KEY", "token", "Token", "a", "A", "z", "Z", "x", "id", "ID", "Zz", "aZ", "Za"}
	edges := []string{"@", "A", "Z", "[", "`", "a", "z", "{", "/", "0", "9", ":", "-", "_", ""}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			if r.IntN(2) == 0 {
				b.WriteString(edges[r.IntN(len(edges))])
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		name := b.String()
		for _, camel := range []bool{false, true} {
			if got, want := string(normalize(nil, name, camel)), refNormalize(name, camel); got != want {
				t.Fatalf("normalize(%q, camel %v) = %q, the reference says %q", name, camel, got, want)
			}
		}
	}
}

// TestSecretKeyAllocs: SecretKey reads a name of up to 64 bytes with no
// allocation (both readings in a buffer on the stack) and a longer one
// with one.
func TestSecretKeyAllocs(t *testing.T) {
	for _, c := range []struct {
		name   string
		allocs float64
	}{
		{"accessToken", 0},
		{strings.Repeat("aB", 32), 0}, // 64 bytes, 96 in camel: the buffer holds 128
		{strings.Repeat("aB", 32) + "x", 1},
		{strings.Repeat("aB", 100) + "Token", 1},
	} {
		if got := testing.AllocsPerRun(20, func() { SecretKey(c.name) }); got != c.allocs {
			t.Errorf("SecretKey of a %d-byte name: %v allocations, want %v", len(c.name), got, c.allocs)
		}
	}
}

// TestArgvFlagRules: a word that does not start with '-' is no flag, and
// neither is a dashed word whose name holds a space, tab, '/' or ':' (a
// path, a URL): the argument after either is never taken for a secret
// flag's value.
func TestArgvFlagRules(t *testing.T) {
	for _, argv := range [][]string{
		{"password", "hunter2pass"},
		{"server", "token", "abcdefgh12"},
		{"--dir/auth_token", "abcdefgh12"},
		{"--a b_token", "abcdefgh12"},
		{"--a\tb_token", "abcdefgh12"},
		{"-http:auth_token", "abcdefgh12"},
		{"-", "--", "abcdefgh12"},
	} {
		if got := Argv(argv); !reflect.DeepEqual(got, argv) {
			t.Errorf("Argv(%q) = %q, want it as it is", argv, got)
		}
		var k Known
		k.AddArgv(argv)
		if n := k.Len(); n != 0 {
			t.Errorf("AddArgv(%q) added %d spellings, want none", argv, n)
		}
	}
}

// TestKnownAddRules: a value of MinKnown bytes is masked by value, one
// byte shorter is not; the longest of two secrets that start alike is
// masked whole, whichever was added first; AddArgv adds the value of a
// flag named like a secret, not that of another flag.
func TestKnownAddRules(t *testing.T) {
	var k Known
	k.Add(strings.Repeat("q", MinKnown), strings.Repeat("w", MinKnown-1))
	if got, want := k.Mask("q"+strings.Repeat("q", MinKnown-1)+" "+strings.Repeat("w", MinKnown-1)), Mask+" "+strings.Repeat("w", MinKnown-1); got != want {
		t.Errorf("MinKnown edge: %q, want %q", got, want)
	}
	var long Known
	long.Add("abcdefgh")
	long.Add("abcdefgh12")
	if got := long.Mask("x abcdefgh12 y abcdefgh"); got != "x [REDACTED] y [REDACTED]" {
		t.Errorf("a longer secret added second: %q", got)
	}
	var argv Known
	argv.AddArgv([]string{"server", "--model=gpt-4o-mini", "--client-secret=s3cretvalue"})
	if got := argv.Mask("gpt-4o-mini s3cretvalue"); got != "gpt-4o-mini [REDACTED]" {
		t.Errorf("AddArgv: %q, want the secret flag's value alone masked", got)
	}
}

// TestQueryKeyDecoded: a parameter name is read percent-decoded, and as
// written when it does not decode.
func TestQueryKeyDecoded(t *testing.T) {
	for name, want := range map[string]bool{
		"to%6Ben":     true, // token
		"%61uth":      true, // auth
		"%zzkey":      true, // no decoding: read as written
		"page":        false,
		"%70age":      false,
		"%zz":         false,
		"api%5Fkey":   true,
		"access_toke": false,
	} {
		if got := QueryKey(name); got != want {
			t.Errorf("QueryKey(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestURLSecretsRules: exactly the secrets a URL carries, each value as
// written and, when it decodes to something else, decoded; nothing for
// text that is no URL, for a parameter of another name, or one without a
// value.
func TestURLSecretsRules(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"https://h/x?page=2&token=abcdef12", []string{"abcdef12"}},
		{"https://h/x?token=abc%2Fdef12", []string{"abc%2Fdef12", "abc/def12"}},
		{"https://h/x?token=&api_key&page=2", nil},
		{"https://u:pw1234@h/x#sig=s1gnature;page=3", []string{"pw1234", "s1gnature"}},
		{"https://t0ken-value@h/x", []string{"t0ken-value"}},
		{"h/x?token=abcdef12", nil},
		{"://h/x?token=abcdef12", nil},
		{"%zz://h/x?token=abcdef12", nil},
	} {
		if got := URLSecrets(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("URLSecrets(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestURLsEdges: a run of text that starts with the '@' or the '=' a
// URL's rules look for is read whole.
func TestURLsEdges(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"@https://u:pass1234@h/", "@https://u:[REDACTED]@h/"},
		{"=https://h/x?token=abcdef12", "=https://h/x?token=[REDACTED]"},
		{"a=b https://h/x?token=abcdef12", "a=b https://h/x?token=[REDACTED]"},
	} {
		if got := URLs(c.in); got != c.want {
			t.Errorf("URLs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestURLsRunsGenerated is a generator test: over drawn texts of URLs,
// credentials, query pieces and the bytes that break a URL's run, URLs
// masks each run of text between breaks that holds a "://" as urlToken
// masks it alone, and leaves the rest as it is.
func TestURLsRunsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 11))
	pieces := []string{"https://", "h", "/x", "?", "&", "#", ";", "token=", "page=", "abcdef12", "u:pw1234@", "@", "=", ":", "://", "a", " ", "\t", "\n", "\"", "'", "<", ">", "`"}
	masked := 0
	for range 20000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		var want strings.Builder
		for i := 0; i < len(s); {
			j := i
			for j < len(s) && strings.IndexByte(urlBreaks, s[j]) < 0 {
				j++
			}
			if run := s[i:j]; strings.Contains(run, "://") {
				want.WriteString(urlToken(run))
			} else {
				want.WriteString(run)
			}
			if j < len(s) {
				want.WriteByte(s[j])
			}
			i = j + 1
		}
		got := URLs(s)
		if got != want.String() {
			t.Fatalf("URLs(%q) = %q, run by run %q", s, got, want.String())
		}
		if got != s {
			masked++
		}
	}
	if masked == 0 {
		t.Fatal("no drawn text had anything masked")
	}
}

// TestStringFiltersGenerated is a generator test: over drawn texts of
// secret names, separators, quotes, line breaks and values (a ':' or '='
// first among them), the literal filters String runs its rules behind
// never skip a rule that would have matched: String equals every rule run.
func TestStringFiltersGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 12))
	pieces := []string{"password", "token", "api_key", "auth", "x", ":", "=", " ", "\n", "\"", "'", "abc123", "bearer ", "https://", "u:pw1234@h", "?sig=", "sk-", "AbCdEfGhIjKlMnOpQrStUvWx0123"}
	masked := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		got := String(s)
		if len(s) >= 7 {
			if all := redactString(s, false); got != all {
				t.Fatalf("String(%q) = %q, every rule gives %q", s, got, all)
			}
		}
		if got != s {
			masked++
		}
	}
	if masked == 0 {
		t.Fatal("no drawn text had anything masked")
	}
}
