package cassette

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A run's spans share its trace only when something opens a span around
// the run (an agent span, a workflow, an AI SDK call) and the context
// carries it. An agent loop written on a model client instrumented alone
// (OpenLLMetry's, OpenInference's) writes each model call as a trace of
// its own: read one run per trace, one agent run would be as many runs as
// model calls, its calls in one and their results in the next. Such
// traces are fragments, and joinFragments groups them into runs by what
// their spans share: a session or conversation id, else the calls the
// conversation carries from one model call to the next.

// sessionAttributes are the span attributes that name the session or
// conversation a span belongs to, most specific first: the GenAI
// conventions', OpenTelemetry's, OpenLLMetry's association properties and
// OpenInference's.
var sessionAttributes = []string{
	"gen_ai.conversation.id", "session.id",
	"traceloop.association.properties.session_id", "traceloop.association.properties.sessionId",
	"traceloop.association.properties.conversation_id", "traceloop.association.properties.thread_id",
	"traceloop.association.properties.run_id",
}

// sessionAttribute reports whether the OTLP reader keeps key, an
// attribute that names a session.
func sessionAttribute(key string) bool {
	for _, k := range sessionAttributes {
		if k == key {
			return true
		}
	}
	return false
}

// session is the session or conversation id s names, "" when none.
func (s *otelSpan) session() string {
	for _, k := range sessionAttributes {
		if v := s.str(k); v != "" {
			return k + "=" + v
		}
	}
	return ""
}

// isModelCall reports whether s is the span of one model call: a GenAI
// chat, text_completion or generate_content operation, or an
// OpenInference LLM span.
func isModelCall(s *otelSpan) bool {
	switch s.str("gen_ai.operation.name") {
	case "chat", "text_completion", "generate_content":
		return true
	}
	return s.str(oiKind) == "LLM"
}

// fragment reports whether t is a fragment of a run: its root spans are
// model calls (one at least) or tool calls, with no span around them that
// stands for the run (an agent, a chain, a workflow, an AI SDK call).
func (t *otelTrace) fragment() bool {
	model := false
	for _, s := range t.spans {
		if t.byID[s.parent] != nil && s.parent != "" {
			continue
		}
		if !isModelCall(s) && !isExecuteTool(s) {
			return false
		}
		model = model || isModelCall(s)
	}
	return model
}

// links are the call ids a fragment's model calls issued (their output
// messages' tool calls) and the ids its input messages carry from earlier
// model calls (tool calls and their results), and whether its input holds
// an earlier turn at all (an assistant or tool message): a fragment that
// holds none starts a conversation.
type links struct {
	issued, carried []string
	continued       bool
	// messages says whether the fragment records any messages at all.
	messages bool
}

// linksOf reads the links of the spans of a fragment.
func linksOf(t *otelTrace) links {
	var l links
	for _, s := range t.spans {
		for _, p := range partsOf(s.attrs["gen_ai.output.messages"], "tool_call") {
			if id, _ := p["id"].(string); id != "" {
				l.issued = append(l.issued, id)
			}
		}
		for _, c := range oiToolCalls(s, "llm.output_messages") {
			if c.id != "" {
				l.issued = append(l.issued, c.id)
			}
		}
		for _, m := range jsonList(s.attrs["gen_ai.input.messages"]) {
			m, _ := m.(map[string]any)
			if m["role"] == "assistant" || m["role"] == "tool" {
				l.continued = true
			}
		}
		for _, typ := range []string{"tool_call", "tool_call_response"} {
			for _, p := range partsOf(s.attrs["gen_ai.input.messages"], typ) {
				if id, _ := p["id"].(string); id != "" {
					l.carried = append(l.carried, id)
				}
			}
		}
		for _, c := range oiToolCalls(s, "llm.input_messages") {
			l.carried = append(l.carried, c.id)
		}
		ids, _ := oiToolResults(s)
		l.carried = append(l.carried, ids...)
		for i := 0; ; i++ {
			role, ok := s.attrs["llm.input_messages."+strconv.Itoa(i)+".message.role"].(string)
			if !ok {
				break
			}
			if role == "assistant" || role == "tool" {
				l.continued = true
			}
		}
	}
	l.continued = l.continued || len(l.carried) > 0
	for _, s := range t.spans {
		l.messages = l.messages || s.attrs["gen_ai.input.messages"] != nil || s.attrs["gen_ai.output.messages"] != nil ||
			s.attrs["llm.input_messages.0.message.role"] != nil || s.attrs["llm.output_messages.0.message.role"] != nil
	}
	return l
}

// joinFragments groups the traces of order (sorted by start) that are
// fragments of runs into one trace per run: fragments naming one session
// are one run; the others, in start order, each join the run that issued
// the calls its conversation carries (the latest such run), or, when it
// starts a conversation, start a run. It returns the traces, fragments
// joined, and the warning to give ("" when no fragment was joined and
// none was in doubt).
func joinFragments(order []*otelTrace) ([]*otelTrace, string) {
	j := &fragments{bySession: map[string]*otelTrace{}, issuedBy: map[string][]*otelTrace{}}
	for _, t := range order {
		if t.fragment() {
			j.n++
		}
	}
	if j.n < 2 {
		return order, ""
	}
	for _, t := range order {
		switch {
		case !t.fragment():
			j.out = append(j.out, t)
		case t.spans[0].session() != "":
			j.session(t)
		default:
			j.conversation(t)
		}
	}
	for _, t := range j.out {
		sort.SliceStable(t.spans, func(i, j int) bool { return t.spans[i].start < t.spans[j].start })
	}
	return j.out, j.warning()
}

// fragments is the state of joinFragments.
type fragments struct {
	n   int          // the fragments of the file
	out []*otelTrace // the runs
	// bySession is the run of each session, issuedBy the runs that issued
	// each call id, open the run the last conversation fragment joined.
	bySession map[string]*otelTrace
	issuedBy  map[string][]*otelTrace
	open      *otelTrace
	// bySessions and byCalls count the fragments joined by their session
	// and by their conversation; ambiguous, unlinked and blind those whose
	// run is a guess.
	bySessions, byCalls, ambiguous, unlinked, blind int
}

// join adds the spans of t to the run into.
func join(into, t *otelTrace) {
	into.spans = append(into.spans, t.spans...)
	for id, s := range t.byID {
		into.byID[id] = s
	}
}

// session places a fragment that names its session.
func (j *fragments) session(t *otelTrace) {
	key := t.spans[0].session()
	if into := j.bySession[key]; into != nil {
		join(into, t)
		j.bySessions++
		return
	}
	j.bySession[key] = t
	j.out = append(j.out, t)
}

// conversation places a fragment by the calls its conversation carries.
func (j *fragments) conversation(t *otelTrace) {
	l := linksOf(t)
	if !l.messages {
		j.blind++
	}
	var into *otelTrace
	if l.continued {
		found := map[*otelTrace]bool{}
		for _, id := range l.carried {
			for _, g := range j.issuedBy[id] {
				found[g] = true
				if into == nil || g.spans[0].start > into.spans[0].start {
					into = g
				}
			}
		}
		switch {
		case len(found) > 1:
			j.ambiguous++
		case into == nil:
			into = j.open
			j.unlinked++
		}
	}
	if into != nil {
		join(into, t)
		j.byCalls++
	} else {
		into = t
		j.out = append(j.out, t)
	}
	j.open = into
	for _, id := range l.issued {
		if g := j.issuedBy[id]; len(g) == 0 || g[len(g)-1] != into {
			j.issuedBy[id] = append(j.issuedBy[id], into)
		}
	}
}

// warning says how the fragments were read, "" when none was joined and
// none was in doubt.
func (j *fragments) warning() string {
	var parts []string
	if joined := j.bySessions + j.byCalls; joined > 0 {
		var how []string
		if j.bySessions > 0 {
			how = append(how, "their session id")
		}
		if j.byCalls > 0 {
			how = append(how, "the calls each model call's conversation carries from the one before")
		}
		parts = append(parts, fmt.Sprintf("the spans of each run are spread over traces of their own (%d traces of model "+
			"calls with no agent, workflow or chain span around them): read as %s, %d traces joined by %s",
			j.n, plural(len(j.out), "run"), joined, strings.Join(how, " and ")))
	}
	if unclear := j.ambiguous + j.unlinked; unclear > 0 {
		parts = append(parts, fmt.Sprintf("%s of model calls could not be told apart from the runs around them "+
			"(a conversation carrying the calls of several runs, or of none seen), each joined to the run before it",
			plural(unclear, "trace")))
	}
	if j.blind > 0 {
		parts = append(parts, fmt.Sprintf("%s of model calls with no span around them record neither messages nor "+
			"a session id, so nothing tells their runs apart: each read as a run of its own", plural(j.blind, "trace")))
	}
	if len(parts) == 0 {
		return ""
	}
	if j.ambiguous+j.unlinked+j.blind > 0 {
		parts = append(parts, "open a span around each run, or give its spans a session id (gen_ai.conversation.id, "+
			"session.id, OpenLLMetry's association property session_id)")
	} else {
		parts = append(parts, "open a span around each run so its spans share its trace")
	}
	return strings.Join(parts, "; ")
}
