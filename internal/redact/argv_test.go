package redact

import (
	"strings"
	"testing"
)

// TestArgv: each spelling of a secret flag users write, and the secrets
// String finds inside an argument, are masked; other flags and their
// values are kept.
func TestArgv(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"server --token tok12345678 --port 8080", "server --token [REDACTED] --port 8080"},
		{"server --password hunter2pass", "server --password [REDACTED]"},
		{"server -client-secret abcdefgh1 -v", "server -client-secret [REDACTED] -v"},
		{"server --client_secret=abcdefgh1", "server --client_secret=[REDACTED]"},
		{"server --auth=abcdefgh12", "server --auth=[REDACTED]"},
		{"server --api-key=abcdefghi1", "server --api-key=[REDACTED]"},
		{"server --API_KEY abcdefghi1", "server --API_KEY [REDACTED]"},
		{"server --apiKey=abcdefghi1", "server --apiKey=[REDACTED]"},
		{"server http://h/x#access_token=abcdefgh12", "server http://h/x#access_token=[REDACTED]"},
		{"server https://u:pa55word@h/x", "server https://u:[REDACTED]@h/x"},
		{`server {"apiKey":"abcdefgh12"}`, `server {"apiKey":"[REDACTED]"}`},
		{"server --max-tokens 100 --token-count 3 -- --x", "server --max-tokens 100 --token-count 3 -- --x"},
		{"server --password", "server --password"},
		{"server --token ${GH_TOKEN} --api-key=$API_KEY", "server --token ${GH_TOKEN} --api-key=$API_KEY"},
		{"server --token ${GH-TOKEN}", "server --token [REDACTED]"},
	} {
		if got := Join(strings.Fields(c.in)); got != c.want {
			t.Errorf("Join(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzArgv: whatever the flag's spelling (dashes, case, separator) and the
// secret's value, the value is not in the masked command line.
func FuzzArgv(f *testing.F) {
	f.Add("password", "hunter2pass", uint8(0))
	f.Add("client-secret", "s3cr3t-value", uint8(1))
	f.Add("apiKey", "abcdefgh12", uint8(2))
	f.Add("AUTH_TOKEN", "zz99zz99zz", uint8(3))
	f.Fuzz(func(t *testing.T, name, value string, form uint8) {
		flagLike := name != "" && name[0] != '-' && !strings.ContainsAny(name, "= \t/:")
		if !flagLike || !SecretKey(name) || len(value) < 4 || value[0] == '-' ||
			strings.Contains("server "+Mask, value) || strings.Contains(name, value) {
			return
		}
		dashes := []string{"-", "--"}[form%2]
		var argv []string
		if form&2 == 0 {
			argv = []string{"server", dashes + name, value}
		} else {
			argv = []string{"server", dashes + name + "=" + value}
		}
		if got := Join(argv); strings.Contains(got, value) {
			t.Fatalf("Join(%q) = %q shows the value", argv, got)
		}
	})
}
