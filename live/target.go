package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/redact"
)

// Target is one MCP server to read: exactly one of Command (stdio) and URL
// (streamable HTTP), or a saved catalog file.
type Target struct {
	// Name is the server's name in a suite, "" for a command-line target.
	Name    string
	Command []string
	// Env is merged into the child's environment (stdio only).
	Env map[string]string
	URL string
	// BearerTokenEnv names the env var holding the bearer token (URL only).
	BearerTokenEnv string
	// Dir is the working directory of a stdio command, "" for this
	// process's; a suite's servers run in the suite's directory.
	Dir string
	// Catalog is a saved tools/list document (JSON or YAML).
	Catalog string
	// Timeout bounds starting the server, the initialize handshake and
	// each request; 0 is DefaultTimeout.
	Timeout time.Duration
	// Elicitation and Sampling declare the client capabilities of the
	// same names at initialize, answered by the Asker a test sets on the
	// session (Session.SetAsker). They are set only when a test scripts
	// the answers, so a server that checks capabilities falls back
	// otherwise.
	Elicitation, Sampling bool
}

// Limit is the target's timeout: Timeout, or DefaultTimeout when unset.
func (t Target) Limit() time.Duration {
	if t.Timeout > 0 {
		return t.Timeout
	}
	return DefaultTimeout
}

// String describes the target for messages, with its secrets masked
// (redact.Join for a command line, redact.String for a URL): every message
// that names a target goes through it.
func (t Target) String() string {
	switch {
	case t.Catalog != "":
		return "catalog " + t.Catalog
	case t.URL != "":
		return redact.String(t.URL)
	default:
		return redact.Join(t.Command)
	}
}

// Validate reports a target that is not exactly one kind.
func (t Target) Validate() error {
	n := 0
	for _, set := range []bool{len(t.Command) > 0, t.URL != "", t.Catalog != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("no target: give --url URL, --server NAME --config suite.yml, --catalog FILE, or -- COMMAND ARGS...")
	case n > 1:
		return fmt.Errorf("more than one target (%s): give exactly one of --url, --server, --catalog and -- COMMAND", t)
	case t.BearerTokenEnv != "" && t.URL == "":
		return errors.New("--bearer-token-env goes with --url")
	}
	return nil
}

// CommandLine is the argv of a stdio server as a command line gives it:
// after `--` (after), or as --command with its --arg list (for a launcher
// that keeps the `--` for itself, such as the MCP Inspector), never both;
// nil when it gives none.
func CommandLine(after []string, command string, args []string) ([]string, error) {
	switch {
	case command != "" && len(after) > 0:
		return nil, errors.New("--command and -- COMMAND both name the server's command: give one of them")
	case command == "" && len(args) > 0:
		return nil, fmt.Errorf("--arg %q has no --command: --arg adds an argument to --command CMD", args[0])
	case command != "":
		return append([]string{command}, args...), nil
	}
	return after, nil
}

// DefaultTimeout bounds connecting to a server and each request, unless the
// target sets its own (--timeout, or timeout: on a suite's server).
const DefaultTimeout = 30 * time.Second

// Session is an open connection to a live target.
type Session struct {
	*mcp.ClientSession
	stderr *tailBuffer
	target Target
	// tap keeps the tools/list results as the server wrote them.
	tap *toolsTap
	// stop ends the process context of a session Dial opened.
	stop context.CancelFunc
	// ask holds the script answering the server's requests, nil when
	// the session declared neither elicitation nor sampling.
	ask *askSlot
	// dropped counts the server's requests read past
	// MaxPendingServerRequests unanswered ones, and dropped.
	dropped *atomic.Int64
}

// DroppedRequests is how many requests the server sent while
// MaxPendingServerRequests of its requests were unanswered: each was
// dropped unanswered.
func (s *Session) DroppedRequests() int64 {
	if s.dropped == nil {
		return 0
	}
	return s.dropped.Load()
}

// Close ends the session, and a stdio server's process.
func (s *Session) Close() error {
	err := s.ClientSession.Close()
	if s.stop != nil {
		s.stop()
	}
	return err
}

// Dial opens a session that lives as long as ctx, the server's start and
// handshake bounded by the target's timeout: a server that has not
// answered initialize by then is stopped, and the error says so.
func Dial(ctx context.Context, t Target, getenv func(string) string) (*Session, error) {
	ctx, stop := context.WithCancel(ctx)
	connected := make(chan struct{})
	var expired atomic.Bool
	timer := time.AfterFunc(t.Limit(), func() {
		select {
		case <-connected:
		default:
			expired.Store(true)
			stop()
		}
	})
	s, err := Connect(ctx, t, getenv)
	close(connected)
	timer.Stop()
	if err != nil {
		stop()
		if expired.Load() {
			return nil, fmt.Errorf("start MCP server %q: %w", t, timedOut(context.Background(), t, context.DeadlineExceeded))
		}
		return nil, err
	}
	s.stop = stop
	return s, nil
}

// Connect opens a session with a live target (not a catalog file). getenv
// reads the bearer token and the child's base environment is this
// process's.
func Connect(ctx context.Context, t Target, getenv func(string) string) (*Session, error) {
	client, ask := newClient(t)
	tap := &toolsTap{}
	if t.URL != "" {
		tr, probe := httpTransport(t, "", getenv)
		probe.tools = tap
		dropped := new(atomic.Int64)
		cs, err := client.Connect(ctx, &boundedTransport{inner: tr, dropped: dropped}, nil)
		if err != nil {
			if st, challenge := probe.failure(); st != 0 {
				return nil, &AuthError{Status: st, URL: t.URL, Challenge: challenge, EnvVar: t.BearerTokenEnv, TokenSet: probe.token != ""}
			}
			return nil, fmt.Errorf("connect to %s: %w", t.URL, timedOut(ctx, t, err))
		}
		return &Session{ClientSession: cs, target: t, tap: tap, ask: ask, dropped: dropped}, nil
	}
	tr, stderr, err := commandTransport(ctx, t)
	if err != nil {
		return nil, err
	}
	dropped := new(atomic.Int64)
	cs, err := client.Connect(ctx, &tappedTransport{inner: &boundedTransport{inner: tr, dropped: dropped}, tap: tap}, nil)
	if err != nil {
		msg := fmt.Sprintf("start MCP server %q: %v", t, timedOut(ctx, t, err))
		return nil, errors.New(msg + stderrSays(stderr.String()))
	}
	return &Session{ClientSession: cs, stderr: stderr, target: t, tap: tap, ask: ask, dropped: dropped}, nil
}

// httpTransport is the SDK's streamable HTTP client transport for a URL
// target, through an authProbe that adds the bearer token getenv reads and,
// when version is set, the Mcp-Protocol-Version header. The token goes to
// the target's origin only, and a redirect to another origin is not
// followed: a server cannot pass the credential on to another host.
func httpTransport(t Target, version string, getenv func(string) string) (*mcp.StreamableClientTransport, *authProbe) {
	probe := &authProbe{base: http.DefaultTransport, version: version, origin: originOf(t.URL)}
	if t.BearerTokenEnv != "" {
		probe.token = getenv(t.BearerTokenEnv)
	}
	return &mcp.StreamableClientTransport{
		Endpoint:             t.URL,
		HTTPClient:           &http.Client{Transport: probe, CheckRedirect: sameOriginRedirect},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}, probe
}

// originOf is a URL's scheme, host and port, lower case, the port spelled
// out: two URLs with one origin reach one server. An unparsable URL has
// the origin "", which no request matches.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return requestOrigin(u)
}

func requestOrigin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// sameOriginRedirect follows a redirect within the first request's origin
// only (and at most 10, as net/http does).
func sameOriginRedirect(r *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if from, to := requestOrigin(via[0].URL), requestOrigin(r.URL); from != to {
		return fmt.Errorf("redirect from %s to %s refused: mcptest follows redirects within the server's origin only, so its token stays there", from, to)
	}
	return nil
}

// commandTransport is the SDK's stdio transport for a command target: the
// command in t.Dir with t.Env merged into this process's environment, its
// stderr's tail kept for error messages. The process lives as long as ctx.
func commandTransport(ctx context.Context, t Target) (*stdioTransport, *tailBuffer, error) {
	if len(t.Command) == 0 {
		return nil, nil, errors.New("connect: the target has no command and no url")
	}
	cmd := exec.CommandContext(ctx, t.Command[0], t.Command[1:]...)
	cmd.Dir = t.Dir
	cmd.Env = os.Environ()
	for _, k := range sortedKeys(t.Env) {
		cmd.Env = append(cmd.Env, k+"="+t.Env[k])
	}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	return &stdioTransport{cmd: cmd}, stderr, nil
}

// timedOut rewords err when ctx's deadline ended the wait: the server did
// not answer within the target's timeout, and this is how to raise it.
func timedOut(ctx context.Context, t Target, err error) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("the server did not answer within %s (raise it with --timeout, or timeout: on the server in the suite)", t.Limit())
}

// authProbe adds the bearer token to every request and remembers the first
// 401 or 403 answer, so a failed connect can say why.
type authProbe struct {
	base  http.RoundTripper
	token string
	// origin is the target's (originOf): the token goes there only.
	origin string
	// version, when set, is sent as the Mcp-Protocol-Version header.
	version string
	// tools, when set, rewrites the answers to tools/list calls.
	tools     *toolsTap
	mu        sync.Mutex
	status    int
	challenge string
}

func (p *authProbe) RoundTrip(r *http.Request) (*http.Response, error) {
	token := p.token
	if token != "" && (p.origin == "" || requestOrigin(r.URL) != p.origin) {
		token = ""
	}
	if token != "" || p.version != "" {
		r = r.Clone(r.Context())
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if p.version != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r.Header.Set("Mcp-Protocol-Version", p.version)
	}
	var resp *http.Response
	var err error
	if p.tools != nil {
		resp, err = p.tools.roundTrip(r, p.base.RoundTrip)
	} else {
		resp, err = p.base.RoundTrip(r)
	}
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		p.mu.Lock()
		if p.status == 0 {
			p.status, p.challenge = resp.StatusCode, resp.Header.Get("WWW-Authenticate")
		}
		p.mu.Unlock()
	}
	return resp, err
}

func (p *authProbe) failure() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status, p.challenge
}

// AuthError is a 401 or 403 from a URL target. Its message is the one
// actionable answer: the status, the scheme the server advertised, which
// env var to set, and the doctor command that diagnoses the layer.
type AuthError struct {
	Status    int
	URL       string
	Challenge string // the WWW-Authenticate header, "" when absent
	EnvVar    string // the bearer_token_env given, "" when none
	TokenSet  bool   // whether EnvVar held a non-empty token
}

func (e *AuthError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "auth failed: HTTP %d from %s, ", e.Status, e.URL)
	if c := oneLine(e.Challenge, 120); c != "" {
		fmt.Fprintf(&b, "server advertises %s.\n", c)
	} else {
		b.WriteString("server advertises no scheme (no WWW-Authenticate header).\n")
	}
	envVar := e.EnvVar
	switch {
	case e.EnvVar == "":
		envVar = "MCP_TOKEN"
		b.WriteString("no `bearer_token_env` names a token for this server;\nexport a valid token into an env var and name it with --bearer-token-env (or `bearer_token_env:` in servers:).")
	case !e.TokenSet:
		fmt.Fprintf(&b, "env var `%s` (named by `bearer_token_env`) is not set or is empty in this process;\nexport a valid token into it.", e.EnvVar)
	default:
		fmt.Fprintf(&b, "env var `%s` (named by `bearer_token_env`) holds a token the server rejected;\nexport a valid token into it.", e.EnvVar)
	}
	fmt.Fprintf(&b, " Diagnose with: mcptest doctor --url %s --bearer-token-env %s", e.URL, envVar)
	return b.String()
}

// oneLine makes untrusted header text safe to print: one line, printable,
// at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// AddSecrets adds the target's secrets to k: its URL's, its bearer
// token's value (read with getenv), its command line's and the values of
// its env: named like secrets.
func (t Target) AddSecrets(k *redact.Known, getenv func(string) string) {
	k.AddURL(t.URL)
	k.AddArgv(t.Command)
	if t.BearerTokenEnv != "" {
		k.Add(getenv(t.BearerTokenEnv))
	}
	for _, name := range slices.Sorted(maps.Keys(t.Env)) {
		if redact.SecretKey(name) || redact.QueryKey(name) {
			k.Add(t.Env[name])
		}
	}
}

// AddArgSecrets adds the secrets of a command line to k (Known.AddArgv)
// and the token each --bearer-token-env VAR of it names, read with getenv;
// the arguments after -- are a server's command, read by AddArgv alone.
func AddArgSecrets(k *redact.Known, args []string, getenv func(string) string) {
	k.AddArgv(args)
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "bearer-token-env" {
			continue
		}
		if !inline && i+1 < len(args) {
			value = args[i+1]
		}
		k.Add(getenv(value))
	}
}
