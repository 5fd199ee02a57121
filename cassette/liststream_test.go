package cassette

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// langChainDraw draws LangChain message lists in both forms a program saves
// them (messages_to_dict's {"type", "data"}, dumpd's constructors), bare or
// under a graph state's "messages" beside other members, mostly as they
// are written, with near misses mixed in at a low rate (a message of no
// known class, a member repeated, a number out of range, a state member
// that names a tool, a call-shaped object nested about as deep as the
// audit looks, a tool call without a name).
type langChainDraw struct {
	draws
	calls int
	lc    bool // the constructor form
}

// message is one message of class (the constructor's class) or typ (the
// dict form's type) with fields.
func (g *langChainDraw) message(class, typ string, fields ord) any {
	if g.maybe() {
		switch g.rng.IntN(5) {
		case 0:
			class, typ = "Mystery", "mystery"
		case 1:
			fields = append(fields, fields[0])
		case 2:
			fields = append(fields, [2]any{"n", raw("1e999")})
		case 3:
			fields = append(fields, [2]any{"annotations", []any{ghost(g.pick(58, 59, 60, 61).(int))}})
		default:
			return g.pick(nil, "ai", []any{})
		}
	}
	if g.lc {
		return ord{{"lc", 1.0}, {"type", "constructor"}, {"id", []any{"langchain_core", "messages", class}}, {"kwargs", fields}}
	}
	return ord{{"type", typ}, {"data", fields}}
}

func (g *langChainDraw) doc() string {
	g.calls, g.lc = 0, g.rng.IntN(2) == 0
	var msgs []any
	if g.rng.IntN(2) == 0 {
		msgs = append(msgs, g.message("SystemMessage", "system", ord{{"content", "Be brief."}}))
	}
	for range 1 + g.rng.IntN(3) {
		msgs = append(msgs, g.message("HumanMessage", "human", ord{{"content", g.pick("hi", "find it", "")}}))
		for range g.rng.IntN(4) {
			var calls, answers []any
			for range 1 + g.rng.IntN(3) {
				id := fmt.Sprintf("call_%d", g.calls)
				g.calls++
				call := ord{{"name", g.pick("search", "mcp__fs__read_file", "book")}, {"args", ord{{"q", "x"}}}, {"id", id}, {"type", "tool_call"}}
				if g.maybe() {
					call = call[1:]
				}
				calls = append(calls, call)
				answer := ord{{"content", g.pick("21C", "", "no such file")}, {"tool_call_id", id}}
				if g.rng.IntN(5) == 0 {
					answer = append(answer, [2]any{"status", "error"})
				}
				answers = append(answers, g.message("ToolMessage", "tool", answer))
			}
			ai := ord{{"content", g.pick("", "let me look")}, {"tool_calls", calls}}
			if g.rng.IntN(3) == 0 {
				ai = append(ai, [2]any{"response_metadata", ord{{"model_name", "gpt-4o"}}},
					[2]any{"usage_metadata", ord{{"input_tokens", 10.0}, {"output_tokens", 2.0}, {"total_tokens", 12.0}}})
			}
			if g.rng.IntN(4) == 0 {
				ai = append(ai, [2]any{"name", "researcher"})
			}
			msgs = append(append(msgs, g.message("AIMessage", "ai", ai)), answers...)
		}
		msgs = append(msgs, g.message("AIMessage", "ai", ord{{"content", "done"}}))
	}
	return g.document(msgs, "messages", [][2]any{{"model", g.pick("gpt-4o", 3.0)}, {"next", []any{"agent"}}, {"config", ord{{"thread_id", "1"}}}},
		[2]any{"name", "ghost"}, [2]any{"arguments", ord{{"q", 1.0}}}, [2]any{"messages", []any{}}, [2]any{"state", ghost(g.pick(62, 63, 64, 65).(int))})
}

// TestReadLangChainAsGeneric: readLangChainMessages reads what the generic
// path reads. It draws 3,000 message lists, half with no near miss and
// half with near misses at a rate of one in twenty, each read by Read and
// by the generic path alone: the same cassette and the same errors. A
// refusal leaves nothing recorded, and a draw of the first half that the
// generic path reads without a problem is one readLangChainMessages must
// read.
func TestReadLangChainAsGeneric(t *testing.T) {
	took := asGeneric(t, 3000, func(i int, miss float64) []byte {
		g := &langChainDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 42)), miss}}
		return []byte(g.doc())
	}, (*decoder).readLangChainMessages, FormatLangChain)
	if took[FormatLangChain] < 1500 {
		t.Errorf("readLangChainMessages read %d of the 3,000 draws, want at least 1,500", took[FormatLangChain])
	}
}

// modelListDraw draws AI SDK ModelMessage lists (result.response.messages,
// result.responseMessages, a chat's stored messages),
// bare or in a result saved whole beside its model and usage, mostly as
// the SDK writes them, with near misses mixed in at a low rate (a message
// without a role or with UI parts, a part that is not an object or names
// no tool, a LangChain message first, a "responseMessages" beside, a
// member repeated, a number out of range, a call-shaped object nested
// about as deep as the audit looks).
type modelListDraw struct {
	draws
	calls int
}

func (g *modelListDraw) message(m ord) any {
	if !g.maybe() {
		return m
	}
	switch g.rng.IntN(6) {
	case 0:
		return m[1:]
	case 1:
		return append(ord{m[0]}, [2]any{"parts", []any{ord{{"type", "text"}, {"text", "x"}}}})
	case 2:
		return append(m, m[0])
	case 3:
		return append(m, [2]any{"n", raw("1e999")})
	case 4:
		return append(m, [2]any{"providerOptions", ghost(g.pick(58, 59, 60, 61).(int))})
	}
	return g.pick(nil, "user", 2.0)
}

func (g *modelListDraw) part(p ord) any {
	if !g.maybe() {
		return p
	}
	switch g.rng.IntN(3) {
	case 0:
		return g.pick("text", nil)
	case 1:
		return p[:1]
	}
	return append(p, [2]any{"toolName", 5.0})
}

func (g *modelListDraw) doc() string {
	g.calls = 0
	msgs := []any{g.message(ord{{"role", "user"}, {"content", g.pick("hi", "find it")}})}
	if g.maybe() { // a LangChain message first, with a role or without
		msgs[0] = g.pick(ord{{"type", "human"}, {"data", ord{{"content", "hi"}}}},
			ord{{"role", "user"}, {"content", "hi"}, {"lc", 1.0}, {"type", "constructor"}, {"id", []any{"HumanMessage"}}, {"kwargs", ord{{"content", "hi"}}}})
	}
	exchanges := 1 + g.rng.IntN(4)
	if g.rng.IntN(10) == 0 {
		exchanges = 0 // text alone: no ModelMessages to detect
	}
	for range exchanges {
		var calls, results []any
		for range 1 + g.rng.IntN(3) {
			id := fmt.Sprintf("call_%d", g.calls)
			g.calls++
			name := g.pick("search", "mcp__fs__read_file", "book")
			if g.rng.IntN(4) == 0 { // AI SDK 4
				calls = append(calls, g.part(ord{{"type", "tool-call"}, {"toolCallId", id}, {"toolName", name}, {"args", ord{{"q", "x"}}}}))
				results = append(results, g.part(ord{{"type", "tool-result"}, {"toolCallId", id}, {"toolName", name}, {"result", "ok"}, {"isError", g.pick(false, true)}}))
				continue
			}
			calls = append(calls, g.part(ord{{"type", "tool-call"}, {"toolCallId", id}, {"toolName", name}, {"input", ord{{"q", "x"}}}}))
			output := g.pick(ord{{"type", "text"}, {"value", "21C"}}, ord{{"type", "json"}, {"value", ord{{"t", 21.0}}}},
				ord{{"type", "error-text"}, {"value", "no such file"}}, ord{{"type", "content"}, {"value", []any{ord{{"type", "text"}, {"text", "ok"}}}}})
			results = append(results, g.part(ord{{"type", "tool-result"}, {"toolCallId", id}, {"toolName", name}, {"output", output}}))
		}
		assistant := append([]any{ord{{"type", "text"}, {"text", "let me look"}}}, calls...)
		msgs = append(msgs, g.message(ord{{"role", "assistant"}, {"content", assistant}}), g.message(ord{{"role", "tool"}, {"content", results}}))
	}
	msgs = append(msgs, g.message(ord{{"role", "assistant"}, {"content", []any{ord{{"type", "text"}, {"text", "done"}}}}}))
	key := "messages"
	if g.rng.IntN(3) == 0 {
		key = "responseMessages" // AI SDK 7's result
	}
	return g.document(msgs, key, [][2]any{{"response", ord{{"modelId", "gpt-4o-mini"}, {"id", "resp_1"}}},
		{g.pick("usage", "totalUsage").(string), ord{{"inputTokens", 30.0}, {"outputTokens", 5.0}, {"totalTokens", 35.0}}}},
		[2]any{"responseMessages", []any{}}, [2]any{"messages", []any{}}, [2]any{"steps", ghost(g.pick(62, 63, 64, 65).(int))}, [2]any{"name", "ghost"})
}

// TestReadModelListAsGeneric: readModelList reads what the generic path
// reads, as TestReadLangChainAsGeneric holds readLangChainMessages, over
// 3,000 drawn ModelMessage lists.
func TestReadModelListAsGeneric(t *testing.T) {
	took := asGeneric(t, 3000, func(i int, miss float64) []byte {
		g := &modelListDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 43)), miss}}
		return []byte(g.doc())
	}, (*decoder).readModelList, FormatAISDKMessages)
	if took[FormatAISDKMessages] < 1500 {
		t.Errorf("readModelList read %d of the 3,000 draws, want at least 1,500", took[FormatAISDKMessages])
	}
}

// uiListDraw draws AI SDK UIMessage lists (useChat's messages, AI SDK 5
// tool parts and AI SDK 4 tool invocations), bare or under "messages",
// with near misses mixed in at a low rate (a message without a role, a
// ModelMessage tool part in a content, parts that are not an array, a tool
// part without its id or state, a LangChain message first, a
// "responseMessages" beside, a member repeated, a number out of range, a
// call-shaped object nested about as deep as the audit looks).
type uiListDraw struct {
	draws
	calls int
}

func (g *uiListDraw) message(m ord) any {
	if !g.maybe() {
		return m
	}
	switch g.rng.IntN(7) {
	case 0:
		return m[1:]
	case 1:
		return append(m, [2]any{"content", []any{ord{{"type", "tool-call"}, {"toolCallId", "x"}, {"toolName", "t"}, {"input", ord{}}}}})
	case 2:
		return append(ord{m[0]}, [2]any{"parts", g.pick("text", ord{})})
	case 3:
		return append(m, m[0])
	case 4:
		return append(m, [2]any{"n", raw("1e999")})
	case 5:
		return append(m, [2]any{"metadata", ghost(g.pick(58, 59, 60, 61).(int))})
	}
	return g.pick(nil, "user", 2.0)
}

func (g *uiListDraw) toolPart() any {
	id := fmt.Sprintf("call_%d", g.calls)
	g.calls++
	name := g.pick("search", "book", "mcp__fs__read_file").(string)
	var p ord
	switch g.rng.IntN(4) {
	case 0: // AI SDK 4
		p = ord{{"type", "tool-invocation"}, {"toolInvocation", ord{{"state", "result"}, {"toolCallId", id}, {"toolName", name}, {"args", ord{{"q", "x"}}}, {"result", "ok"}}}}
	case 1:
		p = ord{{"type", "dynamic-tool"}, {"toolName", name}, {"toolCallId", id}, {"state", "output-error"}, {"input", ord{}}, {"errorText", "no such file"}}
	default:
		p = ord{{"type", "tool-" + name}, {"toolCallId", id}, {"state", g.pick("output-available", "input-available", "output-denied")}, {"input", ord{{"q", "x"}}}, {"output", ord{{"t", 21.0}}}}
	}
	if g.maybe() {
		return p[:1]
	}
	return p
}

func (g *uiListDraw) doc() string {
	g.calls = 0
	msgs := []any{g.message(ord{{"id", "m0"}, {"role", "user"}, {"parts", []any{ord{{"type", "text"}, {"text", "hi"}}}}})}
	if g.maybe() { // a LangChain message first, with a role and parts or without
		msgs[0] = g.pick(ord{{"type", "human"}, {"data", ord{{"content", "hi"}}}},
			ord{{"role", "user"}, {"parts", []any{ord{{"type", "text"}, {"text", "hi"}}}}, {"lc", 1.0}, {"type", "constructor"}, {"id", []any{"HumanMessage"}}, {"kwargs", ord{{"content", "hi"}}}})
	}
	turns := 1 + g.rng.IntN(3)
	for k := range turns {
		parts := []any{ord{{"type", "step-start"}}}
		for range g.rng.IntN(4) {
			parts = append(parts, g.toolPart())
		}
		parts = append(parts, ord{{"type", "text"}, {"text", "done"}})
		msgs = append(msgs, g.message(ord{{"id", fmt.Sprintf("a%d", k)}, {"role", "assistant"}, {"parts", parts}}))
		if k < turns-1 {
			msgs = append(msgs, g.message(ord{{"role", "user"}, {"content", "more"}, {"parts", []any{ord{{"type", "text"}, {"text", "more"}}}}}))
		}
	}
	modelMsgs := []any{ord{{"role", "assistant"}, {"content", []any{ord{{"type", "tool-call"}, {"toolCallId", "x"}, {"toolName", "t"}, {"input", ord{}}}}}}}
	return g.document(msgs, "messages", [][2]any{{"id", "chat_1"}},
		[2]any{"responseMessages", []any{}}, [2]any{"responseMessages", modelMsgs}, [2]any{"messages", []any{}}, [2]any{"state", ghost(g.pick(62, 63, 64, 65).(int))})
}

// TestReadUIListAsGeneric: readUIList reads what the generic path reads,
// as TestReadLangChainAsGeneric holds readLangChainMessages, over 3,000
// drawn UIMessage lists.
func TestReadUIListAsGeneric(t *testing.T) {
	took := asGeneric(t, 3000, func(i int, miss float64) []byte {
		g := &uiListDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 44)), miss}}
		return []byte(g.doc())
	}, (*decoder).readUIList, FormatAISDKUIMessages)
	if took[FormatAISDKUIMessages] < 1200 {
		t.Errorf("readUIList read %d of the 3,000 draws, want at least 1,200", took[FormatAISDKUIMessages])
	}
}

// itemListDraw draws lists of Responses items and response objects: an
// Agents SDK history (to_input_list: input messages, function calls and
// their outputs, reasoning, handoffs to another agent) or a client's log
// of response objects, mostly as written, with near misses mixed in at a
// low rate (an item of no known type, a call without its name, a message
// of another format's parts, a LangChain message or a Claude Code event
// first, every element with a role, a member repeated, a number out of
// range, a call-shaped object nested about as deep as the audit looks).
type itemListDraw struct {
	draws
	calls int
}

func (g *itemListDraw) item(m ord) any {
	if !g.maybe() {
		return m
	}
	switch g.rng.IntN(6) {
	case 0:
		return append(ord{{"type", "mystery"}}, m[1:]...)
	case 1:
		return append(m, m[0])
	case 2:
		return append(m, [2]any{"n", raw("1e999")})
	case 3:
		return append(m, [2]any{"metadata", ghost(g.pick(59, 60, 61, 62).(int))})
	case 4:
		return ord{{"role", "assistant"}, {"content", []any{ord{{"type", "tool-call"}, {"toolCallId", "x"}, {"toolName", "t"}, {"input", ord{}}}}}}
	}
	return g.pick(nil, "item", 2.0)
}

func (g *itemListDraw) call() []any {
	id := fmt.Sprintf("call_%d", g.calls)
	g.calls++
	name := g.pick("search", "book", "mcp__fs__read_file", "transfer_to_billing").(string)
	output := g.pick("21C", `{"ok": true}`, "").(string)
	if name == "transfer_to_billing" {
		output = `{"assistant": "billing"}`
	}
	fc := ord{{"type", "function_call"}, {"call_id", id}, {"name", name}, {"arguments", `{"q":"x"}`}, {"id", "fc_" + id}, {"status", "completed"}}
	if g.maybe() {
		fc = fc[:2]
	}
	return []any{g.item(fc), g.item(ord{{"type", "function_call_output"}, {"call_id", id}, {"output", output}})}
}

func (g *itemListDraw) doc() string {
	g.calls = 0
	items := []any{g.item(ord{{"role", "user"}, {"content", g.pick("hi", "find it")}})}
	if g.maybe() {
		items[0] = g.pick(ord{{"type", "human"}, {"data", ord{{"content", "hi"}}}},
			ord{{"type", "system"}, {"subtype", "init"}, {"session_id", "s1"}})
	}
	for range 1 + g.rng.IntN(4) {
		if g.rng.IntN(4) == 0 {
			items = append(items, g.item(ord{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", []any{}}}))
		}
		if g.rng.IntN(3) == 0 { // a response object, as a client logs it
			items = append(items, ord{{"id", "resp_1"}, {"object", "response"}, {"model", "gpt-4.1"}, {"output", g.call()[:1]},
				{"usage", ord{{"input_tokens", 10.0}, {"output_tokens", 2.0}, {"total_tokens", 12.0}}}})
			continue
		}
		items = append(items, g.call()...)
	}
	items = append(items, g.item(ord{{"type", "message"}, {"role", "assistant"}, {"status", "completed"},
		{"content", []any{ord{{"type", "output_text"}, {"text", "done"}, {"annotations", []any{}}}}}}))
	if g.maybe() { // every element with a role, an AI SDK part among them; no item of the Responses API
		items = g.pick([]any{ord{{"role", "user"}, {"content", "hi"}},
			ord{{"type", "message"}, {"role", "assistant"}, {"content", []any{ord{{"type", "output_text"}, {"text", "x"}}}}},
			ord{{"role", "assistant"}, {"content", []any{ord{{"type", "tool-call"}, {"toolCallId", "x"}, {"toolName", "t"}, {"input", ord{}}}}}}},
			[]any{ord{{"role", "user"}, {"content", "hi"}}, ord{{"type", "mystery"}}}).([]any)
	}
	var b strings.Builder
	writeJSON(&b, items)
	return b.String()
}

// TestReadItemListAsGeneric: readItemList reads what the generic path
// reads, as TestReadLangChainAsGeneric holds readLangChainMessages, over
// 3,000 drawn lists of Responses items and response objects.
func TestReadItemListAsGeneric(t *testing.T) {
	took := asGeneric(t, 3000, func(i int, miss float64) []byte {
		g := &itemListDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 45)), miss}}
		return []byte(g.doc())
	}, (*decoder).readItemList, FormatResponses)
	if took[FormatResponses] < 1500 {
		t.Errorf("readItemList read %d of the 3,000 draws, want at least 1,500", took[FormatResponses])
	}
}

// TestRealRecordingsReadAPieceAtATime: the recordings of the corpus that
// real programs wrote (the agent frameworks' corpus files and those of
// their newest versions, public benchmarks' records) are read a piece at a
// time when their format is one readPiecewise's readers take, but for the
// shapes named here, which are decoded whole and why. A framework version
// that saves its messages in a new shape fails it, where the generators
// would not.
func TestRealRecordingsReadAPieceAtATime(t *testing.T) {
	whole := map[string]string{
		"anthropic_message_response.json":      "one message object, not a list",
		"openai_responses_mcp.json":            "one response object, not a list",
		"promptfoo_tool_calls.json":            "a bare list of calls, no messages",
		"promptfoo_content_blocks.json":        "a bare list of content blocks, no messages",
		"tau_bench_airline_task0_trial1.json":  "messages under \"traj\", detect's one array of messages under any key",
		"tau_bench_airline_task38_trial1.json": "as task0",
	}
	streamed := map[Format]bool{FormatOpenAI: true, FormatAnthropic: true, FormatOTel: true, FormatLangChain: true,
		FormatAISDKMessages: true, FormatAISDKUIMessages: true, FormatResponses: true}
	var files []string
	for _, g := range []string{"testdata/ok/*.json", "../cmd/mcptest/testdata/frameworks-new/*/*.json"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	read := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Read(f, data)
		if err != nil || !streamed[c.Format] {
			continue
		}
		d := newDecoder(data, &walker{})
		took := d.readPiecewise(d.space(0)) != nil
		d.done()
		why, listed := whole[filepath.Base(f)]
		switch {
		case listed && took:
			t.Errorf("%s (%s): read a piece at a time, but listed as decoded whole (%s)", f, c.Format, why)
		case !listed && !took:
			t.Errorf("%s (%s): decoded whole", f, c.Format)
		case took:
			read++
		}
	}
	if read < 30 {
		t.Errorf("%d recordings read a piece at a time, want the corpus's 30 or more", read)
	}
}
