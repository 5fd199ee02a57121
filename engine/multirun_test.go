package engine

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

func weatherRun(tool string, total int) string {
	return `{"turns": [{"calls": [{"server": "w", "tool": "` + tool + `", "arguments": {"city": "Sacramento"}}]}], "tokens": {"input": 1, "output": 1, "total": ` + itoa(total) + `}}`
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestToolSelectionFloorReplay(t *testing.T) {
	runs := []string{}
	for i := range 10 {
		tool, total := "get_weather", 1500
		if i >= 6 {
			tool = "search"
		}
		if i == 3 {
			total = 2400
		}
		runs = append(runs, weatherRun(tool, total))
	}
	s := writeSuite(t, `
agents:
  - name: weather selection
    runs: 0
    cassette: c.json
    tool_selection:
      expected_tool: get_weather
      min_selection_rate: 0.8
      max_total_tokens: 2000
`, map[string]string{"c.json": cassetteJSON(runs...)})
	if s.Cases[0].Runs != 1 {
		t.Errorf("runs: 0 is clamped to 1, got %d", s.Cases[0].Runs)
	}
	env := run(t, s, Options{})
	c := env.Cases[0]
	if c.Verdict != report.Fail || env.Verdict != report.Fail {
		t.Fatalf("a breached floor fails the case: %s", c.Verdict)
	}
	if len(c.Floors) != 1 || c.Floors[0].Passed || c.Floors[0].Message != "weather selection: selection 6/10 (60%), pass^k 50%, tokens 1500 median / 2400 max" {
		t.Fatalf("floors = %+v", c.Floors)
	}
	want := []string{
		"FLOOR weather selection: selection rate 60% is below the 80% floor (6 of 10 runs selected `get_weather`)",
		"FLOOR weather selection: 1 of 10 runs exceeded the 2000-token budget (worst run 2400 tokens)",
		"  run 4: 2400 tokens, over budget",
	}
	for i, w := range want {
		if c.Floors[0].Lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, c.Floors[0].Lines[i], w)
		}
	}
	if c.ToolSelection == nil || len(c.ToolSelection.Runs) != 10 || c.ToolSelection.Runs[2].Name != "weather selection #3" {
		t.Fatalf("per-run detail = %+v", c.ToolSelection)
	}
	if c.Counts["tool_selection.selected"] != 6 || c.Targets["tool_selection.selection_rate"] != 60 {
		t.Errorf("targets %v counts %v", c.Targets, c.Counts)
	}
	// The suite asked for 1 run (clamped from 0), 10 are recorded: the
	// report says so.
	found := false
	for _, f := range c.Findings {
		found = found || strings.Contains(f.Message, "the suite asks for 1 runs and 10 are recorded")
	}
	if !found {
		t.Errorf("no runs-mismatch finding: %+v", c.Findings)
	}
}

func TestToolSelectionModelMatrix(t *testing.T) {
	cas := func(model string, runs ...string) string {
		return `{"mcptest_cassette": 1, "model": "` + model + `", "runs": [` + strings.Join(runs, ",") + `]}`
	}
	s := writeSuite(t, `
agents:
  - name: weather selection
    model: [claude-sonnet-4-5, gpt-5]
    cassette: recs
    tool_selection:
      expected_tool: w.get_weather
      min_selection_rate: 0.5
`, map[string]string{
		"recs/a.json": cas("claude-sonnet-4-5", weatherRun("get_weather", 10), weatherRun("get_weather", 20)),
		"recs/b.json": cas("gpt-5", weatherRun("search", 10), weatherRun("search", 10), weatherRun("get_weather", 30)),
	})
	env := run(t, s, Options{})
	c := env.Cases[0]
	var names []string
	for _, r := range c.ToolSelection.Runs {
		names = append(names, r.Name)
	}
	if strings.Join(names, "|") != "weather selection [claude-sonnet-4-5] #1|weather selection [claude-sonnet-4-5] #2|weather selection [gpt-5] #1|weather selection [gpt-5] #2|weather selection [gpt-5] #3" {
		t.Errorf("rows = %v", names)
	}
	if len(c.Floors) != 2 || !c.Floors[0].Passed || c.Floors[1].Passed ||
		c.Floors[1].Message != "weather selection [gpt-5]: selection 1/3 (33%), pass^k 33%, tokens 10 median / 30 max" {
		t.Errorf("floors = %+v", c.Floors)
	}
	if c.Verdict != report.Fail {
		t.Errorf("one model's breach fails the case")
	}
}

func TestDistractorsReplay(t *testing.T) {
	catalog := `"catalog": {"shop": {"tools": [{"name": "search_products"}]}}`
	cas := `{"mcptest_cassette": 1, ` + catalog + `, "runs": [` +
		`{"turns": [{"calls": [{"server": "shop", "tool": "search_products", "arguments": {"q": "x"}}]}]},` +
		`{"turns": [{"calls": [{"server": "shop", "tool": "search_products_v2", "arguments": {"q": "x"}}]}]}]}`
	s := writeSuite(t, `
agents:
  - name: near duplicates
    cassette: c.json
    distractors:
      count: 2
      source: { from: near_duplicate, of: [search_products] }
      correct: [shop.search_products]
      complexity: serial
`, map[string]string{"c.json": cas})
	env := run(t, s, Options{})
	c := env.Cases[0]
	if c.Targets["distractors.accuracy"] != 50 || c.Targets["distractors.chose_distractor"] != 1 || c.Targets["distractors.certified_lower"] != 2 {
		t.Errorf("targets = %v", c.Targets)
	}
	// The default gate distractors.accuracy >= 50 holds at exactly 50.
	if c.Verdict != report.Pass || len(c.Assertions) != 1 || !c.Assertions[0].Default {
		t.Errorf("verdict %s assertions %+v", c.Verdict, c.Assertions)
	}
	if c.Distractors == nil || strings.Join(c.Distractors.Injected, ",") != "search_products_v2,search_products_internal" || c.Distractors.Complexity != "serial" {
		t.Errorf("detail = %+v", c.Distractors)
	}
	warned := false
	for _, f := range c.Findings {
		warned = warned || (f.Level == "warning" && strings.Contains(f.Message, "never presented"))
	}
	if !warned {
		t.Errorf("the recorded catalog lacks the distractors, and no warning says so: %+v", c.Findings)
	}
}

func TestNearDuplicateNeedsOf(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/suite.yml"
	writeFile(t, path, "agents:\n  - name: x\n    distractors:\n      source: { from: near_duplicate }\n      correct: [a]\n")
	_, err := LoadSuite(path)
	if err == nil || !strings.Contains(err.Error(), "`from: near_duplicate` needs `of:`") {
		t.Errorf("err = %v", err)
	}
}

func TestNameFreePromptNamesATool(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: discovery
    prompt: Use catalog.web_search to find the population of Paris.
    cassette: c.json
    discovery: { name_free: true }
    equal_function_sets:
      classes:
        - { name: search, members: [catalog.web_search] }
    orchestration: {}
`, map[string]string{"c.json": cassetteJSON(runJSON("x", "catalog.web_search"))})
	env := run(t, s, Options{})
	c := env.Cases[0]
	warned := false
	for _, f := range c.Findings {
		warned = warned || strings.Contains(f.Message, "the prompt names `web_search`")
	}
	if !warned || c.Discovery == nil || !c.Discovery.NameFree {
		t.Errorf("findings %+v discovery %+v", c.Findings, c.Discovery)
	}
	if c.Targets["orchestration.efficiency"] != 100 || c.Targets["orchestration.discovery"] != 100 {
		t.Errorf("targets = %v", c.Targets)
	}
	if c.Verdict != report.Pass {
		t.Errorf("verdict %s", c.Verdict)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCertifiedFloorCountsOnlyCorrectRuns: a run that calls the correct
// tool and shell.exec did not select only correct tools, so the certified
// floor's text and bound do not count it.
func TestCertifiedFloorCountsOnlyCorrectRuns(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: stays on the catalog
    cassette: c.json
    distractors:
      count: 1
      source: { from: catalog }
      correct: [catalog.search_products]
      expect:
        - distractors.certified_lower: { ">=": 0 }
`, map[string]string{"c.json": cassetteJSON(runJSON("ok", "catalog.search_products", "shell.exec"))})
	c := run(t, s, Options{}).Cases[0]
	if c.Counts["distractors.successful_runs"] != 0 || c.Targets["distractors.certified_lower"] != 0 {
		t.Errorf("counts %v targets %v", c.Counts, c.Targets)
	}
	if len(c.Floors) != 1 || !strings.Contains(c.Floors[0].Message, "0/1 runs selected only correct tools") {
		t.Errorf("floors = %+v", c.Floors)
	}
}
