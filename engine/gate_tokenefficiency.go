package engine

import (
	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// TokenEfficiencyBlock is a token_efficiency: block: the classes of its
// selection F1. On replay the tool surface it prices is the catalog the
// cassettes recorded (gate.TokenEfficiency).
type TokenEfficiencyBlock struct {
	Pos     diag.Pos
	Classes []gate.Class
}

// Key returns "token_efficiency".
func (*TokenEfficiencyBlock) Key() string { return "token_efficiency" }

func readTokenEfficiency(b *builder, raw rawBlock) Block {
	return &TokenEfficiencyBlock{Pos: raw.pos, Classes: b.classes(raw.ptr+"/classes", raw.m["classes"])}
}

func (t *TokenEfficiencyBlock) newGate(*Case) caseGate {
	return &tokenEfficiencyGate{te: gate.NewTokenEfficiency(t.Classes)}
}

// tokenEfficiencyGate prices the recorded catalog per correct selection.
type tokenEfficiencyGate struct {
	gateDefaults
	te   *gate.TokenEfficiency
	last gate.RunSelection
}

func (g *tokenEfficiencyGate) addCassette(cas *cassette.Cassette) { g.te.AddCatalog(cas.Catalog) }

func (g *tokenEfficiencyGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *tokenEfficiencyGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.te.Score(r) }

func (g *tokenEfficiencyGate) addScored(_ *cassette.Cassette, r *cassette.Run, s any) {
	g.last = s.(gate.RunSelection)
	g.te.Fold(r, g.last)
}

// runValue gives the run's own F1, correct selections and grade; the
// catalog figures and the prices per correct selection need every run.
func (g *tokenEfficiencyGate) runValue(target string) (any, bool) {
	switch target {
	case "token_efficiency.correct_selections":
		return float64(g.last.TP), true
	case "token_efficiency.grade":
		return gate.Grade(gate.Scores(g.last.TP, g.last.FP, g.last.FN).F1), true
	}
	return selectionValue("tool_selection.f1", g.last), true
}

func (g *tokenEfficiencyGate) result(res *report.CaseResult) { addGate(res, g.te.Result()) }
