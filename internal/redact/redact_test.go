package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSecretKey(t *testing.T) {
	secret := []string{
		"api_key", "apikey", "x_api_key", "token", "access_token", "refresh_token", "id_token",
		"auth_token", "password", "passwd", "secret", "client_secret", "authorization", "cookie",
		"set_cookie", "private_key", "session_token",
		// normalised: case and '-'
		"API_KEY", "Api-Key", "X-API-Key", "x-api-key", "Authorization", "Set-Cookie", "PASSWORD", "Private-Key",
		// suffixes
		"github_token", "GITHUB_TOKEN", "slack-bot-token", "webhook_secret", "db_password", "openai_api_key",
		"--password",
		// camelCase
		"accessToken", "refreshToken", "apiKey", "APIKey", "clientSecret", "authToken", "githubToken",
		"dbPassword", "OAuthToken", "APIToken", "xApiKey", "passWord",
		strings.Repeat("a", 200) + "_token", strings.Repeat("A", 200) + "Secret",
	}
	ordinary := []string{
		"", "tokens", "token_count", "tokenCount", "max_tokens", "maxTokens", "input_tokens", "total_tokens",
		"tokenizer", "secrets_manager", "secret_name", "secretName", "password_hint", "passwordHint",
		"author", "authorized", "cookies_enabled", "keyboard", "key", "api", "private", "query", "path",
		"_token", "_secret", "_password", "_api_key", "mytoken", "apikeys", "token_type", "id", "session",
	}
	for _, k := range secret {
		if !SecretKey(k) {
			t.Errorf("SecretKey(%q) = false, want true", k)
		}
	}
	for _, k := range ordinary {
		if SecretKey(k) {
			t.Errorf("SecretKey(%q) = true, want false", k)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// bearer
		{"bearer header", "Authorization: Bearer abc123def456", "Authorization: [REDACTED]"},
		{"bearer inline", `curl -H "Authorization: Bearer abc123def456" https://api`, `curl -H "Authorization: Bearer [REDACTED]" https://api`},
		{"bearer lowercase", "use bearer tok_live_1234 here", "use bearer [REDACTED] here"},
		{"bearer long alpha", "Bearer abcdefghijklmnopqrstuvwxyz", "Bearer [REDACTED]"},
		{"bearer word", "the bearer of bad news", "the bearer of bad news"},
		{"bearer plain word", "Bearer instrument", "Bearer instrument"},
		{"bearer inside word", "forbearer abc123def456", "forbearer abc123def456"},
		// shapes
		{"openai key", "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123 in text", "key [REDACTED] in text"},
		{"anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-_0123", "[REDACTED]"},
		{"plain sk key", "sk-AbCdEfGhIjKlMnOpQrStUvWx0123", "[REDACTED]"},
		{"sk too short", "sk-learn and sk-12345", "sk-learn and sk-12345"},
		{"sk inside word", "task-AbCdEfGhIjKlMnOpQrStUvWx0123", "task-AbCdEfGhIjKlMnOpQrStUvWx0123"},
		{"github classic", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED]"},
		{"github oauth and server", "gho_0123456789abcdefghij ghs_0123456789abcdefghij ghu_0123456789abcdefghij", "[REDACTED] [REDACTED] [REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"gh word", "ghp_short and ghost_town", "ghp_short and ghost_town"},
		{"slack", "xoxb-1234567890-abcdefghij", "[REDACTED]"},
		{"slack user", "xoxp-1234-5678-abcdef", "[REDACTED]"},
		{"slack other letter", "xoxz-1234567890-abcdefghij", "xoxz-1234567890-abcdefghij"},
		{"aws", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
		{"aws too long", "AKIAIOSFODNN7EXAMPLEX", "AKIAIOSFODNN7EXAMPLEX"},
		{"aws lowercase", "akiaiosfodnn7example", "akiaiosfodnn7example"},
		{"google", "AIzaSyA-0123456789abcdefghijklmnopqrstu", "[REDACTED]"},
		{"google short", "AIzawa Sato", "AIzawa Sato"},
		{"gitlab", "glpat-0123456789abcdefghij", "[REDACTED]"},
		{"npm", "npm_0123456789abcdefghijABCDEFGHIJ0123", "[REDACTED]"},
		{"npm word", "npm_install", "npm_install"},
		{"jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U done",
			"token [REDACTED] done"},
		{"jwt unsigned", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "[REDACTED]"},
		{"eyJ alone", "eyJhbGciOiJIUzI1NiJ9 is a header", "eyJhbGciOiJIUzI1NiJ9 is a header"},
		// URL passwords
		{"url password", "postgres://app:s3cr3t@db.internal:5432/app", "postgres://app:[REDACTED]@db.internal:5432/app"},
		{"url without password", "https://example.com:8443/path?q=1", "https://example.com:8443/path?q=1"},
		{"url user only", "ssh://git@github.com/x", "ssh://git@github.com/x"},
		// "key": "value"
		{"json pair", `{"api_key": "abc123", "city": "Paris"}`, `{"api_key": "[REDACTED]", "city": "Paris"}`},
		{"json pair escaped quote", `{"password": "a\"b", "x": 1}`, `{"password": "[REDACTED]", "x": 1}`},
		{"json number", `{"token": 12345678}`, `{"token": "[REDACTED]"}`},
		{"json suffix", `{"github_token":"x"}`, `{"github_token":"[REDACTED]"}`},
		{"json camel", `{"accessToken": "x"}`, `{"accessToken": "[REDACTED]"}`},
		{"json unterminated", `{"password": "hunter2`, `{"password": "[REDACTED]`},
		{"python repr", `{'client_secret': 'xyz', 'id': 3}`, `{'client_secret': '[REDACTED]', 'id': 3}`},
		{"json ordinary", `{"token_count": 12, "tokens": "many", "max_tokens": 5}`, `{"token_count": 12, "tokens": "many", "max_tokens": 5}`},
		{"json secret object value is left to Value", `{"password": {"a": 1}}`, `{"password": {"a": 1}}`},
		// key=value
		{"query string", "https://api.example.com/v1?access_token=abc123&page=2", "https://api.example.com/v1?access_token=[REDACTED]&page=2"},
		{"env file", "OPENAI_API_KEY=abc\nDEBUG=1", "OPENAI_API_KEY=[REDACTED]\nDEBUG=1"},
		{"quoted assignment", `password="hunter 2" user=bob`, `password="[REDACTED]" user=bob`},
		{"single quoted assignment", `secret='a b c';`, `secret='[REDACTED]';`},
		{"spaced assignment", "token = xyz", "token = [REDACTED]"},
		{"cli flag", "app --password=hunter2 --verbose", "app --password=[REDACTED] --verbose"},
		{"dotted name", "spring.datasource.password=hunter2", "spring.datasource.password=[REDACTED]"},
		{"assignment ordinary", "token_count=12 tokens=5 max_tokens=7 mytoken=1", "token_count=12 tokens=5 max_tokens=7 mytoken=1"},
		// key: value at the start of a line
		{"yaml", "database:\n  host: db\n  password: hunter2\n  port: 5432", "database:\n  host: db\n  password: [REDACTED]\n  port: 5432"},
		{"header", "Cookie: session=abc; theme=dark\r\nAccept: */*", "Cookie: [REDACTED]\r\nAccept: */*"},
		{"x-api-key header", "X-API-Key: 0123abcd", "X-API-Key: [REDACTED]"},
		{"line ordinary", "tokens: 1500\nToken count: 3\nsecret_name: prod-db", "tokens: 1500\nToken count: 3\nsecret_name: prod-db"},
		{"mid-line colon is prose", "the token: a unit of text", "the token: a unit of text"},
		// ordinary text
		{"prose", "The model used 1,200 tokens; the password policy requires a secret question.",
			"The model used 1,200 tokens; the password policy requires a secret question."},
		{"short", "token", "token"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := String(tt.in)
			if got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

// TestStringBoundaries pins the length limit of every rule of String: for
// each, the shortest input it redacts, and the same input one character
// shorter, which it must leave alone.
func TestStringBoundaries(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	A := func(n int) string { return strings.Repeat("A", n) }
	tests := []struct {
		rule, shortest, want, shorter string
	}{
		{"the shortest text String reads", "token=x", "token=[REDACTED]", "token="},
		{"bearer with a digit: 8 characters", "bearer abcd1234", "bearer [REDACTED]", "bearer abc1234"},
		{"bearer with a symbol: 8 characters", "Bearer abcdefg.", "Bearer [REDACTED]", "Bearer abcdef."},
		{"bearer of letters only: 24 characters", "Bearer " + a(24), "Bearer [REDACTED]", "Bearer " + a(23)},
		{"sk-", "sk-" + a(20), Mask, "sk-" + a(19)},
		{"ghp_", "ghp_" + a(20), Mask, "ghp_" + a(19)},
		{"gho_", "gho_" + a(20), Mask, "gho_" + a(19)},
		{"ghs_", "ghs_" + a(20), Mask, "ghs_" + a(19)},
		{"ghu_", "ghu_" + a(20), Mask, "ghu_" + a(19)},
		{"ghr_", "ghr_" + a(20), Mask, "ghr_" + a(19)},
		{"github_pat_", "github_pat_" + a(20), Mask, "github_pat_" + a(19)},
		{"xoxa-", "xoxa-" + a(10), Mask, "xoxa-" + a(9)},
		{"xoxb-", "xoxb-" + a(10), Mask, "xoxb-" + a(9)},
		{"xoxp-", "xoxp-" + a(10), Mask, "xoxp-" + a(9)},
		{"xoxr-", "xoxr-" + a(10), Mask, "xoxr-" + a(9)},
		{"AKIA", "AKIA" + A(16), Mask, "AKIA" + A(15)},
		{"AIza", "AIza" + a(30), Mask, "AIza" + a(29)},
		{"glpat-", "glpat-" + a(20), Mask, "glpat-" + a(19)},
		{"npm_", "npm_" + a(30), Mask, "npm_" + a(29)},
		{"JWT header", "eyJ" + a(4) + ".eyJ" + a(4) + ".", Mask, "eyJ" + a(3) + ".eyJ" + a(4) + "."},
		{"JWT payload", "eyJ" + a(4) + ".eyJ" + a(4) + ".", Mask, "eyJ" + a(4) + ".eyJ" + a(3) + "."},
		{"URL password", "a://:p@h", "a://:[REDACTED]@h", "a://:@h"},
		{"key=value value", "token=x", "token=[REDACTED]", "token="},
		{"key: value value", "token:x", "token:[REDACTED]", "token:"},
		{`"key": value value`, `{"token":1}`, `{"token":"[REDACTED]"}`, `{"token":}`},
		{"_token suffix", "a_token=x", "a_token=[REDACTED]", "_token=x"},
		{"_secret suffix", "a_secret=x", "a_secret=[REDACTED]", "_secret=x"},
		{"_password suffix", "a_password=x", "a_password=[REDACTED]", "_password=x"},
		{"_api_key suffix", "a_api_key=x", "a_api_key=[REDACTED]", "_api_key=x"},
		{"suffix in a header line", "a_token: x", "a_token: [REDACTED]", "_token: x"},
		{"suffix in a JSON pair", `{"a_secret": "x"}`, `{"a_secret": "[REDACTED]"}`, `{"_secret": "x"}`},
	}
	for _, tt := range tests {
		if got := String(tt.shortest); got != tt.want {
			t.Errorf("%s: String(%q) = %q, want %q", tt.rule, tt.shortest, got, tt.want)
		}
		if got := String(tt.shorter); got != tt.shorter {
			t.Errorf("%s: String(%q) = %q, want it unchanged (one character short)", tt.rule, tt.shorter, got)
		}
	}
}

func TestValue(t *testing.T) {
	var in any
	doc := `{
		"city": "Paris",
		"api_key": "abc",
		"Password": 1234,
		"token": null,
		"client_secret": {"nested": "object"},
		"headers": {"Authorization": "Bearer abc123def456", "Accept": "json", "X-Api-Key": ["a", "b"]},
		"token_count": 12,
		"tokens": [{"refresh_token": "r"}, "Bearer abc123def456", 3, true, null],
		"note": "call with access_token=abc123 please",
		"limit": 5
	}`
	if err := json.Unmarshal([]byte(doc), &in); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(in)
	want := map[string]any{
		"city":          "Paris",
		"api_key":       Mask,
		"Password":      Mask,
		"token":         Mask,
		"client_secret": Mask,
		"headers":       map[string]any{"Authorization": Mask, "Accept": "json", "X-Api-Key": Mask},
		"token_count":   12.0,
		"tokens":        []any{map[string]any{"refresh_token": Mask}, "Bearer [REDACTED]", 3.0, true, nil},
		"note":          "call with access_token=[REDACTED] please",
		"limit":         5.0,
	}
	got := Value(in)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("Value:\n%s", g)
	}
	if after, _ := json.Marshal(in); string(after) != string(before) {
		t.Errorf("Value changed its input:\n%s\n%s", before, after)
	}
	if !reflect.DeepEqual(Value(got), got) {
		t.Error("Value is not idempotent")
	}
	for _, v := range []any{nil, 1.5, true, "plain", map[string]any{}, []any{}} {
		if !reflect.DeepEqual(Value(v), v) {
			t.Errorf("Value(%#v) = %#v", v, Value(v))
		}
	}
	ss := Value(map[string]string{"cookie": "a=b", "q": "password=x"})
	if !reflect.DeepEqual(ss, map[string]string{"cookie": Mask, "q": "password=[REDACTED]"}) {
		t.Errorf("map[string]string: %v", ss)
	}
	if l := Value([]string{"sk-AbCdEfGhIjKlMnOpQrStUvWx0123", "x"}); !reflect.DeepEqual(l, []string{Mask, "x"}) {
		t.Errorf("[]string: %v", l)
	}
}

// FuzzString checks that String never panics, is idempotent, that its
// literal filters never skip a rule that would have matched, and that Value
// agrees with it on strings.
//
//	go test ./internal/redact -run '^$' -fuzz FuzzString -fuzztime 60s
func FuzzString(f *testing.F) {
	for _, s := range []string{
		"Authorization: Bearer abc123def456", `{"api_key": "abc", "x": "y"}`, "password=x&token=y",
		"postgres://u:p@h/db", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx", "eyJa.eyJb.c",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", "AKIAIOSFODNN7EXAMPLE",
		"  secret: x\nnext: y", `'token': 'a\'b'`, `"password": "a\\"`, "bearer bearer bearer 12345678",
		"token=\"unterminated", "x-api-key=sk-AbCdEfGhIjKlMnOpQrStUvWx0123@host",
		"bearer abcd1234", "bearer abc1234", "token=x", "a://:p@h", "AKIAAAAAAAAAAAAAAAAA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := String(s)
		if twice := String(once); twice != once {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", s, once, twice)
		}
		if v := Value(s); v != once {
			t.Fatalf("Value(%q) = %q, String gives %q", s, v, once)
		}
		if len(s) >= 7 {
			if all := redactString(s, false); all != once {
				t.Fatalf("the literal filters skip a rule:\n in       %q\n filtered %q\n all      %q", s, once, all)
			}
		}
	})
}

func BenchmarkString(b *testing.B) {
	s := strings.Repeat(`{"flight_number": "HAT069", "origin": "JFK", "status": "available", "prices": {"economy": 121}} `, 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

// TestNestedURLParamsGenerated: drawn URLs whose query values are URLs
// in turn (a redirect, a callback), one to four deep, each level's
// parameters cut by ?, &, ; or #, with a credential (a key QueryKey
// names) at a drawn level and place: it never comes out of URLs, nor of
// a Known holding what URLSecrets finds in the outermost URL, written
// whole or through a Writer in drawn small pieces. A value's own "?"
// once hid every parameter after it (?redirect=https://h/cb?token=…).
func TestNestedURLParamsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 11))
	keys := []string{"token", "api_key", "sig", "access_token", "X-Api-Key", "session"}
	plain := []string{"redirect", "next", "callback", "state", "to", "u"}
	for i := range 2000 {
		depth := 1 + r.IntN(4)
		at := r.IntN(depth)
		secret := fmt.Sprintf("s3cr%xt", r.Uint64())
		var build func(level int) string
		build = func(level int) string {
			var b strings.Builder
			fmt.Fprintf(&b, "https://h%d.example/p%d", level, r.IntN(9))
			sep := "?"
			params := 1 + r.IntN(3)
			for p := range params {
				b.WriteString(sep)
				sep = []string{"&", ";", "&", "#"}[r.IntN(4)]
				switch {
				case level == at && p == params-1:
					fmt.Fprintf(&b, "%s=%s", keys[r.IntN(len(keys))], secret)
				case level < depth-1 && p == 0:
					fmt.Fprintf(&b, "%s=%s", plain[r.IntN(len(plain))], build(level+1))
				default:
					fmt.Fprintf(&b, "%s=v%d", plain[r.IntN(len(plain))], r.IntN(99))
				}
			}
			return b.String()
		}
		u := build(0)
		if !strings.Contains(u, secret) {
			continue // the level drawn had no room for it
		}
		text := "see " + u + " now"
		if got := URLs(text); strings.Contains(got, secret) {
			t.Fatalf("URL %d: URLs left the credential:\n%s\n%s", i, text, got)
		}
		if !slices.Contains(URLSecrets(u), secret) {
			t.Fatalf("URL %d: URLSecrets(%q) = %q, missing %q", i, u, URLSecrets(u), secret)
		}
		var out bytes.Buffer
		w := NewKnownWriter(&out, &Known{})
		for rest := text; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(16))
			w.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		w.Flush()
		if strings.Contains(out.String(), secret) {
			t.Fatalf("URL %d: written in pieces, the credential came out:\n%s", i, out.String())
		}
	}
}
