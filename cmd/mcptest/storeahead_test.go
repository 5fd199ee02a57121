package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

// TestProcessPruneReadsEnds runs the built binary over the README's
// quickstart with a workspace store full of the runs it stores (indented
// envelopes of about 8 kB): the store is bounded as before (the bound's
// newest runs kept), and judging the kept runs whole read their ends, not
// the files: the allocation profile shows under 256 kB allocated below
// mcpserver.wholeEnvelope (reading and parsing each: 3.5 MB).
func TestProcessPruneReadsEnds(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to read the allocation profile")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	env := []string{"MCPTEST_DIR=" + store}
	if _, stderr, code := runBinIn(t, root, env, "run", "--config", "examples/quickstart/suite.yml", "--no-cache"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	runs := filepath.Join(store, "runs")
	entries, _ := os.ReadDir(runs)
	if len(entries) != 1 {
		t.Fatalf("%d runs stored after one run", len(entries))
	}
	stored, err := os.ReadFile(filepath.Join(runs, entries[0].Name()))
	if err != nil || !strings.HasSuffix(string(stored), "\n}\n") {
		t.Fatalf("the stored run does not end as an indented envelope (%v):\n%.200s", err, stored)
	}
	n := mcpserver.DefaultKeepRuns + 5
	for i := range n {
		if err := os.WriteFile(filepath.Join(runs, fmt.Sprintf("01A%023d.json", i)), stored, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prof := filepath.Join(t.TempDir(), "mem.out")
	// Every allocation recorded (GODEBUG=memprofilerate=1): at mcptest's
	// own sampling rate the figure would be an estimate, a few samples each
	// scaled by the rate over its object's size.
	if _, stderr, code := runBinIn(t, root, append(env, "MCPTEST_MEMPROFILE="+prof, "GODEBUG=memprofilerate=1"), "run", "--config", "examples/quickstart/suite.yml", "--no-cache"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ = os.ReadDir(runs); len(entries) != mcpserver.DefaultKeepRuns {
		t.Fatalf("%d runs stored, want %d", len(entries), mcpserver.DefaultKeepRuns)
	}
	if raw, err := exec.Command(goCmd, "tool", "pprof", "-raw", mcptestBin(t), prof).CombinedOutput(); err != nil || !regexp.MustCompile(`(?m)^Period: 1$`).Match(raw) {
		t.Fatalf("the allocation profile is not exact (%v):\n%.300s", err, raw)
	}
	out, err := exec.Command(goCmd, "tool", "pprof", "-sample_index=alloc_space", "-top", "-unit=kB", "-focus=mcpserver.wholeEnvelope$", mcptestBin(t), prof).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	kb := 0.0
	if m := regexp.MustCompile(`Showing nodes accounting for ([0-9.]+)kB,`).FindSubmatch(out); m != nil {
		kb, _ = strconv.ParseFloat(string(m[1]), 64)
	} else if !strings.Contains(string(out), "no samples") && !strings.Contains(string(out), "Active filters") {
		t.Fatalf("go tool pprof said:\n%s", out)
	}
	if kb >= 256 {
		t.Errorf("judging %d stored runs allocated %.0f kB:\n%s", mcpserver.DefaultKeepRuns, kb, out)
	}
}
