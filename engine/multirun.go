package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/gate/distractor"
	"github.com/mcptest/mcptest/gate/stats"
)

// ToolSelectionBlock is a tool_selection: block, the pass^k floor.
type ToolSelectionBlock struct {
	Pos    diag.Pos
	Config gate.PassKConfig
}

// DistractorsBlock is a distractors: block.
type DistractorsBlock struct {
	Pos diag.Pos
	// Generate is the generation request; Count is the block's count: or
	// distractor.DefaultCount.
	Generate   distractor.Config
	Correct    []string
	Complexity string
}

// Tools returns the distractors the block injects, deterministically.
func (d *DistractorsBlock) Tools() []distractor.Tool {
	return distractor.Generate(d.Generate)
}

// DiscoveryBlock is a discovery: block.
type DiscoveryBlock struct {
	Pos      diag.Pos
	NameFree bool
}

// OrchestrationBlock is an orchestration: block.
type OrchestrationBlock struct {
	Pos diag.Pos
}

// multiRunBlock reads the blocks of the multi-run gates into c; it reports
// whether key was one of them.
func (b *builder) multiRunBlock(c *Case, key, bptr string, block map[string]any, pos diag.Pos) bool {
	switch key {
	case "tool_selection":
		ts := &ToolSelectionBlock{Pos: pos}
		ts.Config.ExpectedTool, _ = block["expected_tool"].(string)
		ts.Config.MinRate, _ = block["min_selection_rate"].(float64)
		if v, ok := block["max_total_tokens"]; ok {
			if n, ok := b.integer(bptr+"/max_total_tokens", v, 0, maxExactInteger); ok {
				ts.Config.MaxTokens = &n
			}
		}
		c.ToolSelection = ts
	case "distractors":
		d := &DistractorsBlock{Pos: pos, Correct: strings_(block["correct"])}
		d.Complexity, _ = block["complexity"].(string)
		src, _ := block["source"].(map[string]any)
		from, _ := src["from"].(string)
		d.Generate = distractor.Config{From: distractor.Source(from), Of: strings_(src["of"]), Count: distractor.DefaultCount, Correct: d.Correct}
		if v, ok := block["count"]; ok {
			if n, ok := b.integer(bptr+"/count", v, 0, maxDistractors); ok {
				d.Generate.Count = int(n)
			}
		}
		if from == string(distractor.FromNearDuplicate) && len(d.Generate.Of) == 0 && !b.broken(bptr+"/source") {
			b.errorf(bptr+"/source", b.doc.KeyAt(bptr+"/source"), "`from: near_duplicate` needs `of:`, the names of the real tools to derive look-alikes from")
		}
		c.Distractors = d
	case "discovery":
		d := &DiscoveryBlock{Pos: pos}
		d.NameFree, _ = block["name_free"].(bool)
		c.Discovery = d
	case "orchestration":
		c.Orchestration = &OrchestrationBlock{Pos: pos}
	default:
		return false
	}
	return true
}

// multiRun feeds the runs of an agent test to its multi-run gates.
type multiRun struct {
	c            *Case
	passK        *gate.PassK
	distractors  *gate.Distractors
	orchestrate  *gate.Orchestration
	matrix       bool
	modelRuns    map[string]int
	models       []string // in order of first appearance
	injected     []distractor.Tool
	promptsNamed []string
}

func newMultiRun(c *Case) *multiRun {
	m := &multiRun{c: c, matrix: len(c.Models) > 1, modelRuns: map[string]int{}}
	if c.ToolSelection != nil {
		m.passK = gate.NewPassK(c.ToolSelection.Config)
	}
	if c.Distractors != nil {
		m.injected = c.Distractors.Tools()
		names := make([]string, len(m.injected))
		for i, t := range m.injected {
			names[i] = t.Name
		}
		m.distractors = gate.NewDistractors(c.Distractors.Correct, names)
	}
	if c.Orchestration != nil {
		var classes []gate.Class
		if c.Selection != nil {
			classes = c.Selection.Classes
		}
		m.orchestrate = gate.NewOrchestration(classes)
	}
	if c.Discovery != nil && c.Discovery.NameFree {
		m.checkPrompt(c.Prompt)
	}
	return m
}

// addCassette looks at a cassette before its runs.
func (m *multiRun) addCassette(cas *cassette.Cassette) {
	if m.distractors != nil {
		m.distractors.AddCatalog(cas.Catalog)
	}
	if m.c.Discovery != nil && m.c.Discovery.NameFree && cas.Prompt != m.c.Prompt {
		m.checkPrompt(cas.Prompt)
	}
}

// add feeds one recorded run and notes its own figures in fig.
func (m *multiRun) add(cas *cassette.Cassette, r *cassette.Run, fig *runFigures) {
	model := ""
	if m.matrix {
		model = cas.Model
	}
	if _, ok := m.modelRuns[model]; !ok {
		m.models = append(m.models, model)
	}
	m.modelRuns[model]++
	if m.passK != nil {
		row := m.passK.Add(m.modelRuns[model], model, r)
		fig.passK = &row
	}
	if m.distractors != nil {
		d := m.distractors.Add(r)
		fig.distr, fig.correctIDs = &d, len(m.c.Distractors.Correct)
	}
	if m.orchestrate != nil {
		o := m.orchestrate.Add(r)
		fig.orch = &o
	}
}

// injectedNames names the tools distractors: injected.
func (m *multiRun) injectedNames() []string {
	names := make([]string, len(m.injected))
	for i, t := range m.injected {
		names[i] = t.Name
	}
	return names
}

// checkPrompt notes the tool names a name-free prompt gives away: a member
// of a declared class written in the prompt (a qualified id, or a tool name
// with an `_`, a `-` or a capital letter, which no plain sentence holds).
func (m *multiRun) checkPrompt(prompt string) {
	if m.c.Selection == nil || prompt == "" {
		return
	}
	for _, cl := range m.c.Selection.Classes {
		for _, id := range cl.Members {
			_, tool, qualified := strings.Cut(id, ".")
			if !qualified {
				tool = id
			}
			named := qualified && strings.Contains(prompt, id)
			if !named && strings.ContainsAny(tool, "_-ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.Contains(prompt, tool) {
				named = true
			}
			if named && !contains(m.promptsNamed, tool) {
				m.promptsNamed = append(m.promptsNamed, tool)
			}
		}
	}
}

// results adds the gates' targets, counts, findings and per-run detail.
func (m *multiRun) results(res *report.CaseResult) {
	c := m.c
	if m.passK != nil {
		addGate(res, m.passK.Result())
		cfg := c.ToolSelection.Config
		d := &report.ToolSelectionDetail{ExpectedTool: cfg.ExpectedTool, MinSelectionRate: cfg.MinRate, MaxTotalTokens: cfg.MaxTokens,
			Pairs: []report.SelectionPair{}, Runs: []report.SelectionRow{}}
		for _, row := range m.passK.Rows() {
			d.Runs = append(d.Runs, selectionRow(m.rowName(row.Model, row.Run), row))
		}
		res.ToolSelection = d
		for _, model := range m.models {
			var rows []gate.PassKRun
			for _, row := range m.passK.Rows() {
				if row.Model == model {
					rows = append(rows, row)
				}
			}
			f := m.passK.Floor(m.pairName(model), rows)
			res.Floors = append(res.Floors, report.Floor{Name: "tool-selection floor", Passed: f.Passed, Message: f.Summary, Lines: f.Breaches})
			s := gate.Summarize(cfg, rows)
			pair := report.SelectionPair{Name: m.pairName(model), Model: model, Runs: s.Runs, Selected: s.Selected, PassKRuns: s.PassK,
				SelectionRate: stats.Percent(s.Selected, s.Runs), PassK: stats.Percent(s.PassK, s.Runs), OverBudget: s.OverBudget, Passed: f.Passed}
			if s.TokensRecorded > 0 {
				pair.TokensMedian, pair.TokensMax = &s.TokensMedian, &s.TokensMax
			}
			d.Pairs = append(d.Pairs, pair)
		}
		if len(m.models) == 0 {
			f := m.passK.Floor(c.Name, nil)
			res.Floors = append(res.Floors, report.Floor{Name: "tool-selection floor", Passed: false, Message: f.Summary, Lines: []string{"FLOOR " + c.Name + ": no recorded runs"}})
		}
	}
	if m.distractors != nil {
		addGate(res, m.distractors.Result())
		d := c.Distractors
		res.Distractors = &report.DistractorsDetail{Source: string(d.Generate.From), Count: d.Generate.Count, Complexity: d.Complexity,
			Correct: orEmptyStrings(d.Correct), Injected: []string{}}
		for _, t := range m.injected {
			res.Distractors.Injected = append(res.Distractors.Injected, t.Name)
		}
		if len(m.injected) < d.Generate.Count {
			res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "distractors",
				Message: fmt.Sprintf("`count: %d` asks for more distractors than the %s source makes here: %d injected", d.Generate.Count, d.Generate.From, len(m.injected))})
		}
	}
	if m.orchestrate != nil {
		addGate(res, m.orchestrate.Result())
		if c.Selection == nil {
			res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "orchestration",
				Message: "`orchestration:` without `equal_function_sets:` has no expected classes: discovery and efficiency score 0"})
		}
	}
	if c.Discovery != nil {
		res.Discovery = &report.DiscoveryDetail{NameFree: c.Discovery.NameFree}
		if c.Discovery.NameFree && c.Selection == nil {
			res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "discovery",
				Message: "`discovery.name_free: true` without `equal_function_sets:`: there are no classes to judge the discovered path against"})
		}
		if len(m.promptsNamed) > 0 {
			res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "discovery",
				Message: "`discovery.name_free: true`, but the prompt names " + backtickList(m.promptsNamed) + ": the scenario measures execution, not discovery"})
		}
	}
}

// floors adds the certified floor of a distractors: block, once its
// assertions are evaluated: it holds when every assertion on
// distractors.certified_lower passed.
func (m *multiRun) floors(res *report.CaseResult) {
	if m.distractors == nil {
		return
	}
	var asserted, passed = 0, true
	for _, a := range res.Assertions {
		if a.Target == "distractors.certified_lower" {
			asserted++
			passed = passed && a.Passed
		}
	}
	if asserted == 0 {
		return
	}
	runs, ok := res.Counts["distractors.runs"], res.Counts["distractors.successful_runs"]
	msg := fmt.Sprintf("%s: %d/%d runs selected only correct tools, certified lower bound %s%% at 95%% confidence (accuracy %s%%)",
		m.c.Name, ok, runs, formatNumber(res.Targets["distractors.certified_lower"]), formatNumber(res.Targets["distractors.accuracy"]))
	f := report.Floor{Name: "certified floor", Passed: passed, Message: msg}
	if !passed {
		bound := formatNumber(res.Targets["distractors.certified_lower"])
		for _, a := range res.Assertions {
			if a.Target == "distractors.certified_lower" && !a.Passed {
				why := a.Message
				if _, after, cut := strings.Cut(why, " failed: "); cut {
					why = after
				}
				f.Lines = append(f.Lines, fmt.Sprintf("FLOOR %s: certified lower bound %s%% misses the floor (%s)", m.c.Name, bound, why))
			}
		}
		if ok == runs {
			f.Lines = append(f.Lines, fmt.Sprintf("  all %d runs succeeded, and %d perfect runs certify only %s%% at 95%% confidence: a higher floor needs more runs", runs, runs, bound))
		} else {
			f.Lines = append(f.Lines, fmt.Sprintf("  %d of %d runs chose a distractor, another tool outside the correct set, or no correct tool", runs-ok, runs))
		}
	}
	res.Floors = append(res.Floors, f)
}

func (m *multiRun) pairName(model string) string {
	if model == "" {
		return m.c.Name
	}
	return m.c.Name + " [" + model + "]"
}

func (m *multiRun) rowName(model string, run int) string {
	return m.pairName(model) + " #" + strconv.Itoa(run)
}

func backtickList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

func orEmptyStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// SelectCases applies the --filter rules of Run to the suite's cases, for
// commands that read a suite without running it.
func SelectCases(s *Suite, filters []string) ([]*Case, error) {
	return selectCases(s.Cases, filters)
}

// selectionRow is the envelope's row of one run of a tool_selection: floor.
func selectionRow(name string, r gate.PassKRun) report.SelectionRow {
	return report.SelectionRow{Name: name, Run: r.Run, Model: r.Model, Selected: r.Selected, Tokens: r.Tokens,
		WithinBudget: r.WithinBudget, PassK: r.PassK, Called: r.Called}
}
