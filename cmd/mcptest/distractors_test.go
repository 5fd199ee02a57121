package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDistractorsCommand: `mcptest distractors` prints one tools/list
// document per test with a distractors: block, deterministically.
func TestDistractorsCommand(t *testing.T) {
	const suite = "../../examples/distractor-tools/suite.yml"
	stdout, stderr, code := mcptest(t, nil, "distractors", "--config", suite)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "testdata/golden/distractors-distractor-tools.json", stdout)
	again, _, _ := mcptest(t, nil, "distractors", suite)
	if again != stdout {
		t.Error("two runs print different tools")
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var docs []struct {
		Meta  map[string]string `json:"_meta"`
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	for dec.More() {
		var d struct {
			Meta  map[string]string `json:"_meta"`
			Tools []struct {
				Name        string         `json:"name"`
				Description string         `json:"description"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("not a stream of tools/list documents: %v", err)
		}
		docs = append(docs, d)
	}
	if len(docs) != 2 || len(docs[0].Tools) != 4 || len(docs[1].Tools) != 3 {
		t.Fatalf("documents = %+v", docs)
	}
	if docs[1].Tools[0].Name != "search_products_v2" || docs[0].Meta["mcptest/test"] != "resists bundled distractors" {
		t.Errorf("documents = %+v", docs)
	}
	for _, d := range docs {
		for _, tool := range d.Tools {
			if tool.Name == "" || tool.Description == "" || tool.InputSchema["type"] != "object" {
				t.Errorf("incomplete tool %+v", tool)
			}
		}
	}

	filtered, _, code := mcptest(t, nil, "distractors", "--config", suite, "--filter", "near-duplicate")
	if code != ExitOK || strings.Count(filtered, `"tools"`) != 1 || !strings.Contains(filtered, "search_products_v2") {
		t.Errorf("--filter: exit %d\n%s", code, filtered)
	}
	_, stderr, code = mcptest(t, nil, "distractors", "--config", "../../examples/quickstart/suite.yml")
	if code != ExitInput || !strings.Contains(stderr, "no selected test has a `distractors:` block") {
		t.Errorf("no block: exit %d: %s", code, stderr)
	}
}

// TestMultiRunReportRerenders: the per-run rows and floor lines survive a
// saved envelope, so `mcptest report` prints what `mcptest run` printed.
func TestMultiRunReportRerenders(t *testing.T) {
	for _, suite := range []string{"../../examples/agent-multi-run-tool-selection/suite.yml", "../../examples/distractor-floor-fails/suite.yml"} {
		out := t.TempDir() + "/run.json"
		mcptest(t, nil, "run", "--config", suite, "--reporter", "json", "--output", out)
		direct, _, _ := mcptest(t, nil, "run", "--config", suite)
		rerendered, stderr, _ := mcptest(t, nil, "report", out, "--format", "pretty")
		if rerendered != direct {
			t.Errorf("%s: report differs from run\n%s%s\nvs\n%s", suite, rerendered, stderr, direct)
		}
		if !strings.Contains(direct, "floor [") && !strings.Contains(direct, " floor: ") { // a kept floor, or a missed one with its FLOOR lines
			t.Errorf("%s: no floor line:\n%s", suite, direct)
		}
	}
}

// TestDistractorsBeforeRecording: the tools/list `mcptest distractors`
// prints is what the agent is shown while it is recorded, so it works
// before any cassette exists: the same documents as with the cassettes.
func TestDistractorsBeforeRecording(t *testing.T) {
	data, err := os.ReadFile("../../examples/distractor-tools/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(t.TempDir(), "suite.yml") // no cassettes/ beside it
	if err := os.WriteFile(suite, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := mcptest(t, nil, "distractors", "--config", suite)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "testdata/golden/distractors-distractor-tools.json", stdout)
	if _, stderr, code := mcptest(t, nil, "run", "--config", suite); code != ExitInput || !strings.Contains(stderr, "not found") {
		t.Errorf("run without cassettes: exit %d, %s; want exit %d, cassette not found", code, stderr, ExitInput)
	}
}

// TestUnknownToolIsAWarning: a gate block naming a tool the recorded
// catalog does not have (a typo) is a warning with a did-you-mean, not a
// silently lower score; a name the catalog has gives none.
func TestUnknownToolIsAWarning(t *testing.T) {
	dir := t.TempDir()
	src := "../../examples/distractor-tools"
	for _, f := range []string{"suite.yml", "cassettes/bundled-distractors.json", "cassettes/near-duplicates.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "suite.yml" {
			data = []byte(strings.Replace(string(data), "correct: [catalog.search_products]", "correct: [catalog.search_prodcts]", 1))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, _ := mcptest(t, nil, "run", "--no-cache", "--reporter", "json", "--config", filepath.Join(dir, "suite.yml"))
	want := "distractors correct: `catalog.search_prodcts` is no tool of the recorded catalog (did you mean `catalog.search_products`?)"
	if !strings.Contains(stdout, want) {
		t.Errorf("no warning %q in\n%s\n%s", want, stdout, stderr)
	}
	if strings.Count(stdout, "is no tool of the recorded catalog") != 1 {
		t.Errorf("want exactly one unknown-tool warning:\n%s", stdout)
	}
}
