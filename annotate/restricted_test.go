package annotate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// restrictedEnv is a run of one case named name, of the verdict given,
// whose first run called a restricted tool named tool (the tool_edges:
// finding as the gate words it), at line 7 col 5 of suite.yml.
func restrictedEnv(name, tool string, verdict report.Verdict) *report.Envelope {
	c := &report.CaseResult{
		Name: name, Kind: report.KindAgent, Verdict: verdict, Runs: 1, Position: diag.Pos{File: "suite.yml", Line: 7, Col: 5},
		Targets: map[string]float64{"edges.allowed_pct": 100, "edges.restricted_attempts": 1}, Counts: map[string]int64{},
		Assertions: []report.AssertionResult{{Target: "edges.allowed_pct", Passed: true, Message: "assertion #0 (`edges.allowed_pct`) passed"}},
		Floors:     []report.Floor{},
		Findings: []report.Finding{
			{Level: "error", Gate: "tool_edges", Message: "run 1: turn 1 call 2 called restricted tool `" + tool + "`", Run: 1},
			{Level: "notice", Gate: "tool_edges", Message: "calls outside the declared edges: `x`"},
		},
	}
	if verdict == report.Fail {
		c.Assertions = append(c.Assertions, report.AssertionResult{Index: 1, Target: "edges.restricted_attempts", Matcher: map[string]any{"<=": 0.0},
			Actual: 1.0, Message: "assertion #1 (`edges.restricted_attempts`) failed", Position: diag.Pos{File: "suite.yml", Line: 12, Col: 11}})
	}
	env := &report.Envelope{SchemaVersion: report.SchemaVersion, Tool: report.ToolInfo{Name: "mcptest", Version: "0.1.0"},
		Suite: report.SuiteInfo{Path: "suite.yml"}, Cases: []*report.CaseResult{c}}
	env.Tally()
	return env
}

// TestRestrictedOnPassingCase: a passing case that called a restricted
// tool is a warning annotation on the case's line, a GATE-RESTRICTED
// SARIF result there, and a row of the job summary and of the sticky
// comment, and a restricted-call item of the HTML report's Review first,
// every recorded string escaped for where it goes. A failing case's
// restricted call is one of its failure reasons instead.
func TestRestrictedOnPassingCase(t *testing.T) {
	sch := sarifSchema(t)
	for _, tt := range []struct {
		name, caseName, tool string
		verdict              report.Verdict
		shown                bool
	}{
		{"passing", "triage", "repo.delete_repo", report.Pass, true},
		{"passing, hostile", "::error::pwned\n" + hostile[2] + " " + hostile[4] + " %0A", "x`\r\n::warning::forged <img src=x> @octocat | y", report.Pass, true},
		{"failing", "triage", "repo.delete_repo", report.Fail, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := restrictedEnv(tt.caseName, tt.tool, tt.verdict)
			r := ActionReport{Env: env, Suite: "suite.yml", Missing: "first run"}
			var cmds bytes.Buffer
			EmitAnnotations(githubactions.New(githubactions.WithWriter(&cmds)), Annotations(r))
			checkRestrictedAnnotation(t, cmds.String(), tt.shown)
			for what, md := range map[string]string{"summary": Summary(r, "https://github.com", "o/r", SummaryLimit), "comment": Comment(r, "https://github.com", "o/r")} {
				checkRestrictedRow(t, what, md, tt.caseName, tt.shown)
			}
			checkRestrictedSARIF(t, sch, renderReport(t, SARIF{}, env), tt.shown)
			page := string(renderReport(t, HTML{}, env))
			review := page[strings.Index(page, `id="review"`)+1 : strings.Index(page, `id="cases"`)]
			if !strings.Contains(review, `data-case="`) || strings.Contains(review, `class="problem restricted"`) != tt.shown {
				t.Errorf("Review first lists the case %v and its restricted call %v, want %v:\n%s", strings.Contains(review, `data-case="`),
					strings.Contains(review, `class="problem restricted"`), tt.shown, review)
			}
		})
	}
}

var warningCmd = regexp.MustCompile(`^::warning ([^:]*)::(.*)$`)

// checkRestrictedAnnotation: one warning command, on one line, at the
// case's line when shown; its properties hold no raw ':' or ',' from
// recorded text, so the message cannot leak into them.
func checkRestrictedAnnotation(t *testing.T, cmds string, shown bool) {
	t.Helper()
	if !shown {
		if strings.Contains(cmds, "::warning") {
			t.Errorf("a failing case's restricted call is also a warning:\n%s", cmds)
		}
		return
	}
	lines := strings.Split(strings.TrimSuffix(cmds, "\n"), "\n")
	m := warningCmd.FindStringSubmatch(lines[0])
	if len(lines) != 1 || m == nil {
		t.Fatalf("want one warning command line, got:\n%s", cmds)
	}
	props := map[string]string{}
	for _, kv := range strings.Split(m[1], ",") {
		k, v, _ := strings.Cut(kv, "=")
		props[k] = v
	}
	if props["file"] != "suite.yml" || props["line"] != "7" || props["col"] != "5" || len(props) != 4 {
		t.Errorf("the warning is not on suite.yml:7:5: %q", m[1])
	}
	if !strings.HasPrefix(props["title"], "mcptest%3A restricted tool called in ") || !strings.Contains(m[2], "called restricted tool") {
		t.Errorf("the warning does not name the restricted call: %q", lines[0])
	}
}

// checkRestrictedRow: the summary or comment has the restricted calls
// table with one row naming the case and its call, escaped for markdown.
func checkRestrictedRow(t *testing.T, what, md, caseName string, shown bool) {
	t.Helper()
	i := strings.Index(md, "#### Restricted tool calls in passing cases")
	if !shown {
		if i >= 0 {
			t.Errorf("%s: a failing case is listed as a passing one with a restricted call:\n%s", what, md)
		}
		return
	}
	if i < 0 {
		t.Fatalf("%s has no restricted calls table:\n%s", what, md)
	}
	table, _, _ := strings.Cut(md[i:], "|\n\n")
	rows := strings.Split(table+"|", "\n")[4:]
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows, want 1:\n%s", what, len(rows), table)
	}
	row := rows[0]
	if !strings.HasPrefix(row, "| "+Text(caseName, 0)+" | "+Text("suite.yml:7:5", 0)+" | ") || !strings.Contains(row, "called restricted tool") {
		t.Errorf("%s: row %q does not name the case, its line and the call", what, row)
	}
	if cells := len(rawPipe.FindAllString(row, -1)); cells != 4 {
		t.Errorf("%s: row %q has %d unescaped pipes, want 4", what, row, cells)
	}
	if rawMention.MatchString(row) || strings.ContainsAny(row, "<>\r") {
		t.Errorf("%s: row %q lets markup through", what, row)
	}
}

// checkRestrictedSARIF: the log is SARIF 2.1.0, and holds one
// GATE-RESTRICTED warning at the case when shown, none otherwise.
func checkRestrictedSARIF(t *testing.T, sch interface{ Validate(any) error }, out []byte, shown bool) {
	t.Helper()
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID, Level string
				Message       struct{ Text string }
				Locations     []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	var raw any
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatalf("sarif is not JSON: %v", err)
	}
	if err := sch.Validate(raw); err != nil {
		t.Fatalf("not SARIF 2.1.0: %v", err)
	}
	_ = json.Unmarshal(out, &doc)
	var got []string
	for _, r := range doc.Runs[0].Results {
		if r.RuleID != "GATE-RESTRICTED" {
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s %s:%d:%d", r.Level, loc.ArtifactLocation.URI, loc.Region.StartLine, loc.Region.StartColumn))
		if !strings.Contains(r.Message.Text, "called restricted tool") || strings.ContainsAny(r.Message.Text, "\r\x1b") {
			t.Errorf("result message %q", r.Message.Text)
		}
	}
	want := ""
	if shown {
		want = "warning suite.yml:7:5"
	}
	if strings.Join(got, ",") != want {
		t.Errorf("GATE-RESTRICTED results %q, want %q", got, want)
	}
}

// TestStripShowsFailingAssertion: the summary strip of a run whose case
// failed on an assertion that holds no figure to a number shows that
// assertion, failing, with its actual value and matcher, not the passing
// figure closest to its floor; a figure below its floor is still the
// worst floor, and a run where everything holds shows its closest floor.
func TestStripShowsFailingAssertion(t *testing.T) {
	held := &report.CaseResult{Name: "edges", Verdict: report.Pass, Targets: map[string]float64{"edges.allowed_pct": 90},
		Assertions: []report.AssertionResult{{Target: "edges.allowed_pct", Matcher: map[string]any{">=": 80.0}, Actual: 90.0, Passed: true}}}
	words := &report.CaseResult{Name: "weather <b>", Verdict: report.Fail, Targets: map[string]float64{},
		Assertions: []report.AssertionResult{
			{Target: "tool_called", Matcher: map[string]any{"equals": "get_weather"}, Actual: "get_weather", Passed: true},
			{Target: "final_response", Matcher: map[string]any{"contains": "sunny"}, Actual: "rainy\x1b[31m", Passed: false},
		}}
	below := &report.CaseResult{Name: "f1", Verdict: report.Fail, Targets: map[string]float64{"tool_selection.f1": 57},
		Assertions: []report.AssertionResult{{Target: "tool_selection.f1", Matcher: map[string]any{">=": 80.0}, Actual: 57.0}}}
	for _, tt := range []struct {
		name  string
		cases []*report.CaseResult
		want  string
	}{
		{"a word assertion fails", []*report.CaseResult{held, words}, `failing assertion fail final_response "rainy\u001b[31m" needs {"contains":"sunny"} weather <b> #case-2`},
		{"a figure is below its floor", []*report.CaseResult{words, below, held}, "worst floor fail tool_selection.f1 57 < 80 f1 #case-2"},
		{"everything holds", []*report.CaseResult{held}, "closest floor pass edges.allowed_pct 90 > 80 edges #case-1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := worstFloorOf(&report.Envelope{Cases: tt.cases})
			if w == nil {
				t.Fatal("no figure in the strip")
			}
			if got := strings.Join([]string{w.Label, w.Outcome, w.Name, w.Value, w.Against, w.Case, w.Href}, " "); got != tt.want {
				t.Errorf("strip shows %q, want %q", got, tt.want)
			}
			env := &report.Envelope{SchemaVersion: report.SchemaVersion, Suite: report.SuiteInfo{Path: "suite.yml"}, Cases: tt.cases}
			env.Tally()
			page := string(renderReport(t, HTML{}, env))
			box := page[strings.Index(page, `id="worst-floor"`):]
			box = box[:strings.Index(box, "</div>")]
			if !strings.Contains(box, "<dt>"+w.Label+"</dt>") || strings.Contains(box, "\x1b") || strings.Contains(box, "<b>") {
				t.Errorf("the strip's box is %q", box)
			}
		})
	}
}
