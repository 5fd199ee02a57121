package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// writeSuite lays out a suite and its cassettes in a temporary directory
// and loads it.
func writeSuite(t *testing.T, suite string, files map[string]string) *Suite {
	t.Helper()
	path := writeSuiteFile(t, suite, files)
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// writeSuiteFile lays out a suite and its cassettes in a temporary
// directory and returns the suite's path.
func writeSuiteFile(t *testing.T, suite string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, s *Suite, opt Options) *report.Envelope {
	t.Helper()
	env, err := Run(s, opt)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return env
}

func cassetteJSON(runs ...string) string {
	return `{"mcptest_cassette": 1, "model": "m-1", "runs": [` + strings.Join(runs, ",") + `]}`
}

func runJSON(finalResponse string, ids ...string) string {
	var calls []string
	for _, id := range ids {
		server, tool, _ := strings.Cut(id, ".")
		calls = append(calls, `{"server": "`+server+`", "tool": "`+tool+`", "arguments": {"q": "x"}}`)
	}
	return `{"turns": [{"calls": [` + strings.Join(calls, ",") + `], "final_response": "` + finalResponse + `"}], "tokens": {"input": 10, "output": 5, "total": 15}}`
}

const classes = `
    equal_function_sets:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
`

// TestSeedWorkedExample is the seed's second worked example: the report
// reads `assertion #0 (`tool_selection.f1`) failed: 50 is less than the
// minimum 80`, names fetch as missed and shell.exec as unexpected.
func TestSeedWorkedExample(t *testing.T) {
	s := writeSuite(t, `
tests:
  - name: research-agent picks search then fetch
    type: agent
    cassette: c.json`+classes+`      expect:
        - tool_selection.f1: { ">=": 80 }
`, map[string]string{"c.json": cassetteJSON(runJSON("done", "google.search", "shell.exec"))})
	env := run(t, s, Options{})
	c := env.Cases[0]
	if env.Verdict != report.Fail || c.Verdict != report.Fail {
		t.Fatalf("verdicts %s/%s, want fail", env.Verdict, c.Verdict)
	}
	want := map[string]float64{"tool_selection.f1": 50, "tool_selection.precision": 50, "tool_selection.recall": 50}
	if !reflect.DeepEqual(c.Targets, want) {
		t.Errorf("targets = %v", c.Targets)
	}
	a := c.Assertions[0]
	if a.Message != "assertion #0 (`tool_selection.f1`) failed: 50 is less than the minimum 80" {
		t.Errorf("message = %q", a.Message)
	}
	if a.Actual != 50.0 || a.Position.Line != 13 || a.Position.Col != 11 {
		t.Errorf("actual %v at %v", a.Actual, a.Position)
	}
	var findings []string
	for _, f := range c.Findings {
		findings = append(findings, f.Message)
	}
	if !strings.Contains(strings.Join(findings, "\n"), "missed class `fetch`") || !strings.Contains(strings.Join(findings, "\n"), "unexpected tool `shell.exec`") {
		t.Errorf("findings do not name the missed class and the unexpected tool: %q", findings)
	}
}

func TestMultiRunMicroAverageAcrossFiles(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: research
    runs: 3
    cassette: "runs/*.json"`+classes, map[string]string{
		"runs/a.json": cassetteJSON(runJSON("a", "brave.web_search", "http.get"), runJSON("b", "google.search", "shell.exec")),
		"runs/b.json": cassetteJSON(runJSON("c")),
	})
	env := run(t, s, Options{})
	c := env.Cases[0]
	// tp=3 fp=1 fn=3 → precision 75, recall 50, F1 60; the default gate
	// (f1 >= 50) passes.
	if c.Runs != 3 || c.Targets["tool_selection.f1"] != 60 || c.Targets["tool_selection.precision"] != 75 || c.Targets["tool_selection.recall"] != 50 {
		t.Errorf("runs %d, targets %v", c.Runs, c.Targets)
	}
	if c.Counts["tool_selection.tp"] != 3 || c.Counts["tool_selection.fp"] != 1 || c.Counts["tool_selection.fn"] != 3 {
		t.Errorf("counts %v", c.Counts)
	}
	if c.Verdict != report.Pass || !c.Assertions[0].Default || c.Assertions[0].Message != "default gate of `equal_function_sets:` (`tool_selection.f1` >= 50) passed" {
		t.Errorf("default gate: %+v", c.Assertions)
	}
	if c.Cassettes.Files != 2 {
		t.Errorf("cassette files = %d", c.Cassettes.Files)
	}
}

func TestRunsMismatchIsSaidPlainly(t *testing.T) {
	s := writeSuite(t, "agents:\n  - name: t\n    runs: 10\n    no_calls: true\n    cassette: c.json\n", map[string]string{"c.json": cassetteJSON(runJSON("x"), runJSON("y"))})
	c := run(t, s, Options{}).Cases[0]
	if c.Runs != 2 || c.RunsDeclared != 10 {
		t.Errorf("runs %d declared %d", c.Runs, c.RunsDeclared)
	}
	if len(c.Findings) != 1 || c.Findings[0].Message != "the suite asks for 10 runs and 2 are recorded: every figure is over the 2 recorded runs" {
		t.Errorf("findings %+v", c.Findings)
	}
}

func TestRunsZeroClampedToOne(t *testing.T) {
	s := writeSuite(t, "agents:\n  - name: t\n    runs: 0\n    no_calls: true\n    cassette: c.json\n", map[string]string{"c.json": cassetteJSON(runJSON("x"))})
	if got := s.Cases[0].Runs; got != 1 {
		t.Errorf("runs: 0 loaded as %d, want 1", got)
	}
	if c := run(t, s, Options{}).Cases[0]; len(c.Findings) != 0 {
		t.Errorf("unexpected findings %+v", c.Findings)
	}
}

func TestNoRecordedRunsFails(t *testing.T) {
	s := writeSuite(t, "agents:\n  - name: t\n    cassette: c.json\n", map[string]string{"c.json": `{"mcptest_cassette": 1, "runs": []}`})
	c := run(t, s, Options{}).Cases[0]
	if c.Verdict != report.Fail || len(c.Findings) != 1 || !strings.HasPrefix(c.Findings[0].Message, "no recorded runs") {
		t.Errorf("verdict %s findings %+v", c.Verdict, c.Findings)
	}
}

func TestPerRunAssertions(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather
    cassette: c.json
    expect:
      - target: final_response
        matcher: { contains: sunny }
        message: the answer gives the weather
      - target: tool_names
        matcher: { contains: get_weather }
      - target: calls[0].arguments.q
        matcher: { exact: x }
      - target: tokens.total
        matcher: { "<=": 15 }
`, map[string]string{"c.json": cassetteJSON(runJSON("sunny", "w.get_weather"), runJSON("rainy", "w.get_weather"), runJSON("cloudy"))})
	c := run(t, s, Options{}).Cases[0]
	if c.Verdict != report.Fail {
		t.Fatalf("verdict %s", c.Verdict)
	}
	got := []string{}
	for _, a := range c.Assertions {
		got = append(got, a.Message)
	}
	want := []string{
		"assertion #0 (`final_response`) failed in run 2 of 3: substring `sunny` not found in \"rainy\" (2 of 3 runs failed) (the answer gives the weather)",
		"assertion #1 (`tool_names`) failed in run 3 of 3: no element equals `\"get_weather\"` (1 of 3 runs failed)",
		"assertion #2 (`calls[0].arguments.q`) failed in run 3 of 3: no value at this target (1 of 3 runs failed)",
		"assertion #3 (`tokens.total`) passed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Assertions[0].Actual != "rainy" || c.Assertions[0].Run != 2 || c.Assertions[0].FailedRuns != 2 {
		t.Errorf("first failure not kept: %+v", c.Assertions[0])
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: t
    cassette: c.json
    expect:
      - target: calls[0].arguments
        matcher: { exact: {} }
      - target: final_response
        matcher: { exact: "ok" }
`, map[string]string{"c.json": `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [
		{"tool": "deploy", "arguments": {"api_key": "hunter2-very-secret", "region": "eu"}}],
		"final_response": "used Bearer abc.def.ghi and ghp_4aT9kQ2mZx7LwP0vB3nR8sY1cD6eF5gH2jK9"}]}]}`})
	env := run(t, s, Options{})
	b, _ := json.Marshal(env)
	for _, secret := range []string{"hunter2-very-secret", "abc.def.ghi", "ghp_4aT9kQ2mZx7LwP0vB3nR8sY1cD6eF5gH2jK9"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("envelope leaks %q:\n%s", secret, b)
		}
	}
	if !strings.Contains(string(b), "[REDACTED]") || !strings.Contains(string(b), `"region":"eu"`) {
		t.Errorf("redaction lost the shape of the value:\n%s", b)
	}
}

// TestToolsCasesRunLive: a tools: entry is a live call in suite order; a
// server that cannot be started fails the case with an error finding, and
// the run's mode is live.
func TestToolsCasesRunLive(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather selection
    runs: 1
    cassette: c.json
tools:
  - name: read a file
    server: fs
    tool: read_file
servers:
  fs:
    command: [node, server.js]
`, map[string]string{"c.json": cassetteJSON(runJSON("x", "w.get_weather"))})
	env := run(t, s, Options{})
	if env.Verdict != report.Fail || env.Totals.Failed != 1 || env.Totals.Total != 2 || env.Run.Mode != "live" {
		t.Fatalf("verdict %s mode %s totals %+v", env.Verdict, env.Run.Mode, env.Totals)
	}
	kinds := []report.Kind{env.Cases[0].Kind, env.Cases[1].Kind}
	if !reflect.DeepEqual(kinds, []report.Kind{report.KindAgent, report.KindTool}) {
		t.Errorf("cases out of suite order: %v", kinds)
	}
	if f := env.Cases[1].Findings; len(f) != 1 || !strings.Contains(f[0].Message, `could not connect to server "fs"`) {
		t.Errorf("findings %+v", f)
	}
}

// TestTokenEfficiencyOnReplay: the gate fires on replay, pricing the
// catalog the cassette recorded.
func TestTokenEfficiencyOnReplay(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather selection
    cassette: c.json
    token_efficiency:
      classes:
        - name: weather
          members: [get_weather]
      expect:
        - token_efficiency.tokens_per_correct: { "<=": 5 }
`, map[string]string{"c.json": `{"mcptest_cassette": 1,
		"catalog": {"w": {"tools": [{"name": "get_weather", "description": "Return the weather forecast for a city.", "inputSchema": {"type": "object"}}]}},
		"runs": [{"cost_micros": 2500, "turns": [{"calls": [{"server": "w", "tool": "get_weather", "arguments": {}}], "final_response": "sunny"}]}]}`})
	env := run(t, s, Options{})
	c := env.Cases[0]
	surface := c.Targets["token_efficiency.tool_surface_tokens"]
	if surface < 10 || c.Targets["token_efficiency.f1"] != 100 || c.Targets["token_efficiency.tokens_per_correct"] != surface ||
		c.Targets["token_efficiency.cost"] != 0.0025 || c.Targets["token_efficiency.cost_per_correct"] != 0.0025 {
		t.Errorf("targets %v", c.Targets)
	}
	if c.Verdict != report.Fail || len(c.Assertions) != 1 || c.Assertions[0].Passed {
		t.Errorf("verdict %s assertions %+v: %v tokens per correct is over 5", c.Verdict, c.Assertions, surface)
	}
}

func TestCassetteDirectoryAndImplicitLookup(t *testing.T) {
	s := writeSuite(t, "agents:\n  - name: By Dir\n    cassette: recs\n  - name: Looked Up By Name\n",
		map[string]string{
			"recs/1.json":                      cassetteJSON(runJSON("x")),
			"recs/2.json":                      cassetteJSON(runJSON("y")),
			"recs/notes.txt":                   "not a cassette",
			"cassettes/looked-up-by-name.json": cassetteJSON(runJSON("z")),
			"elsewhere/looked-up-by-name.json": cassetteJSON(runJSON("z"), runJSON("z")),
		})
	env := run(t, s, Options{})
	if env.Cases[0].Runs != 2 || env.Cases[1].Runs != 1 {
		t.Errorf("runs %d, %d", env.Cases[0].Runs, env.Cases[1].Runs)
	}
	env = run(t, s, Options{CassetteDir: filepath.Join(filepath.Dir(s.Path), "elsewhere")})
	if env.Cases[1].Runs != 2 {
		t.Errorf("--cassette-dir ignored: %d runs", env.Cases[1].Runs)
	}
}

func TestProgressAndFilter(t *testing.T) {
	s := writeSuite(t, "agents:\n  - name: alpha\n    cassette: a.json\n  - name: beta\n    cassette: b.json\n",
		map[string]string{"a.json": cassetteJSON(runJSON("x")), "b.json": cassetteJSON(runJSON("y"))})
	var calls []Progress
	env := run(t, s, Options{Filter: []string{"BET"}, Progress: func(p Progress) { calls = append(calls, p) }})
	want := []Progress{{CasesTotal: 1, Files: 1, FilesTotal: 1}, {Cases: 1, CasesTotal: 1, Files: 1, FilesTotal: 1}}
	if len(env.Cases) != 1 || env.Cases[0].Name != "beta" || !reflect.DeepEqual(calls, want) {
		t.Errorf("cases %d, progress %v", len(env.Cases), calls)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Weather Selection (EU)":                 "weather-selection-eu",
		"a--b":                                   "a-b",
		"  x  ":                                  "x",
		"research-agent picks search then fetch": "research-agent-picks-search-then-fetch",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOneFindingPerFact: with both equal_function_sets: and
// token_efficiency: over the same classes, the missed class and the
// unexpected tool are each one finding, not one per block.
func TestOneFindingPerFact(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: research
    cassette: c.json
`+classes+`
    token_efficiency:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
`, map[string]string{"c.json": cassetteJSON(runJSON("ok", "google.search", "shell.exec"))})
	c := run(t, s, Options{}).Cases[0]
	seen := map[string]int{}
	for _, f := range c.Findings {
		seen[f.Message]++
	}
	for _, msg := range []string{"missed class `fetch`: no call reached any of its members", "unexpected tool `shell.exec`: it is in no declared class"} {
		if seen[msg] != 1 {
			t.Errorf("%q is listed %d times: %+v", msg, seen[msg], c.Findings)
		}
	}
}

// TestTokenEfficiencyGradeTarget: the grade is a target, a word in the
// envelope's labels, assertable like any other.
func TestTokenEfficiencyGradeTarget(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: research
    cassette: c.json
    token_efficiency:
      classes:
        - name: search
          members: [brave.web_search, google.search]
        - name: fetch
          members: [http.get]
      expect:
        - token_efficiency.grade: { exact: A }
`, map[string]string{"c.json": cassetteJSON(runJSON("ok", "google.search", "shell.exec"))})
	c := run(t, s, Options{}).Cases[0]
	if c.Labels["token_efficiency.grade"] != "F" {
		t.Errorf("labels %v, want grade F for F1 50", c.Labels)
	}
	if len(c.Assertions) != 1 || c.Assertions[0].Passed || c.Assertions[0].Actual != "F" || c.Verdict != report.Fail {
		t.Errorf("assertions %+v verdict %s", c.Assertions, c.Verdict)
	}
}

// TestSelectionCountDistinct: count: distinct counts a tool that matches
// no class once per run, as a set-based tool-call F1 does; the default
// counts every call. A JSON Lines cassette holds one run a line.
func TestSelectionCountDistinct(t *testing.T) {
	run2 := runJSON("a", "shell.exec", "shell.exec", "http.get")
	files := map[string]string{"c.json": cassetteJSON(run2)}
	for _, tt := range []struct {
		count         string
		fp            int64
		f1, precision float64
	}{
		{"", 2, 40, 33},
		{"      count: calls", 2, 40, 33},
		{"      count: distinct", 1, 50, 50},
	} {
		s := writeSuite(t, "agents:\n  - name: a\n    cassette: c.json"+classes+strings.TrimPrefix(tt.count, "\n")+"\n", files)
		env := run(t, s, Options{})
		c := env.Cases[0]
		if c.Counts["tool_selection.fp"] != tt.fp || c.Targets["tool_selection.f1"] != tt.f1 || c.Targets["tool_selection.precision"] != tt.precision {
			t.Errorf("count %q: counts %v, targets %v", tt.count, c.Counts, c.Targets)
		}
	}
	_, err := LoadSuite(writeSuiteFile(t, "agents:\n  - name: a\n    cassette: c.json"+classes+"      count: unique\n", files))
	if err == nil || !strings.Contains(err.Error(), "count") || !strings.Contains(err.Error(), "suite.yml:10:14:") {
		t.Errorf("count: unique = %v, want an error at 10:14 naming count", err)
	}
}

// TestCassetteJSONLines: a .jsonl cassette of N recordings is N runs, and
// a directory of cassettes includes its .jsonl files.
func TestCassetteJSONLines(t *testing.T) {
	line := func(ids ...string) string {
		var calls []string
		for _, id := range ids {
			calls = append(calls, `{"id": "`+id+`", "function": {"name": "`+id+`", "arguments": "{}"}}`)
		}
		return `{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [` + strings.Join(calls, ",") + `]}]}`
	}
	files := map[string]string{
		"runs/a.jsonl": line("search", "fetch") + "\n" + line("search", "shell", "shell") + "\n",
		"runs/b.json":  `{"role": "assistant", "tool_calls": [` + `{"id": "1", "function": {"name": "fetch", "arguments": "{}"}}]}`,
	}
	s := writeSuite(t, `
agents:
  - name: a
    runs: 3
    cassette: runs
    equal_function_sets:
      count: distinct
      classes:
        - {name: search, members: [search]}
        - {name: fetch, members: [fetch]}
`, files)
	env := run(t, s, Options{})
	c := env.Cases[0]
	// Runs: {search, fetch} tp 2; {search, shell×2} tp 1 fp 1 fn 1; {fetch}
	// tp 1 fn 1: tp 4, fp 1, fn 2.
	if c.Runs != 3 || c.Counts["tool_selection.tp"] != 4 || c.Counts["tool_selection.fp"] != 1 || c.Counts["tool_selection.fn"] != 2 {
		t.Errorf("runs %d, counts %v", c.Runs, c.Counts)
	}
}

// TestAgentBuiltinToolsAreInTheCatalog: a Claude Code session lists the
// agent's built-in tools beside its MCP tools, so a gate naming Task gets
// no "no tool of the recorded catalog" warning, and a typo still does.
func TestAgentBuiltinToolsAreInTheCatalog(t *testing.T) {
	session := `{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Task","mcp__github__get_issue"]}
{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{}}]}}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	s := writeSuite(t, `
agents:
  - name: a
    cassette: session.jsonl
    equal_function_sets:
      classes:
        - {name: task, members: [Task]}
        - {name: issue, members: [github.get_isue]}
`, map[string]string{"session.jsonl": session})
	env := run(t, s, Options{})
	var warnings []string
	for _, f := range env.Cases[0].Findings {
		if f.Level == "warning" {
			warnings = append(warnings, f.Message)
		}
	}
	want := []string{"equal_function_sets class issue: `github.get_isue` is no tool of the recorded catalog (did you mean `github.get_issue`?): it can never match a call"}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

// TestCassetteResolvedOnce: the run reads the files the loader found for
// a `cassette:` glob, not a second lookup: a cassette added after loading
// is not read.
func TestCassetteResolvedOnce(t *testing.T) {
	dir := t.TempDir()
	src := []byte(`{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"server": "w", "tool": "x", "arguments": {}}]}]}]}`)
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json")
	suite := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(suite, []byte("tests:\n  - {name: t, type: agent, cassette: \"*.json\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	write("b.json")
	env, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Cases[0].Runs; got != 1 {
		t.Errorf("the run read %d cassettes, want the 1 found when the suite was loaded", got)
	}
}
