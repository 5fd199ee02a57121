package engine

import (
	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// OrchestrationBlock is an orchestration: block. Its expected classes are
// those of the test's equal_function_sets: block.
type OrchestrationBlock struct {
	Pos diag.Pos
}

// Key returns "orchestration".
func (*OrchestrationBlock) Key() string { return "orchestration" }

func readOrchestration(_ *builder, raw rawBlock) Block {
	return &OrchestrationBlock{Pos: raw.pos}
}

func (o *OrchestrationBlock) newGate(c *Case) caseGate {
	sel, ok := blockOf[*SelectionBlock](c)
	var classes []gate.Class
	if ok {
		classes = sel.Classes
	}
	return &orchestrationGate{orch: gate.NewOrchestration(classes), hasClasses: ok}
}

// orchestrationGate scores discovery, parameterization, syntax, error
// recovery and efficiency (gate.Orchestration).
type orchestrationGate struct {
	gateDefaults
	orch       *gate.Orchestration
	hasClasses bool
	last       gate.OrchestrationRun
}

func (g *orchestrationGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *orchestrationGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.orch.Score(r) }

func (g *orchestrationGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	g.last = s.(gate.OrchestrationRun)
	g.orch.Fold(g.last)
}

func (g *orchestrationGate) runValue(target string) (any, bool) {
	s := g.last.Scores()
	switch target {
	case "orchestration.discovery":
		return float64(s.Discovery), true
	case "orchestration.parameterization":
		return float64(s.Parameterization), true
	case "orchestration.syntax":
		return float64(s.Syntax), true
	case "orchestration.error_recovery":
		return float64(s.ErrorRecovery), true
	}
	return float64(s.Efficiency), true
}

func (g *orchestrationGate) result(res *report.CaseResult) {
	addGate(res, g.orch.Result())
	if !g.hasClasses {
		res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "orchestration",
			Message: "`orchestration:` without `equal_function_sets:` has no expected classes: discovery and efficiency score 0"})
	}
}
