package cassette

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata/err")

// corpus returns the files of testdata/<dir>, sorted, as slash paths
// relative to the package (the form the .out files print).
func corpus(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, lines...)
	archives, err := filepath.Glob(filepath.Join("testdata", dir, "*.eval"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, archives...)
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no files in testdata/%s", dir)
	}
	for i, f := range files {
		files[i] = filepath.ToSlash(f)
	}
	return files
}

// diagErrors flattens a Read error into its diag errors, failing the test
// when it is anything else.
func diagErrors(t testing.TB, err error) diag.List {
	t.Helper()
	var l diag.List
	if errors.As(err, &l) {
		return l
	}
	var e *diag.Error
	if errors.As(err, &e) {
		return diag.List{e}
	}
	t.Fatalf("error is %T, not a diag error: %v", err, err)
	return nil
}

func TestCorpusOK(t *testing.T) {
	for _, f := range corpus(t, "ok") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := ReadFile(f)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if c.Path != f {
				t.Errorf("Path = %q, want %q", c.Path, f)
			}
			for ri, r := range c.Runs {
				for _, call := range r.callList() {
					if call.Tool == "" {
						t.Errorf("runs[%d] has a call without a tool: %+v", ri, call)
					}
				}
			}
		})
	}
}

// TestCorpusErr reads every file of testdata/err and compares the error
// output with name.out; go test -update rewrites them.
func TestCorpusErr(t *testing.T) {
	for _, f := range corpus(t, "err") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := ReadFile(f)
			if err == nil {
				t.Fatal("ReadFile accepted the file")
			}
			for _, e := range diagErrors(t, err) {
				if e.Kind != "cassette" {
					t.Errorf("kind %q, want cassette: %v", e.Kind, e)
				}
				if e.Pos.File != f || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Errorf("position %v is not a place in %s: %v", e.Pos, f, e)
				}
			}
			got := err.Error() + "\n"
			out := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(f, ".jsonl"), ".json"), ".eval") + ".out"
			if *update {
				if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("errors of %s:\n got:\n%s\nwant:\n%s", f, got, want)
			}
		})
	}
}

// TestDeterminism reads every file of the corpus several times: map
// iteration order must show neither in the model nor in the errors.
func TestDeterminism(t *testing.T) {
	files := append(corpus(t, "ok"), corpus(t, "err")...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, firstErr := Read(f, data)
		for range 20 {
			c, err := Read(f, data)
			if !reflect.DeepEqual(c, first) {
				t.Fatalf("%s: two reads give different cassettes", f)
			}
			if (err == nil) != (firstErr == nil) || err != nil && err.Error() != firstErr.Error() {
				t.Fatalf("%s: two reads give different errors:\n%v\n----\n%v", f, err, firstErr)
			}
		}
	}
}
