package baseline_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// TestReadFile: a saved envelope reads; a missing file, a directory (not
// a regular file) and a file that is not an envelope are an diag.InputError
// naming the file and, for a baseline, the flag it came from.
func TestReadFile(t *testing.T) {
	const run = "../examples/baseline/baseline.json"
	env, err := baseline.ReadFile(run, "", report.Read)
	if err != nil || env.Run.ID != "01M84QFR5RWDJ0P7H1J4SAKGPB" {
		t.Fatalf("ReadFile: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema_version": "one"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, flag, want string
	}{
		{filepath.Join(dir, "none.json"), "", "none.json: no such file"},
		{filepath.Join(dir, "none.json"), "--compare", "--compare " + filepath.Join(dir, "none.json") + ": no such file"},
		{dir, "--compare", "not a run envelope"},
		{bad, "", "bad.json"},
	} {
		_, err := baseline.ReadFile(tt.path, tt.flag, report.Read)
		var ie *diag.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFile(%s, %q): %v, want an diag.InputError saying %q", tt.path, tt.flag, err, tt.want)
		}
	}
}

// TestCompareFile: the policy is checked before the baseline is opened;
// a comparison under a policy carries its verdict.
func TestCompareFile(t *testing.T) {
	cur, err := baseline.ReadFile("../examples/baseline/baseline.json", "", report.Read)
	if err != nil {
		t.Fatal(err)
	}
	var ie *diag.InputError
	if _, err := baseline.CompareFile("none.json", "--compare", cur, "sometimes"); !errors.As(err, &ie) || !strings.Contains(err.Error(), `--fail-on "sometimes"`) {
		t.Errorf("an unknown policy: %v", err)
	}
	if _, err := baseline.CompareFile("none.json", "--compare", cur, "none"); !errors.As(err, &ie) || !strings.Contains(err.Error(), "--compare none.json: no such file") {
		t.Errorf("a missing baseline: %v", err)
	}
	cmp, err := baseline.CompareFile("../examples/baseline/baseline.json", "--compare", cur, "failures")
	if err != nil || !cmp.Gate.Failed {
		t.Errorf("the run against itself under failures: %+v, %v", cmp, err)
	}
}

// TestMergeFiles: a shard that does not read and envelopes that do not
// merge are an diag.InputError naming the file.
func TestMergeFiles(t *testing.T) {
	const run = "../examples/baseline/baseline.json"
	var ie *diag.InputError
	if _, err := baseline.MergeFiles([]string{run, "none.json"}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "none.json: no such file") {
		t.Errorf("a missing shard: %v", err)
	}
	if _, err := baseline.MergeFiles([]string{run, run}); !errors.As(err, &ie) || !strings.Contains(err.Error(), run) {
		t.Errorf("a shard given twice: %v", err)
	}
	env, err := baseline.MergeFiles([]string{run})
	if err != nil || len(env.Cases) != 6 {
		t.Errorf("one envelope: %v", err)
	}
}

// TestReadEnvelopes: the files together are bounded: a file that passes
// what the files before it left of the limit is refused from its size,
// naming it, before it is read; within the limit every file reads.
func TestReadEnvelopes(t *testing.T) {
	const run = "../examples/baseline/baseline.json"
	fi, err := os.Stat(run)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	second := filepath.Join(dir, "second.json")
	data, _ := os.ReadFile(run)
	if err := os.WriteFile(second, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var ie *diag.InputError
	if _, err := baseline.ReadEnvelopes([]string{run, second}, 2*fi.Size()-1); !errors.As(err, &ie) || !strings.Contains(err.Error(), "second.json: not a run envelope: ") ||
		!strings.Contains(err.Error(), "over the") {
		t.Errorf("over the limit by one byte: %v", err)
	}
	in, err := baseline.ReadEnvelopes([]string{run, second}, 2*fi.Size())
	if err != nil || len(in) != 2 || in[1].Name != second || len(in[1].Envelope.Cases) != 6 {
		t.Errorf("at the limit: %d envelopes, %v", len(in), err)
	}
}
