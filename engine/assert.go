package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// evaluate runs one assertion against a value. The actual value and the
// message are redacted, since both may quote recorded arguments.
func evaluate(a *Assertion, actual any, present bool) report.AssertionResult {
	passed, why := a.Matcher.Match(actual, present)
	r := report.AssertionResult{
		Index: a.Index, Block: a.Block, Target: a.Target.String(), Matcher: a.Matcher.Value(),
		Passed: passed, Default: a.Default, Position: a.Pos,
	}
	if present {
		r.Actual, r.ActualClipped = actualOf(actual)
	}
	r.Message = redact.String(message(a, passed, why, 0, 0))
	return r
}

// message renders an assertion's outcome the way the seeds read it:
// assertion #0 (`tool_selection.f1`) failed: 50 is less than the minimum 80.
func message(a *Assertion, passed bool, why string, run, runs int) string {
	head := fmt.Sprintf("assertion #%d (`%s`)", a.Index, a.Target.String())
	if a.Default {
		head = checkLabel(a)
	}
	if passed {
		return head + " passed"
	}
	where := ""
	if runs > 1 {
		where = fmt.Sprintf(" in run %d of %d", run, runs)
	}
	msg := head + " failed" + where + ": " + why
	if a.Message != "" {
		msg += " (" + a.Message + ")"
	}
	return msg
}

// matcherText renders a one-key comparison matcher as ">= 50".
func matcherText(v any) string {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for k, x := range m {
			if f, ok := x.(float64); ok {
				return fmt.Sprintf("%s %s", k, formatNumber(f))
			}
		}
	}
	return fmt.Sprint(v)
}

func formatNumber(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprint(f)
}

// runCheck evaluates one assertion on every recorded run. It keeps the first
// failure (and otherwise the first run's value), so memory does not grow
// with the number of runs.
type runCheck struct {
	a *Assertion
	// label names the check in a failed run's row (checkLabel).
	label string
	// alone: readsRunAlone.
	alone  bool
	failed int
	run    int
	// actual is the kept run's value as the report holds it (actualOf),
	// clipped whether it was cut.
	actual  any
	clipped bool
	present bool
	why     string
	seen    bool
}

// check evaluates the assertion on one run's document and reports whether
// it passed there.
func (rc *runCheck) check(run int, doc map[string]any) bool {
	return rc.record(run, rc.outcome(doc))
}

// checkOutcome is a runCheck's assertion evaluated on one run: what
// record folds. actual may be left out (nil) for a run whose value the
// fold does not keep (runPrep.thin).
type checkOutcome struct {
	passed, present bool
	actual          any
	why             string
}

// outcome evaluates the assertion on one run's document. It reads only
// the check's assertion, so runs are evaluated on any goroutine.
func (rc *runCheck) outcome(doc map[string]any) checkOutcome {
	actual, present := rc.a.Target.Lookup(doc)
	passed, why := rc.a.Matcher.Match(actual, present)
	return checkOutcome{passed: passed, present: present, actual: actual, why: why}
}

// record folds the outcome of the check on the run numbered run (runs
// folded in order) and reports whether it passed there.
func (rc *runCheck) record(run int, o checkOutcome) bool {
	if !o.passed {
		rc.failed++
	}
	if !rc.seen || (!o.passed && rc.failed == 1) {
		rc.seen = true
		rc.run, rc.present, rc.why = run, o.present, o.why
		// Kept as the report will hold it (actualOf), not the run's value:
		// a target of a million calls keeps 4 KiB past its run.
		rc.actual, rc.clipped = actualOf(o.actual)
	}
	return o.passed
}

// readsRunAlone reports whether the check's target reads a run's document
// without its number: a key other than run, not the whole document, so
// its outcome is computed before the fold knows the run's place.
func (rc *runCheck) readsRunAlone() bool { return rc.alone }

// newRunCheck returns the per-run check of a.
func newRunCheck(a *Assertion) *runCheck {
	segs := a.Target.Segments()
	return &runCheck{a: a, label: checkLabel(a), alone: len(segs) > 0 && segs[0].Name != "run"}
}

func (rc *runCheck) result(runs int) report.AssertionResult {
	a := rc.a
	r := report.AssertionResult{
		Index: a.Index, Block: a.Block, Target: a.Target.String(), Matcher: a.Matcher.Value(),
		Passed: rc.seen && rc.failed == 0, Default: a.Default, Position: a.Pos, FailedRuns: rc.failed,
	}
	if !rc.seen {
		r.Message = message(a, false, "no recorded run to check", 0, 0)
		return r
	}
	if rc.present {
		r.Actual, r.ActualClipped = rc.actual, rc.clipped
	}
	if !r.Passed {
		r.Run = rc.run
		why := rc.why
		if runs > 1 {
			why = fmt.Sprintf("%s (%d of %d runs failed)", why, rc.failed, runs)
		}
		r.Message = redact.String(message(a, false, why, rc.run, runs))
		return r
	}
	r.Message = message(a, true, "", 0, 0)
	return r
}

// callParts is what of a run's calls its document holds (readsCalls),
// a set of two: tool_names (callNames, 32 bytes a call; over the 2,000
// generated cassettes of .ci/bench, whose tests read tool_names, 20 % of
// what a run allocated when every call's document was built with them),
// and calls and turns (callLists), built when read (addCallLists).
type callParts uint8

const (
	noCalls   callParts = 0
	callNames callParts = 1 << iota
	callLists
	allCalls = callNames | callLists
)

// runDoc is the document a test's own expect: list reads for one run,
// with the parts of its calls that calls names.
func runDoc(n int, cas *cassette.Cassette, r *cassette.Run, calls callParts) map[string]any {
	doc := map[string]any{"run": float64(n)}
	if cas.Model != "" {
		doc["model"] = cas.Model
	}
	if cas.Agent != "" {
		doc["agent"] = cas.Agent
	}
	final := ""
	for _, t := range r.Turns {
		if t.FinalResponse != "" {
			final = t.FinalResponse
		}
	}
	if calls&callNames != 0 {
		addToolNames(doc, r)
	}
	if calls&callLists != 0 {
		addCallLists(doc, r)
	}
	if final != "" {
		doc["final_response"] = final
	}
	if r.Tokens != nil {
		doc["tokens"] = map[string]any{"input": float64(r.Tokens.Input), "output": float64(r.Tokens.Output), "total": float64(r.Tokens.Total)}
	}
	if r.CostMicros != nil {
		doc["cost_micros"] = float64(*r.CostMicros)
	}
	var dels []any
	for _, d := range r.Delegations {
		dels = append(dels, map[string]any{"from": d.From, "to": d.To})
	}
	doc["delegations"] = orEmpty(dels)
	return doc
}

// addCallLists adds a run's calls and turns to its document, as lists
// whose documents are built when read (runCalls, turnList).
func addCallLists(doc map[string]any, r *cassette.Run) {
	doc["calls"] = runCalls(r)
	doc["turns"] = turnList(r.Turns)
}

// addToolNames adds a run's tool_names to its document.
func addToolNames(doc map[string]any, r *cassette.Run) {
	n := 0
	for _, t := range r.Turns {
		n += len(t.Calls)
	}
	// Sized at once: a run of a million calls grew the list to 101 MB
	// allocated, and over SECURITY.md's bound.
	names := make([]any, 0, n)
	for _, t := range r.Turns {
		for _, c := range t.Calls {
			names = append(names, c.Tool)
		}
	}
	doc["tool_names"] = orEmpty(names)
}

// readsCalls reports what of a run's calls per-run checks read: the
// calls and turns when a target starts with calls or turns, the names
// when one starts with tool_names, both when one is the whole document.
func readsCalls(checks []*runCheck) callParts {
	parts := noCalls
	for _, rc := range checks {
		segs := rc.a.Target.Segments()
		if len(segs) == 0 {
			return allCalls
		}
		switch segs[0].Name {
		case "calls", "turns":
			parts |= callLists
		case "tool_names":
			parts |= callNames
		}
	}
	return parts
}

func callDoc(c cassette.Call) map[string]any {
	m := map[string]any{"tool": c.Tool, "id": c.ID(), "is_error": c.IsError}
	if c.Server != "" {
		m["server"] = c.Server
	}
	if args := c.Arguments.Value(); args != nil {
		m["arguments"] = args
	}
	if c.Result != nil {
		m["result"] = recordedResult(c.ResultValue())
	}
	if c.DurationMS != nil {
		m["duration_ms"] = *c.DurationMS
	}
	if c.Agent != "" {
		m["agent"] = c.Agent
	}
	return m
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}
