package engine

import (
	"encoding/json"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

func TestToolTally(t *testing.T) {
	cas := &cassette.Cassette{
		Catalog: []cassette.ServerCatalog{
			{Server: "weather", Tools: []cassette.Tool{{Name: "get_weather"}, {Name: "get_alerts"}, {Name: "search"}}},
			{Server: "web", Tools: []cassette.Tool{{Name: "search"}}},
		},
		Runs: []cassette.Run{
			{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "get_weather"}, {Server: "web", Tool: "search"}}}}},
			// No server: get_weather has one owner, search two.
			{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "get_weather"}, {Tool: "search"}, {Tool: "invented"}}}}},
		},
	}
	var tally toolTally
	tally.addCassette(cas)
	got, _ := json.Marshal(tally.called())
	want := `[{"tool":"invented","calls":1},{"tool":"search","calls":1},{"server":"weather","tool":"get_weather","calls":2},{"server":"web","tool":"search","calls":1}]`
	if string(got) != want {
		t.Errorf("tally\n got %s\nwant %s", got, want)
	}
	if cat := tally.catalog(); cat == nil || len(cat.SHA256) != 64 {
		t.Fatalf("catalog %+v: want a digest", cat)
	} else if got, _ = json.Marshal(cat.Servers); string(got) != `[{"server":"weather","tools":["get_alerts","get_weather","search"]},{"server":"web","tools":["search"]}]` {
		t.Errorf("catalog\n got %s", got)
	}
	var res report.CaseResult
	tally.setTools(&res)
	if res.Catalog != res.Offered.SHA256 || len(res.Tools) != 4 {
		t.Errorf("setTools: %+v", res)
	}
	if (&toolTally{}).called() != nil || (&toolTally{}).catalog() != nil {
		t.Error("an empty tally lists nothing")
	}
}

func TestToolCoverage(t *testing.T) {
	env := &report.Envelope{
		Servers: []report.ServerInfo{{Name: "target", Tools: []string{"echo", "get-env", "get-sum"}}, {Name: "other"}},
		Cases: []*report.CaseResult{
			{Verdict: report.Pass, Tools: []report.ToolUse{{Server: "target", Tool: "echo", Calls: 1}}},
			{Verdict: report.Fail, Tools: []report.ToolUse{{Server: "target", Tool: "echo", Calls: 1}}},
			{Verdict: report.Inconclusive, Tools: []report.ToolUse{{Server: "target", Tool: "get-sum", Calls: 3}, {Server: "weather", Tool: "get_alerts"}}},
			{Verdict: report.Pass},
		},
	}
	cov := env.ToolCoverage()
	got, _ := json.Marshal(cov)
	want := `{"known":4,"covered":2,"percent":50,"tools":[` +
		`{"server":"target","tool":"echo","calls":2,"cases":2,"passed":1,"failed":1,"inconclusive":0},` +
		`{"server":"target","tool":"get-env","calls":0,"cases":0,"passed":0,"failed":0,"inconclusive":0},` +
		`{"server":"target","tool":"get-sum","calls":3,"cases":1,"passed":0,"failed":0,"inconclusive":1},` +
		`{"server":"weather","tool":"get_alerts","calls":0,"cases":0,"passed":0,"failed":0,"inconclusive":0}],` +
		`"uncovered":[{"server":"target","tool":"get-env","calls":0},{"server":"weather","tool":"get_alerts","calls":0}]}`
	if string(got) != want {
		t.Errorf("coverage\n got %s\nwant %s", got, want)
	}
	empty, _ := json.Marshal((&report.Envelope{}).ToolCoverage())
	if string(empty) != `{"known":0,"covered":0,"tools":[],"uncovered":[]}` {
		t.Errorf("a run that knows no tool: %s", empty)
	}
}
