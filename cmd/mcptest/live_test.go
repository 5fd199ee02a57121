package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// builds is the directory of the binaries the tests build (mcptestBin,
// releaseBin), one per test binary, removed when the tests end (TestMain).
var builds struct {
	sync.Mutex
	dir string
}

// buildDir returns a new directory under builds.dir.
func buildDir(t testing.TB, name string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "mcptest-test-builds")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir = dir
	}
	dir, err := os.MkdirTemp(builds.dir, name)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// removeBuilds removes the binaries the tests built.
func removeBuilds() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
}

// mcptestBin builds the mcptest binary once per test binary, for the tests
// that start it as a process.
func mcptestBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(buildDir(t, "bin"), "mcptest")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v\n%s", binErr, binPath)
	}
	return binPath
}

func TestToolsFromCatalog(t *testing.T) {
	stdout, stderr, code := mcptest(t, nil, "tools", "--catalog", "testdata/live/catalog.yml", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "testdata/golden/tools-catalog.json", stdout)
	stdout, _, code = mcptest(t, nil, "tools", "--catalog", "testdata/live/catalog.yml")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	golden(t, "testdata/golden/tools-catalog.txt", stdout)
}

func TestTargetErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tools"}, "no target"},
		{[]string{"tools", "--url", "http://x", "--catalog", "c.yml"}, "more than one target"},
		{[]string{"tools", "--catalog", "c.yml", "--bearer-token-env", "T"}, "--bearer-token-env goes with --url"},
		{[]string{"tools", "--catalog", "testdata/live/missing.yml"}, "read catalog"},
		{[]string{"tools", "--server", "nope", "--config", "testdata/live/suite.yml"}, `declares no such server (it declares: docs, remote)`},
		{[]string{"tools", "stray"}, "unexpected argument"},
		{[]string{"resources", "--format", "xml", "--catalog", "x"}, "--format"},
		{[]string{"mock"}, "usage: mcptest mock"},
	} {
		_, stderr, code := mcptest(t, nil, tc.args...)
		if code != ExitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestMockInProcess serves a catalog with `mcptest mock` on pipes and
// lists it with the SDK's client.
func TestMockInProcess(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		c := &Command{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: os.Getenv}
		done <- c.Main([]string{"mock", "--tools-from", "testdata/live/catalog.yml"})
		outW.Close()
	}()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "fetch_doc" {
		t.Errorf("tools %v", res.Tools)
	}
	cs.Close()
	if code := <-done; code != ExitOK {
		t.Errorf("mock exited %d", code)
	}
}

// TestMockOverStdio: the binary's mock, listed over stdio by the binary's
// own tools command, gives the catalog file's tools. The tools command
// prints annotations as they were sent, and the mock serves through the
// SDK, which writes a false readOnlyHint and idempotentHint out: those
// are their MCP defaults, so they are compared as absent.
func TestMockOverStdio(t *testing.T) {
	bin := mcptestBin(t)
	want, _, _ := mcptest(t, nil, "tools", "--catalog", "testdata/live/catalog.yml", "--format", "json")
	got, stderr, code := mcptest(t, nil, "tools", "--format", "json", "--", bin, "mock", "--tools-from", "testdata/live/catalog.yml")
	if code != ExitOK || defaultHintsDropped(t, got) != defaultHintsDropped(t, want) {
		t.Errorf("exit %d %s\n--- served\n%s\n--- file\n%s", code, stderr, got, want)
	}

	// --server resolves a declared server, run in the suite's directory.
	dir := t.TempDir()
	suite, _ := os.ReadFile("testdata/live/suite.yml")
	catalog, _ := os.ReadFile("testdata/live/catalog.yml")
	os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(strings.ReplaceAll(string(suite), "MCPTEST_BIN", bin)), 0o644)
	os.WriteFile(filepath.Join(dir, "catalog.yml"), catalog, 0o644)
	got, stderr, code = mcptest(t, nil, "tools", "--format", "json", "--server", "docs", "--config", filepath.Join(dir, "suite.yml"))
	if code != ExitOK || defaultHintsDropped(t, got) != defaultHintsDropped(t, want) {
		t.Errorf("--server: exit %d %s\n%s", code, stderr, got)
	}
	caps, _, code := mcptest(t, nil, "capabilities", "--format", "json", "--", bin, "mock", "--tools-from", "testdata/live/catalog.yml")
	if code != ExitOK || !strings.Contains(caps, `"name": "mcptest-mock"`) || !strings.Contains(caps, `"tools"`) {
		t.Errorf("capabilities: exit %d\n%s", code, caps)
	}
}

// TestAuthFailureMessage: a 401 from a URL target is the one actionable
// message, exit 3.
func TestAuthFailureMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer srv.Close()
	_, stderr, code := mcptest(t, map[string]string{}, "tools", "--url", srv.URL, "--bearer-token-env", "MCP_TOKEN")
	want := "mcptest: auth failed: HTTP 401 from " + srv.URL + `, server advertises Bearer realm="mcp".` + "\n" +
		"env var `MCP_TOKEN` (named by `bearer_token_env`) is not set or is empty in this process;\n" +
		"export a valid token into it. Diagnose with: mcptest doctor --url " + srv.URL + " --bearer-token-env MCP_TOKEN\n"
	if code != ExitError || stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	stdout, stderr, code := mcptest(t, map[string]string{"MCP_TOKEN": "stale"}, "doctor", "--url", srv.URL, "--bearer-token-env", "MCP_TOKEN")
	if code != ExitError || !strings.Contains(stdout, "auth        FAIL  HTTP 401") || !strings.Contains(stderr, "holds a token the server rejected") {
		t.Errorf("doctor: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestDoctorLintDescriptions(t *testing.T) {
	const catalog = "../../examples/tool-quality/catalog.yml"
	for _, f := range []string{"text", "json"} {
		stdout, stderr, code := mcptest(t, nil, "doctor", "--lint-descriptions", "--catalog", catalog, "--format", f)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		golden(t, "testdata/golden/doctor-lint."+f, stdout)
	}
	stdout, _, code := mcptest(t, nil, "doctor", "--catalog", catalog)
	if code != ExitOK || !strings.Contains(stdout, "4 tools, ") || !strings.Contains(stdout, "tool-surface tokens (cl100k_base") {
		t.Errorf("doctor layers: exit %d\n%s", code, stdout)
	}
}

// TestDoctorRealServers lints the real servers' catalogs over stdio.
func TestDoctorRealServers(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []struct {
		bin  string
		args []string
	}{{"mcp-server-everything", nil}, {"mcp-server-filesystem", []string{dir}}, {"mcp-server-memory", nil}} {
		bin, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", s.bin))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed: .ci/run installs it with `npm ci --prefix .ci/node`", s.bin)
			}
			t.Skipf("%s is not installed; run `npm ci --prefix .ci/node`", s.bin)
		}
		args := append([]string{"doctor", "--lint-descriptions", "--format", "json", "--", bin}, s.args...)
		stdout, stderr, code := mcptest(t, nil, args...)
		if code != ExitOK || !strings.Contains(stdout, `"summary"`) || !strings.Contains(stdout, `"rule": "DESC-`) {
			t.Errorf("%s: exit %d %s\n%.500s", s.bin, code, stderr, stdout)
		}
	}
}

func TestSecurity(t *testing.T) {
	for _, f := range []string{"text", "json"} {
		stdout, stderr, code := mcptest(t, nil, "security", "--catalog", "testdata/live/poisoned.yml", "--format", f)
		if code != ExitFail {
			t.Errorf("%s: exit %d, want 1: %s", f, code, stderr)
		}
		golden(t, "testdata/golden/security-poisoned."+f, stdout)
	}
	stdout, _, code := mcptest(t, nil, "security", "--catalog", "testdata/live/catalog.yml")
	if code != ExitOK || stdout != "2 tools scanned, 0 findings\n" {
		t.Errorf("clean catalog: exit %d %q", code, stdout)
	}

	// tools --format json carries the description subset as warnings, and
	// no warnings key at all for a clean catalog.
	stdout, _, _ = mcptest(t, nil, "tools", "--catalog", "testdata/live/poisoned.yml", "--format", "json")
	golden(t, "testdata/golden/tools-poisoned.json", stdout)
	if strings.Contains(stdout, "SEC-007") || !strings.Contains(stdout, `"warnings"`) {
		t.Errorf("tools warnings: %s", stdout)
	}
	_, stderr, code := mcptest(t, nil, "tools", "--catalog", "testdata/live/poisoned.yml")
	if code != ExitOK || strings.Count(stderr, "warning: SEC-") != 7 {
		t.Errorf("text listing: exit %d, warnings on stderr:\n%s", code, stderr)
	}
	clean, _, _ := mcptest(t, nil, "tools", "--catalog", "testdata/live/catalog.yml", "--format", "json")
	if strings.Contains(clean, "warnings") {
		t.Error("a clean catalog carries a warnings key")
	}
}

// TestSecurityRealServers: the pinned real servers scan clean.
func TestSecurityRealServers(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []struct {
		bin  string
		args []string
	}{{"mcp-server-everything", nil}, {"mcp-server-filesystem", []string{dir}}, {"mcp-server-memory", nil}} {
		bin, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", s.bin))
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed: .ci/run installs it with `npm ci --prefix .ci/node`", s.bin)
			}
			t.Skipf("%s is not installed; run `npm ci --prefix .ci/node`", s.bin)
		}
		stdout, stderr, code := mcptest(t, nil, append([]string{"security", "--"}, append([]string{bin}, s.args...)...)...)
		if code != ExitOK {
			t.Errorf("%s: exit %d %s\n%s", s.bin, code, stderr, stdout)
		}
	}
}

func TestToolBench(t *testing.T) {
	const spec = "../../examples/tool-description-bench/spec.yml"
	stdout, stderr, code := mcptest(t, nil, "tool-bench", "run", spec, "--min-drop", "0.25")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "testdata/golden/tool-bench.txt", stdout)
	stdout, _, code = mcptest(t, nil, "tool-bench", "run", spec, "--json")
	if code != ExitOK {
		t.Fatalf("--json: exit %d", code)
	}
	golden(t, "testdata/golden/tool-bench.json", stdout)

	_, stderr, code = mcptest(t, nil, "tool-bench", "run", spec, "--min-drop", "0.5")
	if code != ExitFail || !strings.Contains(stderr, "largest selection drop 0.33 is below --min-drop 0.50") {
		t.Errorf("--min-drop 0.5: exit %d %s", code, stderr)
	}

	dir := t.TempDir()
	for _, tc := range []struct{ spec, want string }{
		{"intents: []\n", "no catalog"},
		{"catalog: [{name: a, description: x}]\nintents: [{query: q, gold: [b]}]\n", `"b" is not a tool of the catalog`},
		{"catalog: [{name: a}]\nintents: [{query: q, gold: [a]}]\nmutations: [{tool: a, kind: shuffle}]\n", `kind "shuffle"`},
		{"catalogue: []\n", `unexpected key "catalogue"`},
		{"catalog: [{name: a}]\ncatalog_path: x.yml\n", "not both"},
		{"catalog: [{name: a}]\nintents:\n  - query: q\n    gold: [a]\nmutations:\n  - tool: a\n    kind: truncate\n", "spec.yml:6:5: mutations[0].chars: truncate needs chars"},
		{"catalog: [{name: a}]\nintents:\n  - query: q\n    gold: [a, b]\n", `spec.yml:4:11: intents[0].gold: "b" is not a tool of the catalog`},
	} {
		p := filepath.Join(dir, "spec.yml")
		os.WriteFile(p, []byte(tc.spec), 0o644)
		_, stderr, code := mcptest(t, nil, "tool-bench", "run", p)
		if code != ExitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d %s, want exit 2 and %q", tc.spec, code, stderr, tc.want)
		}
	}
	if _, _, code := mcptest(t, nil, "tool-bench", "walk"); code != ExitInput {
		t.Errorf("tool-bench walk: exit %d", code)
	}
}

// TestToolsListingIsUTF8: the built binary's `tools` listing of the real
// LiveMCPBench servers' catalog (Chinese descriptions among them) cuts
// long descriptions between characters, so its output stays valid UTF-8.
func TestToolsListingIsUTF8(t *testing.T) {
	src := filepath.Join("..", "..", "..", "shared", "data", "livemcpbench", "livemcptool_catalog.json")
	data, err := os.ReadFile(src)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("../shared/data is missing: %v", err)
		}
		t.Skipf("../shared/data is missing: %v", err)
	}
	var servers []struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	for _, s := range servers {
		tools = append(tools, s.Tools...)
	}
	catalog, _ := json.Marshal(map[string]any{"tools": tools})
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mcptestBin(t), "tools", "--catalog", file).Output()
	if err != nil {
		t.Fatalf("mcptest tools: %v", err)
	}
	if !utf8.Valid(out) {
		t.Fatal("the tools listing is not valid UTF-8: a description was cut inside a character")
	}
	if !strings.Contains(string(out), "使用") || !strings.Contains(string(out), "...") {
		t.Fatalf("the listing has no cut Chinese description:\n%.2000s", out)
	}
}

// TestDoctorMasksCommandLine: the built binary's doctor, in text and in
// JSON, prints a server's command line with the secret of every flag
// spelling and argument shape masked (redact.Argv, the one rule for every
// place a command line is printed).
func TestDoctorMasksCommandLine(t *testing.T) {
	const secret = "s3cretV4lue99"
	for _, args := range [][]string{
		{"--token", secret}, {"--password", secret}, {"--client-secret", secret}, {"-client_secret=" + secret},
		{"--auth=" + secret}, {"--api-key=" + secret}, {"http://h/x#access_token=" + secret},
		{"https://user:" + secret + "@h/x"}, {`{"apiKey":"` + secret + `"}`},
	} {
		for _, format := range []string{"text", "json"} {
			argv := append([]string{"doctor", "--format", format, "--", "/bin/false"}, args...)
			out, _ := exec.Command(mcptestBin(t), argv...).CombinedOutput()
			if strings.Contains(string(out), secret) || !strings.Contains(string(out), "[REDACTED]") {
				t.Errorf("mcptest %s printed the secret or no mask:\n%s", strings.Join(argv, " "), out)
			}
		}
	}
}

// defaultHintsDropped is a tools document with each annotation hint that
// says its MCP default (readOnlyHint and idempotentHint false) left out.
func defaultHintsDropped(t *testing.T, doc string) string {
	t.Helper()
	var d struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	for _, tool := range d.Tools {
		if ann, ok := tool["annotations"].(map[string]any); ok {
			for _, k := range []string{"readOnlyHint", "idempotentHint"} {
				if ann[k] == false {
					delete(ann, k)
				}
			}
		}
	}
	b, _ := json.Marshal(d)
	return string(b)
}
