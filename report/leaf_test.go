package report_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReportersDoNotLinkTheRunner checks the package graph the envelope's
// move made: the reporters and the comparison link the report, not the
// runner (engine), the MCP client (live) or the MCP SDK; so does the
// viewer of mcptest view (annotate/viewer).
func TestReportersDoNotLinkTheRunner(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../annotate/...", "../baseline", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "github.com/mcptest/mcptest/engine",
			dep == "github.com/mcptest/mcptest/live",
			strings.HasPrefix(dep, "github.com/modelcontextprotocol/"):
			t.Errorf("annotate, baseline or report links %s", dep)
		}
	}
	if !strings.Contains(string(out), "github.com/mcptest/mcptest/report\n") {
		t.Errorf("go list -deps did not list report:\n%s", out)
	}
}
