package mcpserver

import (
	"strings"
	"testing"
)

// FuzzDoctorWalkConfig feeds arbitrary MCP client configs (a cloned
// repository's .mcp.json is untrusted input) and an environment value
// through the discovery walk's parser and its redaction: ParseConfig never
// panics and every server it returns has exactly one of command and url;
// and whatever the walk prints about a server (its target, a connection
// error repeating the expanded url or argv) never holds the value a
// ${VAR} reference expanded to, unless the config itself writes it.
func FuzzDoctorWalkConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"gh": {"command": "npx", "args": ["--token", "${GH_TOKEN}"]}}}`), "s3cr3tvalue")
	f.Add([]byte(`{"mcpServers": {"r": {"type": "http", "url": "https://u:pw@h/mcp?key=${env:K}", "headers": {"Authorization": "Bearer ${K}"}}}}`), "abcdabcd")
	f.Add([]byte(`{"servers": {"v": {"command": "x", "args": ["a${X}${X}b", "${X:-dflt}", "${input:tok}"]}}}`), "aba")
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x"}}, "projects": {"/w": {"mcpServers": {"b": {"url": "u${Y}"}}}}}`), "zz")
	f.Add([]byte(`{"mcpServers": {"a": {"command": 42}}}`), "x")
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "url": "y"}}}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, secret string) {
		if len(data) > 8<<10 || len(secret) > 64 {
			return
		}
		for _, client := range Clients {
			servers, err := ParseConfig(data, "f.json", client, "/w")
			if err != nil {
				continue
			}
			getenv := func(string) string { return secret }
			for _, s := range servers {
				if (len(s.Command) > 0) == (s.URL != "") {
					t.Fatalf("server %q: command %q and url %q, want exactly one", s.Name, s.Command, s.URL)
				}
				shown := s.Shown()
				expanded := s.Target("/w", getenv).String()
				out := s.Hide(getenv)(expanded + " " + shown)
				if secretLike(secret) && !strings.Contains(shown, secret) && strings.Contains(out, secret) {
					t.Fatalf("the walk prints %q, the value of a reference in %q:\n%s", secret, shown, out)
				}
			}
		}
	})
}

// secretLike reports a value the property applies to: at least two
// characters, letters and digits only (a value made of a reference's own
// characters, such as "${", can always be found in the reference).
func secretLike(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
