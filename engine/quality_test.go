package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// npmServer locates a real MCP server installed by .ci/run; it skips
// locally when absent and fails under CI=true.
func npmServer(t *testing.T, name string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("..", ".ci", "node", "node_modules", ".bin", name))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs it with `npm ci --prefix .ci/node`", name)
		}
		t.Skipf("%s is not installed; run `npm ci --prefix .ci/node` to test against the real server", name)
	}
	return p
}

const qualityCatalog = `tools:
  - name: search_docs
    description: Search the document index for a query and return the matching titles.
    inputSchema: {type: object, properties: {query: {type: string, description: The words to search for.}}, required: [query]}
    annotations: {readOnlyHint: true}
  - name: archive
    description: archive
`

func TestToolQualityCatalog(t *testing.T) {
	s := writeSuite(t, `
tool_quality:
  - name: defaults
    catalog: catalog.yml
  - name: one tool
    catalog: catalog.yml
    expect:
      - target: tool["search_docs"].score
        matcher: { schema: { minimum: 0.9 } }
      - smells.uninformative: { "<=": 0 }
`, map[string]string{"catalog.yml": qualityCatalog})
	env := run(t, s, Options{})
	d, one := env.Cases[0], env.Cases[1]
	if d.Verdict != report.Fail || len(d.Assertions) != 3 || !d.Assertions[0].Default {
		t.Fatalf("defaults: verdict %s assertions %+v", d.Verdict, d.Assertions)
	}
	if d.Targets["critical_count"] != 2 || d.Targets[`tool["search_docs"].score`] != 1 {
		t.Errorf("targets %v", d.Targets)
	}
	if one.Verdict != report.Fail || !one.Assertions[0].Passed || one.Assertions[1].Passed {
		t.Errorf("one tool: %s %+v", one.Verdict, one.Assertions)
	}
}

func TestToolQualityErrors(t *testing.T) {
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yml")
	os.WriteFile(filepath.Join(dir, "c.yml"), []byte(qualityCatalog), 0o644)
	os.WriteFile(suite, []byte(`
servers:
  files:
    command: [x]
tool_quality:
  - name: neither
  - name: both
    server: files
    catalog: c.yml
  - name: undeclared
    server: file
  - name: missing
    catalog: nope.yml
  - name: typo
    catalog: c.yml
    expect:
      - mean_scor: { ">=": 1 }
`), 0o644)
	_, err := LoadSuite(suite)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`suite.yml:6:5: tool_quality check "neither" needs a`,
		`suite.yml:9:5: tool_quality check "both" has both`,
		"names server \"file\", which `servers:` does not declare",
		`catalog "nope.yml" not found`,
		"unknown tool_quality target `mean_scor`",
		"did you mean `mean_score`?",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

// TestToolQualityLiveServers scores the real servers' catalogs over stdio.
func TestToolQualityLiveServers(t *testing.T) {
	fsBin, memBin := npmServer(t, "mcp-server-filesystem"), npmServer(t, "mcp-server-memory")
	s := writeSuite(t, `
servers:
  fs:
    command: [`+fsBin+`, .]
  memory:
    command: [`+memBin+`]
    env: {MEMORY_FILE_PATH: memory.json}
tool_quality:
  - name: filesystem descriptions
    server: fs
    expect:
      - mean_score: { ">=": 0.5 }
      - tool["read_text_file"].score: { ">=": 0.5 }
  - name: memory descriptions
    server: memory
    expect:
      - critical_count: { "<=": 0 }
`, nil)
	env := run(t, s, Options{})
	for _, c := range env.Cases {
		if c.Verdict != report.Pass {
			t.Errorf("%s: %s %+v %v", c.Name, c.Verdict, c.Assertions, c.Findings)
		}
		if c.Counts["tool_quality.tools"] < 5 || c.Targets["min_score"] <= 0 || c.Targets["mean_score"] > 1 {
			t.Errorf("%s: counts %v targets %v", c.Name, c.Counts, c.Targets)
		}
	}
}

func TestToolQualityServerDown(t *testing.T) {
	s := writeSuite(t, "servers:\n  gone:\n    command: [/nonexistent/server]\ntool_quality:\n  - name: q\n    server: gone\n", nil)
	env := run(t, s, Options{})
	c := env.Cases[0]
	if c.Verdict != report.Fail || len(c.Findings) != 1 || !strings.Contains(c.Findings[0].Message, "could not read the catalog") {
		t.Errorf("%s %+v", c.Verdict, c.Findings)
	}
}
