package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/report"
)

// TestRunEvidence: a run's evidence keeps its calls in order with their
// arguments and the text of their results, redacts secrets, clips long
// text on a character boundary, marks the calls the gates counted, and
// keeps the tokens and cost.
func TestRunEvidence(t *testing.T) {
	cost := int64(1200)
	long := strings.Repeat("é", maxEvidenceText) // two bytes a character
	run := &cassette.Run{
		Turns: []cassette.Turn{{
			Calls: []cassette.Call{
				{Server: "web", Tool: "search", Arguments: cassette.JSONOf(map[string]any{"q": "weather", "api_key": "sk-live-123"}),
					Result: map[string]any{"content": []any{map[string]any{"type": "text", "text": "Authorization: Bearer abcdefghijklmnop1234"}}}},
				{Server: "shell", Tool: "exec", Arguments: cassette.JSONOf(map[string]any{"cmd": "rm -rf /"}), IsError: true, Result: long},
				{Server: "web", Tool: "search_v2"},
			},
			FinalResponse: "done",
		}},
		Tokens:     &cassette.Tokens{Input: 10, Output: 5, Total: 15},
		CostMicros: &cost,
	}
	m := evidenceMarker{
		classes:    []gate.Class{{Name: "search", Members: []string{"web.search"}}},
		restricted: []string{"shell.exec"},
		injected:   []string{"search_v2"},
	}
	ev := runEvidence(3, "gpt", run, m, []string{"fetch"})
	if ev.Run != 3 || ev.Model != "gpt" || len(ev.Turns) != 1 || ev.Turns[0].FinalResponse != "done" || ev.Missed[0] != "fetch" {
		t.Fatalf("evidence = %+v", ev)
	}
	if ev.Tokens == nil || ev.Tokens.Total != 15 || ev.CostMicros == nil || *ev.CostMicros != 1200 {
		t.Errorf("tokens %+v cost %v", ev.Tokens, ev.CostMicros)
	}
	calls := ev.Turns[0].Calls
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	if strings.Contains(calls[0].Arguments, "sk-live") || !strings.Contains(calls[0].Arguments, `"q":"weather"`) {
		t.Errorf("arguments %q: the secret is not redacted or the rest is lost", calls[0].Arguments)
	}
	if strings.Contains(calls[0].Result, "abcdefghijklmnop") || !strings.HasPrefix(calls[0].Result, "Authorization: ") {
		t.Errorf("result %q: the bearer token is not redacted", calls[0].Result)
	}
	if len(calls[0].Marks) != 0 {
		t.Errorf("a call in a declared class is marked %v", calls[0].Marks)
	}
	if got := strings.Join(calls[1].Marks, ","); got != report.MarkUnexpected+","+report.MarkRestricted {
		t.Errorf("the restricted call is marked %q", got)
	}
	if !calls[1].IsError || !calls[1].Clipped || len(calls[1].Result) > maxEvidenceText || !strings.HasPrefix(long, calls[1].Result) {
		t.Errorf("the long result is not clipped on a character boundary (%d bytes, clipped %v)", len(calls[1].Result), calls[1].Clipped)
	}
	if got := strings.Join(calls[2].Marks, ","); got != report.MarkUnexpected+","+report.MarkDistractor {
		t.Errorf("the distractor call is marked %q", got)
	}
}

// TestEvidenceBounds: a case keeps the evidence of its first runs and
// counts the others; a run keeps its first calls and counts the others;
// a scenario's refused calls are marked where they were made.
func TestEvidenceBounds(t *testing.T) {
	var calls []cassette.Call
	for range maxEvidenceCalls + 5 {
		calls = append(calls, cassette.Call{Tool: "t"})
	}
	run := &cassette.Run{Turns: []cassette.Turn{{Calls: calls}, {Calls: []cassette.Call{{Tool: "u"}}}}}
	res := &report.CaseResult{}
	for i := range maxEvidenceRuns + 2 {
		addEvidence(res, runEvidence(i+1, "", run, evidenceMarker{}, nil), true)
	}
	if len(res.Evidence) != maxEvidenceRuns || res.EvidenceOmitted != 2 {
		t.Errorf("%d runs kept, %d omitted; want %d and 2", len(res.Evidence), res.EvidenceOmitted, maxEvidenceRuns)
	}
	ev := res.Evidence[0]
	if n := len(ev.Turns[0].Calls) + len(ev.Turns[1].Calls); n != maxEvidenceCalls || ev.OmittedCalls != 6 {
		t.Errorf("%d calls kept, %d omitted; want %d and 6", n, ev.OmittedCalls, maxEvidenceCalls)
	}
	sc := runEvidence(1, "", &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "a"}, {Tool: "b"}}}}}, evidenceMarker{}, nil)
	markScenarioCalls(&sc, []report.WorldEvent{{Turn: 1, Call: 2}, {Turn: 9, Call: 1}}, []report.WorldEvent{{Turn: 1, Call: 1}})
	if got := sc.Turns[0].Calls; len(got[0].Marks) != 1 || got[0].Marks[0] != report.MarkForbidden || len(got[1].Marks) != 1 || got[1].Marks[0] != report.MarkInvalid {
		t.Errorf("scenario marks %+v", got)
	}
}

// TestEvidenceBudget: passing runs fill at most half of a case's bytes,
// so a failing run after them still finds room; past the whole budget
// runs are counted, not kept.
func TestEvidenceBudget(t *testing.T) {
	big := strings.Repeat("x", maxEvidenceText)
	run := &cassette.Run{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "t", Result: big}, {Tool: "t", Result: big}}}}}
	res := &report.CaseResult{}
	for i := range 8 {
		addEvidence(res, runEvidence(i+1, "", run, evidenceMarker{}, nil), false)
	}
	passing := len(res.Evidence)
	if used := passing * evidenceBytes(res.Evidence[0]); used > maxEvidenceBytes/2 || passing == 0 {
		t.Fatalf("passing runs kept %d bytes in %d runs, over half of %d", used, passing, maxEvidenceBytes)
	}
	addEvidence(res, runEvidence(9, "", run, evidenceMarker{}, nil), true)
	if len(res.Evidence) != passing+1 || res.Evidence[passing].Run != 9 {
		t.Errorf("the failing run after %d passing ones was not kept", passing)
	}
	for i := range 20 {
		addEvidence(res, runEvidence(10+i, "", run, evidenceMarker{}, nil), true)
	}
	total := 0
	for _, ev := range res.Evidence {
		total += evidenceBytes(ev)
	}
	if total > maxEvidenceBytes || res.EvidenceOmitted+len(res.Evidence) != 29 {
		t.Errorf("kept %d bytes over %d runs, %d omitted", total, len(res.Evidence), res.EvidenceOmitted)
	}
}

// FuzzCompactJSON: the evidence's arguments and results, generic values
// as a cassette decodes them, are written byte for byte as json.Marshal
// writes them.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,-0,1.5,1e300,"<&>\u2028"]}`, `"x"`, `[]`, `{"":{"":""}}`, `12345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		want, err := json.Marshal(v)
		if err != nil {
			return
		}
		if got := compactJSON(v); got != string(want) {
			t.Fatalf("compactJSON(%s) = %s, want %s", data, got, want)
		}
	})
}
