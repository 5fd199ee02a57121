package main

import (
	"os"
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

// TestJSONCatalogErrorsBuilt: the built binary places an error of a JSON
// catalog, one line or pretty-printed, at the line and column (in
// characters, after non-ASCII text) that the corpus's .out files hold,
// which the reader of encoding/json's tokens wrote before the shared
// reader of positioned JSON replaced it; exit 2.
func TestJSONCatalogErrorsBuilt(t *testing.T) {
	for _, name := range []string{"number-out-of-range", "number-out-of-range-pretty"} {
		cat := "live/testdata/catalogs/err/" + name + ".json"
		want, err := os.ReadFile("../../live/testdata/catalogs/err/" + name + ".out")
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runBuilt(t, "tools", "--catalog", cat)
		if code != ExitInput || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", name, code, stdout)
		}
		if line := "live/" + strings.TrimSuffix(string(want), "\n"); !strings.Contains(stderr, line) {
			t.Errorf("%s: stderr lacks %q:\n%s", name, line, stderr)
		}
	}
}
