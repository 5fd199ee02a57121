package gate

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

// Edges is a tool_edges: block: the tools an agent may call, the tools it
// must never call and the agent-to-agent hand-offs it should make.
type Edges struct {
	Allowed    []string
	Restricted []string
	Delegation []cassette.Delegation
}

// maxAttemptFindings bounds how many restricted calls are named one by one;
// the count is always exact.
const maxAttemptFindings = 20

// EdgeCoverage folds the runs of a test against a declared edge set. Coverage
// is the union over runs: an allowed edge is exercised when any run called
// it, a delegation edge observed when any run handed off along it.
type EdgeCoverage struct {
	cfg        Edges
	runs       int
	calls      int64
	exercised  []bool
	observed   []bool
	restricted int64
	undeclared tally
	findings   []Finding
}

// NewEdges returns an empty accumulator for the declared edges.
func NewEdges(cfg Edges) *EdgeCoverage {
	return &EdgeCoverage{
		cfg:       cfg,
		exercised: make([]bool, len(cfg.Allowed)),
		observed:  make([]bool, len(cfg.Delegation)),
	}
}

// EdgeRun is one run's own edge figures. Coverage of the allowed and the
// delegation edges is judged over the union of runs (Result), so a run
// carries only its restricted calls.
type EdgeRun struct {
	Restricted int64
}

// Add folds one run and returns its own figures.
func (e *EdgeCoverage) Add(run *cassette.Run) EdgeRun {
	var out EdgeRun
	e.runs++
	for ti, turn := range run.Turns {
		for ci, c := range turn.Calls {
			e.calls++
			if memberOf(e.cfg.Restricted, c.Server, c.Tool) {
				e.restricted++
				out.Restricted++
				if e.restricted <= maxAttemptFindings {
					e.findings = append(e.findings, Finding{Level: "error", Gate: "tool_edges", Run: e.runs,
						Message: fmt.Sprintf("run %d: turn %d call %d called restricted tool `%s`", e.runs, ti+1, ci+1, c.ID())})
				}
				continue
			}
			hit := false
			for i, a := range e.cfg.Allowed {
				if MatchID(a, c.Server, c.Tool) {
					e.exercised[i] = true
					hit = true
				}
			}
			if !hit {
				e.undeclared.add(c.ID())
			}
		}
	}
	for _, d := range run.Delegations {
		for i, want := range e.cfg.Delegation {
			if d.From == want.From && d.To == want.To {
				e.observed[i] = true
			}
		}
	}
	return out
}

// Result reports edges.allowed_pct, edges.restricted_attempts,
// edges.delegation_pct and edges.gate_passed. A coverage of edges none of
// which is declared (100 % of nothing) has no value: the target is
// absent, as a latency is without timings; its count (edges.allowed,
// edges.delegation) says 0.
func (e *EdgeCoverage) Result() Result {
	exercised, observed := countTrue(e.exercised), countTrue(e.observed)
	res := Result{
		Targets: map[string]float64{
			"edges.restricted_attempts": float64(e.restricted),
			"edges.gate_passed":         1,
		},
		Counts: map[string]int64{
			"edges.allowed":             int64(len(e.exercised)),
			"edges.allowed_exercised":   int64(exercised),
			"edges.delegation":          int64(len(e.observed)),
			"edges.delegation_observed": int64(observed),
			"edges.restricted_attempts": e.restricted,
			"edges.calls":               e.calls,
			"edges.undeclared_calls":    int64(sumTally(e.undeclared)),
		},
	}
	if len(e.exercised) > 0 {
		res.Targets["edges.allowed_pct"] = float64(coverage(exercised, len(e.exercised)))
	}
	if len(e.observed) > 0 {
		res.Targets["edges.delegation_pct"] = float64(coverage(observed, len(e.observed)))
	}
	if e.restricted > 0 {
		res.Targets["edges.gate_passed"] = 0
	}
	res.Findings = append(res.Findings, e.findings...)
	if e.restricted > maxAttemptFindings {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "tool_edges",
			Message: fmt.Sprintf("%d more restricted calls not listed", e.restricted-maxAttemptFindings)})
	}
	var missing []string
	for i, ok := range e.exercised {
		if !ok {
			missing = append(missing, e.cfg.Allowed[i])
		}
	}
	if len(missing) > 0 {
		res.Findings = append(res.Findings, Finding{Level: "warning", Gate: "tool_edges",
			Message: "allowed edges never exercised: " + backticked(missing)})
	}
	var unseen []string
	for i, ok := range e.observed {
		if !ok {
			d := e.cfg.Delegation[i]
			unseen = append(unseen, d.From+" -> "+d.To)
		}
	}
	if len(unseen) > 0 {
		res.Findings = append(res.Findings, Finding{Level: "warning", Gate: "tool_edges",
			Message: "delegation edges never observed: " + backticked(unseen)})
	}
	if len(e.undeclared.order) > 0 {
		res.Findings = append(res.Findings, Finding{Level: "notice", Gate: "tool_edges",
			Message: "calls outside the declared edges: " + backticked(e.undeclared.order)})
	}
	return res
}

// coverage is hit of total as a percent; total is never 0 (Result).
func coverage(hit, total int) int64 {
	return stats.Percent(int64(hit), int64(total))
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func sumTally(t tally) int {
	n := 0
	for _, k := range t.order {
		n += t.n[k]
	}
	return n
}
