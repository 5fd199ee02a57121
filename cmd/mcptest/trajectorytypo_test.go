package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrajectoryStepDidYouMean runs the built binary on examples/trajectory's
// recordings with a trajectory: step one letter off a tool: with the catalog
// recorded, and with every cassette's catalog removed (the tools the runs
// called are then the names checked), the report names the step's typo
// with a did-you-mean once; a step naming a tool no run called and no
// near name does not warn without a catalog.
func TestTrajectoryStepDidYouMean(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	files, _ := filepath.Glob("../../examples/trajectory/cassettes/refund*.json")
	if len(files) == 0 {
		t.Fatal("no trajectory cassettes")
	}
	for _, withCatalog := range []bool{true, false} {
		dir := t.TempDir()
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !withCatalog {
				var doc map[string]any
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
				delete(doc, "catalog")
				data = mustJSON(t, doc)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		suite := "agents:\n  - name: typo\n    cassette: \"refund*.json\"\n    trajectory:\n      match: superset\n      steps:\n        - { tool: policy.lookpu }\n" +
			"  - name: never called\n    cassette: \"refund*.json\"\n    trajectory:\n      match: superset\n      steps:\n        - { tool: zzz.frobnicate }\n"
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runBinIn(t, dir, []string{"NO_COLOR=1"}, "run", "suite.yml")
		if code != ExitFail {
			t.Fatalf("catalog %v: exit %d\n%s%s", withCatalog, code, stdout, stderr)
		}
		if n := strings.Count(stdout, "trajectory step: `policy.lookpu` is no tool"); n != 1 || !strings.Contains(stdout, "(did you mean `policy.lookup`?)") {
			t.Errorf("catalog %v: the typo is named %d times, want once with a did-you-mean:\n%s", withCatalog, n, stdout)
		}
		if !withCatalog && strings.Contains(stdout, "`zzz.frobnicate` is no tool") {
			t.Errorf("without a catalog a tool no run called and near no called tool warns:\n%s", stdout)
		}
	}
}
