package envstream

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestHTMLRereadsRecordingsProcess: the built binary runs generated
// cassettes, writes the lean envelope, and `report --format html` shows a
// passing case's runs read again from its recording, then says why not
// once the recording changed; `report merge` of the run's shards equals
// the run.
func TestHTMLRereadsRecordingsProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	paths, err := gen.Write(dir, 12, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	mcptest := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	mcptest("run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "run.json", "--no-cache")
	mcptest("report", "run.json", "--format", "html", "--output", "report.html")
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "read again from the case&#39;s recordings") || !strings.Contains(string(page), "Evidence, run by run") {
		t.Fatalf("the html report shows no timeline read again from the recordings")
	}
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		os.WriteFile(p, append(data, '\n'), 0o644)
	}
	mcptest("report", "run.json", "--format", "html", "--output", "report.html")
	page, _ = os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), "not the ones of the run") {
		t.Fatalf("the html report does not say the recordings changed")
	}
	// The run again over the changed files, in 3 shards, merged: the
	// merged envelope is the unsharded one but for the run's id and times.
	mcptest("run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "whole.json", "--no-cache")
	var shards []string
	for _, i := range []string{"1", "2", "3"} {
		mcptest("run", "--config", gen.CaseSuiteFile, "--shard", i+"/3", "--format", "json", "--output", "shard-"+i+".json", "--no-cache")
		shards = append(shards, "shard-"+i+".json")
	}
	mcptest(append([]string{"report", "merge", "--output", "merged.json"}, shards...)...)
	whole, _ := os.ReadFile(filepath.Join(dir, "whole.json"))
	merged, _ := os.ReadFile(filepath.Join(dir, "merged.json"))
	if a, b := casesOf(string(whole)), casesOf(string(merged)); a != b || a == "" {
		t.Fatalf("the merged envelope's cases differ from the unsharded run's")
	}
}

// casesOf is the envelope's text from its cases on.
func casesOf(env string) string {
	i := strings.Index(env, "\n  \"cases\": [")
	if i < 0 {
		return ""
	}
	return env[i:]
}
