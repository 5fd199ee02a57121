package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestProcessManyErrorsPrintFirst runs the built binary on generated
// suites with the same mistake in every test (no name and no type, two
// errors a test; no name beside a runs: the builder reads), as a
// generator that missed a renamed key writes them: `run` and `validate`
// exit 2 and print the first diag.MaxPrinted errors with their lines,
// how many more there are, the last, and the count of all; past 1,000 errors
// (maxLoadErrors) the load stops and says at which test. Printing was a
// scan from the top of the file for each error (40,000 tests took 11 s),
// the builder scanned every schema error for each field it read (48 s at
// 40,000), and a million such tests took 2.9 GB to report.
func TestProcessManyErrorsPrintFirst(t *testing.T) {
	bin := processBin(t)
	for _, tc := range []struct {
		n    int
		test string
		per  int // errors a test
	}{{400, "{}", 2}, {2_000, "{}", 2}, {200_000, "{}", 2}, {20_000, "{type: agent, runs: 3, cassette: c.json}", 1}} {
		n := tc.n
		dir := t.TempDir()
		for name, text := range map[string]string{
			"suite.yml": "tests:\n" + strings.Repeat("  - "+tc.test+"\n", n),
			"c.json":    `{"mcptest_cassette": 1, "runs": []}`,
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, cmd := range []string{"run", "validate"} {
			c := exec.Command(bin, cmd, "--config", "suite.yml")
			c.Dir = dir
			c.Env = append(os.Environ(), "CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR="+t.TempDir())
			var stderr bytes.Buffer
			c.Stderr = &stderr
			err := c.Run()
			code := c.ProcessState.ExitCode()
			out := stderr.String()
			if code != 2 {
				t.Fatalf("%s over %d tests: exit %d (%v), want 2\n%.500s", cmd, n, code, err, out)
			}
			all, printed := tc.per*n, 51 // the first 50 and the last
			if all > 1000 {
				printed = 50 // the last says where the load stopped
				all = 1001   // the first 1,000 and where the load stopped
				if !strings.Contains(out, "stopped here after 1000 errors: the items from here on were not checked") {
					t.Errorf("%s over %d tests: the load does not say where it stopped", cmd, n)
				}
			}
			if got := strings.Count(out, "missing required key"); got != printed {
				t.Errorf("%s over %d tests: %d errors printed, want %d", cmd, n, got, printed)
			}
			wantEnd := fmt.Sprintf("... and %d more, not shown\n", all-51)
			at := 50/tc.per + 1 // the line of the test of the 50th error
			want50th := fmt.Sprintf("suite.yml:%d:5: missing required key \"name\" in \"tests[%d]\" section [schema]\n    - %s\n      ^\n", at, at-2, tc.test)
			if !strings.Contains(out, wantEnd) || !strings.HasSuffix(out, fmt.Sprintf("%d errors\n", all)) || !strings.Contains(out, want50th) {
				t.Errorf("%s over %d tests: the output ends\n%s\nwant it to end %q", cmd, n, out[max(0, len(out)-400):], wantEnd)
			}
			t.Logf("%s, %d tests: %d KiB peak", cmd, n, c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		}
	}
}
