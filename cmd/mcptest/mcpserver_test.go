package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/mcpserver"
)

// The front door is driven by a real MCP client: the official MCP Inspector
// CLI (npm @modelcontextprotocol/inspector, pinned in .ci/node), in --cli
// mode, against server-everything and `mcptest mock`.

// ciNodeBin locates a binary .ci/run installs; locally it skips without it,
// under CI=true it fails.
func ciNodeBin(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs it with `npm ci --prefix .ci/node`", name)
		}
		t.Skipf("%s is not installed; run `npm ci --prefix .ci/node`", name)
	}
	return p
}

// frontDoor is one mcptest mcp-server configuration the Inspector starts.
type frontDoor struct {
	t         *testing.T
	inspector string
	ws        string
	argv      []string
	// last is the Inspector's whole stdout of the last call.
	last string
}

// call runs the Inspector CLI once and decodes the first JSON document it
// prints (it may add a line after it, and exits non-zero on isError).
func (f *frontDoor) call(args ...string) map[string]any {
	f.t.Helper()
	cmd := exec.Command(f.inspector, append(append([]string{"--cli"}, f.argv...), args...)...)
	cmd.Dir = f.ws
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	f.last = stdout.String()
	var doc map[string]any
	if err := json.NewDecoder(bytes.NewReader(stdout.Bytes())).Decode(&doc); err != nil {
		f.t.Fatalf("inspector %v: no JSON answer: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return doc
}

// verb calls one tool; it returns the structured answer, or the error text.
func (f *frontDoor) verb(name string, args map[string]any) (out map[string]any, errText string) {
	f.t.Helper()
	cli := []string{"--method", "tools/call", "--tool-name", name}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		cli = append(cli, "--tool-arg", k+"="+s)
	}
	doc := f.call(cli...)
	if doc["isError"] == true {
		content, _ := doc["content"].([]any)
		if len(content) > 0 {
			text, _ := content[0].(map[string]any)["text"].(string)
			return nil, text
		}
		return nil, "(no text)"
	}
	sc, ok := doc["structuredContent"].(map[string]any)
	if !ok {
		f.t.Fatalf("%s: no structuredContent in %v", name, doc)
	}
	return sc, ""
}

// must calls a verb that must succeed.
func (f *frontDoor) must(name string, args map[string]any) map[string]any {
	f.t.Helper()
	out, e := f.verb(name, args)
	if e != "" {
		f.t.Fatalf("%s %v: %s", name, args, e)
	}
	return out
}

// cliJSON runs the CLI in process and decodes its JSON output.
func cliJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := mcptest(t, nil, args...)
	if code != ExitOK && code != ExitInput {
		t.Fatalf("mcptest %v: exit %d: %s", args, code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("mcptest %v: %v\n%s", args, err, stdout)
	}
	return doc
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const frontDoorCatalog = `tools:
  - name: delete_records
    description: Delete every record matching a filter and return how many were deleted.
    inputSchema: {type: object, properties: {filter: {type: string}}}
  - name: get_status
    description: Return the service status as a short text line.
    inputSchema: {type: object, properties: {}}
    annotations: {readOnlyHint: true}
`

var frontDoorVerbs = []string{
	"get_capabilities", "get_cassette", "get_coverage", "get_doctor_report", "get_run",
	"list_cassettes", "list_prompts", "list_resources", "list_runs", "list_tools",
	"propose_assertions", "record_cassette", "run_tool_test", "scaffold_conformance", "scaffold_eval", "scaffold_redteam", "scaffold_suite",
	"trigger_run", "validate_suite",
}

// workspace lays out a workspace: a mcptest.yml declaring the mock server,
// a copy of the selection-f1 example (a suite and its cassettes) and one
// stored run.
func frontDoorWorkspace(t *testing.T, bin string) (ws string, mockArgv []string) {
	ws = t.TempDir()
	writeFile(t, filepath.Join(ws, "catalog.yml"), frontDoorCatalog)
	poisoned, _ := filepath.Abs("testdata/live/poisoned.yml")
	mockArgv = []string{bin, "mock", "--tools-from", filepath.Join(ws, "catalog.yml")}
	q := func(argv []string) string { b, _ := json.Marshal(argv); return string(b) }
	writeFile(t, filepath.Join(ws, "mcptest.yml"), "servers:\n  mock:\n    command: "+q(mockArgv)+"\n  poisoned:\n    command: "+q([]string{bin, "mock", "--tools-from", poisoned})+"\n")
	abs, _ := filepath.Abs("../../examples/selection-f1")
	copyTree(t, abs, filepath.Join(ws, "selection"))
	runFile := filepath.Join(t.TempDir(), "run.json")
	_, stderr, code := mcptest(t, nil, "run", "--config", filepath.Join(ws, "selection", "suite.yml"), "--reporter", "json", "--output", runFile)
	if code != ExitFail {
		t.Fatalf("seed run: exit %d %s", code, stderr)
	}
	// The stored run: the envelope as `mcptest run` stores it.
	var run map[string]any
	data, err := os.ReadFile(runFile)
	if err != nil || json.Unmarshal(data, &run) != nil {
		t.Fatalf("seed run: %v", err)
	}
	run["run"].(map[string]any)["id"] = "01SEEDRUN00000000000000000"
	b, _ := json.MarshalIndent(run, "", "  ")
	writeFile(t, filepath.Join(ws, ".mcptest", "runs", "01SEEDRUN00000000000000000.json"), string(b))
	return ws, mockArgv
}

// readVerbs is the front door the read-verb checks drive: the Inspector
// on `mcptest mcp-server` in a seeded workspace (frontDoorWorkspace).
type readVerbs struct {
	fd                  *frontDoor
	ws, bin, everything string
	poisoned            string
	mockArgv            []string
}

func TestMCPServerReadVerbsWithInspector(t *testing.T) {
	inspector := ciNodeBin(t, "mcp-inspector")
	everything := ciNodeBin(t, "mcp-server-everything")
	bin := mcptestBin(t)
	ws, mockArgv := frontDoorWorkspace(t, bin)
	poisoned, _ := filepath.Abs("testdata/live/poisoned.yml")
	x := &readVerbs{fd: &frontDoor{t: t, inspector: inspector, ws: ws, argv: []string{bin, "mcp-server"}},
		ws: ws, bin: bin, everything: everything, poisoned: poisoned, mockArgv: mockArgv}
	for _, check := range []func(*testing.T, *readVerbs){readVerbList, readValidate, readIntrospection, readAuth, readRefusals,
		readScaffoldSuite, readScaffolders, readArtifacts, readWritersRefuse} {
		check(t, x)
	}
}

// readVerbList: tools/list shows every verb, none writable, with
// input schemas the Inspector finds portable.
func readVerbList(t *testing.T, x *readVerbs) {
	fd := x.fd
	// tools/list shows the verbs and writesEnabled.
	list := fd.call("--method", "tools/list")
	var names []string
	for _, tl := range list["tools"].([]any) {
		tool := tl.(map[string]any)
		names = append(names, tool["name"].(string))
		meta, _ := tool["_meta"].(map[string]any)
		if meta["writesEnabled"] != false {
			t.Errorf("%s: _meta %v, want writesEnabled false", tool["name"], meta)
		}
	}
	if strings.Contains(fd.last, "Schema portability") {
		t.Errorf("the Inspector finds the verbs' input schemas not portable:\n%s", fd.last)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, frontDoorVerbs) {
		t.Errorf("verbs %v\nwant %v", names, frontDoorVerbs)
	}
}

// readValidate: validate_suite answers the document of `mcptest validate
// --format json`.
func readValidate(t *testing.T, x *readVerbs) {
	fd, ws := x.fd, x.ws
	// validate_suite answers the document of `mcptest validate --format json`.
	typo := "servers: {}\nserverz: {}\n"
	writeFile(t, filepath.Join(ws, "typo.yml"), typo)
	got := fd.must("validate_suite", map[string]any{"suite": typo})
	want := cliJSON(t, "validate", "--format", "json", filepath.Join(ws, "typo.yml"))
	if got["valid"] != false || want["valid"] != false {
		t.Fatalf("validate_suite %v, CLI %v: want both invalid", got, want)
	}
	strip := func(doc map[string]any) []any {
		var out []any
		for _, e := range doc["errors"].([]any) {
			m := e.(map[string]any)
			msg, _, _ := strings.Cut(m["message"].(string), " (at ")
			out = append(out, []any{m["path"], msg, m["hint"]})
		}
		return out
	}
	if !reflect.DeepEqual(strip(got), strip(want)) {
		t.Errorf("validate_suite errors %v\nCLI errors %v", strip(got), strip(want))
	}
	if h, _ := got["errors"].([]any)[0].(map[string]any)["hint"].(string); !strings.Contains(h, "servers") {
		t.Errorf("hint %q: want a did-you-mean naming servers", h)
	}
	if ok := fd.must("validate_suite", map[string]any{"suite": "servers:\n  s: {command: [x]}\n"}); ok["valid"] != true || len(ok["errors"].([]any)) != 0 {
		t.Errorf("valid suite: %v", ok)
	}
}

// readIntrospection: the list verbs answer the CLI's JSON for a declared
// argv, with the description-poisoning warnings of a poisoned catalog.
func readIntrospection(t *testing.T, x *readVerbs) {
	fd, bin, poisoned, mockArgv := x.fd, x.bin, x.poisoned, x.mockArgv
	// The introspection verbs answer the CLI's JSON, for a declared argv.
	for verb, cmd := range map[string]string{"list_tools": "tools", "list_resources": "resources", "list_prompts": "prompts", "get_capabilities": "capabilities"} {
		got := fd.must(verb, map[string]any{"command": mockArgv})
		want := cliJSON(t, append([]string{cmd, "--format", "json", "--"}, mockArgv...)...)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v\nCLI: %v", verb, got, want)
		}
	}
	if tools := fd.must("list_tools", map[string]any{"command": mockArgv}); tools["warnings"] != nil {
		t.Errorf("clean catalog carries warnings: %v", tools["warnings"])
	}
	tools := fd.must("list_tools", map[string]any{"command": []string{bin, "mock", "--tools-from", poisoned}})
	if w, _ := tools["warnings"].([]any); len(w) == 0 || !strings.Contains(w[0].(map[string]any)["rule"].(string), "SEC-") {
		t.Errorf("poisoned catalog: warnings %v", tools["warnings"])
	}

	if sc := fd.must("scaffold_suite", map[string]any{"command": []string{bin, "mock", "--tools-from", poisoned}, "all": true}); sc["warnings"] == nil {
		t.Errorf("scaffold_suite of a poisoned catalog carries no warnings")
	}
}

// readAuth: a url is reached only as declared, and a 401 gets the one
// actionable message from every verb.
func readAuth(t *testing.T, x *readVerbs) {
	fd, ws := x.fd, x.ws
	// A URL target that answers 401 gets the one actionable message.
	authSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer authSrv.Close()
	// Without --enable-writes a url is reached only as declared, with its
	// declared bearer_token_env.
	if _, e := fd.verb("list_tools", map[string]any{"url": authSrv.URL + "/mcp", "bearer_token_env": "MCPTEST_FRONT_DOOR_TOKEN"}); !strings.Contains(e, "refused") || !strings.Contains(e, "--enable-writes") || !strings.Contains(e, "servers:") {
		t.Errorf("an undeclared url: %q: want a refusal naming both unlock paths", e)
	}
	declared, err := os.ReadFile(filepath.Join(ws, "mcptest.yml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "mcptest.yml"), string(declared)+"  auth:\n    url: "+authSrv.URL+"/mcp\n    bearer_token_env: MCPTEST_FRONT_DOOR_TOKEN\n")
	for _, verb := range []string{"list_tools", "scaffold_suite", "scaffold_conformance", "scaffold_redteam", "scaffold_eval"} {
		_, e := fd.verb(verb, map[string]any{"url": authSrv.URL + "/mcp", "bearer_token_env": "MCPTEST_FRONT_DOOR_TOKEN"})
		if !strings.Contains(e, "auth failed: HTTP 401") || !strings.Contains(e, `Bearer realm="mcp"`) || !strings.Contains(e, "`MCPTEST_FRONT_DOOR_TOKEN` (named by `bearer_token_env`)") || !strings.Contains(e, "mcptest doctor --url") {
			t.Errorf("%s of a 401 server: %q", verb, e)
		}
	}
}

// readRefusals: an undeclared command, or a declared one with other
// flags, is refused naming both unlock paths.
func readRefusals(t *testing.T, x *readVerbs) {
	fd, everything, mockArgv := x.fd, x.everything, x.mockArgv
	// An undeclared command is refused, naming both unlock paths; so is a
	// declared binary with other flags.
	for _, argv := range [][]string{{everything}, append(slices.Clone(mockArgv), "--extra")} {
		_, e := fd.verb("list_tools", map[string]any{"command": argv})
		if !strings.Contains(e, "--enable-writes") || !strings.Contains(e, "servers:") || !strings.Contains(e, "mcptest.yml") {
			t.Errorf("%v: %q: want a refusal naming --enable-writes and servers: in mcptest.yml", argv, e)
		}
	}
	if _, e := fd.verb("list_tools", map[string]any{}); !strings.Contains(e, "no target") {
		t.Errorf("no target: %q", e)
	}
}

// readScaffoldSuite: scaffold_suite answers what `mcptest generate suite`
// writes.
func readScaffoldSuite(t *testing.T, x *readVerbs) {
	fd, everything, mockArgv := x.fd, x.everything, x.mockArgv
	// scaffold_suite: the same suite as `mcptest generate suite`, valid as
	// returned, with the destructive tool's tests commented out under a
	// review marker.
	sc := fd.must("scaffold_suite", map[string]any{"command": mockArgv})
	suite, _ := sc["suite"].(string)
	gen, stderr, code := mcptest(t, nil, append([]string{"generate", "suite", "--"}, mockArgv...)...)
	if code != ExitOK || gen != suite {
		t.Errorf("generate suite (exit %d %s) differs from scaffold_suite:\n%s\n---\n%s", code, stderr, gen, suite)
	}
	if !strings.Contains(suite, "# review before enabling: delete_records changes state") || strings.Contains(suite, "\n    tool: \"delete_records\"") ||
		sc["next_cursor"] != nil || len(sc["tools"].([]any)) != 2 {
		t.Errorf("scaffold_suite: %v", sc)
	}
	if v := fd.must("validate_suite", map[string]any{"suite": suite}); v["valid"] != true {
		t.Errorf("the scaffolded suite does not validate: %v", v)
	}
	if _, e := fd.verb("scaffold_suite", map[string]any{"command": []string{everything}}); !strings.Contains(e, "--enable-writes") {
		t.Errorf("scaffold_suite of an undeclared command: %q", e)
	}
}

// readScaffolders: scaffold_conformance, scaffold_redteam and
// scaffold_eval answer what `mcptest generate` writes.
func readScaffolders(t *testing.T, x *readVerbs) {
	fd, bin, everything, poisoned, mockArgv := x.fd, x.bin, x.everything, x.poisoned, x.mockArgv
	// scaffold_conformance, scaffold_redteam and scaffold_eval: the suites of
	// `mcptest generate conformance|redteam|eval`, valid as returned, each
	// starting with the schema header and the servers: block of the target.
	for _, v := range []struct{ verb, kind, count string }{
		{"scaffold_conformance", "conformance", "checks_scaffolded"},
		{"scaffold_redteam", "redteam", "tools_covered"},
		{"scaffold_eval", "eval", "tools_covered"},
	} {
		ans := fd.must(v.verb, map[string]any{"command": mockArgv})
		suite, _ := ans["suite"].(string)
		gen, stderr, code := mcptest(t, nil, append([]string{"generate", v.kind, "--"}, mockArgv...)...)
		if code != ExitOK || gen != suite {
			t.Errorf("generate %s (exit %d %s) differs from %s:\n%s\n---\n%s", v.kind, code, stderr, v.verb, gen, suite)
		}
		if !strings.HasPrefix(suite, "# yaml-language-server: $schema=") || !strings.Contains(suite, "\nservers:\n  target:\n    command: "+string(mustJSON(t, mockArgv))+"\n") {
			t.Errorf("%s: no schema header or servers: block for the target:\n%s", v.verb, suite)
		}
		if ans[v.count] != float64(2) || ans["notes"] == nil {
			t.Errorf("%s: %s %v, notes %v; want 2 and a notes list", v.verb, v.count, ans[v.count], ans["notes"])
		}
		if val := fd.must("validate_suite", map[string]any{"suite": suite}); val["valid"] != true {
			t.Errorf("the %s suite does not validate: %v", v.verb, val)
		}
		if _, e := fd.verb(v.verb, map[string]any{"command": []string{everything}}); !strings.Contains(e, "--enable-writes") {
			t.Errorf("%s of an undeclared command: %q", v.verb, e)
		}
		want := scaffoldWants(t, v.verb, v.kind, suite)
		for _, w := range want {
			if !strings.Contains(suite, w) {
				t.Errorf("%s: missing %s in\n%s", v.verb, w, suite)
			}
		}
	}
	for _, verb := range []string{"scaffold_redteam", "scaffold_eval"} {
		if ans := fd.must(verb, map[string]any{"command": []string{bin, "mock", "--tools-from", poisoned}}); ans["warnings"] == nil {
			t.Errorf("%s of a poisoned catalog carries no warnings", verb)
		}
	}
}

// readArtifacts: the artifact readers over the seeded workspace.
func readArtifacts(t *testing.T, x *readVerbs) {
	fd, mockArgv := x.fd, x.mockArgv
	// The artifact readers.
	runs := fd.must("list_runs", nil)
	first := runs["runs"].([]any)[0].(map[string]any)
	if first["run_id"] != "01SEEDRUN00000000000000000" || first["verdict"] != "fail" {
		t.Errorf("list_runs: %v", runs)
	}
	run := fd.must("get_run", map[string]any{"run_id": "01SEEDRUN00000000000000000"})
	if run["schema_version"] != float64(1) || len(run["cases"].([]any)) != 3 {
		t.Errorf("get_run: %.300v", run)
	}
	if _, e := fd.verb("get_run", map[string]any{"run_id": "nope"}); !strings.Contains(e, `no run "nope"`) {
		t.Errorf("get_run of an unknown id: %q", e)
	}
	checkCoverage(t, fd)
	cass := fd.must("list_cassettes", nil)
	var cnames []string
	for _, c := range cass["cassettes"].([]any) {
		cnames = append(cnames, c.(map[string]any)["name"].(string))
	}
	if !slices.Contains(cnames, "selection/cassettes/search-then-shell.json") {
		t.Errorf("list_cassettes: %v", cnames)
	}
	one := fd.must("get_cassette", map[string]any{"name": "selection/cassettes/search-then-shell.json"})
	if one["mcptest_cassette"] != float64(1) {
		t.Errorf("get_cassette: %v", one)
	}
	if _, e := fd.verb("get_cassette", map[string]any{"name": "../etc/passwd"}); !strings.Contains(e, "inside the workspace") {
		t.Errorf("get_cassette outside the workspace: %q", e)
	}
	doctor := fd.must("get_doctor_report", map[string]any{"command": mockArgv})
	if len(doctor) == 0 {
		t.Errorf("get_doctor_report: empty")
	}
	if _, e := fd.verb("get_doctor_report", nil); !strings.Contains(e, ".mcptest/doctor.json") {
		t.Errorf("get_doctor_report without a target or a saved report: %q", e)
	}
}

// readWritersRefuse: every writer refuses without --enable-writes.
func readWritersRefuse(t *testing.T, x *readVerbs) {
	fd := x.fd
	// Every writer refuses, naming the flag.
	for w, args := range map[string]map[string]any{"run_tool_test": {"suite": "x"}, "propose_assertions": {"tool": "x"}, "trigger_run": nil, "record_cassette": nil} {
		if _, e := fd.verb(w, args); !strings.Contains(e, "--enable-writes") {
			t.Errorf("%s without writes: %q", w, e)
		}
	}
}

// scaffoldWants are the lines a scaffolded suite of kind must hold.
func scaffoldWants(t *testing.T, verb, kind, suite string) []string {
	t.Helper()
	switch kind {
	case "conformance":
		if strings.Contains(suite, "resources/list") || strings.Contains(suite, "prompts/list") {
			t.Errorf("%s: a list check for a capability the mock does not advertise:\n%s", verb, suite)
		}
		return []string{`check: "initialize"`, `check: "tools/list"`, `spec: "2025-11-25"`, `matcher: {"exact":"mcptest-mock"}`}
	case "redteam":
		return []string{"# review before first run: delete_records", `matcher: {"not":{"contains":"` + mcpserver.Canary("get_status") + `"}}`, "# Cross-server trust boundary", "`mcptest security`"}
	}
	return []string{"# review before first run: delete_records", `matcher: {"contains":"get_status"}`, `metrics: ["task_completion", "tool_use", "argument_correctness", "rubric"]`}
}

// checkCoverage: get_coverage of the latest run: selection-f1's three
// agent cases call four tools; shell.exec by one passing and one failing
// case.
func checkCoverage(t *testing.T, fd *frontDoor) {
	t.Helper()
	cov := fd.must("get_coverage", nil)
	var shell map[string]any
	for _, r := range cov["tools"].([]any) {
		if r := r.(map[string]any); r["server"] == "shell" && r["tool"] == "exec" {
			shell = r
		}
	}
	if cov["run_id"] != "01SEEDRUN00000000000000000" || len(cov["kinds"].([]any)) != 1 || cov["known"] != float64(4) || cov["covered"] != float64(4) ||
		cov["percent"] != float64(100) || shell["cases"] != float64(2) || shell["passed"] != float64(1) || shell["failed"] != float64(1) {
		t.Errorf("get_coverage: %v", cov)
	}
}

// writeVerbs is the front door the write-verb checks drive: the Inspector
// on `mcptest mcp-server --enable-writes` in a seeded workspace; suite and
// runID carry what one check leaves to the next.
type writeVerbs struct {
	fd                  *frontDoor
	ws, bin, everything string
	mockArgv            []string
	suite, runID        string
}

func TestMCPServerWriteVerbsWithInspector(t *testing.T) {
	inspector := ciNodeBin(t, "mcp-inspector")
	everything := ciNodeBin(t, "mcp-server-everything")
	bin := mcptestBin(t)
	ws, mockArgv := frontDoorWorkspace(t, bin)
	x := &writeVerbs{fd: &frontDoor{t: t, inspector: inspector, ws: ws, argv: []string{bin, "mcp-server", "--enable-writes"}},
		ws: ws, bin: bin, everything: everything, mockArgv: mockArgv}
	for _, check := range []func(*testing.T, *writeVerbs){writeVerbList, writeAnyCommand, writeLoop, writeDestructive,
		writeRunToolTest, writeTriggerRun, writeRecordCassette} {
		check(t, x)
	}
}

// writeVerbList: with --enable-writes every verb says writesEnabled.
func writeVerbList(t *testing.T, x *writeVerbs) {
	fd := x.fd
	list := fd.call("--method", "tools/list")
	for _, tl := range list["tools"].([]any) {
		if meta := tl.(map[string]any)["_meta"].(map[string]any); meta["writesEnabled"] != true {
			t.Errorf("%v: want writesEnabled true", tl.(map[string]any)["name"])
		}
	}
}

// writeAnyCommand: with writes enabled any command runs: the worked loop
// against server-everything, memory and filesystem; it keeps the proposed
// suite for the next checks.
func writeAnyCommand(t *testing.T, x *writeVerbs) {
	fd, ws, everything := x.fd, x.ws, x.everything
	// With writes enabled, any command runs: the worked loop against
	// server-everything.
	tools := fd.must("list_tools", map[string]any{"command": []string{everything}})
	want := cliJSON(t, "tools", "--format", "json", "--", everything)
	if !reflect.DeepEqual(tools, want) {
		t.Errorf("list_tools of server-everything differs from the CLI's")
	}
	for _, srv := range [][]string{{ciNodeBin(t, "mcp-server-memory")}, {ciNodeBin(t, "mcp-server-filesystem"), ws}} {
		got := fd.must("list_tools", map[string]any{"command": srv})
		if want := cliJSON(t, append([]string{"tools", "--format", "json", "--"}, srv...)...); !reflect.DeepEqual(got, want) {
			t.Errorf("list_tools of %s differs from the CLI's", srv[0])
		}
		sc := fd.must("scaffold_suite", map[string]any{"command": srv})
		if v := fd.must("validate_suite", map[string]any{"suite": sc["suite"]}); v["valid"] != true {
			t.Errorf("scaffold_suite of %s does not validate: %v", srv[0], v)
		}
	}
	prop := fd.must("propose_assertions", map[string]any{"command": []string{everything}, "tool": "echo", "args": map[string]any{"message": "hi"}})
	test, _ := prop["test"].(string)
	if prop["calls_made"] != float64(2) || !strings.Contains(test, `{"exact":"Echo: hi"}`) || !strings.Contains(test, "max_duration_ms: ") || !strings.Contains(test, `server: "target"`) {
		t.Errorf("propose_assertions: %v", prop)
	}
	suite := "servers:\n  target:\n    command: [" + strings.Join(quoteAll(everything), ", ") + "]\ntools:\n" + test
	if v := fd.must("validate_suite", map[string]any{"suite": suite}); v["valid"] != true {
		t.Errorf("the proposed block does not validate: %v\n%s", v, suite)
	}

	sc := fd.must("scaffold_suite", map[string]any{"command": []string{everything}, "cursor": "0", "probe": true})
	if v := fd.must("validate_suite", map[string]any{"suite": sc["suite"]}); v["valid"] != true || len(sc["tools"].([]any)) == 0 {
		t.Errorf("scaffold_suite of server-everything: %v; validate_suite: %v", sc["tools"], v)
	}
	x.suite = suite
}

// writeLoop: run_tool_test with the proposed block, a failing variant, its
// coverage, and its repro after the fix.
func writeLoop(t *testing.T, x *writeVerbs) {
	fd, ws, bin := x.fd, x.ws, x.bin
	suite := x.suite
	// run_tool_test with the proposed block: the seed's loop.
	loop := fd.must("run_tool_test", map[string]any{"suite": suite})
	if r := loop["results"].([]any); len(r) != 1 || loop["verdict"] != "pass" || loop["passed"] != float64(1) {
		t.Errorf("run_tool_test of the proposed block: %v", loop)
	}
	// A failing live tool test, then the fix, re-run with the repro.
	failing := strings.Replace(suite, `{"exact":"Echo: hi"}`, `{"contains":"operational"}`, 1)
	bad := fd.must("run_tool_test", map[string]any{"suite": failing})
	fails, _ := bad["failures"].([]any)
	if bad["verdict"] != "fail" || len(fails) != 1 || fails[0].(map[string]any)["actual"] != `"Echo: hi"` || !strings.Contains(fails[0].(map[string]any)["assert"].(string), "operational") {
		t.Fatalf("a failing tool test: %v", bad)
	}
	badID := bad["run_id"].(string)
	checkLiveCoverage(t, fd, badID)
	inlinePath := filepath.Join(ws, ".mcptest", "inline", badID+".yml")
	writeFile(t, inlinePath, suite) // the fix
	fixed := exec.Command("sh", "-c", fails[0].(map[string]any)["repro"].(string))
	fixed.Dir = ws
	fixed.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := fixed.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS  echo: proposed assertions") {
		t.Errorf("the repro after the fix: %v\n%s", err, out)
	}
}

// writeDestructive: the destructive rules of propose_assertions, on the
// mock.
func writeDestructive(t *testing.T, x *writeVerbs) {
	fd, mockArgv := x.fd, x.mockArgv
	// The destructive rules, on the mock.
	if _, e := fd.verb("propose_assertions", map[string]any{"command": mockArgv, "tool": "delete_records"}); !strings.Contains(e, "destructive") || !strings.Contains(e, "execute_destructive") {
		t.Errorf("destructive tool without execute_destructive: %q", e)
	}
	once := fd.must("propose_assertions", map[string]any{"command": mockArgv, "tool": "delete_records", "execute_destructive": true})
	if once["calls_made"] != float64(1) {
		t.Errorf("destructive with execute_destructive: %v", once)
	}
	twice := fd.must("propose_assertions", map[string]any{"command": mockArgv, "tool": "get_status"})
	if twice["calls_made"] != float64(2) || len(twice["excluded_volatile"].([]any)) != 0 {
		t.Errorf("read-only tool: %v", twice)
	}
}

// writeRunToolTest: one verdict per test, failures with repro and full;
// it keeps the run id for writeTriggerRun.
func writeRunToolTest(t *testing.T, x *writeVerbs) {
	fd, ws, bin := x.fd, x.ws, x.bin
	// run_tool_test: one verdict per test, failures with repro and full.
	inline := `tests:
  - name: research-agent picks search then fetch
    type: agent
    cassette: selection/cassettes/search-then-fetch.json
    equal_function_sets:
      classes: [{name: search, members: [brave.web_search, google.search]}, {name: fetch, members: [http.get]}]
      expect: [{tool_selection.f1: {">=": 80}}]
  - name: research-agent reaches for the shell
    type: agent
    cassette: selection/cassettes/search-then-shell.json
    equal_function_sets:
      classes: [{name: search, members: [brave.web_search, google.search]}, {name: fetch, members: [http.get]}]
      expect: [{tool_selection.f1: {">=": 80}}]
`
	res := fd.must("run_tool_test", map[string]any{"suite": inline})
	id, _ := res["run_id"].(string)
	if res["verdict"] != "fail" || res["total"] != float64(2) || res["passed"] != float64(1) || res["failed"] != float64(1) || len(res["results"].([]any)) != 2 {
		t.Fatalf("run_tool_test: %v", res)
	}
	if data, err := os.ReadFile(filepath.Join(ws, ".mcptest", "inline", id+".yml")); err != nil || string(data) != inline {
		t.Errorf("the inline suite was not persisted verbatim: %v", err)
	}
	failure := res["failures"].([]any)[0].(map[string]any)
	if failure["test"] != "research-agent reaches for the shell" || !strings.Contains(failure["assert"].(string), "tool_selection.f1") || failure["actual"] != "50" {
		t.Errorf("failure: %v", failure)
	}
	full := failure["full"].(string)
	if full != "mcptest://runs/"+id+"/tests/research-agent-reaches-for-the-shell/output" {
		t.Errorf("full: %q", full)
	}
	read := fd.call("--method", "resources/read", "--uri", full)
	contents := read["contents"].([]any)[0].(map[string]any)
	if !strings.Contains(contents["text"].(string), `"name": "research-agent reaches for the shell"`) {
		t.Errorf("resources/read %s: %v", full, read)
	}
	// The repro executes verbatim from the workspace root.
	repro := exec.Command("sh", "-c", failure["repro"].(string))
	repro.Dir = ws
	// NO_COLOR: under GitHub Actions (GITHUB_ACTIONS=true) the report
	// would be coloured, and this reads its plain words.
	repro.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := repro.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitFail || !strings.Contains(string(out), "FAIL  research-agent reaches for the shell") || strings.Contains(string(out), "picks search") {
		t.Errorf("repro %q: %v\n%s", failure["repro"], err, out)
	}
	if _, e := fd.verb("run_tool_test", map[string]any{"suite": "serverz: {}\n"}); !strings.Contains(e, "not valid") {
		t.Errorf("an invalid inline suite: %q", e)
	}
	x.runID = id
}

// writeTriggerRun: trigger_run stores a run that list_runs then shows.
func writeTriggerRun(t *testing.T, x *writeVerbs) {
	fd := x.fd
	id := x.runID
	// trigger_run stores a run that list_runs then shows.
	trig := fd.must("trigger_run", map[string]any{"config": "selection/suite.yml"})
	if trig["verdict"] != "fail" || trig["run_id"] == "" {
		t.Errorf("trigger_run: %v", trig)
	}
	runs := fd.must("list_runs", nil)
	var ids []any
	for _, r := range runs["runs"].([]any) {
		ids = append(ids, r.(map[string]any)["run_id"])
	}
	if !slices.Contains(ids, trig["run_id"]) || !slices.Contains(ids, any(id)) {
		t.Errorf("list_runs %v: want %v and %v", ids, trig["run_id"], id)
	}
}

// writeRecordCassette: record_cassette starts the proxy and answers its
// endpoint.
func writeRecordCassette(t *testing.T, x *writeVerbs) {
	fd, everything := x.fd, x.everything
	// record_cassette starts the recording proxy and answers its endpoint
	// (the Inspector's front door then exits, which stops it).
	rec := fd.must("record_cassette", map[string]any{"command": []string{everything}, "output": "cassettes/inspector.json"})
	if ep, _ := rec["endpoint"].(string); !strings.HasPrefix(ep, "http://127.0.0.1:") || rec["recording_id"] == "" {
		t.Errorf("record_cassette: %v", rec)
	}
	if _, e := fd.verb("record_cassette", map[string]any{"stop": "nope"}); !strings.Contains(e, `no running recording "nope"`) {
		t.Errorf("stop of an unknown recording: %q", e)
	}
}

// checkLiveCoverage: get_coverage of a failing live run: echo was called
// by one failing case; the rest of server-everything's catalog is
// uncovered.
func checkLiveCoverage(t *testing.T, fd *frontDoor, runID string) {
	t.Helper()
	cov := fd.must("get_coverage", map[string]any{"run_id": runID})
	var echo map[string]any
	var uncovered []string
	for _, r := range cov["tools"].([]any) {
		if r := r.(map[string]any); r["tool"] == "echo" {
			echo = r
		}
	}
	for _, u := range cov["uncovered"].([]any) {
		uncovered = append(uncovered, u.(map[string]any)["tool"].(string))
	}
	if echo == nil || echo["calls"] != float64(1) || echo["failed"] != float64(1) || cov["covered"] != float64(1) ||
		cov["known"].(float64) < 10 || len(uncovered) != int(cov["known"].(float64))-1 || !slices.Contains(uncovered, "get-sum") {
		t.Errorf("get_coverage of a live run: %v", cov)
	}
}

// TestMCPServerRecordCassette records a real session through the proxy
// record_cassette starts. The Inspector CLI starts a new front door per
// call, so a recording that spans calls (start, the agent's session, stop)
// is driven with the official Go SDK client instead.
func TestMCPServerRecordCassette(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	bin := mcptestBin(t)
	ws := t.TempDir()
	ctx := context.Background()
	front := exec.Command(bin, "mcp-server", "--enable-writes")
	front.Dir = ws
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
	fs, err := client.Connect(ctx, &mcp.CommandTransport{Command: front}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	call := func(args map[string]any) map[string]any {
		t.Helper()
		res, err := fs.CallTool(ctx, &mcp.CallToolParams{Name: "record_cassette", Arguments: args})
		if err != nil || res.IsError {
			text := ""
			if res != nil && len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			t.Fatalf("record_cassette %v: %v %s", args, err, text)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	started := call(map[string]any{"command": []string{everything}, "output": "cassettes/session.json", "agent": "tester"})
	agent := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	as, err := agent.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: started["endpoint"].(string)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := as.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "recorded through the front door"}}); err != nil || res.IsError {
		t.Fatalf("echo through the proxy: %v %v", err, res)
	}
	as.Close()
	stopped := call(map[string]any{"stop": started["recording_id"]})
	// The answer's log ends with the proxy's last line, the one that says
	// what it wrote.
	if log, _ := stopped["log"].(string); stopped["output"] != "cassettes/session.json" || !strings.HasSuffix(log, "cassettes/session.json holds 1 run") {
		t.Errorf("stop: %v", stopped)
	}
	data, err := os.ReadFile(filepath.Join(ws, "cassettes", "session.json"))
	if err != nil || !strings.Contains(string(data), "recorded through the front door") || !strings.Contains(string(data), `"agent": "tester"`) {
		t.Errorf("the cassette: %v\n%s", err, data)
	}
}

func quoteAll(s ...string) []string {
	var out []string
	for _, x := range s {
		b, _ := json.Marshal(x)
		out = append(out, string(b))
	}
	return out
}

func TestMCPServerInstall(t *testing.T) {
	env := map[string]string{"PATH": fakePATH(t)}
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "mcp.json")
	writeFile(t, path, `{"mcpServers": {"github": {"command": "gh-mcp", "env": {"X": "1"}}}, "other": true}`)
	stdout, stderr, code := mcptest(t, env, "mcp-server", "--install", "--install-path", path)
	if code != ExitOK || !strings.Contains(stdout, "mcptest installed") {
		t.Fatalf("install: exit %d %s %s", code, stdout, stderr)
	}
	first, _ := os.ReadFile(path)
	var doc struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
		Other      bool                      `json:"other"`
	}
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Other || doc.MCPServers["github"]["command"] != "gh-mcp" || doc.MCPServers["github"]["env"] == nil {
		t.Errorf("the other servers and keys were not preserved:\n%s", first)
	}
	if args := doc.MCPServers["mcptest"]["args"]; !reflect.DeepEqual(args, []any{"mcp-server"}) {
		t.Errorf("mcptest entry: %v", doc.MCPServers["mcptest"])
	}
	stdout, _, code = mcptest(t, env, "mcp-server", "--install", "--install-path", path)
	second, _ := os.ReadFile(path)
	if code != ExitOK || !strings.Contains(stdout, "unchanged") || !bytes.Equal(first, second) {
		t.Errorf("a second install changed something: %s\n%s", stdout, second)
	}
	mcptest(t, env, "mcp-server", "--install", "--enable-writes", "--install-path", path)
	third, _ := os.ReadFile(path)
	if !strings.Contains(string(third), `"--enable-writes"`) || !strings.Contains(string(third), `"gh-mcp"`) {
		t.Errorf("--enable-writes install:\n%s", third)
	}
	writeFile(t, path, "not json")
	if _, stderr, code := mcptest(t, env, "mcp-server", "--install", "--install-path", path); code == ExitOK || !strings.Contains(stderr, "not a JSON object") {
		t.Errorf("a broken config: exit %d %s", code, stderr)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGenerateAgainstReferenceServers generates the conformance, redteam
// and eval suites of the reference servers and runs them: every
// compliance check passes; every probe and eval case is validated and
// reported inconclusive, none counted passed, and the run exits 0 (only a
// failed case fails a run).
func TestGenerateAgainstReferenceServers(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	memory := ciNodeBin(t, "mcp-server-memory")
	filesystem := ciNodeBin(t, "mcp-server-filesystem")
	for _, srv := range []struct {
		name string
		argv []string
	}{
		{"everything", []string{everything}},
		{"memory", []string{memory}},
		{"filesystem", []string{filesystem, t.TempDir()}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, kind := range []string{"conformance", "redteam", "eval"} {
				suite := filepath.Join(dir, kind+".yml")
				_, stderr, code := mcptest(t, nil, append([]string{"generate", kind, "--output", suite, "--"}, srv.argv...)...)
				if code != ExitOK {
					t.Fatalf("generate %s: exit %d: %s", kind, code, stderr)
				}
				if _, stderr, code := mcptest(t, nil, "validate", suite); code != ExitOK {
					t.Fatalf("validate %s: exit %d: %s", kind, code, stderr)
				}
				report := filepath.Join(dir, kind+".json")
				_, stderr, code = mcptest(t, nil, "run", "--config", suite, "--reporter", "json", "--output", report)
				var env struct {
					Verdict string
					Totals  struct{ Total, Passed, Failed, Inconclusive int }
					Cases   []struct{ Name, Kind, Verdict string }
				}
				data, err := os.ReadFile(report)
				if err != nil || json.Unmarshal(data, &env) != nil {
					t.Fatalf("run %s: exit %d %s: no envelope: %v", kind, code, stderr, err)
				}
				if code != ExitOK || env.Verdict != "pass" || env.Totals.Failed != 0 || env.Totals.Total == 0 {
					t.Errorf("run %s: exit %d, verdict %s, totals %+v\n%s", kind, code, env.Verdict, env.Totals, data)
				}
				for _, c := range env.Cases {
					want := map[string]struct{ kind, verdict string }{
						"conformance": {"compliance", "pass"},
						"redteam":     {"redteam", "inconclusive"},
						"eval":        {"eval", "inconclusive"},
					}[kind]
					if c.Kind != want.kind || c.Verdict != want.verdict {
						t.Errorf("%s: case %q is %s %s; want %s %s", kind, c.Name, c.Kind, c.Verdict, want.kind, want.verdict)
					}
				}
				if kind != "conformance" && (env.Totals.Passed != 0 || env.Totals.Inconclusive != env.Totals.Total) {
					t.Errorf("run %s: totals %+v; want every case inconclusive, none passed", kind, env.Totals)
				}
			}
		})
	}
}

func TestGenerateUsage(t *testing.T) {
	for _, args := range [][]string{{"generate"}, {"generate", "bogus"}, {"generate", "--url", "http://x"}} {
		_, stderr, code := mcptest(t, nil, args...)
		if code != ExitInput || !strings.Contains(stderr, "mcptest generate suite|conformance|redteam|eval") {
			t.Errorf("mcptest %v: exit %d %q; want exit 2 naming the four kinds", args, code, stderr)
		}
	}
	// conformance has no tools filter; the other kinds take no negative cursor.
	if _, stderr, code := mcptest(t, nil, "generate", "conformance", "--tool", "x", "--url", "http://127.0.0.1:1/mcp"); code != ExitInput || !strings.Contains(stderr, "-tool") {
		t.Errorf("generate conformance --tool: exit %d %q", code, stderr)
	}
	if _, stderr, code := mcptest(t, nil, "generate", "eval", "--cursor", "-1", "--url", "http://127.0.0.1:1/mcp"); code != ExitInput || !strings.Contains(stderr, "--cursor") {
		t.Errorf("generate eval --cursor -1: exit %d %q", code, stderr)
	}
}
