package envstream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestCompareSplitBaselineProcess runs the built binary's `report
// --compare --format json` against a generated baseline of 8,000 cases,
// large enough that its cases are read in two parts beside each other
// (splitMin): the comparison is byte for byte baseline.Compare's in
// memory, written by Comparison.WriteJSON. And the baseline broken past
// its middle (a case's comma, or a byte just after the cases' closing
// bracket) is refused with the error, and the line and column, that a
// read from the start alone gives.
func TestCompareSplitBaselineProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	shards, err := envgen.WriteSuite(dir, 8000, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBin(t, dir, bin, append([]string{"report", "merge", "--output", "merged.json"}, shards...)...); code > 1 {
		t.Fatalf("report merge: exit %d\n%s", code, stderr)
	}
	bp, cp := filepath.Join(dir, "baseline.json"), filepath.Join(dir, "merged.json")
	data, err := os.ReadFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) < splitMin {
		t.Fatalf("the baseline is %d bytes, under splitMin (%d): it is read from the start alone", len(data), splitMin)
	}
	if _, stderr, code := runBin(t, dir, bin, "report", "merged.json", "--compare", "baseline.json", "--format", "json", "--fail-on", "none", "--output", "c.json"); code != 0 {
		t.Fatalf("report --compare: exit %d\n%s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "c.json"))
	if err != nil {
		t.Fatal(err)
	}
	policy, err := baseline.ParsePolicy("none")
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := compareInMemory(bp, "--compare", cp, policy)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := cmp.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the comparison is not baseline.Compare's: %d and %d bytes", len(got), len(want.Bytes()))
	}

	comma := len(data)*3/4 + bytes.Index(data[len(data)*3/4:], []byte("},\n    {")) + 1
	end := bytes.LastIndex(data, []byte("}\n  ]")) + 5
	for _, b := range []struct {
		what   string
		broken []byte
	}{
		{"a case's comma", append(append(bytes.Clone(data[:comma]), 'x'), data[comma+1:]...)},
		{"after the cases' end", append(append(bytes.Clone(data[:end]), " x"...), data[end:]...)},
	} {
		what, broken := b.what, b.broken
		p := filepath.Join(dir, "broken.json")
		if err := os.WriteFile(p, broken, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, wantErr := indexFrom(t, p, -1)
		place, ok := strings.CutPrefix(wantErr, p)
		if !ok || !strings.HasPrefix(place, ":") {
			t.Fatalf("%s: the read from the start says %q, placed nowhere", what, wantErr)
		}
		_, stderr, code := runBin(t, dir, bin, "report", "merged.json", "--compare", "broken.json", "--format", "json", "--fail-on", "none", "--output", "c.json")
		if code != 2 || !strings.Contains(stderr, " broken.json"+place) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", what, code, stderr, " broken.json"+place)
		}
	}
}
