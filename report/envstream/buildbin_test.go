package envstream

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildMcptest builds the mcptest binary into dir, for the tests that run
// it as a user does, and returns its path.
func buildMcptest(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mcptest")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/mcptest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runBin runs the built binary bin in dir with args and returns what it
// wrote to stdout and stderr and its exit status; a process that could
// not be started or did not exit fails the test.
func runBin(t *testing.T, dir, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}
