package envstream

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestMergeWrittenOnceProcess: the built binary runs generated cassettes
// in 4 shards (`run --shard i/4`), and the shards a run writes predict
// their merge's head: merged in process by rename, they are written once
// (no errRewrite), the bytes of MergeFiles; `report merge --output` (the
// envelope written as it merges) gives what `report merge` to standard
// output (merged, then written) gives, the run's id aside, and so it
// does when a shard's head is forged (its totals), written again; a merge
// that fails (a shard given twice) leaves an existing output as it was
// and no temporary file beside it.
func TestMergeWrittenOnceProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	if _, err := gen.Write(dir, 240, gen.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	mcptest := func(want int, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CI=", "GITHUB_ACTIONS=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != want && !(want == 1 && code == 0) {
			t.Fatalf("%v: exit %d, want %d\n%s", args, code, want, stderr.Bytes())
		}
		return stdout.Bytes()
	}
	var shards []string
	for _, i := range []string{"1", "2", "3", "4"} {
		mcptest(1, "run", "--config", gen.CaseSuiteFile, "--shard", i+"/4", "--format", "json", "--output", "shard-"+i+".json", "--no-cache")
		shards = append(shards, filepath.Join(dir, "shard-"+i+".json"))
	}
	want, err := mergeFilesBytes(shards, "ID")
	if err != nil {
		t.Fatal(err)
	}
	before := rewrites.Load()
	var o renameOut
	if _, err := Merge(shards, "ID", true, o.out); err != nil {
		t.Fatal(err)
	}
	if rewrites.Load() != before || o.calls != 1 {
		t.Fatalf("the shards of a run were written again (%d calls)", o.calls)
	}
	if !bytes.Equal(o.got, want) {
		t.Fatalf("written as it merges, %d bytes, not MergeFiles' %d", len(o.got), len(want))
	}
	id := regexp.MustCompile(`(?m)^    "id": "[^"\n]*",$`)
	// same merges the shards with the binary both ways; inProcess, when
	// given, is what the merge in process gave.
	same := func(what string, inProcess []byte) {
		t.Helper()
		mcptest(0, append([]string{"report", "merge", "--output", "merged.json"}, shards...)...)
		file, err := os.ReadFile(filepath.Join(dir, "merged.json"))
		if err != nil {
			t.Fatal(err)
		}
		stdout := mcptest(0, append([]string{"report", "merge"}, shards...)...)
		if len(id.FindAll(file, -1)) != 1 || !bytes.Equal(id.ReplaceAll(file, nil), id.ReplaceAll(stdout, nil)) {
			t.Fatalf("%s: report merge --output (%d bytes) is not report merge to standard output (%d bytes)", what, len(file), len(stdout))
		}
		if inProcess != nil && !bytes.Equal(id.ReplaceAll(file, nil), id.ReplaceAll(inProcess, nil)) {
			t.Fatalf("%s: report merge --output is not MergeFiles'", what)
		}
	}
	same("the run's shards", want)

	forgeTotals(t, shards[1])
	before = rewrites.Load()
	if _, err := Merge(shards, "ID", true, (&renameOut{}).out); err != nil || rewrites.Load() != before+1 {
		t.Fatalf("a forged head: %v, written again %d times", err, rewrites.Load()-before)
	}
	same("a shard's totals forged", nil)

	old, err := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	mcptest(2, append([]string{"report", "merge", "--output", "merged.json"}, append(shards, shards[0])...)...)
	now, err := os.ReadFile(filepath.Join(dir, "merged.json"))
	if err != nil || !bytes.Equal(now, old) {
		t.Fatalf("a merge that failed changed its output (%v)", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("a merge that failed left %s", e.Name())
		}
	}
}

// forgeTotals changes the passed cases its head counts of the shard
// envelope at path.
func forgeTotals(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	forged := regexp.MustCompile(`"passed": \d+`).ReplaceAll(data, []byte(`"passed": 7777`))
	if bytes.Equal(forged, data) {
		t.Fatal("no totals to forge")
	}
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
}
