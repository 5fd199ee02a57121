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
