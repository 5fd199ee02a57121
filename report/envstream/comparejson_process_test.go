package envstream

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestCompareJSONLinesProcess runs the built binary's `report --compare
// --format json` over a generated suite of 20,000 cases (64 shard
// envelopes merged by `report merge`, and a baseline), to a file and to
// stdout (a pipe): both are the same bytes, the comparison CompareJSON
// computes in this process; the document decodes with encoding/json as
// strictly as it goes (no member it does not know, nothing after the
// document), and every case stands on a line of its own holding one JSON
// value, as many lines as the summary counts cases.
func TestCompareJSONLinesProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	shards, err := envgen.WriteSuite(dir, 20000, millionShards)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return stdout.Bytes()
	}
	run(append([]string{"report", "merge", "--output", "merged.json"}, shards...)...)
	stdout := run("report", "merged.json", "--compare", "baseline.json", "--format", "json", "--fail-on", "none")
	run("report", "merged.json", "--compare", "baseline.json", "--format", "json", "--fail-on", "none", "--output", "c.json")
	file, err := os.ReadFile(filepath.Join(dir, "c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, stdout) {
		t.Fatalf("--output and stdout differ: %d and %d bytes", len(file), len(stdout))
	}
	want, _, err := compareJSONBytes(filepath.Join(dir, "baseline.json"), filepath.Join(dir, "merged.json"), "none")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, want) {
		t.Fatalf("the binary's comparison is not CompareJSON's: %d and %d bytes", len(file), len(want))
	}
	dec := json.NewDecoder(bytes.NewReader(file))
	dec.DisallowUnknownFields()
	var cmp baseline.Comparison
	if err := dec.Decode(&cmp); err != nil {
		t.Fatalf("the comparison does not decode strictly: %v", err)
	}
	if rest := bytes.TrimSpace(file[dec.InputOffset():]); len(rest) != 0 {
		t.Fatalf("%d bytes after the document", len(rest))
	}
	if len(cmp.Cases) != cmp.Summary.Cases || cmp.Summary.Cases < 20000 {
		t.Fatalf("%d cases decoded, the summary counts %d", len(cmp.Cases), cmp.Summary.Cases)
	}
	lines := 0
	for _, l := range strings.Split(string(file), "\n") {
		body, ok := strings.CutPrefix(l, "    {")
		if !ok {
			continue
		}
		body = strings.TrimSuffix("{"+body, ",")
		var d baseline.CaseDelta
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("case line %d is not one JSON value: %v: %.200s", lines, err, l)
		}
		if d.Name != cmp.Cases[lines].Name {
			t.Fatalf("case line %d is %q, the document's case %q", lines, d.Name, cmp.Cases[lines].Name)
		}
		lines++
	}
	if lines != len(cmp.Cases) {
		t.Fatalf("%d case lines, %d cases", lines, len(cmp.Cases))
	}
}
