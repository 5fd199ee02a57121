package cassette

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
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

// transcriptDraw draws Chat Completions transcripts: mostly of the plain
// shape readMessages reads, with every kind of near miss mixed in at a low
// rate (a member of another format, a content of parts, a key renamed or
// repeated, a result before its call or for no call, a name that is not
// one, arguments that are not JSON or nested deep, a root member beside
// the messages).
type transcriptDraw struct {
	rng   *rand.Rand
	miss  float64 // the rate of each near miss
	calls int
}

func (g *transcriptDraw) maybe() bool { return g.rng.Float64() < g.miss }

func (g *transcriptDraw) pick(s ...any) any { return s[g.rng.IntN(len(s))] }

func (g *transcriptDraw) doc() string {
	g.calls = 0
	var msgs []any
	if g.rng.IntN(2) == 0 {
		msgs = append(msgs, g.message(ord{{"role", "system"}, {"content", "Be brief."}}))
	}
	for range 1 + g.rng.IntN(3) {
		msgs = append(msgs, g.message(ord{{"role", "user"}, {"content", g.pick("hi", "", "find it", nil)}}))
		for range g.rng.IntN(4) {
			msgs = append(msgs, g.exchange()...)
		}
		msgs = append(msgs, g.message(ord{{"role", "assistant"}, {"content", g.pick("done", "", nil, "ok then")}}))
	}
	if g.maybe() {
		msgs = msgs[:0]
	}
	if g.maybe() && len(msgs) > 1 {
		i, j := g.rng.IntN(len(msgs)), g.rng.IntN(len(msgs))
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	var b strings.Builder
	if g.rng.IntN(3) == 0 {
		writeJSON(&b, msgs)
		return b.String()
	}
	root := ord{{"messages", msgs}}
	if g.rng.IntN(2) == 0 {
		root = append(root, [2]any{"model", g.pick("gpt-4o", "gpt-4.1-mini", 5.0, ord{{"name", "x"}})})
	}
	if g.rng.IntN(2) == 0 {
		root = append(root, [2]any{"usage", g.pick(
			ord{{"prompt_tokens", 12.0}, {"completion_tokens", 3.0}},
			ord{{"input_tokens", 7.0}, {"output_tokens", 2.0}},
			ord{{"prompt_tokens", 12.0}, {"prompt_tokens", 13.0}},
			"none")})
	}
	if g.maybe() {
		root = append(root, [2]any{g.pick("tools", "id", "responseMessages", "eval", "messages", "usage"), g.pick("x", []any{}, ord{{"task", "t"}, {"model", "m"}})})
	}
	g.rng.Shuffle(len(root), func(i, j int) { root[i], root[j] = root[j], root[i] })
	writeJSON(&b, root)
	return b.String()
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
		return append(m, [2]any{g.pick("type", "parts", "data", "options", "object", "lc").(string), g.pick("message", []any{}, ord{}, "trace")})
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
	return append(m, [2]any{"name", ord{{"name", "t"}, {"arguments", ord{}}}})
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
// reads. It draws 4,000 transcripts, half with no near miss and half with
// near misses at a rate of one in twenty, each read by Read (readMessages,
// or the generic path when it declines) and by the generic path alone: the
// same cassette and the same errors. A refusal leaves nothing recorded,
// and a draw of the first half that the generic path reads as OpenAI
// without a problem is one readMessages must read (the others: a member
// the audit finds call-shaped, a root usage of Anthropic's naming).
func TestReadMessagesAsGeneric(t *testing.T) {
	read := 0
	for i := range 4000 {
		g := &transcriptDraw{rng: rand.New(rand.NewPCG(uint64(i), 40))}
		if i >= 2000 {
			g.miss = 0.05
		}
		doc := []byte(g.doc())
		got, err := Read("t.json", doc)
		want, werr := readGeneric("t.json", doc)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("draw %d: errors differ:\n%v\n--- generic:\n%v\n--- doc:\n%s", i, err, werr, doc)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("draw %d: cassettes differ:\n%#v\n--- generic:\n%#v\n--- doc:\n%s", i, got, want, doc)
		}
		d := newDecoder(doc, &walker{})
		c := d.readMessages(d.space(0))
		switch {
		case c != nil:
			read++
		case !d.clean() || len(d.w.path) != 0:
			t.Fatalf("draw %d: refused but left %d problems, path %v", i, len(d.w.probs)+len(d.w.dups), d.w.path)
		case i < 2000 && werr == nil && want.Format == FormatOpenAI:
			t.Fatalf("draw %d: plain, read as %s without a problem, but refused:\n%s", i, want.Format, doc)
		}
		d.done()
	}
	if read < 2000 {
		t.Errorf("readMessages read %d of the 4,000 draws, want at least 2,000", read)
	}
}
