package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDelegationWithoutDeclaration runs the built binary on the
// quickstart's tool_edges: test with its delegation: line removed: the
// delegation coverage of no declared edge has no value (absent from the
// report and the envelope, an assertion on it finds none), while the
// quickstart as it is, with its edge declared and observed, reports 100.
func TestDelegationWithoutDeclaration(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "../../examples/quickstart", dir)
	declared, stderr, code := runBinIn(t, dir, nil, "run", "suite.yml")
	if code != ExitOK || !strings.Contains(declared, "edges.allowed_pct=100 edges.delegation_pct=100 edges.gate_passed=1") {
		t.Fatalf("with the delegation edge declared: exit %d\n%s%s", code, declared, stderr)
	}
	suite := filepath.Join(dir, "suite.yml")
	data, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	const line = "      delegation: [{ from: planner, to: worker }]\n"
	if !strings.Contains(string(data), line) {
		t.Fatalf("the quickstart declares no delegation edge as %q", line)
	}
	if err := os.WriteFile(suite, []byte(strings.Replace(string(data), line, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runBinIn(t, dir, nil, "run", "suite.yml", "--output", "json="+filepath.Join(dir, "run.json"))
	if code != ExitOK || strings.Contains(out, "delegation_pct") || !strings.Contains(out, "edges.allowed_pct=100 edges.gate_passed=1") {
		t.Errorf("with no delegation edge declared: exit %d\n%s%s", code, out, stderr)
	}
	var env struct {
		Cases []struct {
			Name    string             `json:"name"`
			Targets map[string]float64 `json:"targets"`
			Counts  map[string]int64   `json:"counts"`
		} `json:"cases"`
	}
	data, _ = os.ReadFile(filepath.Join(dir, "run.json"))
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	for _, c := range env.Cases {
		if _, ok := c.Targets["edges.delegation_pct"]; ok {
			t.Errorf("%s: edges.delegation_pct = %v with no delegation edge declared", c.Name, c.Targets["edges.delegation_pct"])
		}
		if _, ok := c.Targets["edges.allowed_pct"]; ok && c.Counts["edges.delegation"] != 0 {
			t.Errorf("%s: edges.delegation count %d", c.Name, c.Counts["edges.delegation"])
		}
	}
	suiteText, _ := os.ReadFile(suite)
	withAssertion := strings.Replace(string(suiteText), "        - target: edges.allowed_pct\n", "        - target: edges.delegation_pct\n          matcher: { \">=\": 100 }\n        - target: edges.allowed_pct\n", 1)
	if err := os.WriteFile(suite, []byte(withAssertion), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = runBinIn(t, dir, nil, "run", "suite.yml")
	if code != ExitFail || !strings.Contains(out, "(`edges.delegation_pct`) failed: no value at this target") {
		t.Errorf("an assertion on the absent coverage: exit %d\n%s", code, out)
	}
}
