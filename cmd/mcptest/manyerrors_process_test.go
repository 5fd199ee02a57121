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
// suites with the same mistake in every test (no name, no type: two
// errors a test), as a generator that missed a renamed key writes them,
// at 2,000 and 20,000 tests: `run` and `validate` exit 2 and print the
// first diag.MaxPrinted errors with their lines, how many more there are,
// and the count of all. Printing was a scan from the top of the file for
// each error: 40,000 tests took 11 s, 1,000,000 more than ten minutes.
func TestProcessManyErrorsPrintFirst(t *testing.T) {
	bin := processBin(t)
	for _, n := range []int{2_000, 20_000} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte("tests:\n"+strings.Repeat("  - {}\n", n)), 0o644); err != nil {
			t.Fatal(err)
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
			if got := strings.Count(out, "missing required key"); got != 50 {
				t.Errorf("%s over %d tests: %d errors printed, want 50", cmd, n, got)
			}
			wantEnd := fmt.Sprintf("... and %d more, not shown\n%d errors\n", 2*n-50, 2*n)
			if !strings.HasSuffix(out, wantEnd) || !strings.Contains(out, "suite.yml:26:5: missing required key \"name\" in \"tests[24]\" section [schema]\n    - {}\n      ^\n") {
				t.Errorf("%s over %d tests: the output ends\n%s\nwant it to end %q", cmd, n, out[max(0, len(out)-400):], wantEnd)
			}
			t.Logf("%s, %d tests: %d KiB peak", cmd, n, c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
		}
	}
}
