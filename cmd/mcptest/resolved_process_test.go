//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette"
)

// The regressions of the low findings, each through the built binary: a
// lock, an install and an --output decided on the file a path resolves to,
// not on how it is spelled; an alias that would move a call out of
// restricted:; the meta-schema's wording; --color over NO_COLOR (in
// TestColorEnvironment); unchecked calls named, and failed on demand.

// TestProcessRecordAppendResolvesLink ends three `record --append`
// sessions that name one cassette three ways, through a link to the file
// (dangling: the cassette does not exist yet), through a link to its
// directory and by its own path, while the real directory is locked: each
// waits for that lock, so none writes beside another; once it is released
// the cassette holds the three runs and the link is still a link.
func TestProcessRecordAppendResolvesLink(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary and real servers")
	}
	server := everythingBin(t)
	dir := t.TempDir()
	realDir := filepath.Join(dir, "real")
	for _, d := range []string{realDir, filepath.Join(dir, "agent")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../real/proxy.json", filepath.Join(dir, "agent", "proxy.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	lock, err := os.Open(realDir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var procs []*proc
	for _, out := range []string{"agent/proxy.json", "linked/proxy.json", "real/proxy.json"} {
		p, cs := recordedSession(t, ctx, []string{"record", "--append", "--output", out, "--", server, "stdio"}, dir)
		cs.Close()
		procs = append(procs, p)
	}
	resolved, _ := filepath.EvalSymlinks(realDir)
	for i, p := range procs {
		p.waitFor(30*time.Second, "it waits for the lock of the real directory", func() bool {
			return strings.Contains(p.stderr.String(), "("+resolved+") to finish\n") ||
				strings.Contains(p.stderr.String(), "mcptest: waiting for another process writing in real to finish\n")
		})
		if _, err := os.Lstat(filepath.Join(dir, "agent", "proxy.json")); err != nil {
			t.Fatalf("session %d: the link is gone: %v", i+1, err)
		}
	}
	if _, err := os.Stat(filepath.Join(realDir, "proxy.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the cassette was written while its directory was locked (%v)", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		if code, sig := p.wait(30 * time.Second); code != ExitOK || sig != 0 {
			t.Fatalf("record %d: exit %d, signal %v\n%s", i+1, code, sig, p.stderr.String())
		}
	}
	c, err := cassette.ReadFile(filepath.Join(realDir, "proxy.json"))
	if err != nil || len(c.Runs) != 3 {
		t.Errorf("the cassette (%v) holds %d runs, want 3", err, len(c.Runs))
	}
	if fi, err := os.Lstat(filepath.Join(dir, "agent", "proxy.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("agent/proxy.json is no longer a link (%v)", err)
	}
}

// TestProcessInstallStaysInWorkspace: a committed link of a client's
// directory (.cursor, .vscode) or a dangling link of its file (.mcp.json)
// that leads out of the workspace is refused (exit 2) before the file
// exists, and nothing is written outside; a link that stays inside is
// written through.
func TestProcessInstallStaysInWorkspace(t *testing.T) {
	for _, tc := range []struct{ client, link, target string }{
		{"cursor", ".cursor", "DIR"},
		{"vscode", ".vscode", "DIR"},
		{"claude-code", ".mcp.json", "DIR/mcp.json"},
	} {
		root, outside := t.TempDir(), t.TempDir()
		if err := os.Symlink(strings.Replace(tc.target, "DIR", outside, 1), filepath.Join(root, tc.link)); err != nil {
			t.Fatal(err)
		}
		out, code := runProcIn(t, root, "mcp-server", "--install", "--absolute", "--client", tc.client, "--root", root)
		if code != ExitInput || !strings.Contains(out, "outside the workspace") {
			t.Errorf("%s through %s: exit %d, want %d and the link refused\n%s", tc.client, tc.link, code, ExitInput, out)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Errorf("%s through %s: %d files were written outside the workspace", tc.client, tc.link, len(entries))
		}
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared", filepath.Join(root, ".cursor")); err != nil {
		t.Fatal(err)
	}
	if out, code := runProcIn(t, root, "mcp-server", "--install", "--absolute", "--client", "cursor", "--root", root); code != ExitOK {
		t.Errorf("a link inside the workspace: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "shared", "mcp.json")); err != nil {
		t.Errorf("the config was not written through the link inside the workspace: %v", err)
	}
}

// runProcIn runs the binary under test in dir with a bare environment: its
// combined output and exit code.
func runProcIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	p := startProc(t, procSpec{args: args, dir: dir})
	code, sig := p.wait(time.Minute)
	if sig != 0 {
		t.Fatalf("mcptest %s ended by %v", strings.Join(args, " "), sig)
	}
	return p.stdout.String() + p.stderr.String(), code
}

// TestProcessOutputComparesFiles: every pair of spellings of one file
// given to two reports (--output FILE and --output html=FILE, or two
// FORMAT=FILE) is refused, exit 2, before anything is written: the same
// name, ./name, sub/../name, the absolute path, a link to it and, once it
// exists, a hard link to it. Two different files are written.
func TestProcessOutputComparesFiles(t *testing.T) {
	suite, _ := filepath.Abs("../../examples/quickstart/suite.yml")
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.json", filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	spellings := []string{"a.json", "./a.json", "sub/../a.json", filepath.Join(dir, "a.json"), "link.json"}
	try := func(state string) {
		for i, x := range spellings {
			for _, y := range spellings[i:] {
				for _, args := range [][]string{{"--output", x, "--output", "html=" + y}, {"--output", "junit=" + x, "--output", "sarif=" + y}} {
					before, _ := os.ReadFile(filepath.Join(dir, "a.json"))
					out, code := runProcIn(t, dir, append([]string{"run", suite}, args...)...)
					if code != ExitInput || !strings.Contains(out, "given for two reports") {
						t.Errorf("%s: run %s: exit %d, want %d and the two reports refused\n%s", state, strings.Join(args, " "), code, ExitInput, out)
					}
					if after, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(after) != string(before) {
						t.Errorf("%s: run %s wrote a.json", state, strings.Join(args, " "))
					}
				}
			}
		}
	}
	try("before a.json exists")
	if out, code := runProcIn(t, dir, "run", suite, "--format", "json", "--output", "a.json", "--output", "html=b.html"); code != ExitOK {
		t.Fatalf("two files: exit %d\n%s", code, out)
	}
	if err := os.Link(filepath.Join(dir, "a.json"), filepath.Join(dir, "hard.json")); err != nil {
		t.Fatal(err)
	}
	spellings = append(spellings, "hard.json")
	try("once a.json exists")
}

// TestProcessArgumentsWording: a violation of the meta-schema a tool's
// schema refers to ($ref to 2020-12) says what the meta-schema expected,
// never "<nil>" or "one of null"; calls whose schema does not compile
// ("$schema": "http://x") are named on the case's line and in a warning
// of a passing case, and `arguments.unchecked <= 0` fails the case on
// them.
func TestProcessArgumentsWording(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "c.json"), `{"mcptest_cassette": 1, "agent": "a",
 "catalog": {"s": {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"schema": {"$ref": "https://json-schema.org/draft/2020-12/schema"}}}},
   {"name": "u", "inputSchema": {"$schema": "http://x", "type": "object"}}]}},
 "runs": [{"turns": [{"calls": [{"server": "s", "tool": "t", "arguments": {"schema": {"type": 5, "minimum": "x"}}}, {"server": "s", "tool": "u", "arguments": {"a": 1}}]}]}]}`)
	writeFile(t, filepath.Join(dir, "only-u.json"), `{"mcptest_cassette": 1, "agent": "a",
 "catalog": {"s": {"tools": [{"name": "u", "inputSchema": {"$schema": "http://x", "type": "object"}}]}},
 "runs": [{"turns": [{"calls": [{"server": "s", "tool": "u", "arguments": {"a": 1}}, {"server": "s", "tool": "u"}]}]}]}`)
	writeFile(t, filepath.Join(dir, "meta.yml"), "agents:\n  - name: meta\n    cassette: c.json\n    arguments: {}\n")
	out, code := runProcIn(t, dir, "run", "meta.yml")
	if code != ExitFail || strings.Contains(out, "<nil>") || strings.Contains(out, "one of null") ||
		!strings.Contains(out, "/schema/type: type: expected array (as https://json-schema.org/draft/2020-12/meta/validation says), got 5 (integer)") ||
		!strings.Contains(out, "/schema/minimum: type: expected number (as https://json-schema.org/draft/2020-12/meta/validation says), got \"x\" (string)") {
		t.Errorf("the meta-schema's violations: exit %d\n%s", code, out)
	}
	writeFile(t, filepath.Join(dir, "pass.yml"), "agents:\n  - name: unchecked\n    cassette: only-u.json\n    arguments: {}\n")
	out, code = runProcIn(t, dir, "run", "pass.yml")
	if code != ExitOK || !strings.Contains(out, "PASS  unchecked  (1 run)  arguments.invalid=0 arguments.unchecked=2") ||
		!strings.Contains(out, "warning: 2 of 2 calls were not checked (`s.u` ×2)") || !strings.Contains(out, "1 passed, 0 failed, 0 inconclusive (1 case); 2 calls not checked against a schema (arguments.unchecked)") {
		t.Errorf("unchecked calls in a passing case: exit %d\n%s", code, out)
	}
	writeFile(t, filepath.Join(dir, "strict.yml"), "agents:\n  - name: unchecked\n    cassette: only-u.json\n    arguments:\n      expect:\n        - arguments.invalid: { \"<=\": 0 }\n        - arguments.unchecked: { \"<=\": 0 }\n")
	out, code = runProcIn(t, dir, "run", "strict.yml")
	if code != ExitFail || !strings.Contains(out, "strict.yml:7:") || !strings.Contains(out, "(`arguments.unchecked`) failed: 2 is greater than the maximum 0") {
		t.Errorf("arguments.unchecked <= 0: exit %d\n%s", code, out)
	}
}

// TestProcessRestrictedAlias: an alias that makes a restricted tool
// another name of an allowed one is refused, exit 2, at the restricted
// entry, in a suite's aliases: and in a test's own.
func TestProcessRestrictedAlias(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "c.json"), `{"mcptest_cassette": 1, "agent": "a",
 "catalog": {"s": {"tools": [{"name": "get_sum", "inputSchema": {"type": "object"}}, {"name": "echo", "inputSchema": {"type": "object"}}]}},
 "runs": [{"turns": [{"calls": [{"server": "s", "tool": "echo", "arguments": {}}]}]}]}`)
	for name, suite := range map[string]string{
		"suite.yml": "aliases: {get_sum: echo}\nagents:\n  - name: a\n    cassette: c.json\n    tool_edges: {allowed: [get_sum], restricted: [echo]}\n",
		"case.yml":  "agents:\n  - name: a\n    cassette: c.json\n    aliases: {get_sum: [other, echo]}\n    tool_edges: {allowed: [get_sum], restricted: [s.echo]}\n",
	} {
		writeFile(t, filepath.Join(dir, name), suite)
		out, code := runProcIn(t, dir, "run", name)
		if code != ExitInput || !strings.Contains(out, name+":5:") || !strings.Contains(out, "is restricted, and aliases: makes it another name of") {
			t.Errorf("%s: exit %d, want %d at the restricted entry\n%s", name, code, ExitInput, out)
		}
	}
	writeFile(t, filepath.Join(dir, "plain.yml"), "agents:\n  - name: a\n    cassette: c.json\n    tool_edges: {allowed: [get_sum], restricted: [echo]}\n")
	if out, code := runProcIn(t, dir, "run", "plain.yml"); code != ExitFail {
		t.Errorf("without the alias the restricted call fails the case: exit %d\n%s", code, out)
	}
}
