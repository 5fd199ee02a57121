package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/mcpserver"
)

// TestProcessRunBoundsStoreAhead runs the built binary over 40 generated
// transcripts with a workspace store already full (the bound's runs, one
// of them cut short, and older ones): the store is bounded beside the
// run (mcpserver.Store.PruneAhead) and keeps the bound's newest whole
// runs, the run's own among them, as a prune after the save did.
func TestProcessRunBoundsStoreAhead(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteTranscripts(dir, 40, gen.DefaultSeed, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	runs := filepath.Join(store, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	n := mcpserver.DefaultKeepRuns + 5
	for i := range n {
		body := `{"schema_version":1}`
		if i == n-1 {
			body = `{"run":` // the newest stored run, cut short
		}
		if err := os.WriteFile(filepath.Join(runs, fmt.Sprintf("01A%023d.json", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := runBinIn(t, dir, []string{"MCPTEST_DIR=" + store},
		"run", "--config", gen.TranscriptSuiteFile, "--format", "json", "--output", out, "--no-cache")
	if code != ExitOK && code != ExitFail {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(runs)
	if len(entries) != mcpserver.DefaultKeepRuns {
		t.Fatalf("%d runs stored, want %d", len(entries), mcpserver.DefaultKeepRuns)
	}
	if last := entries[len(entries)-1].Name(); last != env.Run.ID+".json" {
		t.Errorf("the newest stored run is %s, want the run's own %s.json", last, env.Run.ID)
	}
	if first := entries[0].Name(); first != fmt.Sprintf("01A%023d.json", n-mcpserver.DefaultKeepRuns) { // the newest whole ones but one kept
		t.Errorf("the oldest run kept is %s", first)
	}
	if _, err := os.Stat(filepath.Join(runs, fmt.Sprintf("01A%023d.json", n-1))); err == nil {
		t.Errorf("the run cut short is still stored")
	}
}
