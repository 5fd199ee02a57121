package engine

import (
	"strconv"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/stats"
	"github.com/mcptest/mcptest/report"
)

// ToolSelectionBlock is a tool_selection: block, the pass^k floor.
type ToolSelectionBlock struct {
	Pos    diag.Pos
	Config gate.PassKConfig
}

// Key returns "tool_selection".
func (*ToolSelectionBlock) Key() string { return "tool_selection" }

func readToolSelection(b *builder, raw rawBlock) Block {
	ts := &ToolSelectionBlock{Pos: raw.pos}
	ts.Config.ExpectedTool, _ = raw.m["expected_tool"].(string)
	ts.Config.MinRate, _ = raw.m["min_selection_rate"].(float64)
	if v, ok := raw.m["max_total_tokens"]; ok {
		if n, ok := b.integer(raw.ptr+"/max_total_tokens", v, 0, maxExactInteger); ok {
			ts.Config.MaxTokens = &n
		}
	}
	return ts
}

// toolRefs names the expected tool.
func (ts *ToolSelectionBlock) toolRefs() []toolRef {
	if ts.Config.ExpectedTool == "" {
		return nil
	}
	return []toolRef{{ts.Key(), "expected_tool", ts.Config.ExpectedTool, ""}}
}

func (ts *ToolSelectionBlock) newGate(c *Case) caseGate {
	return &toolSelectionGate{blk: ts, name: c.Name, passK: gate.NewPassK(ts.Config), matrix: len(c.Models) > 1}
}

// toolSelectionGate is the pass^k floor (gate.PassK) of each (test, model)
// pair: a test with a model matrix is judged model by model.
type toolSelectionGate struct {
	gateDefaults
	blk    *ToolSelectionBlock
	name   string
	passK  *gate.PassK
	matrix bool
	last   report.PassKRun
}

func (g *toolSelectionGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

// score is the run's pass^k row before its number and model (runScorer).
func (g *toolSelectionGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.passK.Score(r) }

// addScored numbers the row per model, in run order.
func (g *toolSelectionGate) addScored(cas *cassette.Cassette, _ *cassette.Run, s any) {
	model := ""
	if g.matrix {
		model = cas.Model
	}
	g.last = g.passK.Fold(model, s.(report.PassKRun))
}

func (g *toolSelectionGate) runValue(target string) (any, bool) {
	switch target {
	case "tool_selection.selection_rate":
		return boolPercent(g.last.Selected), true
	case "tool_selection.pass_k":
		return boolPercent(g.last.PassK), true
	}
	if g.last.Tokens == nil {
		return nil, false
	}
	return float64(*g.last.Tokens), true
}

// runFailed fails a run that is not a pass^k row, with one of two
// constant reasons: a run's verdict row keeps its reason, so a text built
// for each failed run would be kept for each.
func (g *toolSelectionGate) runFailed(failed []string) []string {
	switch {
	case g.last.PassK:
		return failed
	case g.last.Selected:
		return append(failed, "tool_selection: over the token budget")
	}
	return append(failed, "tool_selection: did not select the expected tool")
}

// result adds the targets, the per-run detail and one floor per (test,
// model) pair.
func (g *toolSelectionGate) result(res *report.CaseResult) {
	addGate(res, g.passK.Result())
	cfg := g.blk.Config
	d := &report.ToolSelectionDetail{ExpectedTool: cfg.ExpectedTool, MinSelectionRate: cfg.MinRate, MaxTotalTokens: cfg.MaxTokens,
		Pairs: []report.SelectionPair{}, Runs: []report.SelectionRow{}}
	for _, row := range g.passK.Head() {
		d.Runs = append(d.Runs, report.SelectionRow{Name: g.rowName(row.Model, row.Run), PassKRun: row})
	}
	d.OmittedRuns = g.passK.Runs() - len(d.Runs)
	res.ToolSelection = d
	for _, model := range g.passK.Models() {
		f := g.passK.FloorOf(g.pairName(model), model)
		res.Floors = append(res.Floors, report.Floor{Name: "tool-selection floor", Passed: f.Passed, Message: f.Summary, Lines: f.Breaches})
		d.Pairs = append(d.Pairs, g.pair(model, f.Passed))
	}
	if g.passK.Runs() == 0 {
		f := g.passK.FloorOf(g.name, "")
		res.Floors = append(res.Floors, report.Floor{Name: "tool-selection floor", Passed: false, Message: f.Summary, Lines: []string{"FLOOR " + g.name + ": no recorded runs"}})
	}
}

// pair summarises the runs of one model.
func (g *toolSelectionGate) pair(model string, passed bool) report.SelectionPair {
	s := g.passK.SummaryOf(model)
	pair := report.SelectionPair{Name: g.pairName(model), Model: model, Runs: s.Runs, Selected: s.Selected, PassKRuns: s.PassK,
		SelectionRate: stats.Percent(s.Selected, s.Runs), PassK: stats.Percent(s.PassK, s.Runs), OverBudget: s.OverBudget, Passed: passed}
	if s.TokensRecorded > 0 {
		pair.TokensMedian, pair.TokensMax = &s.TokensMedian, &s.TokensMax
	}
	return pair
}

func (g *toolSelectionGate) pairName(model string) string {
	if model == "" {
		return g.name
	}
	return g.name + " [" + model + "]"
}

func (g *toolSelectionGate) rowName(model string, run int) string {
	return g.pairName(model) + " #" + strconv.Itoa(run)
}
