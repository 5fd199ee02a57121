package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestREADMELiveSections runs the example of resource and prompt tests,
// compliance checks, red-team and eval cases in docs/live.md against the
// real server-everything: the block a user copies works as printed.
func TestREADMELiveSections(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	readme, err := os.ReadFile("../../docs/live.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Conformance checks, resources and prompts, red-team and eval cases")
	_, block, ok2 := strings.Cut(section, "```yaml file=conformance.yml\n")
	block, _, ok3 := strings.Cut(block, "```")
	npx := `{ command: [npx, -y, "@modelcontextprotocol/server-everything"] }`
	if !ok || !ok2 || !ok3 || !strings.Contains(block, npx) {
		t.Fatal("docs/live.md has no yaml block conformance.yml under its conformance section, declaring server-everything with npx")
	}
	// The server the page starts with npx, from .ci/node (TestDocRecipes
	// runs the block as written).
	block = strings.Replace(block, npx, "{ command: ["+quoteYAML(everything)+"] }", 1)
	suite := filepath.Join(t.TempDir(), "suite.yml")
	if err := os.WriteFile(suite, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var env report.Envelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatal(err)
	}
	want := map[report.Kind]report.Verdict{report.KindTool: report.Pass, report.KindCompliance: report.Pass, report.KindRedteam: report.Inconclusive, report.KindEval: report.Inconclusive}
	for _, c := range env.Cases {
		if c.Verdict != want[c.Kind] {
			t.Errorf("%s (%s): %s, want %s: %+v %+v", c.Name, c.Kind, c.Verdict, want[c.Kind], c.Floors, c.Findings)
		}
	}
	if env.Totals.Total != 6 || env.Totals.Inconclusive != 2 || env.Run.Mode != "live" {
		t.Errorf("totals %+v mode %s", env.Totals, env.Run.Mode)
	}
}

// TestComplianceAgainstRealServers: the compliance checks of the revision
// each npm server negotiates pass on every capability it advertises, and a
// capability it does not advertise fails by name.
func TestComplianceAgainstRealServers(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		bin     string
		args    []string
		checks  []string
		missing string
	}{
		{"mcp-server-everything", nil, []string{"initialize", "tools/list", "resources/list", "prompts/list"}, ""},
		{"mcp-server-memory", nil, []string{"initialize", "tools/list"}, "prompts/list"},
		{"mcp-server-filesystem", []string{dir}, []string{"initialize", "tools/list"}, "prompts/list"},
	} {
		t.Run(tc.bin, func(t *testing.T) {
			argv, _ := json.Marshal(append([]string{ciNodeBin(t, tc.bin)}, tc.args...))
			var b strings.Builder
			b.WriteString("servers:\n  s:\n    command: " + string(argv) + "\ncompliance:\n")
			for _, c := range append(tc.checks, tc.missing) {
				if c != "" {
					b.WriteString("  - {name: \"" + c + "\", spec: \"2025-06-18\", check: " + c + "}\n")
				}
			}
			suite := filepath.Join(t.TempDir(), "suite.yml")
			os.WriteFile(suite, []byte(b.String()), 0o644)
			stdout, stderr, _ := mcptest(t, nil, "run", "--config", suite, "--reporter", "json")
			var env report.Envelope
			if err := json.Unmarshal([]byte(stdout), &env); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			for _, c := range env.Cases {
				want := report.Pass
				if c.Name == tc.missing {
					want = report.Fail
					if len(c.Floors) != 1 || !strings.HasSuffix(c.Floors[0].Name, ".advertised") {
						t.Errorf("%s: floors %+v", c.Name, c.Floors)
					}
				}
				if c.Verdict != want {
					t.Errorf("%s: %s, want %s: %+v", c.Name, c.Verdict, want, c.Floors)
				}
			}
		})
	}
}
