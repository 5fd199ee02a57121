//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
)

// The agent frameworks pinned in .ci/node-frameworks drive the real
// server-everything through the built binary's `mcptest record`, each with
// the scripted model of cassette/testdata/frameworks/variants.mjs:
// the recordings (the proxy's cassette and the framework's own log) give a
// suite through `generate agent-suite`, which passes on them and fails on a
// regressed recording at the same paths, and `report --compare` names the
// flips.

// frameworkScripts are the scripts that drive the frameworks (they record
// the corpus files of cassette/testdata too).
const frameworkScripts = "../../cassette/testdata/frameworks"

// frameworkLog is a log the framework itself writes that mcptest reads:
// the file, the test `generate agent-suite` names after it, how it names
// get-sum and a call of toggle-simulated-logging, whether it holds the
// model's tokens, and whether it holds the catalog (so the drafted suite
// restricts the tools that change state; without it a call of one is only
// a tool outside every class).
type frameworkLog struct {
	file, test  string
	sum, toggle string
	tokens      bool
	catalog     bool
}

// frameworkCase is one framework: its script, and the logs of its own the
// test gates beside the proxy's cassette.
type frameworkCase struct {
	script string
	logs   []frameworkLog
}

var frameworkCases = []frameworkCase{
	{script: "ai-sdk", logs: []frameworkLog{
		{file: "ai_sdk_spans_traced.json", test: "ai_sdk_spans_traced", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true, catalog: true},
		{file: "ai_sdk_messages.jsonl", test: "ai_sdk_messages", sum: "get-sum", toggle: "toggle-simulated-logging"},
	}},
	{script: "openai-agents", logs: []frameworkLog{
		{file: "openai_agents_trace.json", test: "triage: openai_agents_trace", sum: "get-sum", toggle: "everything.toggle-simulated-logging", tokens: true, catalog: true},
		{file: "openai_agents_history.jsonl", test: "openai_agents_history", sum: "get_sum", toggle: "toggle_simulated_logging"},
	}},
	{script: "langchain", logs: []frameworkLog{
		{file: "langchain_lc_messages.jsonl", test: "sum_agent: langchain_lc_messages", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true},
		{file: "langchain_stored_messages.jsonl", test: "sum_agent: langchain_stored_messages", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true},
		{file: "langchain_openinference_spans.json", test: "sum_agent: langchain_openinference_spans", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true},
	}},
	{script: "mcp-client"},
}

// frameworkNode is the node binary and .ci/node-frameworks/node_modules;
// locally the test skips without them, under CI=true it fails.
func frameworkNode(t *testing.T) (node, modules string) {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node-frameworks", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(modules, "ai", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the agent frameworks are not installed (%v): .ci/run installs them with `npm ci --prefix .ci/node-frameworks`", err)
		}
		t.Skipf("the agent frameworks are not installed (%v); run `npm ci --prefix .ci/node-frameworks`", err)
	}
	return node, modules
}

// TestProcessFrameworks records each framework's scripted agent three times
// through `mcptest record --append` (two steps: get-sum, then echo),
// snapshots the server's tools/list with `mcptest tools` and drafts a suite
// from the recordings and that catalog, runs it (it passes), then records
// the regressed runs at the same paths twice, runs the suite again (it
// fails, naming each regression) and compares each run with the baseline's
// (the flips): the wrong tool, an extra call of a tool that changes state
// and three times the tokens; then invalid arguments (get-sum without its
// required b) and the steps reordered.
func TestProcessFrameworks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary, node and real servers")
	}
	server := everythingBin(t)
	node, modules := frameworkNode(t)
	for _, fc := range frameworkCases {
		t.Run(fc.script, func(t *testing.T) {
			dir := frameworkDir(t, modules)
			snapshotCatalog(t, server, dir)
			fc.record(t, node, server, dir, "baseline,baseline,baseline")
			fc = fc.draft(t, dir)
			if stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--format", "json", "--output", "base.json"}, dir: dir}); code != ExitOK {
				t.Fatalf("run on the baseline recordings: exit %d\n%s%s", code, stdout, stderr)
			}
			fc.rerecord(t, node, server, dir, "wrong-tool,restricted,tokens")
			fc.regressed(t, dir)
			fc.rerecord(t, node, server, dir, "invalid-arguments,reordered,baseline")
			fc.regressedSteps(t, dir, "")
		})
	}
}

// snapshotCatalog writes catalog.json in dir as a user saves a server's
// tools/list: `mcptest tools --format json -- SERVER > catalog.json`.
func snapshotCatalog(t *testing.T, server, dir string) {
	t.Helper()
	stdout, stderr, code := runProc(t, procSpec{args: []string{"tools", "--format", "json", "--", server, "stdio"}, dir: dir})
	if code != ExitOK || !strings.Contains(stdout, `"name": "get-sum"`) {
		t.Fatalf("mcptest tools --format json: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rerecord replaces the recordings with the runs named in variants.
func (fc frameworkCase) rerecord(t *testing.T, node, server, dir, variants string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "rec")); err != nil {
		t.Fatal(err)
	}
	fc.record(t, node, server, dir, variants)
}

// frameworkDir is a working directory holding the scripts and the pinned
// frameworks' node_modules, where node resolves the scripts' imports.
func frameworkDir(t *testing.T, modules string) string {
	t.Helper()
	dir := t.TempDir()
	scripts, err := filepath.Glob(filepath.Join(frameworkScripts, "*.mjs"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts in %s (%v)", frameworkScripts, err)
	}
	for _, s := range scripts {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// record runs the framework's script for the runs named in variants, the
// framework starting `mcptest record --append` as its MCP server, and
// checks the proxy's cassette holds one run per variant (a client library's
// probe connection is no run).
func (fc frameworkCase) record(t *testing.T, node, server, dir, variants string) {
	t.Helper()
	rec := filepath.Join(dir, "rec")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, fc.script+".mjs", "rec", variants,
		processBin(t), "record", "--append", "--output", "rec/proxy.json", "--name", "everything", "--", server, "stdio")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node %s %s: %v\n%s", fc.script, variants, err, out)
	}
	n := strings.Count(variants, ",") + 1
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", "rec/proxy.json"}, dir: dir})
	if want := "read as mcptest-v1: " + plural(n, "run"); code != ExitOK || !strings.Contains(stdout, want) {
		t.Fatalf("validate the proxy's cassette after %s: exit %d, want %q\n%s%s", variants, code, want, stdout, stderr)
	}
}

// draft writes suite.yml with `generate agent-suite` from the proxy's
// cassette and the framework's logs, given the server's catalog, and
// checks what it proposes: the two steps as a strict trajectory in every
// test, and an arguments: check in each: against the recording's schemas
// (arguments: {}), else the catalog's (arguments: { catalog:
// "catalog.json" }), the framework's own names for the tools resolved to
// the catalog's. A log
// whose test is "" takes the name the draft gives the test of its
// cassette (and whether it restricts tools); the case returned has the
// names.
func (fc frameworkCase) draft(t *testing.T, dir string) frameworkCase {
	t.Helper()
	args := []string{"generate", "agent-suite", "--from", "rec/proxy.json"}
	for _, l := range fc.logs {
		args = append(args, "--from", "rec/"+l.file)
	}
	_, stderr, code := runProc(t, procSpec{args: append(args, "--catalog", "catalog.json", "--output", "suite.yml"), dir: dir})
	if want := "mcptest: " + plural(1+len(fc.logs), "agent test") + " proposed from " + plural(1+len(fc.logs), "recording") + "; suite written to suite.yml"; code != ExitOK || !strings.Contains(stderr, want) {
		t.Fatalf("generate agent-suite: exit %d, want %q\n%s", code, want, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "suite.yml"))
	if err != nil {
		t.Fatal(err)
	}
	suite := string(data)
	fc.logs = slices.Clone(fc.logs)
	for i, l := range fc.logs {
		if l.test == "" {
			// A log of a version newer than the pinned one: its test as the
			// draft names it, restricting tools where it read a catalog.
			fc.logs[i].test = draftedName(suite, "rec/"+l.file)
			_, test, _ := strings.Cut(suite, "  - name: "+strconv.Quote(fc.logs[i].test)+"\n")
			test, _, _ = strings.Cut(test, "\n\n")
			fc.logs[i].catalog = strings.Contains(test, "restricted: [")
		}
	}
	for _, l := range append([]frameworkLog{proxyLog}, fc.logs...) {
		_, test, _ := strings.Cut(suite, "  - name: "+strconv.Quote(l.test)+"\n")
		test, _, _ = strings.Cut(test, "\n\n")
		test += "\n"
		wants := []string{`cassette: "rec/` + l.file + `"`, `tool_names: { contains: "` + l.sum + `" }`}
		if l.tokens {
			wants = append(wants, `tokens.total: { "<=": `)
		}
		if l.catalog {
			wants = append(wants, `restricted: [`, `"toggle-simulated-logging"`)
		}
		wants = append(wants, "    trajectory:\n      match: strict\n      steps:\n        - { tool: \""+l.sum+"\" }\n        - { tool: \""+l.echo()+"\" }\n")
		// The recording's schemas (arguments: {}), else the catalog's: a
		// framework that names the tool its own way (Mastra's
		// everything_get-sum, the Agents SDK's get_sum) is resolved to
		// the catalog's get-sum (cassette.ResolveTool).
		if !strings.Contains(test, "    arguments: {}\n") {
			wants = append(wants, "catalog: \"catalog.json\"")
		}
		for _, want := range wants {
			if !strings.Contains(test, want) {
				t.Errorf("the drafted test %q lacks %s:\n%s", l.test, want, suite)
			}
		}
	}
	if got := strings.Count(suite, "runs: 3\n"); got != 1+len(fc.logs) {
		t.Errorf("%d tests of 3 runs, want %d:\n%s", got, 1+len(fc.logs), suite)
	}
	return fc
}

// echo is how the log names server-everything's echo, as it names get-sum.
func (l frameworkLog) echo() string {
	return strings.NewReplacer("get-sum", "echo", "get_sum", "echo").Replace(l.sum)
}

// regressedSteps runs the drafted suite on the runs invalid-arguments,
// reordered and baseline: every test fails its second run at the first
// step (the strict trajectory), passes its third, and fails its first where
// the invalid call was recorded (the violation named, whatever the
// framework calls the tool); a framework that refused the call before it reached a
// recording fails that recording's first run on the missing step instead.
// The comparison with the baseline's run names the flips. versions names
// the framework's versions in a failure ("" for the pinned set).
func (fc frameworkCase) regressedSteps(t *testing.T, dir, versions string) {
	t.Helper()
	stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--format", "json", "--output", "steps.json"}, dir: dir})
	if code != ExitFail {
		t.Fatalf("%s: run on the invalid-arguments and reordered recordings: exit %d, want %d\n%s%s", versions, code, ExitFail, stdout, stderr)
	}
	stdout, _, _ = runProc(t, procSpec{args: []string{"run", "--config", "suite.yml"}, dir: dir})
	compared, stderr, code := runProc(t, procSpec{args: []string{"report", "steps.json", "--compare", "base.json"}, dir: dir})
	if want := plural(1+len(fc.logs), "regression") + ", 0 fixes, 0 new, 0 removed, 0 not comparable"; code != ExitFail || !strings.Contains(compared, want) {
		t.Errorf("%s: report --compare: exit %d, want %d and %q\n%s%s", versions, code, ExitFail, want, compared, stderr)
	}
	caught := false
	for _, l := range append([]frameworkLog{proxyLog}, fc.logs...) {
		out := caseLines(stdout, "FAIL  "+l.test+"  (3 runs)")
		flips := caseLines(compared, "REGRESSION  "+l.test+"  pass -> fail")
		wants := []string{
			"run 2: strict trajectory: expected step 1 `" + l.sum + "`, got `",
			"default gate of `trajectory:` (`trajectory.match_pct` >= 100) failed",
			"reliability: 1/3 runs passed", // the third
		}
		flipWants := []string{"regression assertion #0 (`trajectory.match_pct`) in trajectory: pass -> fail"}
		// The invalid call is recorded when the run holds both steps.
		vout, _, _ := runProc(t, procSpec{args: []string{"validate", "rec/" + l.file}, dir: dir})
		m := readAs.FindStringSubmatch(vout)
		recorded := m != nil && m[3] == "6"
		switch {
		case recorded:
			caught = caught || l == proxyLog
			wants = append(wants, "run 1: turn 1 call 1 `", "` arguments /b: required: expected the required parameter `b`, got none",
				"default gate of `arguments:` (`arguments.invalid` <= 0) failed", "failed in run 1 of 3")
			flipWants = append(flipWants, "(`arguments.invalid`) in arguments: pass -> fail")
		default:
			// The framework refused the call (it checks the arguments
			// itself): the recording's first run lacks the step.
			t.Logf("%s: %s holds no invalid call (%s): the framework refused it", versions, l.file, strings.TrimSpace(vout))
			caught = caught || l == proxyLog
			wants = append(wants, "assertion #0 (`tool_names`) failed in run 1 of 3: no element equals `\""+l.sum+"\"`")
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the run on the invalid-arguments and reordered recordings says nothing of %q for %q:\n%s", versions, want, l.test, stdout)
			}
		}
		for _, want := range flipWants {
			if !strings.Contains(flips, want) {
				t.Errorf("%s: report --compare names no %q for %q:\n%s", versions, want, l.test, compared)
			}
		}
	}
	if !caught {
		t.Errorf("%s: the proxy's test does not fail the invalid arguments:\n%s", versions, stdout)
	}
}

// draftedName is the name of the drafted suite's test of cassette, "" if
// none.
func draftedName(suite, cassette string) string {
	name := ""
	for _, line := range strings.Split(suite, "\n") {
		if v, ok := strings.CutPrefix(line, "  - name: "); ok {
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			}
			name = v
		}
		if strings.TrimSpace(line) == "cassette: "+strconv.Quote(cassette) {
			return name
		}
	}
	return ""
}

// regressed runs the drafted suite on the regressed recordings: it fails
// with the message of each regression, and the comparison with the
// baseline's run names the flips.
func (fc frameworkCase) regressed(t *testing.T, dir string) {
	t.Helper()
	stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml"}, dir: dir})
	if code != ExitFail {
		t.Fatalf("run on the regressed recordings: exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	for _, l := range append([]frameworkLog{proxyLog}, fc.logs...) {
		out := caseLines(stdout, "FAIL  "+l.test+"  (3 runs)")
		wants := []string{"assertion #0 (`tool_names`) failed in run 1 of 3: no element equals `\"" + l.sum + "\"`"}
		if l.catalog {
			wants = append(wants, "called restricted tool `"+l.toggle+"`")
		} else {
			wants = append(wants, "unexpected tool `"+l.toggle+"`: it is in no declared class")
		}
		if l.tokens {
			wants = append(wants, "(`tokens.total`) failed in run 3 of 3: ")
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("the run on the regressed recordings says nothing of %q for %q:\n%s", want, l.test, stdout)
			}
		}
	}
	if stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--format", "json", "--output", "current.json"}, dir: dir}); code != ExitFail {
		t.Fatalf("run --format json: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runProc(t, procSpec{args: []string{"report", "current.json", "--compare", "base.json"}, dir: dir})
	if want := plural(1+len(fc.logs), "regression") + ", 0 fixes, 0 new, 0 removed, 0 not comparable"; code != ExitFail || !strings.Contains(stdout, want) {
		t.Errorf("report --compare: exit %d, want %d and %q\n%s%s", code, ExitFail, want, stdout, stderr)
	}
	for _, l := range append([]frameworkLog{proxyLog}, fc.logs...) {
		out := caseLines(stdout, "REGRESSION  "+l.test+"  pass -> fail")
		flips := []string{"regression assertion #0 (`tool_names`): pass -> fail", "regression assertion #0 (`tool_selection.f1`) in equal_function_sets: pass -> fail"}
		if l.catalog {
			flips = append(flips, "regression assertion #0 (`edges.restricted_attempts`) in tool_edges: pass -> fail")
		}
		if l.tokens {
			flips = append(flips, "(`tokens.total`): pass -> fail")
		}
		for _, want := range flips {
			if !strings.Contains(out, want) {
				t.Errorf("report --compare names no %q for %q:\n%s", want, l.test, stdout)
			}
		}
	}
}

// proxyLog is the proxy's cassette, as the tests read it: the server's
// catalog and names, under --name everything, and no tokens.
var proxyLog = frameworkLog{file: "proxy.json", test: "proxy", sum: "get-sum", toggle: "everything.toggle-simulated-logging", catalog: true}

// caseLines is the block of a case in a run's or a comparison's text
// output: the line header starts, and the indented lines after it; "" when
// no line starts with header.
func caseLines(out, header string) string {
	i := strings.Index("\n"+out, "\n"+header)
	if i < 0 {
		return ""
	}
	block, _, _ := strings.Cut(out[i:], "\n")
	for _, l := range strings.Split(out[i+len(block):], "\n")[1:] {
		if !strings.HasPrefix(l, " ") {
			break
		}
		block += "\n" + l
	}
	return block
}

// TestProcessRecordOverlappingSessions starts a second `record --append`
// before the first has ended, as a framework does that closes one MCP
// session and starts the next without waiting for the server process to
// exit: each adds its run, the second to the file the first wrote, in a
// directory that did not exist before the first.
func TestProcessRecordOverlappingSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	args := []string{"record", "--append", "--output", "rec/agent.json", "--", server, "stdio"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var procs []*proc
	var sessions []*mcp.ClientSession
	for range 2 {
		p, cs := recordedSession(t, ctx, args, dir)
		procs, sessions = append(procs, p), append(sessions, cs)
	}
	for i, p := range procs {
		sessions[i].Close()
		if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
			t.Fatalf("record %d: exit %d, signal %v\n%s", i+1, code, sig, p.stderr.String())
		}
	}
	if want := "rec/agent.json holds 2 runs\n"; !strings.HasSuffix(procs[1].stderr.String(), want) {
		t.Errorf("the second record says %q, want the end %q", procs[1].stderr.String(), want)
	}
	c, err := cassette.ReadFile(filepath.Join(dir, "rec", "agent.json"))
	if err != nil || len(c.Runs) != 2 {
		t.Errorf("the cassette (%v) holds %d runs, want 2", err, len(c.Runs))
	}
}

// TestProcessRecordAppendWaitsForLock ends three `record --append`
// sessions at once while the cassette's directory is locked, as by another
// record process writing there: each waits, saying so, and writes nothing;
// once the lock is released each adds its run, none lost to another's
// rename.
func TestProcessRecordAppendWaitsForLock(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	lock, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	args := []string{"record", "--append", "--output", "agent.json", "--", server, "stdio"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var procs []*proc
	for range 3 {
		p, cs := recordedSession(t, ctx, args, dir)
		cs.Close()
		procs = append(procs, p)
	}
	for _, p := range procs {
		p.waitFor(30*time.Second, "it waits for the lock", func() bool {
			return strings.Contains(p.stderr.String(), "mcptest: waiting for another process writing in . to finish\n")
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "agent.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("agent.json was written while the directory was locked (%v)", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
			t.Fatalf("record %d: exit %d, signal %v\n%s", i+1, code, sig, p.stderr.String())
		}
	}
	c, err := cassette.ReadFile(filepath.Join(dir, "agent.json"))
	if err != nil || len(c.Runs) != 3 {
		t.Errorf("the cassette (%v) holds %d runs, want 3", err, len(c.Runs))
	}
}

// recordedSession starts `mcptest ARGS` (a record command) in dir, connects
// an MCP client through it and calls get-sum once: one run, its session
// still open.
func recordedSession(t *testing.T, ctx context.Context, args []string, dir string) (*proc, *mcp.ClientSession) {
	t.Helper()
	p := startProc(t, procSpec{args: args, dir: dir, pipes: true})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bintest", Version: "v1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: p.out, Writer: p.in}, nil)
	if err != nil {
		t.Fatalf("connect through record: %v\n%s", err, p.stderr.String())
	}
	callTool(t, ctx, cs, "get-sum", map[string]any{"a": 2, "b": 3})
	return p, cs
}
