package cassette

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// genRun is one agent run a generator makes: its model calls, each with
// the tools it calls (their ids), in order.
type genRun struct {
	steps [][]string // the tool each call of each model call names
	ids   [][]string // the id of each call
}

// genRuns makes n runs of up to three model calls of up to two tool
// calls each, the last model call answering with no call; ids are unique,
// or, with reuse, the same in every run (as a scripted model's are).
func genRuns(rng *rand.Rand, n int, reuse bool) []genRun {
	tools := []string{"get-sum", "echo", "add", "search"}
	runs := make([]genRun, n)
	for r := range runs {
		steps := rng.Intn(3)
		for s := 0; s < steps; s++ {
			var names, ids []string
			for c := 0; c < 1+rng.Intn(2); c++ {
				names = append(names, tools[rng.Intn(len(tools))])
				id := fmt.Sprintf("call_%d_%d_%d", r, s, c)
				if reuse {
					id = fmt.Sprintf("call_%d_%d", s, c)
				}
				ids = append(ids, id)
			}
			runs[r].steps = append(runs[r].steps, names)
			runs[r].ids = append(runs[r].ids, ids)
		}
		runs[r].steps = append(runs[r].steps, nil)
		runs[r].ids = append(runs[r].ids, nil)
	}
	return runs
}

// genAISpans writes the runs as OpenLLMetry writes an agent loop with no
// span around it: each model call a chat span, a trace of its own, its
// conversation so far in gen_ai.input.messages, its tool calls in
// gen_ai.output.messages; with session, each span of run r names the
// session "s<r>"; with blind, no messages are recorded. The spans are in
// start order, runs one after the other.
func genAISpans(runs []genRun, session, blind bool) ([]byte, int) {
	var spans []string
	t := 1000
	for r, run := range runs {
		msgs := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": "prompt " + strconv.Itoa(r)}}}}
		for s, names := range run.steps {
			var out []any
			for c, name := range names {
				out = append(out, map[string]any{"type": "tool_call", "id": run.ids[s][c], "name": name, "arguments": map[string]any{"n": c}})
			}
			if len(out) == 0 {
				out = []any{map[string]any{"type": "text", "content": "answer " + strconv.Itoa(r)}}
			}
			in, _ := json.Marshal(msgs)
			outMsg, _ := json.Marshal([]any{map[string]any{"role": "assistant", "parts": out}})
			attrs := []string{oiAttr("gen_ai.operation.name", "chat"), oiNum("gen_ai.usage.input_tokens", 10), oiNum("gen_ai.usage.output_tokens", 1)}
			if !blind {
				attrs = append(attrs, oiAttr("gen_ai.input.messages", string(in)), oiAttr("gen_ai.output.messages", string(outMsg)))
			}
			if session {
				attrs = append(attrs, oiAttr("traceloop.association.properties.session_id", "s"+strconv.Itoa(r)))
			}
			id := fmt.Sprintf("%d%d", r, s)
			spans = append(spans, `{"traceId": "tr`+id+`", "spanId": "sp`+id+`", "name": "chat gpt-4o", "startTimeUnixNano": "`+
				strconv.Itoa(t)+`", "endTimeUnixNano": "`+strconv.Itoa(t+5)+`", "attributes": [`+strings.Join(attrs, ", ")+`]}`)
			t += 10
			msgs = append(msgs, map[string]any{"role": "assistant", "parts": out})
			for c := range names {
				msgs = append(msgs, map[string]any{"role": "tool", "parts": []any{map[string]any{"type": "tool_call_response", "id": run.ids[s][c], "response": "result " + run.ids[s][c]}}})
			}
		}
	}
	return oiDoc(spans...), len(spans)
}

// TestGeneratedRootlessRuns: agent runs whose model calls are traces of
// their own (OpenLLMetry with no workflow span), made at random in every
// mix (one to four runs, zero to two steps of calls, ids unique or the
// same in every run, a session id or none, messages or none), are either
// read as the runs they were, each with its calls and their results, or
// read with a warning that says the runs could not be told apart. No
// mix is read wrongly in silence.
func TestGeneratedRootlessRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(38))
	exact, warned := 0, 0
	for i := 0; i < 400; i++ {
		n := 1 + rng.Intn(4)
		reuse, session, blind := rng.Intn(3) == 0, rng.Intn(3) == 0, rng.Intn(5) == 0
		runs := genRuns(rng, n, reuse)
		doc, nspans := genAISpans(runs, session, blind)
		name := fmt.Sprintf("mix %d (%d runs, reuse %v, session %v, blind %v)", i, n, reuse, session, blind)
		c, err := Read("t.json", doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, want := callsByRun(c), genCalls(runs, blind)
		warnings := strings.Join(c.Warnings, " ")
		switch {
		case reflect.DeepEqual(got, want):
			exact++
			if joined := nspans > n && !blind; joined && len(c.Warnings) != 1 {
				t.Errorf("%s: read right, but with warnings %q, want the one that says runs were joined", name, c.Warnings)
			}
		case strings.Contains(warnings, "apart"):
			warned++
		default:
			t.Errorf("%s: read as %q with warnings %q, want %q or a warning that the runs could not be told apart", name, got, c.Warnings, want)
		}
		// Every mix with a session id, or unique ids and messages, is read
		// exactly; one with neither messages nor session says so.
		if (session || !reuse && !blind) && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read as %q, want %q", name, got, want)
		}
		if blind && !session && n > 1 && !strings.Contains(warnings, "record neither messages nor a session id") {
			t.Errorf("%s: no messages, no session, yet no warning: %q", name, c.Warnings)
		}
	}
	t.Logf("%d mixes read exactly, %d read with a warning that their runs could not be told apart", exact, warned)
	if exact == 0 || warned == 0 {
		t.Errorf("%d mixes read exactly, %d with a warning: the generator misses a case", exact, warned)
	}
}

// callsByRun is each run's calls as tool=result text.
func callsByRun(c *Cassette) [][]string {
	var got [][]string
	for _, r := range c.Runs {
		var calls []string
		for _, call := range r.callList() {
			calls = append(calls, call.Tool+"="+resultText(call.Result))
		}
		got = append(got, calls)
	}
	return got
}

// genCalls is callsByRun of the runs genAISpans wrote: with blind, no
// call is recorded.
func genCalls(runs []genRun, blind bool) [][]string {
	var want [][]string
	for _, r := range runs {
		var calls []string
		for s, names := range r.steps {
			for c, tool := range names {
				if !blind {
					calls = append(calls, tool+"=result "+r.ids[s][c])
				}
			}
		}
		want = append(want, calls)
	}
	return want
}

// genItems writes an Agents SDK run as items: handoffs (transfer_to_<agent>
// calls and their transfer messages) and tool calls, in the JS SDK's
// camelCase (function_call_result with callId) or the Python SDK's
// snake_case (function_call_output with call_id), and returns the items,
// the calls expected as agent:tool (the agent the last handoff named, ""
// before any) and the delegations between named agents.
func genItems(rng *rand.Rand, camel bool) ([]any, []string, []Delegation) {
	agents := []string{"triage", "sum_agent", "search_agent", "writer"}
	tools := []string{"get-sum", "echo", "search"}
	idKey, outType := "call_id", "function_call_output"
	if camel {
		idKey, outType = "callId", "function_call_result"
	}
	items := []any{map[string]any{"role": "user", "content": "go"}}
	var calls []string
	var edges []Delegation
	seen := map[Delegation]bool{}
	current := ""
	for k := 0; k < 1+rng.Intn(6); k++ {
		id := fmt.Sprintf("call_%d", k)
		if rng.Intn(2) == 0 {
			to := agents[rng.Intn(len(agents))]
			items = append(items, map[string]any{"type": "function_call", idKey: id, "name": "transfer_to_" + to, "arguments": "{}"})
			var out any = `{"assistant": "` + to + `"}`
			if camel {
				out = map[string]any{"type": "text", "text": `{"assistant":"` + to + `"}`}
			}
			items = append(items, map[string]any{"type": outType, idKey: id, "output": out})
			if d := (Delegation{From: current, To: to}); current != "" && current != to && !seen[d] {
				seen[d] = true
				edges = append(edges, d)
			}
			current = to
			continue
		}
		tool := tools[rng.Intn(len(tools))]
		items = append(items, map[string]any{"type": "function_call", idKey: id, "name": tool, "arguments": `{"a": 1}`},
			map[string]any{"type": outType, idKey: id, "output": "done " + id})
		calls = append(calls, current+":"+tool)
	}
	items = append(items, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "done"}}})
	return items, calls, edges
}

// TestGeneratedAgentsItems: Agents SDK runs made at random (handoffs and
// tool calls in any order, none of either, in the JS SDK's or the Python
// SDK's spelling; one run a file, or several, one a line) are read, never
// refused: every tool call with the agent the handoffs before it named,
// no handoff as a call, the handoffs between named agents as delegations.
func TestGeneratedAgentsItems(t *testing.T) {
	rng := rand.New(rand.NewSource(38))
	for i := 0; i < 300; i++ {
		camel := rng.Intn(2) == 0
		var lines []string
		var wantCalls [][]string
		var wantEdges [][]Delegation
		for r := 0; r < 1+rng.Intn(3); r++ {
			items, calls, edges := genItems(rng, camel)
			b, _ := json.Marshal(items)
			lines = append(lines, string(b))
			wantCalls, wantEdges = append(wantCalls, calls), append(wantEdges, edges)
		}
		data := strings.Join(lines, "\n") + "\n"
		c, err := Read("t.jsonl", []byte(data))
		if err != nil {
			t.Fatalf("mix %d (camel %v): refused: %v\n%s", i, camel, err, data)
		}
		for r, run := range c.Runs {
			var calls []string
			for _, call := range run.callList() {
				calls = append(calls, call.Agent+":"+call.Tool)
			}
			if !reflect.DeepEqual(calls, wantCalls[r]) || !reflect.DeepEqual(run.Delegations, wantEdges[r]) {
				t.Errorf("mix %d (camel %v) run %d: calls %q, delegations %v; want %q, %v\n%s", i, camel, r, calls, run.Delegations, wantCalls[r], wantEdges[r], lines[r])
			}
		}
		if len(c.Runs) != len(lines) {
			t.Errorf("mix %d: %d runs, want %d", i, len(c.Runs), len(lines))
		}
	}

	// A function named transfer_to_ whose output is no transfer message is
	// a tool like any other in the snake_case spelling (τ-bench's
	// transfer_to_human_agents).
	tool := `[{"role": "user", "content": "help"}, {"type": "function_call", "call_id": "c1", "name": "transfer_to_human_agents", "arguments": "{}"},` +
		`{"type": "function_call_output", "call_id": "c1", "output": "Transfer successful"}]`
	c, err := Read("t.json", []byte(tool))
	if err != nil || len(c.Runs[0].callList()) != 1 || c.Runs[0].callList()[0].Tool != "transfer_to_human_agents" {
		t.Errorf("transfer_to_human_agents with its own output: %v, %+v; want one call", err, c)
	}

	// The Python SDK before 0.1 wrote its transfer message as a dict's
	// repr: a handoff all the same, its agent the calls' after it.
	old := `[{"role": "user", "content": "go"}, {"type": "function_call", "call_id": "h", "name": "transfer_to_sum_agent", "arguments": "{}"},` +
		`{"type": "function_call_output", "call_id": "h", "output": "{'assistant': 'Sum Agent'}"},` +
		`{"type": "function_call", "call_id": "c", "name": "get-sum", "arguments": "{}"}, {"type": "function_call_output", "call_id": "c", "output": "5"}]`
	c, err = Read("t.json", []byte(old))
	if err != nil || len(c.Runs[0].callList()) != 1 || c.Runs[0].callList()[0].Agent != "Sum Agent" {
		t.Errorf("a handoff with a repr transfer message: %v, %+v; want one call of Sum Agent", err, c)
	}
}

// TestGeneratedOpenInferenceLLMCalls: OpenInference LLM spans made at
// random, their tool calls under llm.output_messages.<i>.message.tool_calls
// and their results in later llm.input_messages of role tool, are read with
// every call and its result, in order, as the agent of the AGENT span
// around them.
func TestGeneratedOpenInferenceLLMCalls(t *testing.T) {
	rng := rand.New(rand.NewSource(38))
	for i := 0; i < 200; i++ {
		run := genRuns(rng, 1, false)[0]
		spans := []string{oiSpan("1", "", "planner", oiAttr(oiKind, "AGENT"))}
		var in []string // the flattened input messages so far, without their index
		var want []string
		flat := func(prefix string, i int, k, v string) string {
			return oiAttr(prefix+"."+strconv.Itoa(i)+".message."+k, v)
		}
		in = append(in, "user\x00prompt")
		for s, names := range run.steps {
			attrs := []string{oiAttr(oiKind, "LLM")}
			for j, m := range in {
				role, content, _ := strings.Cut(m, "\x00")
				attrs = append(attrs, flat("llm.input_messages", j, "role", role))
				if id, ok := strings.CutPrefix(content, "id:"); ok {
					id, text, _ := strings.Cut(id, "\x01")
					attrs = append(attrs, flat("llm.input_messages", j, "tool_call_id", id), flat("llm.input_messages", j, "content", text))
				} else {
					attrs = append(attrs, flat("llm.input_messages", j, "content", content))
				}
			}
			attrs = append(attrs, flat("llm.output_messages", 0, "role", "assistant"))
			for c, name := range names {
				p := "llm.output_messages.0.message.tool_calls." + strconv.Itoa(c) + ".tool_call."
				attrs = append(attrs, oiAttr(p+"id", run.ids[s][c]), oiAttr(p+"function.name", name), oiAttr(p+"function.arguments", `{"n": 1}`))
				want = append(want, "planner:"+name+"=out "+run.ids[s][c])
			}
			in = append(in, "assistant\x00")
			for c := range names {
				in = append(in, "tool\x00id:"+run.ids[s][c]+"\x01out "+run.ids[s][c])
			}
			spans = append(spans, oiSpan(strconv.Itoa(2+s), "1", "ChatCompletion", attrs...))
		}
		c, err := Read("t.json", oiDoc(spans...))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, call := range c.Runs[0].callList() {
			got = append(got, call.Agent+":"+call.Tool+"="+resultText(call.Result))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mix %d: calls %q, want %q", i, got, want)
		}
	}
}

// TestOpenInferenceNestedAgents: AGENT spans inside AGENT spans are the
// delegations, each pair once, from the enclosing agent to the enclosed;
// an AGENT span at the root delegates from no one.
func TestOpenInferenceNestedAgents(t *testing.T) {
	c, err := Read("t.json", oiDoc(
		oiSpan("1", "", "triage", oiAttr(oiKind, "AGENT")),
		oiSpan("2", "1", "router", oiAttr(oiKind, "CHAIN")),
		oiSpan("3", "2", "sum_agent", oiAttr(oiKind, "AGENT")),
		oiSpan("4", "3", "check", oiAttr(oiKind, "AGENT"), oiAttr("agent.name", "checker")),
		oiSpan("5", "1", "sum_agent", oiAttr(oiKind, "AGENT")),
		oiSpan("6", "4", "get-sum", oiAttr(oiKind, "TOOL"), oiAttr("input.value", `{"a": 1}`)),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []Delegation{{From: "triage", To: "sum_agent"}, {From: "sum_agent", To: "checker"}}
	if !reflect.DeepEqual(c.Runs[0].Delegations, want) || c.Runs[0].callList()[0].Agent != "checker" || c.Agent != "triage" {
		t.Errorf("delegations %v, call agent %q, agent %q; want %v, checker, triage", c.Runs[0].Delegations, c.Runs[0].callList()[0].Agent, c.Agent, want)
	}
}

// TestToolInvocationParts: the AI SDK ModelMessage files, their tool-call
// parts renamed "tool-invocation" (AI SDK 4's name), or those parts'
// fields moved under "toolInvocation" with a state, read with the same
// calls and results: no tool-result part is left pointing at a call id no
// call has.
func TestToolInvocationParts(t *testing.T) {
	for _, file := range []string{"ai_sdk_messages.json", "ai_sdk7_responses_messages.json", "ai_sdk7_result.json"} {
		data, err := os.ReadFile("testdata/ok/" + file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Read(file, data)
		if err != nil {
			t.Fatal(err)
		}
		want := callsByRun(c)
		flat := strings.ReplaceAll(string(data), `"tool-call"`, `"tool-invocation"`)
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		nestInvocations(v)
		nested, _ := json.Marshal(v)
		for name, mutant := range map[string]string{"flat": flat, "nested": string(nested)} {
			m, err := Read(file, []byte(mutant))
			if err != nil {
				t.Errorf("%s, %s tool-invocation parts: %v", file, name, err)
				continue
			}
			if got := callsByRun(m); !reflect.DeepEqual(got, want) || m.Format != FormatAISDKMessages {
				t.Errorf("%s, %s tool-invocation parts: read as %s %q, want %q", file, name, m.Format, got, want)
			}
		}
	}
}

// nestInvocations rewrites every tool-call part of v as AI SDK 4 wrote a
// call, {"type": "tool-invocation", "toolInvocation": {"toolCallId",
// "toolName", "args", "state": "call"}}.
func nestInvocations(v any) {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "tool-call" {
			inv := map[string]any{"toolCallId": v["toolCallId"], "toolName": v["toolName"], "args": v["input"], "state": "call"}
			for k := range v {
				delete(v, k)
			}
			v["type"], v["toolInvocation"] = "tool-invocation", inv
			return
		}
		for _, e := range v {
			nestInvocations(e)
		}
	case []any:
		for _, e := range v {
			nestInvocations(e)
		}
	}
}
