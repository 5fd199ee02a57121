package engine

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata/err")

// corpusErrors loads the suite at path and replays it as `mcptest run`
// does, returning the positioned errors of either step, printed as the
// CLI prints them.
func corpusErrors(t *testing.T, path string) string {
	t.Helper()
	s, err := LoadSuite(path)
	if err == nil {
		_, err = Run(s, Options{Version: "test"})
	}
	var l diag.List
	if !errors.As(err, &l) {
		t.Fatalf("not a diag.List: %v", err)
	}
	var b bytes.Buffer
	diag.Printer{}.Print(&b, l)
	return b.String()
}

// TestCorpusErr loads every suite of testdata/err: each must be refused
// with exactly the positioned errors, source lines and carets of the .out
// beside it (go test ./engine -run TestCorpusErr -update rewrites them).
func TestCorpusErr(t *testing.T) {
	files, _ := filepath.Glob("testdata/err/*.yml")
	if len(files) < 10 {
		t.Fatalf("only %d files in the error corpus", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := corpusErrors(t, f)
			out := strings.TrimSuffix(f, ".yml") + ".out"
			if *update {
				if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs (-update rewrites it)\n--- got\n%s\n--- want\n%s", out, got, want)
			}
		})
	}
}

// TestCorpusOK: every suite of testdata/ok, and every example, loads.
func TestCorpusOK(t *testing.T) {
	files, _ := filepath.Glob("testdata/ok/*.yml")
	examples, _ := filepath.Glob("../examples/*/suite.yml")
	if len(files) == 0 || len(examples) == 0 {
		t.Fatal("no suites in the ok corpus")
	}
	for _, f := range append(files, examples...) {
		if _, err := LoadSuite(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
