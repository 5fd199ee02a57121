package engine

import "testing"

// An inline suite of the front door resolves its paths against the
// workspace root; every other suite against its own directory.
func TestSuiteDir(t *testing.T) {
	for in, want := range map[string]string{
		"suite.yml":                         ".",
		"examples/quickstart/suite.yml":     "examples/quickstart",
		".mcptest/inline/01ABC.yml":         ".",
		"ws/.mcptest/inline/01ABC.yml":      "ws",
		"/abs/ws/.mcptest/inline/01ABC.yml": "/abs/ws",
		"ws/inline/suite.yml":               "ws/inline",
	} {
		if got := suiteDir(in); got != want {
			t.Errorf("suiteDir(%q) = %q, want %q", in, got, want)
		}
	}
}
