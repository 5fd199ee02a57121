package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
)

// elicitActions are the answers an elicitation: entry gives, as MCP names
// them.
var elicitActions = []string{"accept", "decline", "cancel"}

// scriptedModel is the model a sampling: answer names when it gives none.
const scriptedModel = "mcptest-scripted"

// AskAnswer is one scripted answer of a tools: test to a request the server
// sends back while it handles the call: an elicitation: entry (Action,
// Content) or a sampling: entry (Text, Model).
type AskAnswer struct {
	// Message matches the request's message (the elicitation's message;
	// the text of a sampling request's last message); nil matches any.
	Message *expr.Matcher
	Action  string
	Content map[string]any
	Text    string
	Model   string
	Pos     diag.Pos
}

// askScript reads a tools: entry's elicitation: and sampling: lists.
func (b *builder) askScript(ptr string, t *ToolTestBlock, m map[string]any) {
	for i, v := range list(m["elicitation"]) {
		t.Elicitation = append(t.Elicitation, b.askAnswer(fmt.Sprintf("%s/elicitation/%d", ptr, i), v, true))
	}
	for i, v := range list(m["sampling"]) {
		t.Sampling = append(t.Sampling, b.askAnswer(fmt.Sprintf("%s/sampling/%d", ptr, i), v, false))
	}
}

// askAnswer reads one scripted answer at ptr. A message: string is a
// substring of the request's message; a mapping is an expect: matcher.
func (b *builder) askAnswer(ptr string, v any, elicit bool) AskAnswer {
	a := AskAnswer{Pos: b.doc.At(ptr)}
	m, _ := v.(map[string]any)
	switch msg := m["message"].(type) {
	case nil:
	case string:
		a.Message, _ = expr.ParseMatcher(map[string]any{"contains": msg})
	default:
		mm, err := expr.ParseMatcher(msg)
		if err != nil {
			b.errorf(ptr+"/message", b.doc.At(ptr+"/message"), "message: %v: give a substring of the request's message or a matcher such as {regex: ...}", err)
		}
		a.Message = mm
	}
	if !elicit {
		a.Text, _ = m["text"].(string)
		a.Model, _ = m["model"].(string)
		if a.Model == "" {
			a.Model = scriptedModel
		}
		return a
	}
	a.Action, _ = m["action"].(string)
	a.Content, _ = m["content"].(map[string]any)
	// The schema names the three actions with a did-you-mean; this check
	// stands for a suite the schema let through.
	if !contains(elicitActions, a.Action) && !b.broken(ptr) {
		e := &diag.Error{Pos: b.doc.At(ptr + "/action"), Pointer: ptr + "/action", Kind: "suite",
			Message: fmt.Sprintf("elicitation answer action %q is not one of accept, decline, cancel", a.Action)}
		if s := diag.Suggest(a.Action, elicitActions); s != "" {
			e.Hint = "did you mean `" + s + "`?"
		}
		b.errs = append(b.errs, e)
	}
	if a.Content != nil && a.Action != "accept" {
		b.errorf(ptr+"/content", b.doc.KeyAt(ptr+"/content"), "elicitation answer %q gives content: only an accept answer carries content", a.Action)
	}
	return a
}

// askRecorder answers a test's server-sent requests from its script and
// records each request and the answer given, for the test's elicitations
// and samplings targets. Each answer answers one request: the first unused
// one whose message matches.
type askRecorder struct {
	elicit, sample []AskAnswer
	mu             sync.Mutex
	usedE, usedS   []bool
	elicitations   []any
	samplings      []any
	// unmatched are the messages no scripted answer matched, the first
	// maxAskFindings of them; unmatchedMore counts the rest.
	unmatched     []string
	unmatchedMore int
	// over counts the requests answered past maxAskRecords of their kind,
	// not recorded.
	overE, overS int
}

// The bounds on what one call's server-sent requests may make mcptest keep
// (SECURITY.md): a server that floods them is answered, counted and fails
// the test, but cannot grow the run's memory or its findings.
const (
	// maxAskRecords is the requests of each kind (elicitation, sampling)
	// recorded for a call's elicitations: and samplings: targets.
	maxAskRecords = 100
	// maxAskEntryBytes is the largest request recorded as the server sent
	// it, as JSON; a larger one keeps its message cut to maxAskMessage.
	maxAskEntryBytes = 16 << 10
	maxAskMessage    = 4 << 10
	// maxAskFindings is the unmatched requests a call names one by one.
	maxAskFindings = 10
)

func newAskRecorder(t *ToolTestBlock) *askRecorder {
	return &askRecorder{elicit: t.Elicitation, sample: t.Sampling,
		usedE: make([]bool, len(t.Elicitation)), usedS: make([]bool, len(t.Sampling)),
		elicitations: []any{}, samplings: []any{}}
}

// pick is the index of the first unused answer matching message, or -1.
func pick(answers []AskAnswer, used []bool, message string) int {
	for i, a := range answers {
		if used[i] {
			continue
		}
		if matchMessage(a.Message, message) {
			used[i] = true
			return i
		}
	}
	return -1
}

// matchMessage reports whether an answer's message: matcher (nil: any
// message) takes the server's message.
func matchMessage(m *expr.Matcher, message string) bool {
	return m == nil || m.Holds(message, true)
}

// requestEntry is a request's params as the JSON object a target reads;
// one over maxAskEntryBytes keeps only its message, cut to maxAskMessage
// bytes, and says how large it was.
func requestEntry(params any, message string) map[string]any {
	if data, err := json.Marshal(params); err == nil && len(data) > maxAskEntryBytes {
		return map[string]any{"message": clip(message, maxAskMessage), "clipped": true, "bytes": float64(len(data))}
	}
	rec, _ := jsonValue(params)
	if entry, ok := rec.(map[string]any); ok {
		return entry
	}
	return map[string]any{}
}

// noMatch keeps the finding of a request no answer matched, the first
// maxAskFindings of a call; the rest are counted.
func (r *askRecorder) noMatch(msg string) {
	if len(r.unmatched) >= maxAskFindings {
		r.unmatchedMore++
		return
	}
	r.unmatched = append(r.unmatched, msg)
}

// Elicit answers an elicitation/create request: the matching answer, or
// decline when none matches (a finding names the message).
func (r *askRecorder) Elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &mcp.ElicitResult{Action: "decline"}
	if len(r.elicitations) >= maxAskRecords {
		r.overE++
		return res, nil
	}
	entry := requestEntry(p, p.Message)
	i := pick(r.elicit, r.usedE, p.Message)
	if i < 0 {
		r.noMatch(fmt.Sprintf("the server sent elicitation %q, which no `elicitation:` answer of the test matches: mcptest declined it; add an answer whose message matches", clip(p.Message, 200)))
	} else {
		a := r.elicit[i]
		res.Action = a.Action
		if a.Action == "accept" {
			res.Content = maps.Clone(a.Content)
		}
	}
	answer, _ := jsonValue(res)
	entry["answer"], entry["matched"] = answer, float64(i)
	entry["action"] = res.Action
	r.elicitations = append(r.elicitations, entry)
	return res, nil
}

// Sample answers a sampling/createMessage request: the matching answer's
// text, or an error when none matches (a finding names the message).
func (r *askRecorder) Sample(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.samplings) >= maxAskRecords {
		r.overS++
		return nil, fmt.Errorf("mcptest: more than %d sampling requests during one call: not answered", maxAskRecords)
	}
	message := samplingText(p)
	entry := requestEntry(p, message)
	entry["message"], entry["matched"] = clip(message, maxAskMessage), float64(-1)
	i := pick(r.sample, r.usedS, message)
	if i < 0 {
		r.noMatch(fmt.Sprintf("the server sent sampling request %q, which no `sampling:` answer of the test matches: mcptest answered an error; add an answer whose message matches", clip(message, 200)))
		r.samplings = append(r.samplings, entry)
		return nil, fmt.Errorf("mcptest: no sampling: answer of the test matches the message %q", clip(message, 200))
	}
	a := r.sample[i]
	res := &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: a.Text}, Model: a.Model, Role: "assistant", StopReason: "endTurn"}
	answer, _ := jsonValue(res)
	entry["answer"], entry["matched"] = answer, float64(i)
	r.samplings = append(r.samplings, entry)
	return res, nil
}

// samplingText is the message a sampling: answer matches: the text of the
// request's last message (the prompt the server wants answered).
func samplingText(p *mcp.CreateMessageParams) string {
	for i := len(p.Messages) - 1; i >= 0; i-- {
		if tc, ok := p.Messages[i].Content.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// record puts the requests into the test's document.
func (r *askRecorder) record(doc map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	doc["elicitations"], doc["samplings"] = r.elicitations, r.samplings
}

// findings are the messages of the requests no scripted answer matched,
// the count of those not named, and the requests past maxAskRecords; each
// fails the test.
func (r *askRecorder) findings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.unmatched)
	if r.unmatchedMore > 0 {
		out = append(out, fmt.Sprintf("and %d more server requests that no scripted answer matched (the first %d are named)", r.unmatchedMore, maxAskFindings))
	}
	for _, o := range []struct {
		n    int
		kind string
	}{{r.overE, "elicitation"}, {r.overS, "sampling"}} {
		if o.n > 0 {
			out = append(out, fmt.Sprintf("the server sent %d %s requests during one call, over the %d mcptest records: the first %d are recorded, the rest were answered and counted only (SECURITY.md, bounded work)",
				maxAskRecords+o.n, o.kind, maxAskRecords, maxAskRecords))
		}
	}
	return out
}

// asksBack reports whether a tools: test of server scripts elicitation
// answers and whether one scripts sampling answers: the client
// capabilities its session declares.
func (s *Suite) asksBack(server string) (elicit, sample bool) {
	for _, c := range s.Cases {
		if t := c.ToolTest; t != nil && t.Server == server {
			elicit = elicit || len(t.Elicitation) > 0
			sample = sample || len(t.Sampling) > 0
		}
	}
	return elicit, sample
}
