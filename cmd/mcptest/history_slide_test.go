package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/history/historytest"
)

// TestHistoryBinarySlideRule runs the built binary's `mcptest history
// --slide-threshold 5` over a generated window where three cases' certified
// lower bounds fall by more than 5 points from first to last: `slide`
// steadily (90 down a point a run), `case-0000` in one dip that came back,
// and `case-0001` only in the last run of a flat window. The one slide
// rule (the Action's history-threshold rule) lists `slide` and the
// suite's mean certified_lower (which `slide` pulls down run by run), never
// the dip or the last-run drop, and the text and JSON say the rule.
func TestHistoryBinarySlideRule(t *testing.T) {
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 10, Suite: "suite.yml", Steady: 2}
	for i := range spec.Runs {
		env := historytest.Envelope(spec, i)
		for _, c := range env.Cases {
			switch {
			case c.Name == "case-0000" && i == 3:
				c.Targets["reliability.certified_lower"] = 30
			case c.Name == "case-0001" && i == spec.Runs-1:
				c.Targets["reliability.certified_lower"] = 30
			}
		}
		data, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, historytest.FileName(spec, i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text, stderr, code := runHistoryBin(t, dir, nil, "history", "--slide-threshold", "5", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, slid, ok := strings.Cut(text, "floors that slid (")
	if !ok {
		t.Fatalf("no floors that slid:\n%s", text)
	}
	slid, _, _ = strings.Cut(slid, "cases that flip often")
	rule := "down at least 5 points first to last over 3 or more runs, slope negative, later half below the first"
	if !strings.HasPrefix(slid, "2): "+rule+"\n") || !strings.Contains(slid, "certified_lower of slide: 90 -> 81 over 10 runs (-1 per run)") {
		t.Errorf("the floors that slid are not the suite's and slide's under the rule:\n%s", slid)
	}
	for _, not := range []string{"case-0000", "case-0001"} {
		if strings.Contains(slid, not) {
			t.Errorf("%s slid, but fell in a dip or in the last run only:\n%s", not, slid)
		}
	}
	js, stderr, code := runHistoryBin(t, dir, nil, "history", "--slide-threshold", "5", "--format", "json", dir)
	var doc struct {
		SlideThreshold float64 `json:"slide_threshold"`
		SlideRule      string  `json:"slide_rule"`
		Suites         []struct {
			Slid []struct {
				Case string `json:"case"`
			} `json:"slid"`
		} `json:"suites"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &doc) != nil {
		t.Fatalf("json: exit %d %s", code, stderr)
	}
	if doc.SlideThreshold != 5 || doc.SlideRule != rule || len(doc.Suites) != 1 || len(doc.Suites[0].Slid) != 2 || doc.Suites[0].Slid[1].Case != "slide" {
		t.Errorf("json: threshold %v, rule %q, suites %+v", doc.SlideThreshold, doc.SlideRule, doc.Suites)
	}
}
