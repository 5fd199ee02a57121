package cassette

import (
	"encoding/json"
	"math"
	"strings"
)

// classify tells an OpenAI Chat Completions transcript from an Anthropic
// Messages one by the shape of its messages, in three tiers: tool traffic
// decides (assistant tool_calls and role "tool" messages are OpenAI,
// tool_use and tool_result content blocks are Anthropic); without it, the
// usage naming (prompt_tokens is OpenAI, input_tokens Anthropic); without
// that, the content (a string is OpenAI, text blocks are Anthropic). A tie
// is OpenAI: without tool calls the two read the same. It returns "" when
// the tool traffic of both formats is equally present.
func classify(obj map[string]any, msgs []any) Format {
	var c classifier
	if obj != nil {
		c.usage(obj["usage"])
	}
	for _, m := range msgs {
		if m, ok := m.(map[string]any); ok {
			c.message(m)
		}
	}
	return c.format()
}

// classifier is classify's count of the two formats' marks, message by
// message (readMessages counts a transcript it never holds whole).
type classifier struct {
	tools, usages, contents [2]int // OpenAI, Anthropic
}

const openai, anthropic = 0, 1

// usage counts the naming of a usage object.
func (c *classifier) usage(v any) {
	if u, ok := v.(map[string]any); ok {
		if _, ok := u["prompt_tokens"]; ok {
			c.usages[openai]++
		}
		if _, ok := u["input_tokens"]; ok {
			c.usages[anthropic]++
		}
	}
}

// message counts the marks of one message.
func (c *classifier) message(m map[string]any) {
	switch m["role"] {
	case "tool", "function":
		c.tools[openai]++
	}
	if _, ok := m["tool_calls"]; ok {
		c.tools[openai]++
	}
	if _, ok := m["function_call"]; ok {
		c.tools[openai]++
	}
	switch content := m["content"].(type) {
	case string:
		c.contents[openai]++
	case []any:
		for _, b := range content {
			b, _ := b.(map[string]any)
			switch b["type"] {
			case "tool_use", "tool_result", "mcp_tool_use", "mcp_tool_result":
				c.tools[anthropic]++
			case "text", "image", "document", "thinking", "redacted_thinking":
				c.contents[anthropic]++
			case "image_url", "input_audio", "refusal":
				c.contents[openai]++
			}
		}
	}
	c.usage(m["usage"])
}

// format is the format the counts tell, "" for as many tool calls of
// each.
func (c *classifier) format() Format {
	tools := c.tools
	for _, tier := range [...][2]int{tools, c.usages, c.contents} {
		switch {
		case tier[openai] > tier[anthropic]:
			return FormatOpenAI
		case tier[anthropic] > tier[openai]:
			return FormatAnthropic
		case tier == tools && tier[openai] > 0:
			return "" // as many tool calls of each format
		}
	}
	return FormatOpenAI
}

// callRef addresses a call of the run being built: its turn and its place
// in the turn (32 bits each, as a file of 64 MiB holds fewer calls).
type callRef struct{ turn, call int32 }

// idChain is the calls recorded with one id, a chain through
// transcript.sameID from head, the first that may still be waiting for a
// result (-1 when none is), to tail, the last recorded.
type idChain struct{ head, tail int32 }

// transcript builds the single run of a transcript, message by message.
type transcript struct {
	w   *walker
	c   *Cassette
	run Run
	// answered reports whether the agent has answered in the last turn; a
	// user message starts a new turn only after an answer, so consecutive
	// user messages make one turn.
	answered bool
	// pending is every call in call order, a call's seq its place there;
	// waiting says by seq whether it is still without a result (a list,
	// not a set: a map a transcript was a tenth of what reading a small
	// one allocated), and pending[:head] have all had theirs. byID chains
	// the calls of each tool_call_id / tool_use id ("" for none) in call
	// order (an id may repeat), sameID[seq] the next of seq's id (-1 for
	// none). So a result finds its call in constant time by id, and the
	// first call waiting without rescanning the answered ones, for 24
	// bytes a call besides its id's entry.
	byID    map[string]idChain
	pending []callRef
	sameID  []int32
	waiting []bool
	head    int
	usage   usageSum
	// calls counts the calls added.
	calls int
}

// readTranscript converts an OpenAI or Anthropic transcript to a cassette of
// one run.
func readTranscript(w *walker, f detected) *Cassette {
	c := &Cassette{Format: f.format}
	if f.obj != nil {
		if m, ok := f.obj["model"].(string); ok {
			c.Model = m
		}
	}
	t := newTranscript(w, c)
	w.path = append(w.path[:0], f.at...)
	if f.bare {
		if f.format == FormatOpenAI {
			t.openaiCalls(f.msgs)
		} else {
			t.anthropicBlocks(f.msgs)
		}
		c.Runs = []Run{t.finish()}
		return c
	}
	for i, m := range f.msgs {
		if !f.one {
			w.pushIdx(i)
		}
		t.message(f.format, m)
		if !f.one {
			w.pop()
		}
	}
	if f.obj != nil {
		if _, ok := f.obj["usage"].(map[string]any); ok {
			t.usage = usageSum{} // the conversation's own total wins
			t.usage.add(f.obj["usage"])
		}
	}
	c.Runs = []Run{t.finish()}
	return c
}

func newTranscript(w *walker, c *Cassette) *transcript {
	return &transcript{w: w, c: c, byID: map[string]idChain{}}
}

// finish returns the run read, its tokens from the usage seen.
func (t *transcript) finish() Run {
	if n := len(t.run.Turns); n > 0 && !t.answered {
		t.run.Turns = t.run.Turns[:n-1] // the user's last word, never answered
	}
	t.run.Tokens = t.usage.tokens()
	return t.run
}

// message reads one message of a transcript, the value at the walker's
// path.
func (t *transcript) message(format Format, m any) {
	w := t.w
	msg, ok := m.(map[string]any)
	if !ok {
		w.typeError(m, `a message object {"role": ..., "content": ...}`)
		return
	}
	role, ok := msg["role"].(string)
	if !ok {
		if r, has := msg["role"]; has {
			w.push("role")
			w.typeError(r, `the message's role, a string such as "user" or "assistant"`)
			w.pop()
		} else {
			w.errorf(`missing "role": every message says who sent it ("user", "assistant", ...)`)
		}
		return
	}
	if t.c.Model == "" {
		if m, ok := msg["model"].(string); ok {
			t.c.Model = m
		}
	}
	if format == FormatOpenAI {
		t.openai(role, msg)
	} else {
		t.anthropic(role, msg)
	}
	t.usage.add(msg["usage"])
}

// readCompletion converts a Chat Completions response object to a
// cassette of one run per choice: the choices are samples of the same
// prompt. The response's usage is the run's tokens when there is one
// choice; it covers every choice otherwise and is not split.
func readCompletion(w *walker, f detected) *Cassette {
	c := &Cassette{Format: f.format}
	c.Model, _ = f.obj["model"].(string)
	for i, ch := range f.choices {
		w.path = append(w.path[:0], seg{key: "choices", idx: -1}, seg{idx: i})
		m, ok := ch.(map[string]any)
		if !ok {
			w.typeError(ch, `a choice {"message": {"role": "assistant", ...}}`)
			continue
		}
		msg, ok := m["message"]
		if !ok || msg == nil {
			w.errorf(`missing "message": a choice holds the assistant message chosen`)
			continue
		}
		at := []seg{{key: "choices", idx: -1}, {idx: i}, {key: "message", idx: -1}}
		one := readTranscript(w, detected{format: f.format, msgs: []any{msg}, at: at, one: true})
		if model := one.Model; c.Model == "" {
			c.Model = model
		}
		c.Runs = append(c.Runs, one.Runs...)
	}
	w.path = w.path[:0]
	if len(c.Runs) == 1 {
		var u usageSum
		u.add(f.obj["usage"])
		if tok := u.tokens(); tok != nil {
			c.Runs[0].Tokens = tok
		}
	}
	return c
}

// userTurn starts a new turn for a user message, unless the agent has not
// answered the current one yet.
func (t *transcript) userTurn(text string) {
	if t.c.Prompt == "" {
		t.c.Prompt = text
	}
	if len(t.run.Turns) > 0 && !t.answered {
		return
	}
	t.run.Turns = append(t.run.Turns, Turn{})
	t.answered = false
}

// turn returns the current turn, starting one for an agent that speaks
// before any user message.
func (t *transcript) turn() *Turn {
	if len(t.run.Turns) == 0 {
		t.run.Turns = append(t.run.Turns, Turn{})
	}
	t.answered = true
	return &t.run.Turns[len(t.run.Turns)-1]
}

// say records agent text: the last text of a turn is its final response.
func (t *transcript) say(text string) {
	tr := t.turn()
	if strings.TrimSpace(text) != "" {
		tr.FinalResponse = text
	}
}

// addCall appends a call to the current turn.
func (t *transcript) addCall(id string, c Call) {
	tr := t.turn()
	tr.Calls = append(tr.Calls, c)
	t.calls++
	seq := int32(len(t.pending))
	ch, seen := t.byID[id]
	switch {
	case !seen:
		ch = idChain{seq, seq}
	case ch.head < 0:
		t.sameID[ch.tail] = seq
		ch.head, ch.tail = seq, seq
	default:
		t.sameID[ch.tail] = seq
		ch.tail = seq
	}
	t.byID[id] = ch
	t.pending = append(t.pending, callRef{int32(len(t.run.Turns) - 1), int32(len(tr.Calls) - 1)})
	t.sameID = append(t.sameID, -1)
	t.waiting = append(t.waiting, true)
}

// result attaches a tool result to the first call with id still waiting
// for one; a result without an id to the first call still waiting (whose
// tool is name, when name is given). A result whose id no call has goes to
// the first waiting call recorded without an id, never to a call recorded
// with another id.
func (t *transcript) result(id, name string, result any, isError bool) {
	var seq int
	switch _, known := t.byID[id]; {
	case id != "" && known:
		seq = t.firstOf(id)
	case id != "":
		seq = t.firstOf("")
	default:
		seq = t.firstWaiting(name)
	}
	if seq < 0 {
		return // a result for no recorded call, or for one answered already
	}
	t.waiting[seq] = false
	for t.head < len(t.pending) && !t.waiting[t.head] {
		t.head++
	}
	c := t.call(t.pending[seq])
	c.Result = keptResult(result)
	c.IsError = isError
}

// firstOf returns the seq of the first call recorded with id ("" for
// none) still waiting for a result, dropping the answered ones before it
// from its chain; -1 when none is.
func (t *transcript) firstOf(id string) int {
	ch, ok := t.byID[id]
	if !ok {
		return -1
	}
	h := ch.head
	for h >= 0 && !t.waiting[h] {
		h = t.sameID[h]
	}
	if h != ch.head {
		ch.head = h
		t.byID[id] = ch
	}
	return int(h)
}

// firstWaiting returns the seq of the first call still waiting for a
// result (whose tool is name, when name is given); -1 when none is.
func (t *transcript) firstWaiting(name string) int {
	_, bare := splitMCP(name)
	for seq := t.head; seq < len(t.pending); seq++ {
		if t.waiting[seq] && (name == "" || t.call(t.pending[seq]).Tool == bare) {
			return seq
		}
	}
	return -1
}

func (t *transcript) call(r callRef) *Call { return &t.run.Turns[r.turn].Calls[r.call] }

// openai reads one Chat Completions message.
func (t *transcript) openai(role string, m map[string]any) {
	w := t.w
	switch role {
	case "user":
		t.userTurn(text(m["content"]))
	case "assistant":
		t.say(text(m["content"]))
		if tcs, ok := m["tool_calls"]; ok && tcs != nil {
			arr, ok := tcs.([]any)
			if !ok {
				w.push("tool_calls")
				w.typeError(tcs, "an array of tool calls")
				w.pop()
				break
			}
			w.push("tool_calls")
			t.openaiCalls(arr)
			w.pop()
		}
		if fc, ok := m["function_call"]; ok && fc != nil {
			w.push("function_call")
			t.openaiFunction("", fc)
			w.pop()
		}
	case "tool", "function":
		id, _ := m["tool_call_id"].(string)
		name := ""
		if id == "" {
			name, _ = m["name"].(string)
		}
		isErr, _ := m["is_error"].(bool)
		if b, ok := m["isError"].(bool); ok {
			isErr = b
		}
		t.result(id, name, keptToolResult(m["content"]), isErr)
	}
}

// openaiCalls reads the elements of tool_calls, the array at the
// walker's path.
func (t *transcript) openaiCalls(arr []any) {
	t.turn()
	for i, tc := range arr {
		t.w.pushIdx(i)
		t.openaiCall(tc)
		t.w.pop()
	}
}

// openaiCall reads one element of tool_calls: {id, type, function: {name,
// arguments}}.
func (t *transcript) openaiCall(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		t.w.typeError(v, `a tool call {"id": ..., "function": {"name": ..., "arguments": ...}}`)
		return
	}
	id, _ := m["id"].(string)
	fn, ok := m["function"]
	if !ok {
		t.w.errorf(`missing "function": a tool call says which function it calls, {"name": ..., "arguments": ...}`)
		return
	}
	t.w.push("function")
	t.openaiFunction(id, fn)
	t.w.pop()
}

// openaiFunction reads {name, arguments}, arguments a JSON string.
func (t *transcript) openaiFunction(id string, v any) {
	fn, ok := v.(map[string]any)
	if !ok {
		t.w.typeError(v, `a function call {"name": ..., "arguments": ...}`)
		return
	}
	name, ok := t.toolName(fn)
	if !ok {
		return
	}
	c := Call{Tool: name, Arguments: arguments(fn["arguments"])}
	c.Server, c.Tool = splitMCP(name)
	t.addCall(id, c)
}

// toolName returns the "name" of a tool call, recording a problem when it
// is missing or empty.
func (t *transcript) toolName(m map[string]any) (string, bool) {
	n, ok := m["name"]
	if !ok {
		t.w.errorf(`missing "name": every tool call names the tool it calls`)
		return "", false
	}
	s, ok := n.(string)
	if !ok || s == "" {
		t.w.push("name")
		t.w.typeError(n, "the name of the called tool, a non-empty string")
		t.w.pop()
		return "", false
	}
	return s, true
}

// arguments reads an OpenAI arguments string as JSON text. A string that
// is not JSON is kept as a JSON string (orchestration.syntax scores it as
// malformed); an empty one means no arguments. A value that is already
// decoded is encoded.
func arguments(v any) JSON {
	s, ok := v.(string)
	if !ok {
		return JSONOf(v)
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if out, ok := compactText([]byte(s)); ok {
		if out == "null" {
			return ""
		}
		return out
	}
	return JSONOf(s)
}

// decodeAny decodes data as json.Unmarshal into an any does, and reports
// false where json.Unmarshal fails (FuzzArguments holds the two equal). It
// decodes with the document's decoder, without encoding/json's reflection;
// only a value with a repeated key, of which encoding/json keeps the last
// and the decoder the first, is left to encoding/json.
func decodeAny(data []byte) (any, bool) {
	if !validJSON(data) {
		return nil, false
	}
	d := decoder{data: data, w: &walker{}, rangeOff: -1}
	v, _ := d.value(d.space(0))
	switch {
	case d.rangeOff >= 0:
		return nil, false
	case len(d.w.dups) > 0 || d.w.dropped > 0:
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, false
		}
		return out, true
	}
	return v, true
}

// anthropic reads one Messages API message.
func (t *transcript) anthropic(role string, m map[string]any) {
	w := t.w
	content := m["content"]
	blocks, isBlocks := content.([]any)
	switch role {
	case "user":
		if !isBlocks {
			t.userTurn(text(content))
			return
		}
		onlyResults := true
		w.push("content")
		for i, b := range blocks {
			b, _ := b.(map[string]any)
			if b["type"] == "tool_result" {
				w.pushIdx(i)
				t.anthropicResult(b)
				w.pop()
			} else {
				onlyResults = false
			}
		}
		w.pop()
		if !onlyResults {
			t.userTurn(text(content))
		}
	case "assistant":
		if !isBlocks {
			t.say(text(content))
			return
		}
		w.push("content")
		t.anthropicBlocks(blocks)
		w.pop()
	}
}

// anthropicBlocks reads the content blocks of an assistant message, the
// array at the walker's path: text is said, tool_use blocks are calls.
func (t *transcript) anthropicBlocks(blocks []any) {
	w := t.w
	t.turn()
	var said strings.Builder
	for i, b := range blocks {
		b, _ := b.(map[string]any)
		w.pushIdx(i)
		switch b["type"] {
		case "text":
			s, _ := b["text"].(string)
			said.WriteString(s)
		case "tool_use":
			if name, ok := t.toolName(b); ok {
				id, _ := b["id"].(string)
				c := Call{Arguments: JSONOf(b["input"])}
				c.Server, c.Tool = splitMCP(name)
				t.addCall(id, c)
			}
		case "mcp_tool_use":
			if name, ok := t.toolName(b); ok {
				id, _ := b["id"].(string)
				server, _ := b["server_name"].(string)
				t.addCall(id, Call{Server: server, Tool: name, Arguments: JSONOf(b["input"])})
			}
		case "mcp_tool_result":
			t.anthropicResult(b)
		}
		w.pop()
	}
	t.say(said.String())
}

// anthropicResult reads a tool_result block: {tool_use_id, content,
// is_error}.
func (t *transcript) anthropicResult(b map[string]any) {
	id, _ := b["tool_use_id"].(string)
	isErr, _ := b["is_error"].(bool)
	t.result(id, "", keptToolResult(b["content"]), isErr)
}

// toolResult makes an MCP CallToolResult of a transcript's tool output: a
// string is one text block, an array of blocks is kept as the content.
func toolResult(v any) map[string]any {
	switch v := v.(type) {
	case string:
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": v}}}
	case []any:
		return map[string]any{"content": v}
	case nil:
		return map[string]any{"content": []any{}}
	}
	return map[string]any{"content": []any{v}}
}

// keptToolResult is toolResult(v) as keptResult keeps it, written
// straight from a string without the maps.
func keptToolResult(v any) any {
	if s, ok := v.(string); ok {
		return oneTextResult(s)
	}
	return keptResult(toolResult(v))
}

// text is the text of a message's content: the string itself, or its text
// blocks (parts) joined.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			p, _ := p.(map[string]any)
			if p["type"] == "text" {
				s, _ := p["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// splitMCP splits a tool name of the form mcp__<server>__<tool> into its
// server and tool; any other name is a bare tool.
func splitMCP(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", name
	}
	i := strings.Index(rest, "__")
	if i <= 0 || i+2 == len(rest) {
		return "", name
	}
	return rest[:i], rest[i+2:]
}

// usageSum adds up the usage objects of a transcript, in either API's
// naming.
type usageSum struct {
	seen                         bool
	input, cached, output, total int64
}

// add counts one usage object. Cached input tokens are part of the input
// in either naming: OpenAI counts them inside prompt_tokens (input_tokens
// in the Responses API) and names them in prompt_tokens_details (or
// input_tokens_details).cached_tokens; Anthropic counts them beside
// input_tokens, as cache_read_input_tokens, and the tokens written to its
// cache as cache_creation_input_tokens, both added to the input here.
func (u *usageSum) add(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	in, okIn := firstCount(m, "prompt_tokens", "input_tokens")
	out, okOut := firstCount(m, "completion_tokens", "output_tokens")
	tot, okTot := firstCount(m, "total_tokens")
	if !okIn && !okOut && !okTot {
		return
	}
	written, _ := firstCount(m, "cache_creation_input_tokens")
	cached, anthropic := firstCount(m, "cache_read_input_tokens")
	if anthropic || written > 0 {
		in = addCount(addCount(in, written), cached)
	} else {
		cached = openAICached(m)
	}
	u.seen = true
	u.input = addCount(u.input, in)
	u.cached = addCount(u.cached, min(cached, in))
	u.output = addCount(u.output, out)
	if okTot {
		u.total = addCount(u.total, tot)
	} else {
		u.total = addCount(u.total, addCount(in, out))
	}
}

// addCount adds two token counts of 0 to maxCount, stopping at maxCount:
// a sum over many messages or spans never wraps to a negative total that
// would pass any budget.
func addCount(a, b int64) int64 {
	return min(a+b, maxCount)
}

func (u *usageSum) tokens() *Tokens {
	if !u.seen {
		return nil
	}
	return &Tokens{Input: u.input, Cached: u.cached, Output: u.output, Total: u.total}
}

// openAICached is the cached_tokens of an OpenAI usage object's
// prompt_tokens_details (Chat Completions) or input_tokens_details
// (Responses), 0 when it names none.
func openAICached(m map[string]any) int64 {
	for _, k := range [...]string{"prompt_tokens_details", "input_tokens_details"} {
		if d, ok := m[k].(map[string]any); ok {
			if n, ok := firstCount(d, "cached_tokens"); ok {
				return n
			}
		}
	}
	return 0
}

// firstCount returns the first of keys holding a non-negative integer; a
// count past maxCount is read as maxCount, so a huge count is never
// dropped (and read as no tokens at all).
func firstCount(m map[string]any, keys ...string) (int64, bool) {
	for _, k := range keys {
		if f, ok := m[k].(float64); ok && f >= 0 && f == math.Trunc(f) {
			return int64(min(f, maxCount)), true
		}
	}
	return 0, false
}
