package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
)

// slowSuite is a live suite over server-everything that runs over a
// second: a long-running operation, then an echo test that fails.
func slowSuite(t *testing.T) string {
	t.Helper()
	return writeToolSuite(t, "  everything:\n    command: ["+quoteYAML(everythingBin(t))+"]\n", `
  - name: slow operation
    tool: trigger-long-running-operation
    args: {duration: 2, steps: 2}
  - name: echo fails
    tool: echo
    args: {message: hi}
    expect:
      - result.content[0].text: {exact: "nope"}
`)
}

// logLine is one progress line of a CI log.
var logLine = regexp.MustCompile(`^mcptest: [0-2]/2 cases, [01] failed, [0-9.]+s elapsed(, ETA [0-9.]+s)?(, running "(slow operation|echo fails)" on everything)?$`)

// TestProcessProgress runs the built binary on a live suite that takes
// over a second: in a terminal (a pseudo-terminal of util-linux's script)
// stderr carries one line rewritten in place, with the cases done, the
// failures, the elapsed time and the test in flight with its server,
// erased before the report; with no terminal and CI=true, whole lines at
// the interval of MCPTEST_PROGRESS_INTERVAL; and nothing with --quiet,
// with a machine format on stdout, or with no terminal off CI.
func TestProcessProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	bin, suite := processBin(t), slowSuite(t)
	t.Run("terminal", func(t *testing.T) {
		t.Parallel()
		script, err := exec.LookPath("script")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("script (util-linux) is not installed: install util-linux (bsdutils on Debian and Ubuntu)")
			}
			t.Skip("script (util-linux) is not installed; install util-linux (bsdutils on Debian and Ubuntu)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// stdout goes to a file: the pseudo-terminal carries stderr alone.
		report := t.TempDir() + "/report.txt"
		cmd := exec.CommandContext(ctx, script, "-q", "-e", "-c", shellQuote(bin)+" run --config "+shellQuote(suite)+" >"+shellQuote(report), "/dev/null")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm", "NO_COLOR=1"}
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != ExitFail {
			t.Fatalf("exit %d, want %d\n%q", code, ExitFail, out)
		}
		got := string(out)
		if !strings.HasPrefix(got, "\rmcptest: 0/2 cases, 0 failed, ") || !strings.HasSuffix(got, "\x1b[K\r\x1b[K") {
			t.Errorf("the terminal's stderr is not one line rewritten and erased at the end:\n%q", got)
		}
		if !strings.Contains(got, `running "slow operation" on everything`) || strings.Contains(got, "\n") {
			t.Errorf("the line does not name the test in flight, or it is not one line:\n%q", got)
		}
		for _, l := range strings.Split(strings.TrimSuffix(got, "\r\x1b[K"), "\r") {
			if l = strings.TrimSuffix(l, "\x1b[K"); l != "" && !logLine.MatchString(l) {
				t.Errorf("progress line %q", l)
			}
		}
		if text, _ := os.ReadFile(report); !strings.Contains(string(text), "FAIL  echo fails") || strings.Contains(string(text), "cases, ") {
			t.Errorf("the report on stdout:\n%s", text)
		}
	})
	for _, tc := range []struct {
		name  string
		env   []string
		flags []string
		lines bool
	}{
		{"ci", []string{"CI=true", progressEnv + "=300ms"}, nil, true},
		{"ci-quiet", []string{"CI=true", progressEnv + "=300ms"}, []string{"--quiet"}, false},
		{"ci-json", []string{"CI=true", progressEnv + "=300ms"}, []string{"--format", "json"}, false},
		{"no-terminal", []string{progressEnv + "=300ms"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, append([]string{"run", "--config", suite}, tc.flags...)...)
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MCPTEST_DIR=" + t.TempDir()}, tc.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != ExitFail {
				t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			got := stderr.String()
			if !tc.lines {
				if got != "" {
					t.Errorf("stderr: %q", got)
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) < 2 || !strings.HasSuffix(got, "\n") {
				t.Fatalf("a run of over two seconds printed %d progress lines:\n%q", len(lines), got)
			}
			for _, l := range lines {
				if !logLine.MatchString(l) {
					t.Errorf("progress line %q", l)
				}
			}
			if !strings.Contains(got, `running "slow operation" on everything`) {
				t.Errorf("no line names the test in flight:\n%s", got)
			}
		})
	}
}

// TestReplayProgressInCILog is the other half of the stumble: a long
// replay (the generator corpus, one case per cassette, the cache off) in
// a CI log, no terminal, prints whole progress lines that count its
// cases, and the report on stdout holds none; off CI it prints nothing.
func TestReplayProgressInCILog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	const n = 400
	bin, dir := processBin(t), t.TempDir()
	if _, err := gen.Write(dir, n, gen.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^mcptest: [0-9]+/400 cases, 0 failed, [0-9.]+s elapsed(, ETA [0-9.]+s)?$`)
	for _, ci := range []bool{true, false} {
		cmd := exec.Command(bin, "run", "--config", filepath.Join(dir, gen.CaseSuiteFile), "--no-cache")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MCPTEST_DIR=" + t.TempDir(), progressEnv + "=50ms"}
		if ci {
			cmd.Env = append(cmd.Env, "CI=true")
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("CI %v: %v\n%s", ci, err, stderr.String())
		}
		got := stderr.String()
		if strings.Contains(stdout.String(), " cases, 0 failed, ") || !strings.Contains(stdout.String(), "400 passed") {
			t.Errorf("CI %v: the report on stdout:\n%.600s", ci, stdout.String())
		}
		if !ci {
			if got != "" {
				t.Errorf("off CI, no terminal: stderr %q", got)
			}
			continue
		}
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if got == "" || !strings.HasSuffix(got, "\n") {
			t.Fatalf("a replay of %d cases in a CI log printed no progress line: %q", n, got)
		}
		for _, l := range lines {
			if !line.MatchString(l) {
				t.Errorf("progress line %q", l)
			}
		}
	}
}
