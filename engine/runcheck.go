package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/gate"
)

// runFigures are one run's own gate figures: what each gate block scored on
// that run alone. They give a run its verdict; the case's targets stay the
// figures pooled over every run.
type runFigures struct {
	sel, te *gate.RunSelection
	edges   *gate.EdgeRun
	passK   *gate.PassKRun
	distr   *gate.DistractorRun
	orch    *gate.OrchestrationRun
	// correctIDs is the number of ids a distractors: block declares correct.
	correctIDs int
}

// value returns the run's own value of a gate target. ok is false when the
// target has no per-run form (a bound over runs, a coverage over their
// union, a catalog figure) or the run has no value for it (no tokens
// recorded).
func (f *runFigures) value(target string) (v any, ok bool) {
	switch target {
	case "tool_selection.f1", "tool_selection.precision", "tool_selection.recall":
		if f.sel == nil {
			return nil, false
		}
		return selectionValue(target, *f.sel), true
	case "edges.restricted_attempts", "edges.gate_passed":
		// edges.allowed_pct and edges.delegation_pct are coverage over the
		// union of runs: one run need not exercise every edge.
		if f.edges == nil {
			return nil, false
		}
		if target == "edges.restricted_attempts" {
			return float64(f.edges.Restricted), true
		}
		return boolPercent(f.edges.Restricted == 0) / 100, true
	case "tool_selection.selection_rate", "tool_selection.pass_k", "tool_selection.tokens_median", "tool_selection.tokens_max":
		return f.passKValue(target)
	case "distractors.accuracy", "distractors.chose_distractor":
		if f.distr == nil {
			return nil, false
		}
		if target == "distractors.chose_distractor" {
			return float64(f.distr.ChoseDistractor), true
		}
		return float64(gate.DistractorAccuracy(f.correctIDs, f.distr.ChoseCorrect, f.distr.ChoseDistractor)), true
	case "orchestration.discovery", "orchestration.parameterization", "orchestration.syntax", "orchestration.error_recovery", "orchestration.efficiency":
		if f.orch == nil {
			return nil, false
		}
		return orchestrationValue(target, f.orch.Scores()), true
	case "token_efficiency.f1", "token_efficiency.correct_selections", "token_efficiency.grade":
		if f.te == nil {
			return nil, false
		}
		switch target {
		case "token_efficiency.correct_selections":
			return float64(f.te.TP), true
		case "token_efficiency.grade":
			return gate.Grade(gate.Scores(f.te.TP, f.te.FP, f.te.FN).F1), true
		}
		return selectionValue("tool_selection.f1", *f.te), true
	}
	return nil, false
}

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

func orchestrationValue(target string, s gate.OrchestrationScores) float64 {
	switch target {
	case "orchestration.discovery":
		return float64(s.Discovery)
	case "orchestration.parameterization":
		return float64(s.Parameterization)
	case "orchestration.syntax":
		return float64(s.Syntax)
	case "orchestration.error_recovery":
		return float64(s.ErrorRecovery)
	}
	return float64(s.Efficiency)
}

func (f *runFigures) passKValue(target string) (any, bool) {
	if f.passK == nil {
		return nil, false
	}
	switch target {
	case "tool_selection.selection_rate":
		return boolPercent(f.passK.Selected), true
	case "tool_selection.pass_k":
		return boolPercent(f.passK.PassK), true
	}
	if f.passK.Tokens == nil {
		return nil, false
	}
	return float64(*f.passK.Tokens), true
}

func boolPercent(b bool) float64 {
	if b {
		return 100
	}
	return 0
}

// gateChecks are the per-run forms of a case's gate checks: each gate
// block assertion evaluated on the run's own figures, the run's pass^k row
// of a tool_selection: floor, and, when distractors.certified_lower is
// asserted, the run's success under distraction.
type gateChecks struct {
	asserts []gateCheck
	passK   bool
	success string // the label of the success check, "" for none
}

type gateCheck struct {
	a     *Assertion
	label string
}

// newGateChecks picks the checks of c that have a per-run form among the
// gate assertions of perCase.
func newGateChecks(c *Case, perCase []*Assertion) *gateChecks {
	g := &gateChecks{passK: c.ToolSelection != nil}
	for _, a := range perCase {
		name := a.Target.String()
		if name == "distractors.certified_lower" {
			g.success = checkLabel(a) + ": the run did not select only correct tools"
			continue
		}
		if !hasRunForm(name) {
			continue
		}
		g.asserts = append(g.asserts, gateCheck{a: a, label: checkLabel(a)})
	}
	return g
}

// hasRunForm reports whether a gate target has a per-run value.
func hasRunForm(target string) bool {
	full := &runFigures{sel: &gate.RunSelection{}, te: &gate.RunSelection{}, edges: &gate.EdgeRun{},
		passK: &gate.PassKRun{Tokens: new(int64)}, distr: &gate.DistractorRun{}, orch: &gate.OrchestrationRun{}}
	_, ok := full.value(target)
	return ok
}

// check appends to failed the label of every check the run fails.
func (g *gateChecks) check(f *runFigures, failed []string) []string {
	for _, gc := range g.asserts {
		v, ok := f.value(gc.a.Target.String())
		if passed, _ := gc.a.Matcher.Match(v, ok); !passed {
			failed = append(failed, gc.label)
		}
	}
	if g.passK && f.passK != nil && !f.passK.PassK {
		why := "did not select the expected tool"
		if f.passK.Selected {
			why = "over the token budget"
		}
		failed = append(failed, "tool_selection: "+why)
	}
	if g.success != "" && f.distr != nil && !f.distr.Success {
		failed = append(failed, g.success)
	}
	return failed
}

// checkLabel names an assertion in a run's list of failed checks:
// "assertion #0 (`final_response`)", "assertion #1 (`tool_selection.f1`)
// in equal_function_sets", "default gate of `tool_edges:`
// (`edges.restricted_attempts` <= 0)".
func checkLabel(a *Assertion) string {
	if a.Default {
		return fmt.Sprintf("default gate of `%s:` (`%s` %s)", a.Block, a.Target.String(), matcherText(a.Matcher.Value()))
	}
	s := fmt.Sprintf("assertion #%d (`%s`)", a.Index, a.Target.String())
	if a.Block != "" {
		s += " in " + a.Block
	}
	return s
}
