package main

import (
	"strings"
	"testing"
)

// TestCatalogFileErrorsPrinted: a catalog file with typos is refused by
// every command that reads one with exit code 2 and each error placed,
// its did-you-mean and its source line with a caret.
func TestCatalogFileErrorsPrinted(t *testing.T) {
	const cat = "../../live/testdata/catalogs/err/top-level-typo.yml"
	for _, args := range [][]string{{"tools", "--catalog", cat}, {"mock", "--tools-from", cat}} {
		stdout, stderr, code := mcptest(t, nil, args...)
		if code != ExitInput || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
		for _, want := range []string{cat + `:1:1: unexpected key "tols"`, "(did you mean `tools`?) [catalog]\n  tols:\n  ^\n", "3 errors\n"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}
}
