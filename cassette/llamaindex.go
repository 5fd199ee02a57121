package cassette

// FormatLlamaIndex is a LlamaIndex.TS ChatMessage array, what an agent's
// memory holds (memory.get(), the state's memory after agent().run()):
// messages {"role", "content", "options"} whose assistant options hold
// "toolCall": [{"id", "name", "input"}] and whose tool results are user
// messages with options "toolResult": {"id", "result", "isError"}.
const FormatLlamaIndex Format = "llamaindex-messages"

// FormatLlamaIndexEvents is the event stream of a LlamaIndex.TS agent
// workflow (agent(...).runStream(...)), each event saved as
// JSON.stringify writes it, {"type", "data"}: "llamaindex-start" and
// "llamaindex-stop" by name, the agent's events by a number, told apart
// by their data.
const FormatLlamaIndexEvents Format = "llamaindex-events"

// llamaHandoff is the tool a LlamaIndex.TS multi-agent workflow gives
// each agent to hand the run to another ({"toAgent", "reason"}): a
// delegation, not a tool call.
const llamaHandoff = "handOff"

// isLlamaMessages reports whether msgs is a LlamaIndex.TS ChatMessage
// array: messages with a "role", one of them with options holding a
// "toolCall" array or a "toolResult" object (without one the messages
// read the same as a Chat Completions transcript).
func isLlamaMessages(msgs []any) bool {
	if !isMessages(msgs) {
		return false
	}
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		opts, _ := m["options"].(map[string]any)
		_, calls := opts["toolCall"].([]any)
		_, result := opts["toolResult"].(map[string]any)
		if calls || result {
			return true
		}
	}
	return false
}

// readLlamaMessages reads a ChatMessage array, at the walker's path, as
// one run: a user message starts a turn unless its options hold a
// toolResult, which answers the call with its id; an assistant message's
// text is the answer and its options' toolCall entries the calls (input
// an object, or a JSON string while streamed). A handOff call hands the
// run to the agent its toAgent names, who makes the calls after it; a
// handoff from a named agent is a delegation. The messages carry no
// tokens or model.
func readLlamaMessages(w *walker, msgs []any) *Cassette {
	c := &Cassette{Format: FormatLlamaIndex}
	l := &llama{t: newTranscript(w, c), handoffs: map[string]bool{}}
	for i, v := range msgs {
		w.pushIdx(i)
		m, _ := v.(map[string]any)
		role, _ := m["role"].(string)
		opts, _ := m["options"].(map[string]any)
		switch {
		case role == "user" && opts["toolResult"] != nil:
			w.push("options")
			w.push("toolResult")
			l.toolResult(opts["toolResult"])
			w.pop()
			w.pop()
		case role == "user":
			l.t.userTurn(text(m["content"]))
		case role == "assistant":
			l.t.say(text(m["content"]))
			if calls, has := opts["toolCall"]; has {
				w.push("options")
				w.push("toolCall")
				l.toolCalls(calls)
				w.pop()
				w.pop()
			}
		}
		w.pop()
	}
	c.Runs = []Run{l.finish()}
	return c
}

// llama builds the run of a LlamaIndex.TS recording.
type llama struct {
	t *transcript
	// agent is the agent making the calls, "" until one is named.
	agent string
	// handoffs are the ids of the handOff calls, whose results are no
	// tool's.
	handoffs    map[string]bool
	delegations []Delegation
}

func (l *llama) finish() Run {
	r := l.t.finish()
	r.Delegations = l.delegations
	return r
}

// toolCalls reads the toolCall entries of an assistant message, the
// value at the walker's path.
func (l *llama) toolCalls(v any) {
	w := l.t.w
	calls, ok := v.([]any)
	if !ok {
		w.typeError(v, `an array of tool calls {"id": ..., "name": ..., "input": {...}}`)
		return
	}
	for i, tc := range calls {
		w.pushIdx(i)
		if m, ok := tc.(map[string]any); !ok {
			w.typeError(tc, `a tool call {"id": ..., "name": ..., "input": {...}}`)
		} else if name, ok := l.t.toolName(m); ok {
			id, _ := m["id"].(string)
			l.call(id, name, m["input"], l.agent)
		}
		w.pop()
	}
}

// call records a call of name by agent with its input, or the handoff it
// is.
func (l *llama) call(id, name string, input any, agent string) {
	args := arguments(input)
	if name == llamaHandoff {
		l.handoffs[id] = true
		l.t.w.spend(name) // a handoff, read as a delegation
		kw, _ := args.Value().(map[string]any)
		to, _ := kw["toAgent"].(string)
		if to != "" {
			if agent != "" && agent != to {
				l.delegations = append(l.delegations, Delegation{From: agent, To: to})
			}
			l.agent = to
		}
		return
	}
	c := Call{Arguments: args, Agent: agent}
	c.Server, c.Tool = splitMCP(name)
	l.t.addCall(id, c)
}

// toolResult reads a toolResult {"id", "result", "isError"}, the value at
// the walker's path.
func (l *llama) toolResult(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		l.t.w.typeError(v, `a tool result {"id": ..., "result": ..., "isError": ...}`)
		return
	}
	id, _ := m["id"].(string)
	if l.handoffs[id] {
		return
	}
	isErr, _ := m["isError"].(bool)
	l.t.result(id, "", llamaOutput(m["result"]), isErr)
}

// llamaOutput is the result of a LlamaIndex.TS tool: its output string
// (the tool's value as text, or an MCP tool's CallToolResult as JSON),
// or a value.
func llamaOutput(v any) any { return otelResult(v) }

// isLlamaEvents reports whether root is a LlamaIndex.TS workflow event
// stream: an array of {"type", "data"} events, the first of them the
// workflow's, one of them "llamaindex-start" or "llamaindex-stop" or an
// agent's event (data naming currentAgentName, agentName or toolId).
func isLlamaEvents(root []any) bool {
	if len(root) == 0 || !isLlamaEvent(root[0]) {
		return false
	}
	for _, e := range root {
		m, _ := e.(map[string]any)
		data, _ := m["data"].(map[string]any)
		if m["type"] == "llamaindex-start" || m["type"] == "llamaindex-stop" ||
			data["currentAgentName"] != nil || data["agentName"] != nil || data["toolId"] != nil {
			return true
		}
	}
	return false
}

// isLlamaEvent reports whether v is a workflow event as JSON.stringify
// writes it: an object of exactly a string "type" and an object "data".
func isLlamaEvent(v any) bool {
	m, _ := v.(map[string]any)
	_, typ := m["type"].(string)
	_, data := m["data"].(map[string]any)
	return typ && data && len(m) == 2
}

// readLlamaEvents reads a workflow event stream (an array, or one event a
// line, see lines.go), one run per llamaindex-start (the events before
// the first one a run of their own): the start's userInput is the prompt; an agentToolCall event
// ({"agentName", "toolName", "toolKwargs", "toolId"}) is a call by that
// agent, and the calls an agentStep, agentOutput or toolCalls event lists
// ({"toolCalls": [...]}) are read from there when no agentToolCall
// event made them; an agentToolCallResult event ({"toolId", "toolName",
// "toolKwargs", "toolOutput": {"result", "isError"}}), or a toolResults
// event's results, answers the call with its toolId, or is the call and
// its result when no event made the call; an agent's response text
// (data.response.content) and the stop's result are the answer; an
// agentStream event's raw chunk gives the model and, where the provider
// sent it, the usage. A handOff call passes the run to its toAgent, a
// delegation.
func readLlamaEvents(w *walker, events []any) *Cassette {
	r := newLlamaEventsReader()
	r.c.Runs = append(readDoc(r, w, events), r.finish()...)
	return r.c
}

// llamaEvents reads a workflow event stream event by event, as a
// lineReader: the events of one array, or one event a line.
type llamaEvents struct {
	c *Cassette
	l *llama
	// started marks a run begun by a llamaindex-start.
	started bool
}

func newLlamaEventsReader() *llamaEvents {
	return &llamaEvents{c: &Cassette{Format: FormatLlamaIndexEvents}}
}

func (r *llamaEvents) cassette() *Cassette { return r.c }

// flush returns the run being read, if it began or made a call, and
// starts the next with the walker w.
func (r *llamaEvents) flush(w *walker) []Run {
	var out []Run
	if r.l != nil && (r.started || r.l.t.calls > 0) {
		out = []Run{r.l.finish()}
	}
	r.l = &llama{t: newTranscript(w, r.c), handoffs: map[string]bool{}}
	r.started = false
	return out
}

func (r *llamaEvents) line(w *walker, e any) []Run {
	if !isLlamaEvent(e) {
		w.typeError(e, `a workflow event {"type": ..., "data": {...}}`)
		return nil
	}
	var done []Run
	m := e.(map[string]any)
	if r.l == nil || m["type"] == "llamaindex-start" {
		done = r.flush(w)
		r.started = m["type"] == "llamaindex-start"
	}
	r.l.t.w = w
	w.push("data")
	r.l.event(m["type"].(string), m["data"].(map[string]any))
	w.pop()
	return done
}

func (r *llamaEvents) finish() []Run {
	if r.l == nil {
		return nil
	}
	return r.flush(r.l.t.w)
}

// event reads one event of type typ, its data at the walker's path.
func (l *llama) event(typ string, data map[string]any) {
	t := l.t
	if l.agent == "" {
		l.agent = firstNonEmpty(str(data["currentAgentName"]), str(data["agentName"]))
		if t.c.Agent == "" {
			t.c.Agent = l.agent
		}
	}
	switch {
	case typ == "llamaindex-start":
		t.userTurn(text(data["userInput"]))
	case typ == "llamaindex-stop":
		t.say(text(data["result"]))
	case data["toolOutput"] != nil:
		l.eventResult(data)
	case data["toolId"] != nil:
		l.eventCall(data)
	case data["results"] != nil && data["agentName"] != nil:
		l.listed("results", data["results"], l.eventResult)
	case data["toolCalls"] != nil:
		if resp, ok := data["response"].(map[string]any); ok {
			t.say(text(resp["content"]))
		}
		l.listed("toolCalls", data["toolCalls"], l.eventCall)
	case data["delta"] != nil:
		raw, _ := data["raw"].(map[string]any)
		if s, _ := raw["model"].(string); t.c.Model == "" && s != "" {
			t.c.Model = s
		}
		t.usage.add(raw["usage"])
	}
}

// listed reads the events' worth of calls or results listed under key,
// each with read.
func (l *llama) listed(key string, v any, read func(map[string]any)) {
	w := l.t.w
	w.push(key)
	defer w.pop()
	list, ok := v.([]any)
	if !ok {
		w.typeError(v, "an array")
		return
	}
	for i, e := range list {
		w.pushIdx(i)
		if m, ok := e.(map[string]any); ok {
			read(m)
		} else {
			w.typeError(e, `an object {"toolName": ..., "toolId": ...}`)
		}
		w.pop()
	}
}

// eventCall reads a call an event names, {"agentName", "toolName",
// "toolKwargs", "toolId"}, once per toolId.
func (l *llama) eventCall(m map[string]any) {
	id, ok := l.eventID(m)
	if !ok {
		return
	}
	if _, seen := l.t.byID[id]; seen || l.handoffs[id] {
		return
	}
	name, ok := m["toolName"].(string)
	if !ok || name == "" {
		l.t.w.push("toolName")
		l.t.w.typeError(m["toolName"], "the name of the called tool, a non-empty string")
		l.t.w.pop()
		return
	}
	agent := firstNonEmpty(str(m["agentName"]), l.agent)
	l.call(id, name, m["toolKwargs"], agent)
}

// eventResult reads an agentToolCallResult, {"toolId", "toolName",
// "toolKwargs", "toolOutput": {"result", "isError"}}: the call it answers
// is made from it when no event made it.
func (l *llama) eventResult(m map[string]any) {
	id, ok := l.eventID(m)
	if !ok {
		return
	}
	if _, seen := l.t.byID[id]; !seen {
		l.eventCall(m)
	}
	if l.handoffs[id] {
		return
	}
	out, ok := m["toolOutput"].(map[string]any)
	if !ok {
		l.t.w.push("toolOutput")
		l.t.w.typeError(m["toolOutput"], `the tool's output {"id": ..., "result": ..., "isError": ...}`)
		l.t.w.pop()
		return
	}
	isErr, _ := out["isError"].(bool)
	name, _ := m["toolName"].(string)
	l.t.result(id, name, llamaOutput(out["result"]), isErr)
}

// eventID is the toolId of an event's call, which every event of the
// call repeats and which tells its listings apart; without one the call
// cannot be told from the other events' listing of it, and is an error.
func (l *llama) eventID(m map[string]any) (string, bool) {
	id, ok := m["toolId"].(string)
	if !ok || id == "" {
		w := l.t.w
		if v, has := m["toolId"]; has {
			w.push("toolId")
			w.typeError(v, "the call's id, a non-empty string")
			w.pop()
		} else {
			w.errorf(`missing "toolId": every event of a call names it by its id`)
		}
		return "", false
	}
	return id, true
}
