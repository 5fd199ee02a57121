package annotate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// comparisonPair is a baseline and a current run with a case of every
// kind a comparison shows: a regression (case, assertion and floor), a fix,
// a target that moved without a flip, an unchanged case, a new and a
// removed case, a not-comparable case, and names that try to inject
// markdown, HTML and terminal escapes.
func comparisonPair() (base, cur *report.Envelope) {
	pos := func(line int) diag.Pos { return diag.Pos{File: "suite.yml", Line: line, Col: 5} }
	mk := func(name string, line int, v report.Verdict, f1 float64, passed bool, floor bool) *report.CaseResult {
		return &report.CaseResult{
			Name: name, Kind: report.KindAgent, Verdict: v, Position: pos(line), DefinitionSHA256: "d-" + name,
			Runs: 4, Cassettes: &report.CassetteSet{Files: 2, SHA256: "c"},
			Targets: map[string]float64{"tool_selection.f1": f1, "tool_selection.recall": 100},
			Counts:  map[string]int64{"tool_selection.tp": int64(f1 / 10)},
			Assertions: []report.AssertionResult{{Index: 0, Block: "equal_function_sets", Target: "tool_selection.f1", Passed: passed,
				Message:  "assertion #0 (`tool_selection.f1`) " + map[bool]string{true: "passed", false: "failed: below the minimum 80"}[passed],
				Position: diag.Pos{File: "suite.yml", Line: line + 9, Col: 11}}},
			Floors:   []report.Floor{{Name: "pass^k >= 90", Passed: floor, Message: "floor message"}},
			Findings: []report.Finding{},
		}
	}
	hostile := "<img src=x onerror=alert(1)> [click](https://evil.example) | **bold** `code` \x1b[31mred\n# heading"
	base = &report.Envelope{SchemaVersion: 1, Tool: report.ToolInfo{Name: "mcptest", Version: "0.1.0"},
		Run: report.RunInfo{ID: "01JCQQYV4S3H6KX7M8RN2T5XZB", Mode: "replay"}, Suite: report.SuiteInfo{Path: "suite.yml", SHA256: "aa"},
		Source: &report.Source{Repo: "acme/agent", Branch: "main", Commit: "1111111"},
		Cases: []*report.CaseResult{
			mk("research agent", 10, report.Pass, 92, true, true),
			mk("triage agent", 30, report.Fail, 60, false, false),
			mk("steady", 50, report.Pass, 100, true, true),
			mk("drifting", 60, report.Pass, 95, true, true),
			mk("support agent", 70, report.Pass, 100, true, true),
			mk("retired "+hostile, 90, report.Pass, 100, true, true),
		},
	}
	base.Tally()
	support := mk("support agent", 70, report.Fail, 70, false, true)
	support.Runs = 5
	support.DefinitionSHA256 = "changed"
	cur = &report.Envelope{SchemaVersion: 1, Tool: report.ToolInfo{Name: "mcptest", Version: "0.2.0"},
		Run: report.RunInfo{ID: "01JCQQYV4S3H6KX7M8RN2T5XZC", Mode: "replay"}, Suite: report.SuiteInfo{Path: "suite.yml", SHA256: "bb"},
		Cases: []*report.CaseResult{
			mk("research agent", 10, report.Fail, 75, false, false),
			mk("triage agent", 30, report.Pass, 85, true, true),
			mk("fresh "+hostile, 40, report.Fail, 50, false, true),
			mk("steady", 50, report.Pass, 100, true, true),
			mk("drifting", 60, report.Pass, 90.5, true, true),
			support,
		},
	}
	cur.Cases[1].Cassettes.SHA256 = "re-recorded"
	cur.Tally()
	return base, cur
}

func TestComparisonGolden(t *testing.T) {
	base, cur := comparisonPair()
	c := baseline.Compare(base, cur, baseline.Options{})
	for _, format := range CompareFormats {
		var buf bytes.Buffer
		if err := RenderComparison(&buf, format, c, Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare."+format, buf.Bytes())
		if format != "json" && strings.Contains(buf.String(), "\x1b") {
			t.Errorf("%s: a terminal escape from a case name reached the output", format)
		}
	}
	var buf bytes.Buffer
	if err := RenderComparison(&buf, "pretty", c, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.pretty-color", buf.Bytes())
	if err := RenderComparison(&buf, "html", c, Options{}); err == nil {
		t.Error("an unknown format renders")
	}
}

// TestComparisonMarkdownInjection: nothing recorded in a case name can
// become markdown or HTML in the PR comment.
func TestComparisonMarkdownInjection(t *testing.T) {
	base, cur := comparisonPair()
	var buf bytes.Buffer
	if err := RenderComparison(&buf, "markdown", baseline.Compare(base, cur, baseline.Options{}), Options{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, bad := range []string{"<img", "](https", "**bold**", "`code`", "\n# heading", " | **"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q unescaped", bad)
		}
	}
	for _, row := range strings.Split(md, "\n") {
		if strings.HasPrefix(row, "| ") && strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") != 5 {
			t.Errorf("a table row has the wrong number of cells: %s", row)
		}
	}
}

func TestMarkdownEscape(t *testing.T) {
	tests := map[string]string{
		"plain words 42":      "plain words 42",
		"a_b*c":               `a\_b\*c`,
		"<script>":            `&lt;script&gt;`,
		"[x](y)":              `\[x\]\(y\)`,
		"a|b":                 `a\|b`,
		"line\nbreak\r\nhere": "line break here",
		"&amp; @team":         `&amp;amp\; \@team`,
		"esc\x1b[2J":          `esc\\u001b\[2J`,
		"café ünïcode":        "café ünïcode",
	}
	for in, want := range tests {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNewComparison: the comparison's reporter renders what
// RenderComparison renders, html renders the compared run's page with the
// comparison, and a run's format that has no comparison form is refused
// with the valid set.
func TestNewComparison(t *testing.T) {
	base, cur := comparisonPair()
	cmp := baseline.Compare(base, cur, baseline.Options{})
	for _, format := range CompareFormats {
		rep, err := NewComparison(format, cmp, Options{})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var got, want bytes.Buffer
		if err := rep.Report(&got, cur); err != nil {
			t.Fatal(err)
		}
		if err := RenderComparison(&want, format, cmp, Options{}); err != nil || got.String() != want.String() {
			t.Errorf("%s: the reporter does not render the comparison (%v)", format, err)
		}
	}
	if rep, err := NewComparison("html", cmp, Options{}); err != nil || rep.(HTML).Comparison != cmp {
		t.Errorf("html: %v", err)
	}
	if _, err := NewComparison("junit", cmp, Options{}); err == nil || !strings.Contains(err.Error(), `unknown format "junit" for a comparison: expected one of text, markdown, json`) {
		t.Errorf("junit: %v", err)
	}
}
