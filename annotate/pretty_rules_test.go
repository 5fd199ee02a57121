package annotate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// TestPrettyFindingsShown: under a passing case the text report shows a
// finding only when it is a warning or a restricted call (an error of
// tool_edges); under a failing or inconclusive case it shows every one. A
// finding with a file position is prefixed with it.
func TestPrettyFindingsShown(t *testing.T) {
	for _, tc := range []struct {
		verdict     report.Verdict
		level, gate string
		shown       bool
	}{
		{report.Pass, "warning", "", true},
		{report.Pass, "info", "", false},
		{report.Pass, "error", "tool_selection", false},
		{report.Pass, "error", "tool_edges", true},
		{report.Pass, "warning", "tool_edges", true},
		{report.Pass, "info", "tool_edges", false},
		{report.Fail, "info", "", true},
		{report.Fail, "error", "tool_selection", true},
		{report.Inconclusive, "info", "", true},
	} {
		env := &report.Envelope{Cases: []*report.CaseResult{{
			Name: "c", Kind: report.KindTool, Verdict: tc.verdict,
			Findings: []report.Finding{{Level: tc.level, Gate: tc.gate, Message: "the finding"}},
		}}}
		var out bytes.Buffer
		if err := (Pretty{}).Report(&out, env); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), tc.level+": the finding"); got != tc.shown {
			t.Errorf("%s case, %s finding of %q: shown %v, want %v\n%s", tc.verdict, tc.level, tc.gate, got, tc.shown, out.String())
		}
	}
	env := &report.Envelope{Cases: []*report.CaseResult{{
		Name: "c", Kind: report.KindTool, Verdict: report.Fail,
		Findings: []report.Finding{
			{Level: "error", Message: "at a file", Position: &diag.Pos{File: "suite.yml", Line: 3, Col: 5}},
			{Level: "error", Message: "at no file", Position: &diag.Pos{Line: 3, Col: 5}},
		},
	}}}
	var out bytes.Buffer
	if err := (Pretty{}).Report(&out, env); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"error: suite.yml:3:5: at a file\n", "error: at no file\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}
