package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// BudgetBlock is a budget: block: the latency and step figures of each
// run and the floors max_run_ms, max_calls and max_turns on them.
type BudgetBlock struct {
	Pos    diag.Pos
	Budget gate.Budget
	// floors are the assertions the floors apply, in the order
	// max_run_ms, max_calls, max_turns.
	floors []*Assertion
}

// Key returns "budget".
func (*BudgetBlock) Key() string { return "budget" }

// budgetFloors are the floor keys of a budget: block and the target each
// bounds.
var budgetFloors = []struct{ key, target string }{
	{"max_run_ms", "latency.run_ms"},
	{"max_calls", "steps.calls"},
	{"max_turns", "steps.turns"},
}

func readBudgetBlock(b *builder, raw rawBlock) Block {
	blk := &BudgetBlock{Pos: raw.pos}
	for i, f := range budgetFloors {
		v, ok := raw.m[f.key]
		if !ok {
			continue
		}
		n, ok := b.integer(raw.ptr+"/"+f.key, v, 0, maxExactInteger)
		if !ok {
			continue
		}
		switch f.key {
		case "max_run_ms":
			blk.Budget.MaxRunMS = &n
		case "max_calls":
			blk.Budget.MaxCalls = &n
		default:
			blk.Budget.MaxTurns = &n
		}
		m, _ := expr.ParseShorthand(map[string]any{"<=": float64(n)})
		p, _ := expr.ParsePath(f.target)
		blk.floors = append(blk.floors, &Assertion{Index: i, Block: blk.Key(), Target: p, Matcher: m,
			Pos: b.doc.KeyAt(raw.ptr + "/" + f.key), Default: true, Floor: f.key})
	}
	return blk
}

// floorAssertions are the assertions the block's floors apply.
func (blk *BudgetBlock) floorAssertions() []*Assertion { return blk.floors }

func (blk *BudgetBlock) newGate(*Case) caseGate {
	return &budgetGate{cfg: blk.Budget, use: gate.NewBudget(blk.Budget)}
}

// budgetGate measures each run's latency and steps (gate.BudgetUse).
type budgetGate struct {
	gateDefaults
	cfg  gate.Budget
	use  *gate.BudgetUse
	last gate.BudgetRun
}

func (g *budgetGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *budgetGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.use.Score(r) }

func (g *budgetGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	bs := s.(gate.BudgetScore)
	g.last = bs.Run
	g.use.Fold(bs)
}

// runValue gives the run's latency.run_ms (none when it records no
// timings), steps.calls and steps.turns.
func (g *budgetGate) runValue(target string) (any, bool) {
	switch target {
	case "steps.calls":
		return float64(g.last.Calls), true
	case "steps.turns":
		return float64(g.last.Turns), true
	}
	if g.last.RunMS == nil {
		return nil, false
	}
	return *g.last.RunMS, true
}

// runFigures gives the run's figures for its evidence.
func (g *budgetGate) runFigures() (map[string]float64, []string) {
	f := map[string]float64{"steps.calls": float64(g.last.Calls), "steps.turns": float64(g.last.Turns)}
	if g.last.RunMS != nil {
		f["latency.run_ms"] = *g.last.RunMS
	}
	return f, nil
}

func (g *budgetGate) result(res *report.CaseResult) { addGate(res, g.use.Result()) }

// floors fails the case when max_run_ms is set and a run records no
// timings: that run cannot show it stayed within the floor (its own row
// fails the floor's assertion), and the case's latency.run_ms, the
// largest over the timed runs, would not say so.
func (g *budgetGate) floors(res *report.CaseResult) {
	untimed := g.use.Untimed()
	if g.cfg.MaxRunMS == nil || len(untimed) == 0 {
		return
	}
	res.Floors = append(res.Floors, report.Floor{Name: "budget floor", Passed: false,
		Message: fmt.Sprintf("max_run_ms %d: %s recorded no timings, so no value shows it stayed within the floor", *g.cfg.MaxRunMS, gate.RunList(untimed))})
}
