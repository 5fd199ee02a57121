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

// Add folds one run and returns its own figures: Fold(Score(run)).
func (e *EdgeCoverage) Add(run *cassette.Run) EdgeRun {
	s := e.Score(run)
	e.Fold(s)
	return s.Run
}

// EdgeScore is one run's edges as Score reads them, for Fold: the run's
// own figures, its restricted calls (the first maxAttemptFindings named:
// no more are ever named), the allowed edges and delegations it
// exercised, and the tools it called that no edge declares, each once
// with its count, in the order first called.
type EdgeScore struct {
	Run        EdgeRun
	calls      int64
	attempts   []edgeAttempt
	exercised  []bool
	observed   []bool
	undeclared tally
}

// edgeAttempt is a restricted call: its turn and call (1-based) and tool.
type edgeAttempt struct {
	turn, call int
	id         string
}

// Score reads one run's edges without folding them: it reads only the
// declared edges, so runs are read on any goroutine, several at once, and
// Fold folds them in order.
func (e *EdgeCoverage) Score(run *cassette.Run) EdgeScore {
	var s EdgeScore
	for ti, turn := range run.Turns {
		for ci, c := range turn.Calls {
			s.calls++
			if memberOf(e.cfg.Restricted, c.Server, c.Tool) {
				s.Run.Restricted++
				if len(s.attempts) < maxAttemptFindings {
					s.attempts = append(s.attempts, edgeAttempt{ti + 1, ci + 1, c.ID()})
				}
				continue
			}
			hit := false
			for i, a := range e.cfg.Allowed {
				if MatchID(a, c.Server, c.Tool) {
					if s.exercised == nil {
						s.exercised = make([]bool, len(e.cfg.Allowed))
					}
					s.exercised[i] = true
					hit = true
				}
			}
			if !hit {
				s.undeclared.add(c.ID())
			}
		}
	}
	for _, d := range run.Delegations {
		for i, want := range e.cfg.Delegation {
			if d.From == want.From && d.To == want.To {
				if s.observed == nil {
					s.observed = make([]bool, len(e.cfg.Delegation))
				}
				s.observed[i] = true
			}
		}
	}
	return s
}

// Fold folds one run Score read.
func (e *EdgeCoverage) Fold(s EdgeScore) {
	e.runs++
	e.calls += s.calls
	for j, a := range s.attempts {
		if e.restricted+int64(j)+1 > maxAttemptFindings {
			break
		}
		e.findings = append(e.findings, Finding{Level: "error", Gate: "tool_edges", Run: e.runs,
			Message: fmt.Sprintf("run %d: turn %d call %d called restricted tool `%s`", e.runs, a.turn, a.call, a.id)})
	}
	e.restricted += s.Run.Restricted
	for i, x := range s.exercised {
		e.exercised[i] = e.exercised[i] || x
	}
	for i, x := range s.observed {
		e.observed[i] = e.observed[i] || x
	}
	e.undeclared.addTally(&s.undeclared)
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
			"edges.undeclared_calls":    int64(e.undeclared.sum()),
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
		msg := "calls outside the declared edges: " + backticked(e.undeclared.order)
		if e.undeclared.more > 0 {
			msg += fmt.Sprintf(", and %d more calls of tools not named", e.undeclared.more)
		}
		res.Findings = append(res.Findings, Finding{Level: "notice", Gate: "tool_edges", Message: msg})
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
