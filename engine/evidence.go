package engine

import (
	"encoding/json"
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
	// maxEvidenceJSON bounds the evidence a failing case carries, as
	// compact JSON (SECURITY.md, docs/reports.md).
	maxEvidenceJSON = 32 << 10
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

// addEvidence keeps the evidence of a run for the envelope. The envelope
// carries the evidence of what failed, not a copy of every run: a run that
// failed is kept while the case has kept fewer than maxEvidenceRuns and it
// fits maxEvidenceBytes of recorded text, making room by dropping the
// passing run kept so far; a passing run is kept only while nothing else
// is, so a case that fails on its figures alone (a floor over its runs)
// still shows one run. leanEvidence then drops it all from a passing case:
// its recordings (report.CassetteSet) are where its runs are read again.
func addEvidence(res *report.CaseResult, ev report.RunEvidence, failed bool) {
	if !failed {
		if len(res.Evidence) == 0 && evidenceBytes(ev) <= maxEvidenceBytes/2 {
			res.Evidence = append(res.Evidence, ev)
		}
		return
	}
	ev.Failed = true
	if len(res.Evidence) > 0 && !res.Evidence[0].Failed {
		res.Evidence = res.Evidence[:0]
	}
	used := 0
	for _, kept := range res.Evidence {
		used += evidenceBytes(kept)
	}
	if len(res.Evidence) >= maxEvidenceRuns || used+evidenceBytes(ev) > maxEvidenceBytes {
		return
	}
	res.Evidence = append(res.Evidence, ev)
}

// dropEvidence is addEvidence of a run runEvidenceWithin gave up for
// its size: a failing run still takes the place of the passing run kept
// so far, as addEvidence would have, and is not kept.
func dropEvidence(res *report.CaseResult, failed bool) {
	if failed && len(res.Evidence) > 0 && !res.Evidence[0].Failed {
		res.Evidence = res.Evidence[:0]
	}
}

// wantEvidence reports whether addEvidence may keep the evidence of a run
// that failed or not, so a run it would drop is never rendered.
func wantEvidence(res *report.CaseResult, failed bool) bool {
	want, _ := evidenceRoom(res, failed)
	return want
}

// evidenceRoom is wantEvidence with the most bytes of recorded text
// (evidenceBytes) addEvidence keeps of the run: half the budget for a
// passing run, what the failing runs kept leave of it for a failing one
// (a passing run kept so far gives its place). runEvidenceWithin renders
// within it, so a run addEvidence would drop for its size is given up as
// soon as it is over, not rendered whole and dropped.
func evidenceRoom(res *report.CaseResult, failed bool) (want bool, limit int) {
	if !failed {
		return len(res.Evidence) == 0, maxEvidenceBytes / 2
	}
	if len(res.Evidence) > 0 && !res.Evidence[0].Failed {
		return true, maxEvidenceBytes
	}
	used := 0
	for _, kept := range res.Evidence {
		used += evidenceBytes(kept)
	}
	return len(res.Evidence) < maxEvidenceRuns, maxEvidenceBytes - used
}

// leanEvidence finishes a case's evidence once its verdict is known: a
// passing case keeps none (its figures and the reference to its
// recordings say what it did), a case that did not pass keeps what
// addEvidence kept, cut to maxEvidenceJSON bytes of compact JSON, and
// counts the runs whose evidence it does not carry.
func leanEvidence(res *report.CaseResult) {
	if res.Verdict == report.Pass {
		res.Evidence, res.EvidenceOmitted = nil, 0
		return
	}
	size := 0
	for i, ev := range res.Evidence {
		data, err := json.Marshal(ev)
		if err != nil || size+len(data) > maxEvidenceJSON {
			res.Evidence = res.Evidence[:i]
			break
		}
		size += len(data)
	}
	if len(res.Evidence) == 0 {
		res.Evidence = nil
	}
	res.EvidenceOmitted = max(res.Runs-len(res.Evidence), 0)
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
	ev, _ := runEvidenceWithin(n, model, r, m, missed, -1)
	return ev
}

// runEvidenceWithin is runEvidence, given up (ok false) as soon as the
// text it renders passes limit bytes as evidenceBytes counts them, when
// limit >= 0 (evidenceRoom's): a case of long runs would otherwise render,
// redact and drop the evidence of every run past its budget (a quarter
// of the CPU of one test over a directory of the generated cassettes).
// The sum only grows as calls are rendered, so a run given up is one
// addEvidence would drop, and a run within limit is rendered whole, as
// runEvidence renders it.
func runEvidenceWithin(n int, model string, r *cassette.Run, m evidenceMarker, missed []string, limit int) (ev report.RunEvidence, ok bool) {
	ev = report.RunEvidence{Run: n, Model: model, Turns: []report.TurnEvidence{}, Missed: missed, CostMicros: r.CostMicros}
	if t := r.Tokens; t != nil {
		ev.Tokens = &report.TokenUse{Input: t.Input, Output: t.Output, Total: t.Total}
	}
	if limit >= 0 && callNamesBytes(r) > limit {
		// The names are counted as they are, unredacted: past the limit
		// on their own, the run is given up before any text is redacted.
		return ev, false
	}
	kept, size := 0, 0
	over := func(add int) bool {
		size += add
		return limit >= 0 && size > limit
	}
	for _, t := range r.Turns {
		te := report.TurnEvidence{Calls: []report.CallEvidence{}}
		te.FinalResponse, te.Clipped = excerpt(redact.String(t.FinalResponse))
		if over(len(te.FinalResponse)) {
			return ev, false
		}
		for _, c := range t.Calls {
			if kept == maxEvidenceCalls {
				ev.OmittedCalls++
				continue
			}
			kept++
			ce := callEvidence(c, m.marks(c))
			if over(len(ce.Server) + len(ce.Tool) + len(ce.Arguments) + len(ce.Result)) {
				return ev, false
			}
			te.Calls = append(te.Calls, ce)
		}
		ev.Turns = append(ev.Turns, te)
	}
	return ev, true
}

// callNamesBytes is what the server and tool names of the calls
// runEvidenceWithin renders (the first maxEvidenceCalls) add to its sum:
// a part of it that needs no rendering, so a run over its limit on its
// names alone (a case whose failing runs left a few bytes of the budget,
// and every later failing run tried) is given up at once. The sum it is a
// part of only grows, so the run given up is the run the rendering would
// give up.
func callNamesBytes(r *cassette.Run) int {
	n, kept := 0, 0
	for _, t := range r.Turns {
		for _, c := range t.Calls {
			if kept == maxEvidenceCalls {
				return n
			}
			kept++
			n += len(c.Server) + len(c.Tool)
		}
	}
	return n
}

func callEvidence(c cassette.Call, marks []string) report.CallEvidence {
	ce := report.CallEvidence{Server: c.Server, Tool: c.Tool, RecordedAs: c.RecordedAs, IsError: c.IsError, DurationMS: c.DurationMS, Marks: marks}
	var cutA, cutR bool
	if args := c.Arguments.Value(); args != nil {
		ce.Arguments, cutA = excerpt(compactJSON(redact.Value(args)))
	}
	if c.Result != nil {
		ce.Result, cutR = excerpt(resultText(redact.Value(c.ResultValue())))
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
	return cutBytes(s, maxEvidenceText), true
}

// cutBytes is s cut to at most n bytes on a character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
