package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmBin locates a server installed by .ci/run (npm ci --prefix .ci/node).
// Locally it skips when the servers are absent; under CI=true it fails.
func npmBin(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".ci", "node", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs it with `npm ci --prefix .ci/node`", name)
		}
		t.Skipf("%s is not installed; run `npm ci --prefix .ci/node` to test against the real server", name)
	}
	return p
}

func load(t *testing.T, tg Target) *Catalog {
	t.Helper()
	c, err := Load(context.Background(), tg, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func toolNames(c *Catalog) []string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestRealServersOverStdio(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		bin       string
		args      []string
		wantTools []string
		prompts   bool
		resources bool
	}{
		{"mcp-server-everything", nil, []string{"echo", "get-sum"}, true, true},
		{"mcp-server-filesystem", []string{dir}, []string{"read_text_file", "write_file", "list_directory"}, false, false},
		{"mcp-server-memory", nil, []string{"create_entities", "read_graph", "search_nodes"}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.bin, func(t *testing.T) {
			bin := npmBin(t, tc.bin)
			c := load(t, Target{Command: append([]string{bin}, tc.args...), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.json")}})
			names := strings.Join(toolNames(c), ",")
			for _, w := range tc.wantTools {
				if !strings.Contains(","+names+",", ","+w+",") {
					t.Errorf("tools %s lack %s", names, w)
				}
			}
			for _, tool := range c.Tools {
				if m, ok := tool.InputSchema.(map[string]any); !ok || m["type"] != "object" {
					t.Errorf("tool %s: inputSchema %v", tool.Name, tool.InputSchema)
				}
			}
			if c.ServerInfo == nil || c.ServerInfo.Name == "" || c.Capabilities == nil || c.Capabilities.Tools == nil {
				t.Errorf("initialize result incomplete: %+v", c)
			}
			if tc.prompts != (len(c.Prompts) > 0) || tc.resources != (len(c.Resources) > 0) {
				t.Errorf("prompts %d, resources %d", len(c.Prompts), len(c.Resources))
			}
		})
	}
}

// TestStdioEnv: a command's env: reaches the child.
func TestStdioEnv(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	s, err := Connect(ctx, Target{Command: []string{bin}, Env: map[string]string{"MCPTEST_PROBE": "hello-from-env"}}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get-env"})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(res.Content)
	if !strings.Contains(string(text), "hello-from-env") {
		t.Errorf("get-env does not show MCPTEST_PROBE: %.300s", text)
	}
}

func TestCommandNotFound(t *testing.T) {
	_, err := Load(context.Background(), Target{Command: []string{"/nonexistent/mcp-server"}}, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "start MCP server") {
		t.Fatalf("err = %v", err)
	}
}

const sampleCatalog = `
tools:
  - name: search_docs
    description: Search the document index for a query and return matching titles.
    inputSchema:
      type: object
      properties:
        query: {type: string, description: The words to search for.}
      required: [query]
    annotations: {readOnlyHint: true}
  - name: fetch_doc
    description: Fetch one document by id and return its text.
    inputSchema:
      type: object
      properties:
        id: {type: string}
prompts:
  - name: summarize
    description: Summarize a document.
resources:
  - uri: docs://index
    name: index
    description: The document index.
`

// sampleMock is sampleCatalog and its mock server.
func sampleMock(t *testing.T) (*Catalog, *mcp.Server) {
	t.Helper()
	cat, err := ParseCatalog([]byte(sampleCatalog))
	if err != nil {
		t.Fatal(err)
	}
	mock, err := MockServer(cat)
	if err != nil {
		t.Fatal(err)
	}
	return cat, mock
}

// authServer is a streamable-HTTP MCP server that wants `Bearer good`: no
// token gets 401 with a challenge, a wrong one 403.
func authServer(t *testing.T) *httptest.Server {
	_, mock := sampleMock(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mock }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			h.ServeHTTP(w, r)
		case "":
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		default:
			http.Error(w, "forbidden", http.StatusForbidden)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStreamableHTTPAuth(t *testing.T) {
	srv := authServer(t)
	env := map[string]string{"GOOD": "good", "BAD": "bad"}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()

	c, err := Load(ctx, Target{URL: srv.URL, BearerTokenEnv: "GOOD"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(toolNames(c), ","); got != "fetch_doc,search_docs" {
		t.Errorf("tools = %s", got)
	}

	cases := []struct {
		env    string
		status int
		want   string
	}{
		{"MCP_TOKEN", 401, "auth failed: HTTP 401 from " + srv.URL + `, server advertises Bearer realm="mcp".` + "\n" +
			"env var `MCP_TOKEN` (named by `bearer_token_env`) is not set or is empty in this process;\n" +
			"export a valid token into it. Diagnose with: mcptest doctor --url " + srv.URL + " --bearer-token-env MCP_TOKEN"},
		{"BAD", 403, "auth failed: HTTP 403 from " + srv.URL + ", server advertises no scheme (no WWW-Authenticate header).\n" +
			"env var `BAD` (named by `bearer_token_env`) holds a token the server rejected;\n" +
			"export a valid token into it. Diagnose with: mcptest doctor --url " + srv.URL + " --bearer-token-env BAD"},
		{"", 401, "auth failed: HTTP 401 from " + srv.URL + `, server advertises Bearer realm="mcp".` + "\n" +
			"no `bearer_token_env` names a token for this server;\n" +
			"export a valid token into an env var and name it with --bearer-token-env (or `bearer_token_env:` in servers:). Diagnose with: mcptest doctor --url " + srv.URL + " --bearer-token-env MCP_TOKEN"},
	}
	for _, tc := range cases {
		t.Run(tc.env, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_, err := Load(ctx, Target{URL: srv.URL, BearerTokenEnv: tc.env}, getenv)
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want an *AuthError", err)
			}
			if ae.Status != tc.status {
				t.Errorf("status %d, want %d", ae.Status, tc.status)
			}
			if err.Error() != tc.want {
				t.Errorf("message:\n%s\nwant:\n%s", err, tc.want)
			}
		})
	}
}

// TestMockServer: the mock advertises exactly the catalog (in name order,
// as the SDK's server lists tools) and answers a call deterministically.
func TestMockServer(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	cat, server := sampleMock(t)
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got, err := (&Session{ClientSession: cs}).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal([]*mcp.Tool{cat.Tools[1], cat.Tools[0]})
	b, _ := json.Marshal(got.Tools)
	if string(a) != string(b) {
		t.Errorf("served tools differ from the catalog:\n%s\n%s", b, a)
	}
	if len(got.Prompts) != 1 || len(got.Resources) != 1 {
		t.Errorf("prompts %d resources %d", len(got.Prompts), len(got.Resources))
	}
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_docs", Arguments: map[string]any{"query": "revenue"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; text != `{"arguments":{"query":"revenue"},"tool":"search_docs"}` {
			t.Errorf("call answered %s", text)
		}
	}
}

func TestParseCatalog(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`[{"name": "a"}]`, ""},
		{`{"tools": []}`, ""},
		{`{"tool": []}`, `expected a "tools" array`},
		{`"x"`, "expected a tools/list result"},
		{`{"tools": [{"description": "x"}]}`, "tools[0] has no name"},
		{`{"tools": [`, "line 1: invalid YAML or JSON: "},
	} {
		_, err := ParseCatalog([]byte(tc.in))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseCatalog(%s) = %v, want %q", tc.in, err, tc.err)
		}
	}
}

// FuzzParseCatalog: any bytes give a catalog or an error, never a panic,
// and the file check gives well-formed catalog errors.
func FuzzParseCatalog(f *testing.F) {
	f.Add([]byte(sampleCatalog))
	f.Add([]byte(`[{"name": "a", "annotations": {"readOnlyHint": "yes"}}]`))
	f.Add([]byte(`{"tools": [null]}`))
	f.Add([]byte(`{"tools": [{"name": "a", "description": "x", "name": "b"}], "tools": []}`))
	f.Add([]byte("tools:\n  - name: a\n    inputSchema:\n      properties: {q: {}, q: {}}\n"))
	f.Add([]byte("tools:\n- name: a\n  description: |\n    two\n    lines\n  inputSchema: {type: object, properties: {n: {maximum: -0, minimum: 1.5e3}}}\n- name: b\n  annotations: {readOnlyHint: true}\nserverInfo: {name: s, version: \"1\"}\n"))
	// Catalogs as real servers and registries write them.
	for _, s := range []string{"everything", "filesystem", "memory"} {
		data, err := os.ReadFile(filepath.Join("testdata", "servers", s+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"tools": [{"name": "launch", "description": "Launch \ud83d\ude80 now", "annotations": null, "title": null, "execution": {"taskSupport": "forbidden"}, "futureField": 1}]}`))
	f.Add([]byte("[{\"name\": \"sep\", \"description\": \"a \u2028 b \u2029 c\"}]"))
	f.Add([]byte(`[{"name": "bad", "description": "lone \ud83d surrogate", "inputSchema": null}]`))
	f.Add([]byte(`[{"name": "n", "inputSchema": {"maximum": 1e400}}]`))
	f.Add([]byte(strings.Repeat("[", 20000)))
	corpus, _ := filepath.Glob("testdata/catalogs/*/*")
	for _, file := range corpus {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		errs := checkCatalog("cat.json", data)
		if isJSON(data) {
			if got, want := errorsText(errs), errorsText(treeCheck("cat.json", data)); got != want {
				t.Fatalf("the walk of the bytes gives:\n%s\nthe checks over a node tree:\n%s", got, want)
			}
		}
		for _, e := range errs {
			if e.Pos.File != "cat.json" || e.Message == "" || e.Kind != "catalog" {
				t.Fatalf("badly formed error %#v", e)
			}
			if e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("a catalog's error without a position: %v", e)
			}
			if e.Source != nil && !bytes.Equal(e.Source, data) {
				t.Fatalf("an error carries bytes that are not the file's: %v", e)
			}
		}
		c, err := ParseCatalog(data)
		if isJSON(data) && len(errs) == 0 && err != nil {
			t.Fatalf("the check accepts the JSON catalog, the parser refuses it: %v", err)
		}
		if err == nil {
			_ = c.RawTools()
			_, _ = MockServer(c)
		}
		// A YAML catalog read tool by tool is read as the whole reader
		// reads it.
		if !isJSON(data) {
			if byTool, ok := readYAMLTools("cat.yml", data); ok {
				whole, err := readYAMLWhole("cat.yml", data)
				if err != nil {
					t.Fatalf("read tool by tool, refused whole: %v", err)
				}
				g, _ := json.Marshal(byTool)
				w, _ := json.Marshal(whole)
				if string(g) != string(w) || !reflect.DeepEqual(byTool.RawTools(), whole.RawTools()) {
					t.Fatalf("tool by tool:\n%s\nwhole:\n%s", g, w)
				}
			}
		}
	})
}

func TestRawToolsKeepInvalidAnnotations(t *testing.T) {
	c, err := ParseCatalog([]byte(`[{"name": "a", "annotations": {"readOnlyHint": "yes"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tools[0].Annotations != nil || c.RawTools()[0]["annotations"].(map[string]any)["readOnlyHint"] != "yes" {
		t.Errorf("typed %+v raw %v", c.Tools[0].Annotations, c.RawTools())
	}
}
