package envstream

import (
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
