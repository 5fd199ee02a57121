package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// seedScenario is the seed's restock example, verbatim.
const seedScenario = `
scenarios:
  - name: restock the widget shelf
    cassette: cassettes/restock.json
    seed:
      inventory:
        widgets: 3
      shelf_full: false
    transitions:
      - tool: add_widget
        effect:
          inventory.widgets: { inc: 1 }
      - tool: remove_widget
        when:
          inventory.widgets: { min: 1 }
        effect:
          inventory.widgets: { dec: 1 }
      - tool: mark_full
        effect:
          shelf_full: true
    forbidden:
      - tool: drop_inventory
        reason: destructive bulk delete is never allowed
    golden:
      calls: [add_widget, add_widget, mark_full]
    expect_state:
      inventory.widgets: 5
      shelf_full: true
    expect:
      - target: invalid_actions
        matcher: { exact: 0 }
      - target: golden.matched
        matcher: { exact: true }
`

func callsJSON(tools ...string) string {
	var calls []string
	for _, tool := range tools {
		calls = append(calls, `{"tool": "`+tool+`", "arguments": {}}`)
	}
	return `{"turns": [{"calls": [` + strings.Join(calls, ",") + `], "final_response": "done"}]}`
}

func TestScenarioSeedExample(t *testing.T) {
	s := writeSuite(t, seedScenario, map[string]string{
		"cassettes/restock.json": cassetteJSON(callsJSON("add_widget", "add_widget", "mark_full")),
	})
	env := run(t, s, Options{})
	c := env.Cases[0]
	if env.Verdict != report.Pass || c.Kind != report.KindScenario || c.Verdict != report.Pass {
		t.Fatalf("verdict %s, case %s %s: %+v", env.Verdict, c.Kind, c.Verdict, c.Findings)
	}
	want := map[string]float64{"actions": 3, "invalid_actions": 0, "golden.matched": 1, "golden.exact": 1, "golden.efficiency": 100,
		"golden.penalty": 0, "state_matched": 1, "state.inventory.widgets": 5, "state.shelf_full": 1, "turns": 1}
	for k, v := range want {
		if got, ok := c.Targets[k]; !ok || got != v {
			t.Errorf("target %s = %v (%v), want %v", k, got, ok, v)
		}
	}
	if _, ok := c.Targets["cost_micros"]; ok {
		t.Error("cost_micros present for a run with no recorded cost")
	}
	// The seed of the loaded suite is untouched by the run.
	if w := s.Cases[0].Scenario.Seed["inventory"].(map[string]any)["widgets"]; w != 3.0 {
		t.Errorf("the seed was mutated: widgets = %v", w)
	}
}

// TestScenarioTargets evaluates every envelope target of the seed's table
// against one trajectory that exercises them all.
func TestScenarioTargets(t *testing.T) {
	const suite = `
scenarios:
  - name: everything
    cassette: c.json
    seed: { w: 0, order: { status: open } }
    transitions:
      - tool: receive
        effect: { w: { from_arg: qty }, order.status: received }
      - tool: remove
        when: { w: { min: 100 } }
        effect: { w: { dec: 1 } }
    forbidden:
      - tool: drop
        reason: never
    escalation: { tools: [page], markers: [manager] }
    refusal: { markers: ["can't help"] }
    golden:
      calls: [receive, page]
      alternates: [[receive, receive, page]]
    expect_state: { w: 12, order.status: received }
    expect:
%s
`
	const cas = `{"mcptest_cassette": 1, "runs": [{"turns": [
	  {"calls": [
	    {"tool": "receive", "arguments": {"qty": 12}, "is_error": true},
	    {"tool": "receive", "arguments": {"qty": 12}},
	    {"tool": "remove", "arguments": {}},
	    {"tool": "drop", "arguments": {}},
	    {"tool": "invent", "arguments": {}},
	    {"server": "ops", "tool": "page", "arguments": {}}
	  ], "final_response": "Sorry, I can't help with the rest."},
	  {"calls": [], "final_response": "A manager will call."},
	  {"calls": []}
	], "cost_micros": 1234}]}`
	tests := []struct {
		target string
		want   string // YAML of the exact value
		env    float64
		inEnv  bool
	}{
		{"turns", "2", 2, true},
		{"actions", "6", 6, true},
		{"invalid_actions", "2", 2, true},
		{"forbidden_transitions", "1", 1, true},
		{"recovery_attempts", "1", 1, true},
		{"escalations", "2", 2, true},
		{"refusals", "1", 1, true},
		{"state_matched", "true", 1, true},
		{"golden.matched", "false", 0, true},
		{"golden.exact", "false", 0, true},
		{"golden.alternate", "false", 0, true},
		{"golden.penalty", "3", 3, true},
		{"golden.efficiency", "33", 33, true},
		{"tool_names", "[receive, receive, remove, drop, invent, page]", 0, false},
		{"tool_names[4]", "invent", 0, false},
		{"state.w", "12", 12, true},
		{"state.order.status", "received", 0, false},
		{"state.order", "{status: received}", 0, false},
		{"cost_micros", "1234", 1234, true},
	}
	var expect []string
	for _, tt := range tests {
		expect = append(expect, fmt.Sprintf("      - target: %s\n        matcher: { exact: %s }", tt.target, tt.want))
	}
	s := writeSuite(t, fmt.Sprintf(suite, strings.Join(expect, "\n")), map[string]string{"c.json": cas})
	c := run(t, s, Options{}).Cases[0]
	for i, tt := range tests {
		a := c.Assertions[i]
		if a.Target != tt.target || !a.Passed {
			t.Errorf("%s: %s", tt.target, a.Message)
		}
		got, ok := c.Targets[tt.target]
		if ok != tt.inEnv || (ok && got != tt.env) {
			t.Errorf("envelope target %s = %v (%v), want %v (%v)", tt.target, got, ok, tt.env, tt.inEnv)
		}
	}
	if c.Verdict != report.Fail {
		t.Errorf("verdict %s: invalid actions and a forbidden call must fail the scenario", c.Verdict)
	}
	var msgs []string
	for _, f := range c.Findings {
		msgs = append(msgs, f.Message)
	}
	want := []string{
		"turn 1, call 3 `remove`: invalid action: guard `w` {min: 100} failed: it holds 12",
		"turn 1, call 4 `drop`: forbidden transition: never",
		"turn 1, call 5 `invent`: invalid action: no transition is declared for `invent`: the agent invented an action",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

// TestScenarioStateDiff: a wrong final state is shown path by path.
func TestScenarioStateDiff(t *testing.T) {
	s := writeSuite(t, seedScenario, map[string]string{
		"cassettes/restock.json": cassetteJSON(callsJSON("add_widget")),
	})
	c := run(t, s, Options{}).Cases[0]
	var msgs []string
	for _, f := range c.Findings {
		msgs = append(msgs, f.Level+": "+f.Message)
	}
	want := []string{
		"error: expect_state `inventory.widgets`: expected 5, actual 4",
		"error: expect_state `shelf_full`: expected true, actual false",
		"info: the replay changed the world: inventory.widgets: 3 → 4",
	}
	if c.Verdict != report.Fail || strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdict %s, findings:\n%s", c.Verdict, strings.Join(msgs, "\n"))
	}
	if c.Findings[0].Position == nil || c.Findings[0].Position.Line != 27 {
		t.Errorf("the mismatch does not point at its expect_state entry: %+v", c.Findings[0].Position)
	}
	if c.Targets["state_matched"] != 0 || c.Targets["golden.penalty"] != 2 {
		t.Errorf("targets %v", c.Targets)
	}
}

// TestScenarioMultiRun: every run replays on a fresh world; counts are
// totals, booleans hold only in every run, findings name their run.
func TestScenarioMultiRun(t *testing.T) {
	s := writeSuite(t, seedScenario, map[string]string{
		"cassettes/restock.json": cassetteJSON(
			callsJSON("add_widget", "add_widget", "mark_full"),
			callsJSON("add_widget", "add_widget", "remove_widget", "add_widget", "mark_full")),
	})
	c := run(t, s, Options{}).Cases[0]
	if c.Runs != 2 || c.Verdict != report.Fail {
		t.Fatalf("runs %d verdict %s", c.Runs, c.Verdict)
	}
	if c.Targets["actions"] != 8 || c.Targets["golden.matched"] != 0 || c.Targets["golden.efficiency"] != 60 || c.Targets["golden.penalty"] != 2 || c.Targets["state_matched"] != 1 {
		t.Errorf("targets %v", c.Targets)
	}
	if _, ok := c.Targets["state.inventory.widgets"]; ok {
		t.Error("state targets are per run: absent over several runs")
	}
	if a := c.Assertions[1]; a.Passed || a.Run != 2 {
		t.Errorf("golden.matched: %+v", a)
	}
}

func TestScenarioRubricDeferred(t *testing.T) {
	s := writeSuite(t, seedScenario+"    rubric: { criteria: polite }\n", map[string]string{
		"cassettes/restock.json": cassetteJSON(callsJSON("add_widget", "add_widget", "mark_full")),
	})
	c := run(t, s, Options{}).Cases[0]
	if c.Verdict != report.Pass || len(c.Findings) != 1 || c.Findings[0].Level != "warning" || !strings.Contains(c.Findings[0].Message, "deferred") {
		t.Errorf("verdict %s findings %+v", c.Verdict, c.Findings)
	}
}

// TestScenarioBuildErrors: bad effects, guards, paths and targets are
// positioned errors, all reported at once.
func TestScenarioBuildErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // "line:col: message substring"
	}{
		{"empty path segment", "transitions: [{tool: a, effect: {inventory..w: 1}}]", `3:38: effect: path "inventory..w" has an empty segment`},
		{"inc on a string", "transitions: [{tool: a, effect: {w: {inc: two}}}]", "3:47: `inc:` on `w` takes a finite number within ±2^53, got the string \"two\""},
		{"inc absurd", "transitions: [{tool: a, effect: {w: {inc: 1e300}}}]", "3:47: `inc:` on `w` takes a finite number"},
		{"set absurd", "transitions: [{tool: a, effect: {w: 1e300}}]", "3:41: effect on `w` sets the number 1e+300"},
		{"two operators", "transitions: [{tool: a, effect: {w: {inc: 1, dec: 1}}}]", "3:42: effect on `w` has two operators, `dec` and `inc`"},
		{"operator typo", "transitions: [{tool: a, effect: {w: {icn: 1}}}]", "3:42: unknown effect operator `icn`"},
		{"operator mixed", "transitions: [{tool: a, effect: {w: {inc: 1, x: 1}}}]", "3:50: effect mixes the operator `inc` with the key `x`"},
		{"from_arg empty", "transitions: [{tool: a, effect: {w: {from_arg: \"\"}}}]", "3:52: `from_arg:` on `w` takes the dotted path of a call argument"},
		{"guard typo", "transitions: [{tool: a, when: {w: {mni: 1}}}]", "3:40: unknown guard operator `mni`"},
		{"guard not a number", "transitions: [{tool: a, when: {w: {min: one}}}]", "3:45: `min:` in the guard on `w` takes a number, got the string \"one\""},
		{"guard bad path", "forbidden: [{tool: a, when: {.w: 1}}]", `3:34: when: path ".w" has an empty segment`},
		{"expect_state bad path", "expect_state: {a.: 1}", `3:20: expect_state: path "a." has an empty segment`},
		{"unknown target", "expect: [{target: invalid_action, matcher: {exact: 0}}]", "3:23: unknown scenario target `invalid_action`"},
		{"golden target without golden", "expect: [{golden.matched: {exact: true}}]", "3:15: target `golden.matched` comes from a `golden:` block"},
		{"unknown golden target", "golden: {calls: [a]}\n    transitions: [{tool: a}]\n    expect: [{golden.score: {\">=\": 1}}]", "5:15: unknown scenario target `golden.score`"},
		{"golden call without transition", "transitions: [{tool: add}]\n    golden: {calls: [add, ad]}", "4:27: golden call `ad` has no transition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			suite := "scenarios:\n  - name: s\n    " + tt.body + "\n"
			_, err := ParseSuite("suite.yml", []byte(suite))
			var l diag.List
			if !errors.As(err, &l) {
				t.Fatalf("no error for\n%s", suite)
			}
			got := l.Error()
			if !strings.Contains(got, "suite.yml:"+tt.want) {
				t.Errorf("got:\n%s\nwant suite.yml:%s", got, tt.want)
			}
		})
	}
}

// TestScenarioImplicitCassette: a scenario without cassette: is looked up
// by name in the cassette directory, like an agent test, and runs beside
// agent tests in suite order.
func TestScenarioImplicitCassette(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather
    cassette: w.json
scenarios:
  - name: Restock Shelf
    seed: { w: 0 }
    transitions: [{ tool: add, effect: { w: { inc: 1 } } }]
    expect_state: { w: 2 }
`, map[string]string{
		"w.json":                      cassetteJSON(runJSON("sunny", "w.get_weather")),
		"recorded/restock-shelf.json": cassetteJSON(callsJSON("add", "add")),
	})
	env := run(t, s, Options{CassetteDir: filepath.Join(s.Dir, "recorded")})
	if len(env.Cases) != 2 || env.Cases[1].Kind != report.KindScenario || env.Cases[1].Verdict != report.Pass || env.Verdict != report.Pass {
		t.Fatalf("cases %+v", env.Cases)
	}
	if _, err := Run(s, Options{}); err == nil || !strings.Contains(err.Error(), `no cassette for test "Restock Shelf"`) {
		t.Errorf("missing cassette: %v", err)
	}
}

// TestScenarioObject: each run of a scenario is replayed on a world of its
// own, and the case carries, per run, the final state, the diff from the
// seed in path order, the calls and the calls the world refused, each
// with its turn, call and rule; a string state value at an expect_state
// path is a label.
func TestScenarioObject(t *testing.T) {
	s := writeSuite(t, `
scenarios:
  - name: restock
    cassette: c.json
    seed: { inventory: { widgets: 3 }, label: draft, old: 1 }
    transitions:
      - tool: add_widget
        effect:
          inventory.widgets: { inc: 1 }
          label: { from_arg: label }
      - tool: remove_widget
        when: { inventory.widgets: { min: 5 } }
        effect: { inventory.widgets: { dec: 1 } }
    forbidden:
      - tool: drop_inventory
        reason: never
    expect_state:
      label: shipped
`, map[string]string{"c.json": cassetteJSON(
		`{"turns": [{"calls": [{"tool": "add_widget", "arguments": {"label": "shipped"}}, {"tool": "remove_widget", "arguments": {}}]}, {"calls": [{"tool": "drop_inventory", "arguments": {}}]}]}`,
		`{"turns": [{"calls": [{"tool": "add_widget", "arguments": {"label": "held"}}]}]}`,
	)})
	c := run(t, s, Options{}).Cases[0]
	sd := c.Scenario
	if sd == nil || len(sd.Runs) != 2 {
		t.Fatalf("scenario = %+v", sd)
	}
	r1, r2 := sd.Runs[0], sd.Runs[1]
	wantDiff := []report.StateChange{
		{Path: "inventory.widgets", Op: "replace", Before: 3.0, After: 4.0},
		{Path: "label", Op: "replace", Before: "draft", After: "shipped"},
	}
	if !reflect.DeepEqual(r1.Diff, wantDiff) || !r1.StateMatched || r1.FinalState["label"] != "shipped" {
		t.Errorf("run 1 = %+v", r1)
	}
	if !reflect.DeepEqual(r1.ToolNames, []string{"add_widget", "remove_widget", "drop_inventory"}) {
		t.Errorf("tool names %v", r1.ToolNames)
	}
	if len(r1.InvalidActions) != 1 || r1.InvalidActions[0].Turn != 1 || r1.InvalidActions[0].Call != 2 || r1.InvalidActions[0].Position == nil || r1.InvalidActions[0].Position.Line != 11 {
		t.Errorf("invalid actions %+v", r1.InvalidActions)
	}
	if len(r1.ForbiddenTransitions) != 1 || r1.ForbiddenTransitions[0].Turn != 2 || r1.ForbiddenTransitions[0].Reason != "never" {
		t.Errorf("forbidden %+v", r1.ForbiddenTransitions)
	}
	// The second run starts from the seed, not from the first run's world.
	if r2.StateMatched || r2.FinalState["inventory"].(map[string]any)["widgets"] != 4.0 || r2.Diff[1].After != "held" {
		t.Errorf("run 2 = %+v", r2)
	}
	if c.Reliability == nil || c.Reliability.PassedRuns != 0 || c.Reliability.Rows[1].Failed[0] != "expect_state: 1 path(s) differ" {
		t.Errorf("reliability %+v", c.Reliability)
	}

	one := writeSuite(t, strings.Replace(`
scenarios:
  - name: one
    cassette: c.json
    seed: { label: draft }
    transitions:
      - tool: ship
        effect: { label: shipped }
    expect_state: { label: shipped }
    expect:
      - state.label: { exact: shipped }
`, "\t", "", -1), map[string]string{"c.json": cassetteJSON(`{"turns": [{"calls": [{"tool": "ship", "arguments": {}}]}]}`)})
	c = run(t, one, Options{}).Cases[0]
	if c.Labels["state.label"] != "shipped" || c.Verdict != report.Pass || c.Scenario.Runs[0].Diff[0].Op != "replace" {
		t.Errorf("labels %v verdict %s scenario %+v", c.Labels, c.Verdict, c.Scenario)
	}
}
