//go:build linux

package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNoSecretInAnyOutput walks every subcommand of the command table (a
// new one is walked without a line here), through the built binary, with
// secrets handed to it every way a user hands them: a --url with a
// password and query keys in many spellings, --bearer-token-env, a stdio
// server's command line (--token X, --api-key=X, a URL argument) and a
// suite's servers: with env:, as flags each command's --help lists, as
// positional arguments and as flags it does not take; against a server
// that cannot be reached, one that refuses (401, echoing what it was
// sent), and one that answers (echoing its URL and Authorization header
// into its catalog). Every secret is generated, so none was written by
// hand, and none may appear in stdout, stderr or any file the process
// wrote.
func TestNoSecretInAnyOutput(t *testing.T) {
	bin := processBin(t)
	refusing, answering := secretEchoServers(t)
	// unreachable is a port that was just free: connecting is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unreachable := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	bases := map[string]string{"unreachable": unreachable, "refusing": refusing + "/mcp", "answering": answering + "/mcp"}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 39))
	var cases []secretCase
	for _, name := range (&Command{}).commandNames() {
		for _, verb := range secretVerbs(name) {
			prefix := append([]string{name}, verb...)
			flags := helpFlags(t, bin, prefix)
			for _, kind := range slices.Sorted(maps.Keys(bases)) {
				cases = append(cases, newSecretCases(rng, prefix, flags, kind, bases[kind], bin)...)
			}
		}
	}
	if testing.Short() {
		rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
		cases = cases[:len(cases)/4]
	}
	t.Logf("%d invocations", len(cases))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for _, sc := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sc.check(t, bin)
		}()
	}
	wg.Wait()
}

// secretVerbs are the first arguments a subcommand takes before its flags;
// a subcommand not named here is walked with none.
func secretVerbs(name string) [][]string {
	switch name {
	case "generate":
		return [][]string{{"suite"}, {"conformance"}, {"redteam"}, {"eval"}, {"agent-suite"}}
	case "scenario", "tool-bench":
		return [][]string{{"run"}}
	case "report":
		return [][]string{nil, {"merge"}}
	}
	return [][]string{nil}
}

var helpFlagLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)

// helpFlags are the flags a command's --help lists.
func helpFlags(t *testing.T, bin string, prefix []string) map[string]bool {
	out, _ := exec.Command(bin, append(slices.Clone(prefix), "--help")...).CombinedOutput()
	flags := map[string]bool{}
	for _, m := range helpFlagLine.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	return flags
}

// queryKeys are spellings services give a credential in a URL's query.
var queryKeys = []string{"api_key", "apiKey", "api-key", "X-API-Key", "key", "token", "access_token", "accessToken",
	"auth", "sig", "signature", "code", "client_secret", "password", "pwd", "session_id", "sessionid", "jwt",
	"private_token", "secret", "AUTH_TOKEN", "refresh-token"}

// secrets hands out generated secret values and remembers them.
type secrets struct {
	rng    *rand.Rand
	values []string
	// pairs are key=value spellings of secrets too short to be masked by
	// value, which must never appear as written.
	pairs []string
}

func (s *secrets) next() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 14)
	for i := range b {
		b[i] = alnum[s.rng.IntN(len(alnum))]
	}
	v := "S" + string(b)
	s.values = append(s.values, v)
	return v
}

// url is base with a password or a token as user, and three to six
// secret query or fragment keys, some values too short to mask by value,
// and now and then a redirect URL holding a credential of its own.
func (s *secrets) url(base string) string {
	host := strings.TrimPrefix(base, "http://")
	var b strings.Builder
	b.WriteString("http://")
	if s.rng.IntN(3) == 0 {
		b.WriteString(s.next() + "@")
	} else {
		b.WriteString("alice:" + s.next() + "@")
	}
	b.WriteString(host + "?page=2")
	n := 3 + s.rng.IntN(4)
	for range n {
		key := queryKeys[s.rng.IntN(len(queryKeys))]
		if s.rng.IntN(2) == 0 {
			key = strings.ToUpper(key)
		}
		v := s.next()
		if s.rng.IntN(4) == 0 {
			v = v[:2+s.rng.IntN(3)]
			s.values = s.values[:len(s.values)-1]
			s.pairs = append(s.pairs, key+"="+v)
		}
		b.WriteString("&" + key + "=" + v)
	}
	if s.rng.IntN(2) == 0 {
		// a value that is itself a URL, with a credential in its own query
		b.WriteString("&redirect_uri=https://cb.example/done?" + queryKeys[s.rng.IntN(len(queryKeys))] + "=" + s.next())
	}
	if s.rng.IntN(3) == 0 {
		b.WriteString("#access_token=" + s.next())
	}
	return b.String()
}

// argv is a stdio server's command line with secrets in its flags and a
// URL argument; it prints its arguments and $API_KEY on stderr, then
// fails (unreachable: it does not exist; refusing: it exits 1) or serves
// a catalog (answering).
func (s *secrets) argv(kind, bin, catalog string) []string {
	script := `printf '%s\n' "$0" "$@" "API_KEY=$API_KEY" >&2; exit 1`
	switch kind {
	case "unreachable":
		return []string{"/nonexistent/server", "--token", s.next()}
	case "answering":
		script = `printf '%s\n' "$0" "$@" "API_KEY=$API_KEY" >&2; exec "$MCPTEST_BIN" mock --tools-from "$MCPTEST_CATALOG"`
	}
	return []string{"sh", "-c", script, "server", "--token", s.next(), "--api-key=" + s.next(), "-client-secret", s.next(),
		"--Password=" + s.next(), s.url("http://127.0.0.1:1/mcp")}
}

// secretCase is one invocation: its arguments, the files written for it
// before it runs (which hold secrets by design), and the secrets.
type secretCase struct {
	args   []string
	inputs map[string]string
	env    []string
	sec    *secrets
}

// newSecretCases are the invocations of one command (prefix) against one
// kind of server: the target flags its --help lists, a suite's servers:,
// the secrets as positional arguments and as flags it does not take.
func newSecretCases(rng *rand.Rand, prefix []string, flags map[string]bool, kind, base, bin string) []secretCase {
	var out []secretCase
	add := func(build func(s *secrets, sc *secretCase) []string) {
		s := &secrets{rng: rng}
		sc := secretCase{sec: s, inputs: map[string]string{"catalog.json": `{"tools":[{"name":"echo","description":"Echo.","inputSchema":{"type":"object"}}]}`}}
		token := s.next()
		sc.env = []string{"MCP_SECRET_TOKEN=" + token, "MCPTEST_BIN=" + bin, "MCPTEST_CATALOG=catalog.json"}
		var args []string
		if flags["output"] {
			args = append(args, "--output", "out/written.file")
		}
		if flags["timeout"] {
			args = append(args, "--timeout", "10s")
		}
		sc.args = append(append(slices.Clone(prefix), args...), build(s, &sc)...) // a -- COMMAND last
		out = append(out, sc)
	}
	if flags["url"] {
		add(func(s *secrets, sc *secretCase) []string {
			args := []string{"--url", s.url(base)}
			if flags["bearer-token-env"] {
				args = append(args, "--bearer-token-env", "MCP_SECRET_TOKEN")
			}
			return args
		})
		add(func(s *secrets, sc *secretCase) []string {
			return []string{"--url=" + s.url(base), "--bearer-token-env=MCP_SECRET_TOKEN"}
		})
		add(func(s *secrets, sc *secretCase) []string {
			return append([]string{"--"}, s.argv(kind, bin, "catalog.json")...)
		})
		add(func(s *secrets, sc *secretCase) []string {
			argv := s.argv(kind, bin, "catalog.json")
			args := []string{"--command", argv[0]}
			for _, a := range argv[1:] {
				args = append(args, "--arg="+a)
			}
			return args
		})
	}
	suite := func(s *secrets, sc *secretCase) {
		argv := s.argv(kind, bin, "catalog.json")
		sc.inputs["suite.yml"] = fmt.Sprintf("servers:\n  web: { url: %q, bearer_token_env: MCP_SECRET_TOKEN }\n  cmd: { command: %s, env: { API_KEY: %q } }\n"+
			"tools:\n  - { name: web call, server: web, tool: echo, args: {} }\n  - { name: cmd call, server: cmd, tool: echo, args: {} }\n",
			s.url(base), yamlList(argv), s.next())
	}
	if flags["server"] {
		for _, srv := range []string{"web", "cmd"} {
			add(func(s *secrets, sc *secretCase) []string {
				suite(s, sc)
				return []string{"--server", srv, "--config", "suite.yml"}
			})
		}
	}
	if flags["config"] && !flags["server"] {
		add(func(s *secrets, sc *secretCase) []string {
			suite(s, sc)
			return []string{"--config", "suite.yml"}
		})
	}
	if kind == "unreachable" { // what does not depend on the server, once
		add(func(s *secrets, sc *secretCase) []string { return []string{s.url(base)} })
		add(func(s *secrets, sc *secretCase) []string {
			return []string{"--url", s.url(base), "--token", s.next(), "--password=" + s.next()}
		})
		add(func(s *secrets, sc *secretCase) []string {
			suite(s, sc)
			return []string{"suite.yml"}
		})
	}
	return out
}

// yamlList is v as a YAML flow sequence of JSON strings.
func yamlList(v []string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, a := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", a)
	}
	return b.String() + "]"
}

// check runs the invocation in a fresh directory (its working directory
// and HOME) and looks for every secret in what it printed and wrote.
func (sc secretCase) check(t *testing.T, bin string) {
	dir := t.TempDir()
	for name, data := range sc.inputs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Error(err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, sc.args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "home"), "LANG=C.UTF-8"}, sc.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it started
	where := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		if err != nil || d.IsDir() || sc.inputs[rel] != "" {
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 && d.Type().IsRegular() {
			data, _ := os.ReadFile(path)
			where[rel] = string(data)
		}
		return nil
	})
	for _, name := range slices.Sorted(maps.Keys(where)) {
		text := where[name]
		for _, s := range sc.sec.values {
			if strings.Contains(text, s) {
				t.Errorf("mcptest %s (%s): %s shows the secret %s:\n%s", strings.Join(sc.args, " "), strings.Join(sc.env[:1], " "), name, s, clipAround(text, s))
			}
		}
		for _, p := range sc.sec.pairs {
			if strings.Contains(text, p) {
				t.Errorf("mcptest %s: %s shows %s:\n%s", strings.Join(sc.args, " "), name, p, clipAround(text, p))
			}
		}
	}
}

// clipAround is the text around the first s.
func clipAround(text, s string) string {
	i := strings.Index(text, s)
	lo, hi := max(0, i-300), min(len(text), i+len(s)+300)
	return text[lo:hi]
}

// secretEchoServers are an HTTP server that refuses every request with a
// 401 whose body and challenge echo the request's URL and Authorization
// header, and an MCP server over streamable HTTP that answers, its
// catalog and server name carrying the same echo.
func secretEchoServers(t *testing.T) (refusing, answering string) {
	echo := func(r *http.Request) string {
		return fmt.Sprintf("you sent http://%s%s with %s", r.Host, r.URL.String(), r.Header.Get("Authorization"))
	}
	ref := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="`+strings.ReplaceAll(echo(r), `"`, "")+`"`)
		http.Error(w, echo(r), http.StatusUnauthorized)
	}))
	t.Cleanup(ref.Close)
	ans := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "echo " + echo(r), Version: "v1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo. " + echo(r)}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: echo(r)}}}, nil, nil
		})
		return srv
	}, nil))
	t.Cleanup(ans.Close)
	return ref.URL, ans.URL
}
