package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/live"
)

// WalkServer is one discovered server as `mcptest doctor` (with no
// target) reports it: its --format json document.
type WalkServer struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Client  string `json:"client"`
	Scope   string `json:"scope,omitempty"`
	Target  string `json:"target"`
	Status  string `json:"status"` // ok, fail or skipped
	Detail  string `json:"detail,omitempty"`
	Tools   int    `json:"tools,omitempty"`
	Surface int    `json:"tool_surface_tokens,omitempty"`
}

// bearerRef matches an Authorization header value "Bearer ${VAR}" (or
// ${env:VAR}).
var bearerRef = lazyRegexp(`^Bearer \$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$`)

// Diagnose starts one discovered server (unless it cannot be: it asks for
// a VS Code input, or references an unset variable) and reads its catalog;
// every text of the result has passed through s.Hide. root is the
// workspace and home the user's home, for the file names shown; timeout
// bounds the server's start and each request (0: the live default).
func Diagnose(ctx context.Context, s Discovered, root, home string, timeout time.Duration, getenv func(string) string) WalkServer {
	r := WalkServer{Name: s.Name, File: Relative(s.File, root, home), Client: s.Client, Scope: s.Scope}
	t := s.Target(root, getenv)
	t.Timeout = timeout
	hide := s.Hide(getenv)
	r.Target = hide(s.Shown())
	switch {
	case len(s.Prompts) > 0:
		r.Status, r.Detail = "skipped", "not started: it asks VS Code for the input(s) "+strings.Join(s.Prompts, ", ")+" when it starts; diagnose it with --url or -- COMMAND and the values"
		return r
	case len(s.Unset) > 0:
		r.Status, r.Detail = "skipped", "not started: it references the unset environment variable(s) "+strings.Join(s.Unset, ", ")+"; set them and run again"
		return r
	}
	cat, err := live.Load(ctx, t, getenv)
	if err != nil {
		var ae *live.AuthError
		layer := "connect"
		if errors.As(err, &ae) {
			layer = fmt.Sprintf("auth (HTTP %d)", ae.Status)
		}
		r.Status, r.Detail = "fail", hide(layer+": "+strings.Join(strings.Fields(err.Error()), " "))
		return r
	}
	r.Status, r.Tools = "ok", len(cat.Tools)
	r.Surface = cat.SurfaceTokens()
	info := "server did not name itself"
	if cat.ServerInfo != nil {
		info = fmt.Sprintf("server %s %s", cat.ServerInfo.Name, cat.ServerInfo.Version)
	}
	r.Detail = hide(fmt.Sprintf("initialize ok (protocol %s, %s); %d %s, %d %s, %d %s", cat.ProtocolVersion, info, len(cat.Tools), plural(len(cat.Tools), "tool", "tools"), len(cat.Resources), plural(len(cat.Resources), "resource", "resources"), len(cat.Prompts), plural(len(cat.Prompts), "prompt", "prompts")))
	return r
}

// Shown is the entry's target as its config writes it: the url or the
// argv with their ${VAR} references unexpanded, so the walk names where a
// value comes from and never prints the value.
func (s Discovered) Shown() string {
	if s.URL != "" {
		return redact.String(s.URL)
	}
	return redact.Join(s.Command)
}

// Hide returns what the walk passes every line it prints about s
// through: each value an entry's ${VAR} reference expands to (its env,
// headers, args or url may hold a token) is shown as its reference, and
// redact.String masks what is left (a password in a url's user-info, a
// literal key of a known shape).
func (s Discovered) Hide(getenv func(string) string) func(string) string {
	var pairs [][2]string // value, reference
	for _, v := range s.Strings() {
		for _, ref := range References(v) {
			if val := Expand(ref, getenv); len(val) >= 2 && val != ref {
				pairs = append(pairs, [2]string{val, ref})
			}
		}
	}
	// Longer values first, so a value that contains another is masked whole.
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i][0]) > len(pairs[j][0]) })
	return func(text string) string {
		for _, p := range pairs {
			text = strings.ReplaceAll(text, p[0], p[1])
		}
		return redact.String(text)
	}
}

// Target is the live target the entry describes, with its variables
// expanded as the client would; a remote server's "Authorization: Bearer
// ${VAR}" header becomes --bearer-token-env VAR. A workspace server (no
// Scope) starts in root.
func (s Discovered) Target(root string, getenv func(string) string) live.Target {
	t := live.Target{Name: s.Name, URL: Expand(s.URL, getenv)}
	for _, a := range s.Command {
		t.Command = append(t.Command, Expand(a, getenv))
	}
	if len(s.Env) > 0 {
		t.Env = map[string]string{}
		for k, v := range s.Env {
			t.Env[k] = Expand(v, getenv)
		}
	}
	if len(t.Command) > 0 && s.Scope == "" {
		t.Dir = root
	}
	for k, v := range s.Headers {
		if strings.EqualFold(k, "authorization") {
			if m := bearerRef().FindStringSubmatch(v); m != nil {
				t.BearerTokenEnv = m[1]
			}
		}
	}
	return t
}
