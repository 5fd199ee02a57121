package envstream

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
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

// TestCompareHeadAgainProcess runs the built binary over a current run
// that gives its totals again after its cases (other than before them),
// whose json comparison must start over once its end is read: to a file
// it is the comparison in memory; to --output /dev/stdout, a pipe as a CI
// step's log is, nothing can start over, so it is refused (exit 2, the
// message saying to write a file) and what was written is no document,
// never a head followed by a second comparison.
func TestCompareHeadAgainProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	base, cur := drawPair(rand.New(rand.NewPCG(7, 8)))
	bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	writeEnv(t, bp, base)
	writeEnv(t, cp, cur)
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	again := bytes.Replace(data, []byte("\n}"), []byte(",\n  \"totals\": {\"total\": 999, \"passed\": 999, \"failed\": 0, \"inconclusive\": 0}\n}"), 1)
	if err := os.WriteFile(cp, again, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{"c.json", "/dev/stdout"} {
		cmd := exec.Command(bin, "report", "cur.json", "--compare", "base.json", "--format", "json", "--fail-on", "none", "--output", output)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if output == "c.json" {
			// The names hold drawn secrets the binary masks: the
			// document's figures are the comparison's in memory.
			got, rerr := os.ReadFile(filepath.Join(dir, "c.json"))
			var buf bytes.Buffer
			want, werr := CompareJSON(func(fill func(io.Writer) error) error { buf.Reset(); return fill(&buf) }, true, bp, "--compare", cp, "none")
			var doc baseline.Comparison
			if err != nil || rerr != nil || werr != nil || json.Unmarshal(got, &doc) != nil || doc.Summary != want.Summary || len(doc.Cases) != want.Summary.Cases || doc.Current.Totals != want.Current.Totals {
				t.Errorf("to a file: %v, %v, %v: the output is not the comparison in memory: %+v %+v, %d %d cases, %+v %+v\n%s", err, rerr, werr, doc.Summary, want.Summary, len(doc.Cases), want.Summary.Cases, doc.Current.Totals, want.Current.Totals, stderr.String())
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr.String(), "--output FILE") || json.Valid(stdout.Bytes()) || bytes.Count(stdout.Bytes(), []byte(`"comparison_version"`)) > 1 {
			t.Errorf("to a pipe: exit %d, %d bytes out (a document: %v), stderr %q", code, stdout.Len(), json.Valid(stdout.Bytes()), stderr.String())
		}
	}
}
