package engine

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/redact"
	"github.com/mcptest/mcptest/gate"
)

// The bounds of a case's evidence: the runs kept, the calls kept per run,
// and the length of each argument, result and final-response excerpt in
// bytes. Past them, the counts say what was left out.
const (
	maxEvidenceRuns  = 10
	maxEvidenceCalls = 40
	maxEvidenceText  = 2000
)

// The marks a call of the evidence may carry: the gate that counted it.
const (
	// MarkUnexpected is a call that matched no class of tool_selection:.
	MarkUnexpected = "unexpected tool"
	// MarkDistractor is a call to a tool distractors: injected.
	MarkDistractor = "distractor"
	// MarkRestricted is a call to a restricted tool of tool_edges:.
	MarkRestricted = "restricted edge"
	// MarkInvalid is a scenario call the world refused as an invalid action.
	MarkInvalid = "invalid action"
	// MarkForbidden is a scenario call that broke a forbidden transition.
	MarkForbidden = "forbidden transition"
)

// RunEvidence is what one recorded run of a case did, for a reviewer who
// wants to see the calls behind the figures: its turns in order, each call
// with its arguments and a result excerpt, the final response, the
// recorded tokens and cost, and the marks of the gates that counted a call.
// Every text is redacted (engine/redact) and clipped to a bound, with
// Clipped set on what was cut.
type RunEvidence struct {
	Run   int            `json:"run"`
	Model string         `json:"model,omitempty"`
	Turns []TurnEvidence `json:"turns"`
	// Missed names the tool_selection: classes no call of the run reached.
	Missed []string `json:"missed,omitempty"`
	// Tokens is absent when the recording has no token usage.
	Tokens *TokenUse `json:"tokens,omitempty"`
	// CostMicros is the run's cost in millionths of a dollar, absent when
	// not recorded.
	CostMicros *int64 `json:"cost_micros,omitempty"`
	// OmittedCalls counts the calls past the first 40 of the run.
	OmittedCalls int `json:"omitted_calls,omitempty"`
}

// TurnEvidence is one turn of a run: its calls and the agent's final text.
type TurnEvidence struct {
	Calls         []CallEvidence `json:"calls"`
	FinalResponse string         `json:"final_response,omitempty"`
	Clipped       bool           `json:"clipped,omitempty"`
}

// CallEvidence is one call: its tool, its arguments as compact JSON, an
// excerpt of its result (the text content when the result has some, else
// its JSON), whether it errored, and the marks of the gates that counted
// it (MarkUnexpected, MarkDistractor, MarkRestricted, MarkInvalid,
// MarkForbidden).
type CallEvidence struct {
	Server     string   `json:"server,omitempty"`
	Tool       string   `json:"tool"`
	Arguments  string   `json:"arguments,omitempty"`
	Result     string   `json:"result,omitempty"`
	IsError    bool     `json:"is_error,omitempty"`
	DurationMS *float64 `json:"duration_ms,omitempty"`
	Marks      []string `json:"marks,omitempty"`
	// Clipped is true when the arguments or the result were cut.
	Clipped bool `json:"clipped,omitempty"`
}

// TokenUse is a run's recorded token usage.
type TokenUse struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}

// evidenceMarker decides the marks of a case's calls.
type evidenceMarker struct {
	classes    []gate.Class
	restricted []string
	injected   []string
}

// newEvidenceMarker reads the gate blocks of c that mark calls.
func newEvidenceMarker(c *Case, injected []string) evidenceMarker {
	m := evidenceMarker{injected: injected}
	if c.Selection != nil {
		m.classes = c.Selection.Classes
	}
	if c.Edges != nil {
		m.restricted = c.Edges.Edges.Restricted
	}
	return m
}

func (m evidenceMarker) marks(c cassette.Call) []string {
	var out []string
	if len(m.classes) > 0 && !matchesClass(m.classes, c) {
		out = append(out, MarkUnexpected)
	}
	for _, name := range m.injected {
		if c.Tool == name {
			out = append(out, MarkDistractor)
			break
		}
	}
	if matchesAny(m.restricted, c) {
		out = append(out, MarkRestricted)
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

// addEvidence keeps the evidence of run n (1-based) of a case while the
// case has kept fewer than maxEvidenceRuns, and counts it otherwise.
func addEvidence(res *CaseResult, ev RunEvidence) {
	if len(res.Evidence) >= maxEvidenceRuns {
		res.EvidenceOmitted++
		return
	}
	res.Evidence = append(res.Evidence, ev)
}

// runEvidence is the evidence of one recorded run.
func runEvidence(n int, model string, r *cassette.Run, m evidenceMarker, missed []string) RunEvidence {
	ev := RunEvidence{Run: n, Model: model, Turns: []TurnEvidence{}, Missed: missed, CostMicros: r.CostMicros}
	if t := r.Tokens; t != nil {
		ev.Tokens = &TokenUse{Input: t.Input, Output: t.Output, Total: t.Total}
	}
	kept := 0
	for _, t := range r.Turns {
		te := TurnEvidence{Calls: []CallEvidence{}}
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

func callEvidence(c cassette.Call, marks []string) CallEvidence {
	ce := CallEvidence{Server: c.Server, Tool: c.Tool, IsError: c.IsError, DurationMS: c.DurationMS, Marks: marks}
	var cutA, cutR bool
	if c.Arguments != nil {
		ce.Arguments, cutA = excerpt(compactJSON(redact.Value(c.Arguments)))
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

func compactJSON(v any) string {
	b, err := json.Marshal(v)
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
func markScenarioCalls(ev *RunEvidence, invalid, forbidden []WorldEvent) {
	mark := func(events []WorldEvent, what string) {
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
	mark(invalid, MarkInvalid)
	mark(forbidden, MarkForbidden)
}
