package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var specPositioned = regexp.MustCompile(`(?m)^testdata/toolbench/err/[^:]+:\d+:\d+: `)

// TestToolBenchCorpus runs every spec of testdata/toolbench: each of ok/
// must run (exit 0); each of err/ must be refused with exit code 2,
// nothing on stdout and exactly the positioned errors of the .out beside
// it (-update rewrites them).
func TestToolBenchCorpus(t *testing.T) {
	ok, _ := filepath.Glob("testdata/toolbench/ok/*.yml")
	bad, _ := filepath.Glob("testdata/toolbench/err/*.yml")
	if len(ok) == 0 || len(bad) < 5 {
		t.Fatalf("%d ok and %d err specs", len(ok), len(bad))
	}
	for _, f := range ok {
		if _, stderr, code := mcptest(t, nil, "tool-bench", "run", f); code != ExitOK {
			t.Errorf("%s: exit %d\n%s", f, code, stderr)
		}
	}
	// A spec that cannot be read is bad input too.
	for _, f := range []string{"testdata/toolbench/none.yml", "testdata/toolbench"} {
		if _, stderr, code := mcptest(t, nil, "tool-bench", "run", f); code != ExitInput || !strings.Contains(stderr, f) {
			t.Errorf("%s: exit %d, want %d\n%s", f, code, ExitInput, stderr)
		}
	}
	for _, f := range bad {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, "tool-bench", "run", f)
			if code != ExitInput || stdout != "" {
				t.Errorf("exit %d, want %d; stdout %q", code, ExitInput, stdout)
			}
			if !specPositioned.MatchString(stderr) {
				t.Errorf("errors do not name a file:line:col:\n%s", stderr)
			}
			golden(t, strings.TrimSuffix(f, ".yml")+".out", stderr)
		})
	}
}
