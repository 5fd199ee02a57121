package engine

import (
	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// EdgesBlock is a tool_edges: block.
type EdgesBlock struct {
	Pos   diag.Pos
	Edges gate.Edges
}

// Key returns "tool_edges".
func (*EdgesBlock) Key() string { return "tool_edges" }

func readEdges(_ *builder, raw rawBlock) Block {
	e := gate.Edges{Allowed: strings_(raw.m["allowed"]), Restricted: strings_(raw.m["restricted"])}
	for _, d := range list(raw.m["delegation"]) {
		dm, _ := d.(map[string]any)
		from, _ := dm["from"].(string)
		to, _ := dm["to"].(string)
		e.Delegation = append(e.Delegation, cassette.Delegation{From: from, To: to})
	}
	return &EdgesBlock{Pos: raw.pos, Edges: e}
}

// toolRefs names the allowed and the restricted tools.
func (e *EdgesBlock) toolRefs() []toolRef {
	var refs []toolRef
	for _, id := range e.Edges.Allowed {
		refs = append(refs, toolRef{e.Key(), "allowed", id, ""})
	}
	for _, id := range e.Edges.Restricted {
		refs = append(refs, toolRef{e.Key(), "restricted", id, ""})
	}
	return refs
}

func (e *EdgesBlock) newGate(*Case) caseGate {
	return &edgesGate{edges: gate.NewEdges(e.Edges)}
}

// edgesGate checks the tool and delegation edges (gate.EdgeCoverage).
type edgesGate struct {
	gateDefaults
	edges *gate.EdgeCoverage
	last  gate.EdgeRun
}

func (g *edgesGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *edgesGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.edges.Score(r) }

func (g *edgesGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	es := s.(gate.EdgeScore)
	g.last = es.Run
	g.edges.Fold(es)
}

// runValue gives edges.restricted_attempts and edges.gate_passed;
// edges.allowed_pct and edges.delegation_pct are coverage over the union
// of runs: one run need not exercise every edge.
func (g *edgesGate) runValue(target string) (any, bool) {
	if target == "edges.restricted_attempts" {
		return float64(g.last.Restricted), true
	}
	return boolPercent(g.last.Restricted == 0) / 100, true
}

func (g *edgesGate) result(res *report.CaseResult) { addGate(res, g.edges.Result()) }
