package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// The bounds of a case's evidence: the runs kept, the calls kept per run,
// the length of each argument, result and final-response excerpt in
// bytes, and the bytes of recorded text a case keeps over all its runs
// (a passing run may fill half of it, so failing runs find room). Past
// them, the counts say what was left out.
const (
	maxEvidenceRuns  = 10
	maxEvidenceCalls = 40
	maxEvidenceText  = 1000
	maxEvidenceBytes = 24 << 10
)

// evidenceMarker decides the marks of a case's calls.
type evidenceMarker struct {
	classes    []gate.Class
	restricted []string
	injected   []string
}

// newEvidenceMarker reads the gate blocks of c that mark calls: the
// classes of equal_function_sets:, the restricted tools of tool_edges: and
// the tools distractors: injects.
func newEvidenceMarker(c *Case) evidenceMarker {
	var m evidenceMarker
	if sel, ok := blockOf[*SelectionBlock](c); ok {
		m.classes = sel.Classes
	}
	if e, ok := blockOf[*EdgesBlock](c); ok {
		m.restricted = e.Edges.Restricted
	}
	if d, ok := blockOf[*DistractorsBlock](c); ok {
		for _, t := range d.Tools() {
			m.injected = append(m.injected, t.Name)
		}
	}
	return m
}

func (m evidenceMarker) marks(c cassette.Call) []string {
	var out []string
	if len(m.classes) > 0 && !matchesClass(m.classes, c) {
		out = append(out, report.MarkUnexpected)
	}
	for _, name := range m.injected {
		if c.Tool == name {
			out = append(out, report.MarkDistractor)
			break
		}
	}
	if matchesAny(m.restricted, c) {
		out = append(out, report.MarkRestricted)
	}
	return out
}

func matchesClass(classes []gate.Class, c cassette.Call) bool {
	for _, cl := range classes {
		if matchesAny(cl.Members, c) {
			return true
		}
	}
	return false
}

func matchesAny(ids []string, c cassette.Call) bool {
	for _, id := range ids {
		if gate.MatchID(id, c.Server, c.Tool) {
			return true
		}
	}
	return false
}

// missedClasses names the equal_function_sets: classes the last run added
// to gates reached no call of; nil without such a block.
func missedClasses(gates []caseGate) []string {
	for _, g := range gates {
		if s, ok := g.(*selectionGate); ok {
			return s.last.Missed
		}
	}
	return nil
}

// addEvidence keeps the evidence of a run while the case has kept fewer
// than maxEvidenceRuns and the run fits the case's share of
// maxEvidenceBytes (half of it for a run that passed), and counts it
// otherwise.
func addEvidence(res *report.CaseResult, ev report.RunEvidence, failed bool) {
	limit := maxEvidenceBytes
	if !failed {
		limit /= 2
	}
	used := 0
	for _, kept := range res.Evidence {
		used += evidenceBytes(kept)
	}
	if len(res.Evidence) >= maxEvidenceRuns || used+evidenceBytes(ev) > limit {
		res.EvidenceOmitted++
		return
	}
	res.Evidence = append(res.Evidence, ev)
}

// evidenceBytes is the recorded text a run's evidence holds.
func evidenceBytes(ev report.RunEvidence) int {
	n := 0
	for _, t := range ev.Turns {
		n += len(t.FinalResponse)
		for _, c := range t.Calls {
			n += len(c.Server) + len(c.Tool) + len(c.Arguments) + len(c.Result)
		}
	}
	return n
}

// runEvidence is the evidence of one recorded run.
func runEvidence(n int, model string, r *cassette.Run, m evidenceMarker, missed []string) report.RunEvidence {
	ev := report.RunEvidence{Run: n, Model: model, Turns: []report.TurnEvidence{}, Missed: missed, CostMicros: r.CostMicros}
	if t := r.Tokens; t != nil {
		ev.Tokens = &report.TokenUse{Input: t.Input, Output: t.Output, Total: t.Total}
	}
	kept := 0
	for _, t := range r.Turns {
		te := report.TurnEvidence{Calls: []report.CallEvidence{}}
		te.FinalResponse, te.Clipped = excerpt(redact.String(t.FinalResponse))
		for _, c := range t.Calls {
			if kept == maxEvidenceCalls {
				ev.OmittedCalls++
				continue
			}
			kept++
			te.Calls = append(te.Calls, callEvidence(c, m.marks(c)))
		}
		ev.Turns = append(ev.Turns, te)
	}
	return ev
}

func callEvidence(c cassette.Call, marks []string) report.CallEvidence {
	ce := report.CallEvidence{Server: c.Server, Tool: c.Tool, RecordedAs: c.RecordedAs, IsError: c.IsError, DurationMS: c.DurationMS, Marks: marks}
	var cutA, cutR bool
	if args := c.Arguments.Value(); args != nil {
		ce.Arguments, cutA = excerpt(compactJSON(redact.Value(args)))
	}
	if c.Result != nil {
		ce.Result, cutR = excerpt(resultText(redact.Value(c.Result)))
	}
	ce.Clipped = cutA || cutR
	return ce
}

// resultText is what a reader wants of a CallToolResult: its text
// content, one block a line, or its JSON when it has no text.
func resultText(v any) string {
	if m, ok := v.(map[string]any); ok {
		if blocks, ok := m["content"].([]any); ok {
			var texts []string
			for _, b := range blocks {
				if bm, ok := b.(map[string]any); ok {
					if s, ok := bm["text"].(string); ok {
						texts = append(texts, s)
					}
				}
			}
			if len(texts) > 0 {
				return strings.Join(texts, "\n")
			}
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

// compactJSON is json.Marshal of v, written by canonicalJSON for the
// generic values a cassette holds.
func compactJSON(v any) string {
	b, err := canonicalJSON(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// excerpt cuts s to maxEvidenceText bytes on a character boundary and
// says whether it did.
func excerpt(s string) (string, bool) {
	if len(s) <= maxEvidenceText {
		return s, false
	}
	cut := maxEvidenceText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// markScenarioCalls marks the calls of a scenario run's evidence that the
// world refused, located by turn and call (1-based).
func markScenarioCalls(ev *report.RunEvidence, invalid, forbidden []report.WorldEvent) {
	mark := func(events []report.WorldEvent, what string) {
		for _, e := range events {
			if e.Turn < 1 || e.Turn > len(ev.Turns) {
				continue
			}
			calls := ev.Turns[e.Turn-1].Calls
			if e.Call >= 1 && e.Call <= len(calls) {
				calls[e.Call-1].Marks = append(calls[e.Call-1].Marks, what)
			}
		}
	}
	mark(invalid, report.MarkInvalid)
	mark(forbidden, report.MarkForbidden)
}
