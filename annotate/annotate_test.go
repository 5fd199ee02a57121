package annotate

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is an envelope with a case of every verdict, a hostile name and a
// per-run failure.
func sample() *report.Envelope {
	pos := func(line, col int) diag.Pos { return diag.Pos{File: "suite.yml", Line: line, Col: col} }
	return &report.Envelope{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.ToolInfo{Name: "mcptest", Version: "0.1.0"},
		Run:           report.RunInfo{ID: "01JCQQYV4S3H6KX7M8RN2T5XZC", Mode: "replay", StartedAt: "2026-11-22T10:00:00Z", DurationMS: 12},
		Suite:         report.SuiteInfo{Path: "suite.yml", SHA256: "ab12"},
		Verdict:       report.Fail,
		Totals:        report.Totals{Total: 3, Passed: 1, Failed: 1, Inconclusive: 1},
		Cases: []*report.CaseResult{
			{
				Name: "research-agent picks search then fetch", Kind: report.KindAgent, Verdict: report.Pass, Position: pos(3, 5), Runs: 3,
				Targets:    map[string]float64{"tool_selection.f1": 100, "tool_selection.recall": 100, "tool_selection.precision": 100},
				Counts:     map[string]int64{"tool_selection.tp": 6},
				Assertions: []report.AssertionResult{{Target: "tool_selection.f1", Matcher: map[string]any{">=": 80.0}, Actual: 100.0, Passed: true, Message: "assertion #0 (`tool_selection.f1`) passed", Position: pos(12, 11)}},
				Floors:     []report.Floor{}, Findings: []report.Finding{},
				Tools: []report.ToolUse{{Server: "brave", Tool: "web_search", Calls: 3}, {Server: "http", Tool: "get", Calls: 3}, {Server: "shell", Tool: "exec"}},
			},
			{
				Name: "weather answer \x1b[31mnames\x1b[0m the city", Kind: report.KindAgent, Verdict: report.Fail, Position: pos(20, 5), Runs: 3,
				Targets: map[string]float64{}, Counts: map[string]int64{},
				Assertions: []report.AssertionResult{{
					Index: 1, Target: "final_response", Matcher: map[string]any{"contains": "sunny"}, Actual: "rainy\nwith [REDACTED]",
					Message: "assertion #1 (`final_response`) failed in run 2 of 3: substring `sunny` not found in \"rainy\" (1 of 3 runs failed)", Run: 2, FailedRuns: 1, Position: pos(24, 11),
				}},
				Floors: []report.Floor{},
				Findings: []report.Finding{
					{Level: "error", Gate: "tool_edges", Message: "run 3: turn 2 call 1 called restricted tool `repo.force_push`", Run: 3},
					{Level: "warning", Message: "the suite asks for 10 runs and 3 are recorded: every figure is over the 3 recorded runs"},
				},
			},
			{
				Name: "restock the widget shelf", Kind: report.KindScenario, Verdict: report.Inconclusive, Position: pos(40, 5),
				Targets: map[string]float64{}, Counts: map[string]int64{}, Assertions: []report.AssertionResult{}, Floors: []report.Floor{},
				Findings: []report.Finding{{Level: "warning", Gate: "scenarios", Message: "`scenarios:` is not implemented yet in this version of mcptest"}},
			},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./annotate -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./annotate -update rewrites it)\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

func TestReporters(t *testing.T) {
	for _, tt := range []struct {
		name, golden string
		opt          Options
	}{
		{"pretty", "sample.pretty", Options{}},
		{"pretty", "sample.pretty-color", Options{Color: true}},
		{"json", "sample.json", Options{}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			r, err := New(tt.name, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := r.Report(&buf, sample()); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, buf.Bytes())
			if !tt.opt.Color && bytes.Contains(buf.Bytes(), []byte("\x1b")) {
				t.Error("escape byte in uncoloured output: recorded text must be cleaned")
			}
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var first bytes.Buffer
	if err := (JSON{}).Report(&first, sample()); err != nil {
		t.Fatal(err)
	}
	env, err := report.Read(bytes.NewReader(first.Bytes()), "run.json")
	if err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := (JSON{}).Report(&second, env); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("envelope does not round-trip:\n%s\n%s", first.Bytes(), second.Bytes())
	}
}

func TestReadEnvelopeRefusesOtherSchemas(t *testing.T) {
	for _, in := range []string{`{"schema_version": 2}`, `not json`, `[]`} {
		if _, err := report.Read(strings.NewReader(in), "run.json"); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// A null case or a malformed tools entry is refused where the envelope is
// read, so no reporter meets it.
func TestReadEnvelopeRefusesBrokenCases(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema_version": 1, "cases": [null]}`:                                                 "run.json: not a run envelope: cases[0] is null",
		`{"schema_version": 1, "cases": [{"name": "a", "tools": [null]}]}`:                       "cases[0].tools[0]: want {server, tool, calls}",
		`{"schema_version": 1, "cases": [{"name": "a", "tools": [{"tool": "t", "calls": -1}]}]}`: "cases[0].tools[0]",
	} {
		if _, err := report.Read(strings.NewReader(in), "run.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}

func TestUnknownReporter(t *testing.T) {
	if _, err := New("xml", Options{}); err == nil || !strings.Contains(err.Error(), "expected one of text, json") {
		t.Errorf("err = %v", err)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                   "plain",
		"a\x1b[2Jb":               `a\u001b[2Jb`,
		"line\nbreak":             `line\u000abreak`,
		"rtl \u202eevil\u202c":    `rtl \u202eevil\u202c`,
		"tab\tis not safe either": `tab\u0009is not safe either`,
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrettyIsText: pretty, the plain report's older name, renders what
// text renders, for a run and for a comparison.
func TestPrettyIsText(t *testing.T) {
	env := sample()
	text, err := Render("text", env, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pretty, err := Render("pretty", env, Options{})
	if err != nil || !bytes.Equal(text, pretty) || len(text) == 0 {
		t.Errorf("pretty renders %d bytes (%v), text %d", len(pretty), err, len(text))
	}
	base, cur := comparisonPair()
	c := baseline.Compare(base, cur, baseline.Options{})
	var a, b bytes.Buffer
	if err := RenderComparison(&a, "text", c, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderComparison(&b, "pretty", c, Options{}); err != nil || a.String() != b.String() {
		t.Errorf("a comparison in pretty differs from text (%v)", err)
	}
}
