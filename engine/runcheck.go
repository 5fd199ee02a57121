package engine

import "fmt"

// boolPercent is 100 for true and 0 for false.
func boolPercent(b bool) float64 {
	if b {
		return 100
	}
	return 0
}

// gateChecks are the per-run forms of a case's gate checks: each gate
// block assertion evaluated on the run's own figures, then each gate's own
// checks of the run (the pass^k row of a tool_selection: floor; when
// distractors.certified_lower is asserted, the run's success under
// distraction).
type gateChecks struct {
	asserts []gateCheck
	gates   []caseGate
}

type gateCheck struct {
	a     *Assertion
	gate  caseGate
	label string
}

// newGateChecks picks the checks that have a per-run form among the gate
// assertions of perCase; gates are the case's gates by block key.
func newGateChecks(gates []caseGate, byKey map[string]caseGate, perCase []*Assertion) *gateChecks {
	g := &gateChecks{gates: gates}
	for _, a := range perCase {
		row, ok := targetBlock(a.Target.String())
		if !ok || !row.hasRunForm(a.Target.String()) || byKey[row.key] == nil {
			continue
		}
		g.asserts = append(g.asserts, gateCheck{a: a, gate: byKey[row.key], label: checkLabel(a)})
	}
	return g
}

// check appends to failed the label of every check the last run fails.
func (g *gateChecks) check(failed []string) []string {
	for _, gc := range g.asserts {
		v, ok := gc.gate.runValue(gc.a.Target.String())
		if !gc.a.Matcher.Holds(v, ok) { // the label says it; no reason is worded
			failed = append(failed, gc.label)
		}
	}
	for _, gt := range g.gates {
		failed = gt.runFailed(failed)
	}
	return failed
}

// checkLabel names an assertion in a run's list of failed checks:
// "assertion #0 (`final_response`)", "assertion #1 (`tool_selection.f1`)
// in equal_function_sets", "default gate of `tool_edges:`
// (`edges.restricted_attempts` <= 0)", "`budget:` floor max_calls
// (`steps.calls` <= 4)".
func checkLabel(a *Assertion) string {
	if a.Floor != "" {
		return fmt.Sprintf("`%s:` floor %s (`%s` %s)", a.Block, a.Floor, a.Target.String(), matcherText(a.Matcher.Value()))
	}
	if a.Default {
		return fmt.Sprintf("default gate of `%s:` (`%s` %s)", a.Block, a.Target.String(), matcherText(a.Matcher.Value()))
	}
	s := fmt.Sprintf("assertion #%d (`%s`)", a.Index, a.Target.String())
	if a.Block != "" {
		s += " in " + a.Block
	}
	return s
}
