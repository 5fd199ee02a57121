package cassette

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ord is a JSON object written with its members in the order given, a key
// possibly twice.
type ord [][2]any

// raw is JSON text written as it is.
type raw string

func writeJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case ord:
		b.WriteByte('{')
		for i, kv := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, kv[0])
			b.WriteByte(':')
			writeJSON(b, kv[1])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case raw:
		b.WriteString(string(v))
	default:
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		b.Write(out)
	}
}

// draws is what every document drawer here shares: its source of
// randomness and its rate of near misses.
type draws struct {
	rng  *rand.Rand
	miss float64
}

// maybe reports whether to make a near miss here.
func (g *draws) maybe() bool { return g.rng.Float64() < g.miss }

// pick is one of s, drawn.
func (g *draws) pick(s ...any) any { return s[g.rng.IntN(len(s))] }

// document writes msgs as a bare array a third of the time, else under key
// in a root object beside each of members with even odds, and one of
// misses when a near miss is drawn, the root's members in any order.
func (g *draws) document(msgs []any, key string, members [][2]any, misses ...[2]any) string {
	var b strings.Builder
	if g.rng.IntN(3) == 0 {
		writeJSON(&b, msgs)
		return b.String()
	}
	root := ord{{key, msgs}}
	for _, m := range members {
		if g.rng.IntN(2) == 0 {
			root = append(root, m)
		}
	}
	if g.maybe() {
		root = append(root, misses[g.rng.IntN(len(misses))])
	}
	g.rng.Shuffle(len(root), func(i, j int) { root[i], root[j] = root[j], root[i] })
	writeJSON(&b, root)
	return b.String()
}

// transcriptDraw draws Chat Completions transcripts: mostly of the plain
// shape readMessages reads, with every kind of near miss mixed in at a low
// rate (a member of another format, a content of parts, a key renamed or
// repeated, a result before its call or for no call, a name that is not
// one, arguments that are not JSON or nested deep, a root member beside
// the messages).
type transcriptDraw struct {
	draws
	calls int
	// anthropic draws Messages transcripts (content blocks, tool_use and
	// tool_result) in place of Chat Completions ones.
	anthropic bool
}

func (g *transcriptDraw) doc() string {
	g.calls = 0
	g.anthropic = g.rng.IntN(2) == 0
	var msgs []any
	if g.rng.IntN(2) == 0 && !g.anthropic {
		msgs = append(msgs, g.message(ord{{"role", "system"}, {"content", "Be brief."}}))
	}
	for range 1 + g.rng.IntN(3) {
		msgs = append(msgs, g.message(ord{{"role", "user"}, {"content", g.said("hi", "", "find it")}}))
		for range g.rng.IntN(4) {
			if g.anthropic != g.maybe() {
				msgs = append(msgs, g.blocksExchange()...)
			} else {
				msgs = append(msgs, g.exchange()...)
			}
		}
		msgs = append(msgs, g.message(ord{{"role", "assistant"}, {"content", g.said("done", "", "ok then")}}))
	}
	if g.rng.IntN(20) == 0 { // an assistant's messages alone, in parts
		msgs = []any{g.message(ord{{"role", "assistant"}, {"content", []any{ord{{"type", "text"}, {"text", "x"}}}}})}
	}
	if g.maybe() {
		msgs = msgs[:0]
	}
	if g.maybe() && len(msgs) > 1 {
		i, j := g.rng.IntN(len(msgs)), g.rng.IntN(len(msgs))
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	return g.document(msgs, "messages", [][2]any{
		{"model", g.pick("gpt-4o", "gpt-4.1-mini", 5.0, ord{{"name", "x"}}, ghost(62+g.rng.IntN(3)))},
		{"usage", g.pick(ord{{"prompt_tokens", 12.0}, {"completion_tokens", 3.0}}, ord{{"input_tokens", 7.0}, {"output_tokens", 2.0}},
			ord{{"prompt_tokens", 12.0}, {"prompt_tokens", 13.0}}, "none")},
		// What else a harness or a request saves beside the messages.
		{g.pick("system", "task_id", "modelId", "executed_tools").(string),
			g.pick("Be brief.", 7.0, "gpt-4o", []any{ord{{"name", "search"}}}, []any{"search"})},
	}, [2]any{g.pick("tools", "id", "responseMessages", "eval", "messages", "usage").(string), g.pick("x", []any{}, ord{{"task", "t"}, {"model", "m"}})})
}

// exchange is an assistant message calling tools and the tools' answers.
func (g *transcriptDraw) exchange() []any {
	n := 1 + g.rng.IntN(3)
	var calls, answers []any
	for range n {
		id := fmt.Sprintf("call_%d", g.calls)
		g.calls++
		if g.maybe() {
			id = g.pick("", "call_0", "call_x").(string)
		}
		call := ord{{"id", id}, {"type", "function"}, {"function", ord{{"name", g.name()}, {"arguments", g.arguments()}}}}
		if g.maybe() {
			call = ord{{"id", id}, {"function", g.pick(nil, "f", ord{{"arguments", "{}"}})}}
		}
		calls = append(calls, call)
		answer := ord{{"role", "tool"}, {"tool_call_id", id}, {"content", g.content()}}
		switch {
		case g.maybe():
			answer = ord{{"role", "tool"}, {"name", g.name()}, {"content", g.content()}}
		case g.maybe():
			answer = append(answer, [2]any{g.pick("is_error", "isError").(string), g.pick(true, false, "yes")})
		case g.maybe():
			answer[1][1] = "call_none"
		}
		answers = append(answers, g.message(answer))
	}
	if g.rng.IntN(2) == 0 {
		g.rng.Shuffle(len(answers), func(i, j int) { answers[i], answers[j] = answers[j], answers[i] })
	}
	assistant := ord{{"role", "assistant"}, {"content", g.pick(nil, "let me look", "")}, {"tool_calls", calls}}
	if g.maybe() {
		assistant = ord{{"role", "assistant"}, {"content", nil}, {"function_call", ord{{"name", g.name()}, {"arguments", "{}"}}}}
	}
	return append([]any{g.message(assistant)}, answers...)
}

// said is a text of a message: a string, or in Anthropic's transcripts
// often a list of text blocks.
func (g *transcriptDraw) said(s ...any) any {
	t := g.pick(s...)
	if g.anthropic && g.rng.IntN(2) == 0 {
		return []any{ord{{"type", "text"}, {"text", t}}}
	}
	if g.rng.IntN(6) == 0 {
		return nil
	}
	return t
}

// blocksExchange is an assistant message of text and tool_use blocks and
// a user message of the tools' tool_result blocks.
func (g *transcriptDraw) blocksExchange() []any {
	var uses, results []any
	if g.rng.IntN(2) == 0 {
		uses = append(uses, g.block(ord{{"type", "text"}, {"text", "let me look"}}))
	}
	for range 1 + g.rng.IntN(3) {
		id := fmt.Sprintf("toolu_%d", g.calls)
		g.calls++
		if g.maybe() {
			id = g.pick("", "toolu_0", "toolu_x").(string)
		}
		input := g.pick(ord{{"q", "x"}}, ord{}, ord{{"city", "Paris"}})
		if g.maybe() {
			input = g.arguments()
		}
		uses = append(uses, g.block(ord{{"type", g.pick("tool_use", "tool_use", "mcp_tool_use")}, {"id", id}, {"name", g.name()}, {"input", input}}))
		result := ord{{"type", "tool_result"}, {"tool_use_id", id}, {"content", g.pick("21C", []any{ord{{"type", "text"}, {"text", "ok"}}}, "")}}
		if g.rng.IntN(5) == 0 {
			result = append(result, [2]any{"is_error", g.pick(true, false)})
		}
		results = append(results, g.block(result))
	}
	if g.rng.IntN(2) == 0 {
		g.rng.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	}
	for _, u := range uses { // a block's members in any order
		if b, ok := u.(ord); ok && g.rng.IntN(3) == 0 {
			g.rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		}
	}
	assistant := ord{{"role", "assistant"}, {"content", uses}}
	if g.rng.IntN(6) == 0 {
		assistant = append(ord{{"id", "msg_1"}, {"type", "message"}}, append(assistant, [2]any{"stop_reason", "tool_use"})...)
	}
	return []any{g.message(assistant), g.message(ord{{"role", "user"}, {"content", results}})}
}

// block returns a content block, or a near miss of it: another format's
// part, a block that is not an object or has no type.
func (g *transcriptDraw) block(b ord) any {
	if !g.maybe() {
		return b
	}
	switch g.rng.IntN(4) {
	case 0:
		b[0][1] = g.pick("tool-call", "tool-result", "output_text", "input_text", "image_url", "mystery")
		return b
	case 1:
		return b[1:]
	case 2:
		return g.pick("text", 3.0, nil)
	}
	return append(b, [2]any{"name", "t"})
}

// message returns m, or a near miss of it.
func (g *transcriptDraw) message(m ord) any {
	if !g.maybe() {
		if g.rng.IntN(8) == 0 {
			m = append(m, [2]any{g.pick("name", "refusal", "model", "id").(string), g.pick("alice", nil, "gpt-4o")})
		}
		if g.rng.IntN(10) == 0 {
			m = append(m, [2]any{"usage", ord{{"prompt_tokens", 4.0}, {"completion_tokens", 1.0}}})
		}
		return m
	}
	switch g.rng.IntN(9) {
	case 0:
		return append(m, [2]any{g.pick("type", "type", "parts", "data", "options", "object", "lc").(string),
			g.pick("message", []any{}, ord{}, "trace", "assistant", "reasoning", "function_call_output")})
	case 1:
		parts := []any{ord{{"type", g.pick("text", "tool_use", "output_text", "tool-call")}, {"text", "x"}}}
		return append(ord{m[0]}, [2]any{"content", parts})
	case 2:
		return append(m, [2]any{"content", ord{{"format", 2.0}, {"parts", []any{}}}})
	case 3:
		return append(m, m[0])
	case 4:
		return append(ord{{g.pick("rol", "Role", "role").(string), g.pick(5.0, nil, "user")}}, m[1:]...)
	case 5:
		return m[1:]
	case 6:
		return g.pick(nil, "message", 3.0, []any{})
	case 7:
		return append(m, [2]any{"content", raw("1e999")})
	}
	if g.rng.IntN(2) == 0 {
		return append(m, [2]any{"name", ord{{"name", "t"}, {"arguments", ord{}}}})
	}
	return append(m, [2]any{"annotations", []any{ghost(59 + g.rng.IntN(4))}})
}

// ghost is a call-shaped object nested in depth objects, about as deep as
// the audit looks for one (maxShapeDepth).
func ghost(depth int) any {
	var nest any = ord{{"name", "ghost"}, {"arguments", ord{{"q", 1.0}}}}
	for range depth {
		nest = ord{{"a", nest}}
	}
	return nest
}

func (g *transcriptDraw) name() any {
	if g.maybe() {
		return g.pick("", 7.0, nil, "mcp__", "mcp__a__")
	}
	return g.pick("search", "get_weather", "mcp__fs__read_file", "book")
}

func (g *transcriptDraw) arguments() any {
	switch {
	case g.maybe():
		return g.pick("", "not json", "null", "{\"a\":1,\"a\":2}", ord{{"q", "x"}}, 3.0)
	case g.maybe():
		return strings.Repeat(`{"a":`, 80) + "1" + strings.Repeat("}", 80)
	}
	return g.pick(`{"q":"x"}`, `{}`, `{"city":"Paris","unit":"c"}`, `{"n":1.5e3}`)
}

func (g *transcriptDraw) content() any {
	if g.maybe() {
		return g.pick(nil, []any{ord{{"type", "text"}, {"text", "a"}}}, ord{{"a", 1.0}}, 3.0)
	}
	return g.pick("21C", "", "no such file", `{"k":"v"}`, "line\nbreak \u2028 \"quoted\"")
}

// TestReadMessagesAsGeneric: readMessages reads what the generic path
// reads. It draws 4,000 transcripts of either format, half with no near
// miss and half with near misses at a rate of one in twenty (a call of
// the other format among them), each read by Read (readMessages,
// or the generic path when it declines) and by the generic path alone: the
// same cassette and the same errors. A refusal leaves nothing recorded,
// and a draw of the first half that the generic path reads as OpenAI
// without a problem is one readMessages must read (the others: a member
// the audit finds call-shaped).
// asGeneric holds read, a reader of a document a piece at a time, to the
// generic path over n drawn documents, draw(i, miss) the i-th (the first
// half with no near miss, the second with near misses at a rate of one
// in twenty): Read and the generic path alone give the same cassette and
// the same errors; read leaves nothing recorded when it declines, gives
// the generic path's format when it reads, and reads every draw of the
// first half that the generic path reads without a problem as one of
// formats. It returns how many draws read took, by format.
func asGeneric(t *testing.T, n int, draw func(i int, miss float64) []byte, read func(*decoder, int) *Cassette, formats ...Format) map[Format]int {
	t.Helper()
	took := map[Format]int{}
	for i := range n {
		miss := 0.0
		if i >= n/2 {
			miss = 0.05
		}
		doc := draw(i, miss)
		got, err := Read("t.json", doc)
		want, werr := readGeneric("t.json", doc)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("draw %d: errors differ:\n%v\n--- generic:\n%v\n--- doc:\n%s", i, err, werr, doc)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("draw %d: cassettes differ:\n%#v\n--- generic:\n%#v\n--- doc:\n%s", i, got, want, doc)
		}
		d := newDecoder(doc, &walker{})
		c := read(d, d.space(0))
		switch {
		case c != nil && (werr != nil || c.Format != want.Format):
			t.Fatalf("draw %d: read as %s, the generic path's %v (%v):\n%s", i, c.Format, formatOf(want), werr, doc)
		case c != nil:
			took[c.Format]++
		case !d.clean() || len(d.w.path) != 0:
			t.Fatalf("draw %d: refused but left %d problems, path %v", i, len(d.w.probs)+len(d.w.dups), d.w.path)
		case i < n/2 && werr == nil && slices.Contains(formats, want.Format):
			t.Fatalf("draw %d: plain, read as %s without a problem, but refused:\n%s", i, want.Format, doc)
		}
		d.done()
	}
	t.Logf("read %v of %d draws", took, n)
	return took
}

// formatOf is c's format, "" for none.
func formatOf(c *Cassette) Format {
	if c == nil {
		return ""
	}
	return c.Format
}

func TestReadMessagesAsGeneric(t *testing.T) {
	took := asGeneric(t, 4000, func(i int, miss float64) []byte {
		g := &transcriptDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 40)), miss}}
		return []byte(g.doc())
	}, (*decoder).readMessages, FormatOpenAI, FormatAnthropic)
	for _, f := range []Format{FormatOpenAI, FormatAnthropic} {
		if took[f] < 800 {
			t.Errorf("readMessages read %d transcripts as %s, want at least 800", took[f], f)
		}
	}
}

// TestStreamedAuditDepth: readMessages, readSpans and the list readers walk
// what they read at the depth the generic path's audit walks it, so a
// call-shaped object nested at and around the audit's limit (maxShapeDepth)
// is found by both or by neither: the fast reader reads the file exactly
// when the generic path reads it without a problem.
func TestStreamedAuditDepth(t *testing.T) {
	call := `{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}], "annotations": [GHOST]}, {"role": "tool", "tool_call_id": "c1", "content": "ok"}`
	span := `{"traceId": "t1", "spanId": "s1", "name": "execute_tool t", "attributes": [{"key": "gen_ai.tool.name", "value": {"stringValue": "t"}}], "links": [GHOST]}`
	model := `{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "t", "input": {}}], "providerOptions": [GHOST]}, {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "t", "output": {"type": "text", "value": "ok"}}]}`
	plainSpan := strings.Replace(span, "GHOST", "", 1)
	ui := `{"role": "user", "parts": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "parts": [{"type": "tool-t", "toolCallId": "c1", "state": "output-available", "input": {}, "output": "ok"}], "metadata": [GHOST]}`
	lc := `{"type": "ai", "data": {"content": "", "tool_calls": [{"name": "t", "args": {}, "id": "c1"}], "annotations": [GHOST]}}, {"type": "tool", "data": {"content": "ok", "tool_call_id": "c1"}}`
	docs := map[string]string{
		"messages":                  "[" + call + "]",
		"wrapped messages":          `{"model": "m", "messages": [` + call + `]}`,
		"spans":                     `{"resourceSpans": [{"scopeSpans": [{"spans": [` + span + `]}]}]}`,
		"LangChain messages":        "[" + lc + "]",
		"LangChain state":           `{"next": [], "messages": [` + lc + `]}`,
		"LangChain state's members": `{"state": [GHOST], "messages": [` + strings.Replace(lc, "GHOST", "", 1) + `]}`,
		"AI SDK messages":           "[" + model + "]",
		"AI SDK result":             `{"response": {"modelId": "m"}, "messages": [` + model + `]}`,
		"AI SDK result's members":   `{"steps": [GHOST], "messages": [` + strings.Replace(model, "GHOST", "", 1) + `]}`,
		"AI SDK UI messages":        "[" + ui + "]",
		"AI SDK chat":               `{"id": "chat", "messages": [` + ui + `]}`,
		"OTLP resource":             `{"resourceSpans": [{"resource": {"attributes": [GHOST]}, "scopeSpans": [{"spans": [` + plainSpan + `]}]}]}`,
		"OTLP scope":                `{"resourceSpans": [{"scopeSpans": [{"scope": {"name": "s", "attributes": [GHOST]}, "spans": [` + plainSpan + `]}]}]}`,
		"OTLP before 0.15":          `{"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": [` + span + `]}]}]}`,
		"Responses items":           `[{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"}, {"type": "function_call_output", "call_id": "c1", "output": "ok", "metadata": [GHOST]}]`,
	}
	for name, doc := range docs {
		refused := 0
		for depth := 50; depth < 64; depth++ {
			var b strings.Builder
			writeJSON(&b, ghost(depth))
			data := []byte(strings.Replace(doc, "GHOST", b.String(), 1))
			_, werr := readGeneric("t.json", data)
			d := newDecoder(data, &walker{})
			c := d.readPiecewise(d.space(0))
			if (c != nil) != (werr == nil) {
				t.Errorf("%s, a call-shaped object under %d objects: read %v, the generic path's error %v", name, depth, c != nil, werr)
			}
			if c == nil {
				refused++
			}
			d.done()
		}
		if refused == 0 || refused == 14 {
			t.Errorf("%s: %d of 14 depths refused, want the limit among them", name, refused)
		}
	}
}
