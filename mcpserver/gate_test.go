package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/live"
)

// hostLog is an HTTP server standing in for a host: it records the
// Authorization header of every request, and serves MCP when it has a
// server to serve.
type hostLog struct {
	mu   sync.Mutex
	seen []string
	mcp  http.Handler
}

func (h *hostLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" Authorization="+r.Header.Get("Authorization"))
	h.mu.Unlock()
	if h.mcp == nil {
		http.Error(w, "nothing here", http.StatusInternalServerError)
		return
	}
	h.mcp.ServeHTTP(w, r)
}

func (h *hostLog) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// gateWorkspace declares the URL servers of the gate tests in mcptest.yml.
func gateWorkspace(t *testing.T, servers string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "mcptest.yml"), []byte("servers:\n"+servers), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// realCatalog is Options.Catalog as the binary has it: live.Load with the
// front door's environment.
func realCatalog(getenv func(string) string) func(context.Context, string, live.Target) (any, error) {
	return func(ctx context.Context, what string, tg live.Target) (any, error) {
		cat, err := live.Load(ctx, tg, getenv)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(cat.Tools)
		return json.RawMessage(`{"tools":` + string(b) + `}`), err
	}
}

// Without --enable-writes a url target is reached only as declared in
// mcptest.yml, with its declared bearer_token_env: every other url, every
// other env var, and every spelling trick is refused before a request is
// sent, so no credential of the front door's environment leaves it.
func TestURLGateInMemory(t *testing.T) {
	attacker := &hostLog{}
	attackSrv := httptest.NewServer(attacker)
	defer attackSrv.Close()
	mock := mcp.NewServer(&mcp.Implementation{Name: "declared", Version: "v1"}, nil)
	declared := &hostLog{mcp: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mock }, nil)}
	declSrv := httptest.NewServer(declared)
	defer declSrv.Close()
	plain := &hostLog{mcp: declared.mcp}
	plainSrv := httptest.NewServer(plain)
	defer plainSrv.Close()

	declURL, plainURL, attackURL := declSrv.URL+"/mcp", plainSrv.URL+"/mcp", attackSrv.URL+"/mcp"
	root := gateWorkspace(t, "  declared:\n    url: "+declURL+"\n    bearer_token_env: DECLARED_TOKEN\n  plain:\n    url: "+plainURL+"\n")
	env := map[string]string{"SECRET_TOKEN": "s3cr3t", "DECLARED_TOKEN": "decl"}
	getenv := func(k string) string { return env[k] }
	cs := inMemory(t, Options{Root: root, Version: "test", Getenv: getenv, catalog: realCatalog(getenv), newRunID: func() string { return "01RUN" }})

	host := strings.TrimPrefix(declSrv.URL, "http://")
	refused := []map[string]any{
		{"url": attackURL, "bearer_token_env": "SECRET_TOKEN"},
		{"url": attackURL},
		{"url": declURL, "bearer_token_env": "SECRET_TOKEN"},
		{"url": plainURL, "bearer_token_env": "SECRET_TOKEN"},
		{"url": plainURL, "bearer_token_env": "DECLARED_TOKEN"},
		{"url": declURL + "/", "bearer_token_env": "DECLARED_TOKEN"},
		{"url": strings.ToUpper(declSrv.URL) + "/mcp", "bearer_token_env": "DECLARED_TOKEN"},
		{"url": "http://" + host + "@" + strings.TrimPrefix(attackSrv.URL, "http://") + "/mcp", "bearer_token_env": "DECLARED_TOKEN"},
		{"url": "http://declared:x@" + strings.TrimPrefix(attackSrv.URL, "http://") + "/mcp", "bearer_token_env": "DECLARED_TOKEN"},
	}
	verbs := []string{"list_tools", "list_resources", "list_prompts", "get_capabilities", "get_doctor_report", "scaffold_suite", "scaffold_conformance", "scaffold_redteam", "scaffold_eval"}
	for _, args := range refused {
		for _, verb := range verbs {
			text, isErr := callText(t, cs, verb, args)
			if !isErr || !strings.Contains(text, "--enable-writes") {
				t.Errorf("%s %v: %s; want a refusal", verb, args, text)
			}
			if verb == "list_tools" && (!strings.Contains(text, "servers:") || !strings.Contains(text, "mcptest.yml")) {
				t.Errorf("%s %v: %s; want the refusal to name both unlock paths", verb, args, text)
			}
		}
	}
	for name, h := range map[string]*hostLog{"attacker": attacker, "declared": declared, "plain": plain} {
		if got := h.requests(); len(got) > 0 {
			t.Errorf("the %s host received %q", name, got)
		}
	}
	if text, _ := callText(t, cs, "list_tools", map[string]any{"url": declURL, "bearer_token_env": "SECRET_TOKEN"}); !strings.Contains(text, `with bearer_token_env "DECLARED_TOKEN"`) {
		t.Errorf("a declared url with another env: %s", text)
	}

	// An inline suite naming the attacker is never a way around the gate.
	suite := "servers:\n  s:\n    url: " + attackURL + "\n    bearer_token_env: SECRET_TOKEN\ntools:\n  - name: t\n    server: s\n    tool: x\n"
	callText(t, cs, "validate_suite", map[string]any{"suite": suite})
	if text, isErr := callText(t, cs, "run_tool_test", map[string]any{"suite": suite}); !isErr || !strings.Contains(text, "--enable-writes") {
		t.Errorf("run_tool_test without writes: %s", text)
	}
	if got := attacker.requests(); len(got) > 0 {
		t.Errorf("an inline suite reached the attacker: %q", got)
	}

	// As declared: the declared token, to the declared url only; a url
	// declared without a token is reached without one.
	if text, isErr := callText(t, cs, "list_tools", map[string]any{"url": declURL, "bearer_token_env": "DECLARED_TOKEN"}); isErr {
		t.Errorf("the declared url and env: %s", text)
	}
	if text, isErr := callText(t, cs, "list_tools", map[string]any{"url": plainURL}); isErr {
		t.Errorf("the declared url without a token: %s", text)
	}
	for _, r := range declared.requests() {
		if !strings.HasSuffix(r, "Authorization=Bearer decl") {
			t.Errorf("declared host: %s; want the declared token", r)
		}
	}
	for _, r := range plain.requests() {
		if !strings.HasSuffix(r, "Authorization=") {
			t.Errorf("host declared without a token: %s", r)
		}
	}
	if len(declared.requests()) == 0 || len(plain.requests()) == 0 {
		t.Errorf("the declared hosts were not reached: %q %q", declared.requests(), plain.requests())
	}
	if got := attacker.requests(); len(got) > 0 {
		t.Errorf("the attacker received %q", got)
	}
}
