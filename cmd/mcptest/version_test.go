package main

import (
	"strings"
	"testing"
)

// TestVersionFlags checks that --version, -v and `version` print the
// version on stdout and exit 0, as CLIs do.
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-v"} {
		stdout, stderr, code := mcptest(t, nil, arg)
		if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, "mcptest "+version+"\n") {
			t.Errorf("mcptest %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

// TestBuildIDOfADevelopmentBuild: an unstamped build (this test binary)
// keys the result cache by the digest of its executable.
func TestBuildIDOfADevelopmentBuild(t *testing.T) {
	id := buildID()
	if !strings.HasPrefix(id, "dev-") || len(id) != len("dev-")+64 || buildID() != id {
		t.Errorf("buildID() = %q, want dev- and a stable sha256", id)
	}
}
