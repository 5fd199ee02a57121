package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailingExamplesText runs every example that fails on purpose
// through the built binary and holds its text report to the example's
// golden file (testdata/golden/examples/NAME.pretty, which TestExamples
// holds the in-process run to; -update rewrites them): each failed check
// once, grouped under its case with its evidence under it (checkOnce).
// The saved run of the same example renders the same text with `mcptest
// report`.
func TestFailingExamplesText(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	files, err := filepath.Glob("testdata/golden/examples/*.json")
	if err != nil {
		t.Fatal(err)
	}
	failing := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		suite := filepath.Join("../../examples", name, "suite.yml")
		if _, err := os.Stat(suite); env.Verdict != "fail" || err != nil {
			continue
		}
		failing++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runBinIn(t, ".", []string{"NO_COLOR=1"}, "run", "--config", suite)
			if code != ExitFail {
				t.Errorf("%s: exit %d, want %d\n%s", name, code, ExitFail, stderr)
			}
			golden(t, filepath.Join("testdata", "golden", "examples", name+".pretty"), normalize(stdout))
			saved, _, _ := runBinIn(t, ".", []string{"NO_COLOR=1"}, "report", file)
			if saved != stdout {
				t.Errorf("%s: `mcptest report` of the saved run differs from the run's text:\n%s\n---\n%s", name, saved, stdout)
			}
			for _, block := range caseBlocks(stdout) {
				if strings.HasPrefix(block, "FAIL") {
					checkOnce(t, name, block)
				}
			}
		})
	}
	if failing < 8 {
		t.Errorf("only %d failing examples: the examples lost their failures", failing)
	}
}
