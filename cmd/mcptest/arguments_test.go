package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsExampleBinary runs examples/tool-arguments through the
// built binary: 3 invalid calls of 5 checked (valid_pct 40), each
// violation placed at file:line:col of the cassette, the schema that does
// not compile a warning naming the tool, the HTML timeline's per-run count
// and marks, and a comparison with a baseline whose runs were all valid.
func TestArgumentsExampleBinary(t *testing.T) {
	const suite = "examples/tool-arguments/suite.yml"
	stdout, stderr, code := runBuilt(t, "run", "--config", suite)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	for _, want := range []string{
		"FAIL  research arguments hold  (3 runs)  arguments.invalid=3 arguments.unchecked=1 arguments.valid_pct=40",
		// each failed check once, its evidence under it (the runs that
		// failed it, then each invalid argument)
		"      examples/tool-arguments/suite.yml:22:5: default gate of `arguments:` (`arguments.invalid` <= 0) failed: 3 is greater than the maximum 0\n        actual: 3\n        failed in runs 2 and 3 of 3\n        examples/tool-arguments/cassettes/research.json:132:26: run 2: turn 1 call 1 `web.search` arguments /limit: type: expected integer, got \"many\" (string)",
		"\n        examples/tool-arguments/cassettes/research.json:131:28: run 2: turn 1 call 1 `web.search` arguments /query: required: expected the required parameter `query`, got none",
		"arguments /region: enum: expected one of [\"us\",\"eu\",\"asia\"], got \"europe\" (string)",
		"arguments /sort: additionalProperties: expected no parameter but `limit`, `query`, `region`, got unexpected parameter `sort`",
		"warning: the inputSchema of `web.lookup` does not compile, so its calls are not checked",
		"PASS  booking against the saved catalog  (1 run)  arguments.invalid=1 arguments.unchecked=0 arguments.valid_pct=50",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in:\n%s", want, stdout)
		}
	}
	dir := t.TempDir()
	cur := filepath.Join(dir, "cur.json")
	if _, stderr, code := runBuilt(t, "run", "--config", suite, "--reporter", "json", "--output", cur); code != ExitFail {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	html := filepath.Join(dir, "run.html")
	if _, stderr, code := runBuilt(t, "report", cur, "--format", "html", "--output", html); code != ExitFail { // the run failed
		t.Fatalf("html: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	// The failing case keeps the evidence of its failed runs (2 and 3), not
	// of run 1, whose calls were all valid.
	for _, want := range []string{"2 calls with invalid arguments", "1 call with invalid arguments",
		`<span class="mark">invalid arguments</span>`, "/days: maximum: expected maximum 14, got 30 (integer)",
		"examples/tool-arguments/cassettes/research.json:181:25"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	base := argumentsBaseline(t, dir)
	stdout, _, code = runBuilt(t, "report", cur, "--compare", base)
	if code != ExitFail || !strings.Contains(stdout, "arguments.invalid  0 -> 3 (+3)") || !strings.Contains(stdout, "arguments.valid_pct  100 -> 40 (-60)") {
		t.Errorf("compare: exit %d\n%s", code, stdout)
	}
}

// argumentsBaseline writes the envelope of the example with every run of
// the research cassette replaced by its valid first run, and returns its
// path.
func argumentsBaseline(t *testing.T, dir string) string {
	t.Helper()
	src := "../../examples/tool-arguments/"
	ex := filepath.Join(dir, "example")
	if err := os.MkdirAll(filepath.Join(ex, "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"suite.yml", "tools.json", "cassettes/booking.chat.json"} {
		data, err := os.ReadFile(src + f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ex, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(src + "cassettes/research.json")
	if err != nil {
		t.Fatal(err)
	}
	var cas map[string]any
	if err := json.Unmarshal(data, &cas); err != nil {
		t.Fatal(err)
	}
	runs := cas["runs"].([]any)
	cas["runs"] = []any{runs[0], runs[0], runs[0]}
	data, _ = json.Marshal(cas)
	if err := os.WriteFile(filepath.Join(ex, "cassettes", "research.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The suite names the example's cases by path relative to the suite,
	// so the baseline's cases are the same cases.
	out := filepath.Join(dir, "base.json")
	if _, stderr, code := runBuilt(t, "run", "--config", filepath.Join(ex, "suite.yml"), "--reporter", "json", "--output", out); code != ExitOK {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	return out
}
