package live

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

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata/catalogs/err")

// TestCatalogCorpusOK: every catalog file of testdata/catalogs/ok reads.
func TestCatalogCorpusOK(t *testing.T) {
	files, _ := filepath.Glob("testdata/catalogs/ok/*")
	if len(files) == 0 {
		t.Fatal("no catalogs in the ok corpus")
	}
	for _, f := range files {
		if c, err := ReadFile(f); err != nil || len(c.Tools) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestCatalogCorpusErr: every catalog file of testdata/catalogs/err is
// refused with exactly the positioned errors, source lines and carets of
// the .out beside it (go test ./live -run TestCatalogCorpusErr -update
// rewrites them).
func TestCatalogCorpusErr(t *testing.T) {
	files, _ := filepath.Glob("testdata/catalogs/err/*")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".out") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := ReadFile(f)
			var l diag.List
			if !errors.As(err, &l) {
				t.Fatalf("not positioned errors: %v", err)
			}
			var b bytes.Buffer
			diag.Printer{}.Print(&b, l)
			out := strings.TrimSuffix(f, filepath.Ext(f)) + ".out"
			if *update {
				if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs (-update rewrites it)\n--- got\n%s\n--- want\n%s", out, b.String(), want)
			}
		})
	}
	if n < 5 {
		t.Fatalf("only %d files in the error corpus", n)
	}
}
