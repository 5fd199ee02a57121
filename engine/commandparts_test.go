package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuiteIn: a directory names its mcptest.yml, else its suite.yml;
// anything else is itself.
func TestSuiteIn(t *testing.T) {
	dir := t.TempDir()
	if got := SuiteIn(dir); got != dir {
		t.Errorf("empty dir: %s", got)
	}
	os.WriteFile(filepath.Join(dir, "suite.yml"), nil, 0o644)
	if got := SuiteIn(dir); got != filepath.Join(dir, "suite.yml") {
		t.Errorf("suite.yml: %s", got)
	}
	os.WriteFile(filepath.Join(dir, "mcptest.yml"), nil, 0o644)
	if got := SuiteIn(dir); got != filepath.Join(dir, "mcptest.yml") {
		t.Errorf("mcptest.yml: %s", got)
	}
	if got := SuiteIn("none/x.yml"); got != "none/x.yml" {
		t.Errorf("a file: %s", got)
	}
}

// TestCacheMinFromEnv: unset is the default, 0 every case, a size, and
// anything else wrong input naming the variable.
func TestCacheMinFromEnv(t *testing.T) {
	for v, want := range map[string]int64{"": CacheMinBytes, "0": -1, "1024": 1024} {
		if got, err := CacheMinFromEnv(v); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"-1", "1k", "x"} {
		if _, err := CacheMinFromEnv(v); err == nil || !strings.Contains(err.Error(), CacheMinEnv) {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestValidateRead gathers every file's errors and writes the status of
// valid ones.
func TestValidateRead(t *testing.T) {
	ok, _ := filepath.Abs("../examples/quickstart/suite.yml")
	v, err := ValidateRead([]string{ok, "missing.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Errors) != 1 || v.Document().Valid || len(v.Files) != 2 {
		t.Fatalf("validation %+v", v)
	}
	v, err = ValidateRead([]string{filepath.Dir(ok)})
	if err != nil || len(v.Errors) != 0 || !v.Document().Valid {
		t.Fatalf("the quickstart directory: %+v, %v", v, err)
	}
	var b bytes.Buffer
	v.WriteText(&b)
	if !strings.HasPrefix(b.String(), ok+": valid\n") {
		t.Errorf("text:\n%s", b.String())
	}
}
