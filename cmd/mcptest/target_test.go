package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveVerbs are every command that reads a live target, with the flags
// each needs besides the target.
var liveVerbs = [][]string{
	{"tools"}, {"resources"}, {"prompts"}, {"capabilities"}, {"security"},
	{"doctor"}, {"doctor", "--lint-descriptions"},
	{"generate", "suite"}, {"generate", "conformance"}, {"generate", "redteam"}, {"generate", "eval"},
	{"record", "--output", "rec.json"},
}

// TestTimeoutFlag: every live verb takes --timeout, and a server that does
// not answer within it fails the command (exit 3) with a message naming
// the timeout, promptly.
func TestTimeoutFlag(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the silent server is a POSIX shell")
	}
	dir := t.TempDir()
	for _, verb := range liveVerbs {
		t.Run(strings.Join(verb, " "), func(t *testing.T) {
			args := append(append([]string(nil), verb...), "--timeout", "300ms", "--", "sh", "-c", "exec sleep 30")
			if verb[0] == "record" {
				args[2] = filepath.Join(dir, "rec.json")
			}
			start := time.Now()
			_, stderr, code := mcptest(t, nil, args...)
			if code != ExitError || !strings.Contains(stderr, "did not answer within 300ms") {
				t.Errorf("exit %d, stderr %q; want exit 3 naming the 300ms timeout", code, stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s with --timeout 300ms", took)
			}
		})
	}
}

// TestTimeoutFromSuite: --server takes the server's timeout: from the
// suite, and --timeout overrides it.
func TestTimeoutFromSuite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the silent server is a POSIX shell")
	}
	suite := filepath.Join(t.TempDir(), "suite.yml")
	if err := os.WriteFile(suite, []byte("servers:\n  silent:\n    command: [sh, -c, exec sleep 30]\n    timeout: 300ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := mcptest(t, nil, "tools", "--server", "silent", "--config", suite)
	if code != ExitError || !strings.Contains(stderr, "did not answer within 300ms") {
		t.Errorf("the suite's timeout: exit %d, %q", code, stderr)
	}
	_, stderr, code = mcptest(t, nil, "tools", "--server", "silent", "--config", suite, "--timeout", "400ms")
	if code != ExitError || !strings.Contains(stderr, "did not answer within 400ms") {
		t.Errorf("--timeout over the suite's: exit %d, %q", code, stderr)
	}
}

// TestTimeoutFlagRefusesNonPositive: --timeout is a positive duration.
func TestTimeoutFlagRefusesNonPositive(t *testing.T) {
	for _, v := range []string{"0s", "-5s", "soon", "30"} {
		_, stderr, code := mcptest(t, nil, "tools", "--timeout", v, "--url", "http://127.0.0.1:1/mcp")
		if code != ExitInput || !strings.Contains(stderr, "--timeout") {
			t.Errorf("--timeout %s: exit %d %q; want exit 2 naming the flag", v, code, stderr)
		}
	}
}

// TestRootsAreTheSuiteDirectory: a suite's stdio server that asks for the
// client's roots (server-everything's get-roots-list) is given one, the
// suite's directory.
func TestRootsAreTheSuiteDirectory(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yml")
	body := "servers:\n  everything:\n    command: [" + strings.Join(quoteAll(everything), ", ") + "]\n" +
		"tools:\n  - name: roots\n    server: everything\n    tool: get-roots-list\n    expect:\n" +
		"      - target: result.content[0].text\n        matcher: {contains: " + strconv.Quote("URI: file://"+filepath.ToSlash(dir)) + "}\n"
	if err := os.WriteFile(suite, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
	if code != ExitOK {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestRunTimeout: run --timeout bounds every live server of the suite,
// over its timeout:.
func TestRunTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the silent server is a POSIX shell")
	}
	suite := filepath.Join(t.TempDir(), "suite.yml")
	body := "servers:\n  silent:\n    command: [sh, -c, exec sleep 30]\n    timeout: 20s\ntools:\n  - {name: call, server: silent, tool: anything}\n"
	if err := os.WriteFile(suite, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--timeout", "300ms")
	if code != ExitFail || !strings.Contains(stdout, "did not answer within 300ms") {
		t.Errorf("exit %d\n%s%s; want the case failed naming the 300ms timeout", code, stdout, stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s with --timeout 300ms", took)
	}
}
