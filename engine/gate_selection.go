package engine

import (
	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// SelectionBlock is an equal_function_sets: block.
type SelectionBlock struct {
	Pos     diag.Pos
	Classes []gate.Class
	// Counting is count:, how calls that match no class are counted:
	// each call (calls, the default) or each distinct tool (distinct).
	Counting gate.Counting
}

// Key returns "equal_function_sets".
func (*SelectionBlock) Key() string { return "equal_function_sets" }

func readSelection(b *builder, raw rawBlock) Block {
	s := &SelectionBlock{Pos: raw.pos, Classes: b.classes(raw.ptr+"/classes", raw.m["classes"])}
	if raw.m["count"] == "distinct" {
		s.Counting = gate.CountDistinct
	}
	return s
}

// toolRefs names the members of every class.
func (s *SelectionBlock) toolRefs() []toolRef {
	n := 0
	for _, cl := range s.Classes {
		n += len(cl.Members)
	}
	refs := make([]toolRef, 0, n)
	for _, cl := range s.Classes {
		for _, m := range cl.Members {
			refs = append(refs, toolRef{s.Key(), "class", m, cl.Name})
		}
	}
	return refs
}

func (s *SelectionBlock) newGate(*Case) caseGate {
	return &selectionGate{sel: gate.NewSelectionBy(s.Classes, s.Counting)}
}

// selectionGate scores Selection F1 (gate.Selection).
type selectionGate struct {
	gateDefaults
	sel  *gate.Selection
	last gate.RunSelection
}

func (g *selectionGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *selectionGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.sel.Score(r) }

func (g *selectionGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	g.last = s.(gate.RunSelection)
	g.sel.Fold(g.last)
}

func (g *selectionGate) runValue(target string) (any, bool) {
	return selectionValue(target, g.last), true
}

func (g *selectionGate) result(res *report.CaseResult) { addGate(res, g.sel.Result()) }

// selectionValue is a run's own F1, precision or recall.
func selectionValue(target string, r gate.RunSelection) float64 {
	s := gate.Scores(r.TP, r.FP, r.FN)
	switch target {
	case "tool_selection.precision":
		return float64(s.Precision)
	case "tool_selection.recall":
		return float64(s.Recall)
	}
	return float64(s.F1)
}
