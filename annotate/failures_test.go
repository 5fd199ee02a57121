package annotate

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestFailuresReadTheSame is a generator test over every example's saved
// run: each check a failing case failed (caseFailures) is rendered once,
// with every line of its evidence, by the text report, the job summary's
// failing-cases row (escaped for markdown) and the HTML report (escaped
// for HTML): the same failure reads the same in all three.
func TestFailuresReadTheSame(t *testing.T) {
	files, err := filepath.Glob("../cmd/mcptest/testdata/golden/examples/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d example envelopes (%v)", len(files), err)
	}
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var env report.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var text strings.Builder
		if err := (Pretty{}).Report(&text, &env); err != nil {
			t.Fatal(err)
		}
		summary := Summary(ActionReport{Env: &env, Suite: "suite.yml", Missing: "first run"}, "https://github.com", "o/r", 1<<20)
		page, err := Render("html", &env, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range env.Cases {
			if c.Verdict != report.Fail {
				continue
			}
			row := ""
			for _, l := range strings.Split(summary, "\n") {
				if strings.HasPrefix(l, "| "+Text(c.Name, 0)+" | ") && row == "" {
					row = l // the failing-cases row, before the all-cases one
				}
			}
			block := caseBlock(text.String(), "FAIL  "+Clean(c.Name))
			for _, p := range caseFailures(c) {
				checked++
				var chunk strings.Builder
				for _, l := range p.TextLines() {
					chunk.WriteString("      " + Clean(l) + "\n")
				}
				if strings.Count(block, chunk.String()) != 1 {
					t.Errorf("%s: the text report does not show this once under %q:\n%s", file, c.Name, chunk.String())
				}
				for i, l := range p.TextLines() {
					md := Text(strings.TrimLeft(l, " "), 300)
					if i > 0 {
						md = "&emsp;" + md
					}
					if !strings.Contains(row, md) {
						t.Errorf("%s: the job summary's row of %q lacks %q", file, c.Name, md)
					}
				}
				for _, l := range append(p.Lines, p.Message, p.Actual) {
					if !strings.Contains(html.UnescapeString(string(page)), Clean(l)) && !strings.Contains(l, "`") {
						t.Errorf("%s: the HTML report lacks %q", file, l)
					}
				}
			}
		}
	}
	if checked < 15 {
		t.Errorf("only %d failed checks rendered: the examples lost their failures", checked)
	}
}

// caseBlock is the lines of a text report from the case line that starts
// with head to the next line not indented under it.
func caseBlock(text, head string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, head):
			in = true
		case in && strings.HasPrefix(l, "      "):
			b.WriteString(l + "\n")
		default:
			in = false
		}
	}
	return b.String()
}
