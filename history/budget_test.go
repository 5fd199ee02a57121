package history_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/history/historytest"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestEveryEnvelopeReaderHoldsTheBudget plants JSON made to be expensive
// (four shapes, each past the decode budget of the envelope it is in) at
// every place of an envelope that decodes into a generic value (a
// floor's matcher and actual value, an assertion's matcher and actual
// value, a scenario's final state and a change's values) and reads it
// with every reader of envelopes: report.Read, the case stream
// (report.CaseReader, cases and head), baseline.ReadBaseline and
// history.ReadSnapshot. Each refuses it with the budget's error, but
// history's reader for a case's values, which it never decodes, and
// places the error inside the flood.
func TestEveryEnvelopeReaderHoldsTheBudget(t *testing.T) {
	floods := casedraw.Floods(1.3, 30, report.DecodeCost)
	type place struct {
		name  string
		plant func(env *report.Envelope, flood json.RawMessage)
		// inCase: the flood is in a case, which history does not decode
		inCase bool
	}
	firstAssertion := func(env *report.Envelope) *report.AssertionResult {
		for i := range env.Cases {
			if len(env.Cases[i].Assertions) == 0 {
				env.Cases[i].Assertions = []report.AssertionResult{{Target: "calls", Matcher: "x", Message: "m",
					Position: diag.Pos{File: "s.yml", Line: 1, Col: 1}}}
			}
			return &env.Cases[i].Assertions[0]
		}
		t.Fatal("no case")
		return nil
	}
	places := []place{
		{"a floor's matcher", func(env *report.Envelope, f json.RawMessage) { env.Floors[0].Matcher = f }, false},
		{"an assertion's matcher", func(env *report.Envelope, f json.RawMessage) { firstAssertion(env).Matcher = f }, true},
		{"an assertion's actual value", func(env *report.Envelope, f json.RawMessage) { firstAssertion(env).Actual = f }, true},
		{"a final state", func(env *report.Envelope, f json.RawMessage) {
			env.Cases[0].Scenario = &report.ScenarioDetail{Runs: []report.ScenarioRun{{Run: 1,
				FinalState: map[string]any{"flood": f}, Diff: []report.StateChange{}, ToolNames: []string{},
				InvalidActions: []report.WorldEvent{}, ForbiddenTransitions: []report.WorldEvent{}}}}
		}, true},
		{"a change's value", func(env *report.Envelope, f json.RawMessage) {
			env.Cases[0].Scenario = &report.ScenarioDetail{Runs: []report.ScenarioRun{{Run: 1,
				FinalState: map[string]any{}, Diff: []report.StateChange{{Path: "/a", Op: "add", After: f}}, ToolNames: []string{},
				InvalidActions: []report.WorldEvent{}, ForbiddenTransitions: []report.WorldEvent{}}}}
		}, true},
	}
	readers := map[string]func(doc []byte) error{
		"report.Read": func(doc []byte) error {
			_, err := report.Read(bytes.NewReader(doc), "flood.json")
			return err
		},
		"the case stream": func(doc []byte) error {
			return envgen.ReadStream(bytes.NewReader(doc), "flood.json")
		},
		"baseline.ReadBaseline": func(doc []byte) error {
			_, err := baseline.ReadBaseline(bytes.NewReader(doc), "flood.json")
			return err
		},
		"history.ReadSnapshot": func(doc []byte) error {
			_, err := history.ReadSnapshot(bytes.NewReader(doc), "flood.json", 0)
			return err
		},
	}
	placed := regexp.MustCompile(`^flood\.json:1:(\d+): `)
	for shape, flood := range floods {
		for _, p := range places {
			env := historytest.Envelope(historytest.Spec{Runs: 2, Suite: "s.yml"}, 0)
			if len(env.Floors) == 0 {
				t.Fatal("the generated envelope has no floor")
			}
			p.plant(env, json.RawMessage(flood))
			doc, err := json.Marshal(env)
			if err != nil {
				t.Fatal(err)
			}
			for name, read := range readers {
				err := read(doc)
				if name == "history.ReadSnapshot" && p.inCase {
					if err != nil {
						t.Errorf("%s in %s, %s: %v", shape, p.name, name, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), "the decode budget of") || !strings.HasPrefix(err.Error(), "flood.json:") {
					t.Errorf("%s in %s, %s: %v, want the decode budget's error naming flood.json", shape, p.name, name, err)
					continue
				}
				if name == "history.ReadSnapshot" && !strings.Contains(err.Error(), "floors would take ") {
					t.Errorf("%s in %s, %s: %v, want the floors named", shape, p.name, name, err)
				}
				// placed inside the flood: the document is on one line
				m := placed.FindStringSubmatch(err.Error())
				if m == nil {
					t.Errorf("%s in %s, %s: %v, not placed at a line and column", shape, p.name, name, err)
					continue
				}
				from := bytes.Index(doc, []byte(flood))
				if col, _ := strconv.Atoi(m[1]); col-1 < from || col-1 >= from+len(flood) {
					t.Errorf("%s in %s, %s: %v, not placed inside the flood (columns %d to %d)", shape, p.name, name, err, from+1, from+len(flood))
				}
			}
		}
	}
}
