package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// declaredServer is a drawn entry of servers: in mcptest.yml.
type declaredServer struct {
	Command        []string          `json:"command,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	URL            string            `json:"url,omitempty"`
	BearerTokenEnv string            `json:"bearer_token_env,omitempty"`
}

func drawArgv(r *rand.Rand) []string {
	argv := []string{[]string{"node", "python3", "srv"}[r.IntN(3)]}
	for range r.IntN(3) {
		argv = append(argv, []string{"a.js", "--flag", "-v", "x"}[r.IntN(4)])
	}
	return argv
}

func drawEnv(r *rand.Rand) map[string]string {
	if r.IntN(2) == 0 {
		return nil
	}
	env := map[string]string{}
	for range 1 + r.IntN(2) {
		env[[]string{"A", "NODE_OPTIONS", "B"}[r.IntN(3)]] = []string{"1", "2"}[r.IntN(2)]
	}
	return env
}

// varyEnv returns env as declared, without one of its entries, with one
// more, with one value changed, or none.
func varyEnv(r *rand.Rand, env map[string]string) map[string]string {
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		for k := range out {
			delete(out, k)
			break
		}
	case 2:
		out["LD_PRELOAD"] = "x.so"
	case 3:
		for k := range out {
			out[k] += "0"
			break
		}
	}
	return out
}

// TestGatesGenerated draws workspaces declaring command and url servers
// (an env or a bearer_token_env now and then; no mcptest.yml, or one that
// does not parse, in some) and requests near them (a declared argv with
// its env, none, or another; an argv changed; a declared url with its
// token env, none, or another; a url not declared), and holds allowCommand
// and allowURL to the gate's rule: with writes enabled everything passes;
// otherwise exactly a declared argv with no env or exactly its env, and
// exactly a declared url with no token env or exactly its own. A refusal
// names what was asked and why: another env, another token env, no such
// server, no file.
func TestGatesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 55))
	urls := []string{"http://h/mcp", "http://h/mcp/", "http://other/mcp", "https://h/mcp"}
	tokens := []string{"", "TOKEN", "SECRET"}
	for round := range 300 {
		root := t.TempDir()
		var servers []declaredServer
		file := r.IntN(10)
		if file > 0 {
			seen := map[string]bool{}
			var b strings.Builder
			b.WriteString("servers:\n")
			for i := range 1 + r.IntN(4) {
				s := declaredServer{Command: drawArgv(r), Env: drawEnv(r)}
				if r.IntN(2) == 0 {
					s = declaredServer{URL: urls[r.IntN(len(urls))], BearerTokenEnv: tokens[r.IntN(len(tokens))]}
					if seen[s.URL] {
						continue
					}
					seen[s.URL] = true
				}
				servers = append(servers, s)
				j, _ := json.Marshal(s)
				fmt.Fprintf(&b, "  s%d: %s\n", i, j)
			}
			text := b.String()
			if file == 1 {
				servers, text = nil, "servers: [\n"
			}
			if err := os.WriteFile(filepath.Join(root, "mcptest.yml"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writes := r.IntN(8) == 0
		s := &server{opt: Options{Root: root, EnableWrites: writes}}
		for range 6 {
			checkCommandGate(t, round, s, servers, file, r)
			checkURLGate(t, round, s, servers, file, urls[r.IntN(len(urls))], tokens[r.IntN(len(tokens))], r)
		}
	}
}

// noFile is the reason a refusal gives for the drawn file kind.
func noFile(file int) string {
	switch file {
	case 0:
		return "there is no such file"
	case 1:
		return "it could not be read"
	}
	return ""
}

func checkCommandGate(t *testing.T, round int, s *server, servers []declaredServer, file int, r *rand.Rand) {
	t.Helper()
	argv, env := drawArgv(r), drawEnv(r)
	if len(servers) > 0 && r.IntN(3) > 0 {
		d := servers[r.IntN(len(servers))]
		if d.Command != nil {
			argv, env = slices.Clone(d.Command), varyEnv(r, d.Env)
		}
	}
	allowed, sameArgv := s.opt.EnableWrites, false
	for _, d := range servers {
		if slices.Equal(d.Command, argv) {
			sameArgv = true
			allowed = allowed || len(env) == 0 || maps.Equal(d.Env, env)
		}
	}
	err := s.allowCommand(argv, env)
	if (err == nil) != allowed {
		t.Fatalf("round %d: argv %q env %v against %+v: %v, want allowed %v", round, argv, env, servers, err, allowed)
	}
	if err == nil {
		return
	}
	why := noFile(file)
	switch {
	case sameArgv:
		why = "it declares this argv with another env"
	case why == "":
		why = "it declares no such server"
	}
	if msg := err.Error(); !strings.Contains(msg, why) || !strings.HasPrefix(msg, "command target ") {
		t.Fatalf("round %d: argv %q env %v against %+v: %s; want it to say %q", round, argv, env, servers, msg, why)
	}
}

func checkURLGate(t *testing.T, round int, s *server, servers []declaredServer, file int, url, token string, r *rand.Rand) {
	t.Helper()
	if len(servers) > 0 && r.IntN(2) == 0 {
		url = servers[r.IntN(len(servers))].URL // "" for a command server
	}
	allowed, why := s.opt.EnableWrites, noFile(file)
	if why == "" {
		why = "it declares no such server"
	}
	for _, d := range servers {
		if d.URL == "" || d.URL != url {
			continue
		}
		allowed = allowed || token == "" || token == d.BearerTokenEnv
		why = "it declares this url with no bearer_token_env; give none"
		if d.BearerTokenEnv != "" {
			why = fmt.Sprintf("it declares this url with bearer_token_env %q; give that one, or none", d.BearerTokenEnv)
		}
	}
	err := s.allowURL(url, token)
	if (err == nil) != allowed {
		t.Fatalf("round %d: url %q token %q against %+v: %v, want allowed %v", round, url, token, servers, err, allowed)
	}
	if err == nil {
		return
	}
	what := fmt.Sprintf("url target %q refused", url)
	if token != "" {
		what = fmt.Sprintf("url target %q with bearer_token_env %q refused", url, token)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, what) || !strings.Contains(msg, why) {
		t.Fatalf("round %d: url %q token %q against %+v: %s; want %q ... %q", round, url, token, servers, msg, what, why)
	}
}
