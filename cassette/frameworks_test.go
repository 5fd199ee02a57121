package cassette

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// frameworkRead is what a reader takes of one file an agent framework
// wrote (testdata/frameworks records them): the figures a gate reads.
type frameworkRead struct {
	file   string
	format Format
	runs   int
	// calls are each run's calls as agent:server.tool=result text, the
	// agent and the server left out when the recording has none.
	calls    [][]string
	args     map[string]any // the first call's arguments
	tokens   *Tokens        // the first run's
	model    string
	answer   string // the first run's last turn's
	prompt   string
	agent    string
	edges    []Delegation // the first run's
	catalog  string       // server:count of each server's tools
	warnings int
}

// agentsMCPError is the output the Agents SDK gave the model for a call
// the MCP server refused.
const agentsMCPError = "MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a"

// frameworkReads are the framework files of testdata/ok, each read with
// the calls, results, tokens, model and agents the framework writes.
var frameworkReads = []frameworkRead{
	{file: "openai_agents_trace.json", format: FormatAgentsTrace, runs: 1,
		calls: [][]string{{"sum_agent:everything.get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 350, Output: 34, Total: 384}, agent: "triage",
		edges: []Delegation{{From: "triage", To: "sum_agent"}}, catalog: "everything:13"},
	{file: "openai_agents_error_trace.json", format: FormatAgentsTrace, runs: 1,
		calls: [][]string{{"sum_agent:everything.get-sum=" + agentsMCPError + " (error)"}}, args: map[string]any{"a": "two", "b": 3.0},
		tokens: &Tokens{Input: 350, Output: 34, Total: 384}, agent: "triage",
		edges: []Delegation{{From: "triage", To: "sum_agent"}}, catalog: "everything:13"},
	{file: "openai_agents_error_history.json", format: FormatResponses, runs: 1,
		calls: [][]string{{"sum_agent:get_sum=" + agentsMCPError + " (error)"}}, args: map[string]any{"a": "two", "b": 3.0},
		answer: "I could not add them.", prompt: "What is two + 3?"},
	{file: "openai_agents_history.json", format: FormatResponses, runs: 1,
		calls: [][]string{{"sum_agent:get_sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "openai_agents_raw_responses.json", format: FormatResponses, runs: 1,
		calls: [][]string{{"sum_agent:get_sum="}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 350, Output: 34, Total: 384}, answer: "The sum is 5."},
	{file: "langchain_lc_messages.json", format: FormatLangChain, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 270, Output: 25, Total: 295}, model: "scripted-sum-1", answer: "The sum is 5.",
		prompt: "What is 2 + 3?", agent: "sum_agent"},
	{file: "langchain_stored_messages.json", format: FormatLangChain, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 270, Output: 25, Total: 295}, model: "scripted-sum-1", answer: "The sum is 5.",
		prompt: "What is 2 + 3?", agent: "sum_agent"},
	{file: "ai_sdk_messages.json", format: FormatAISDKMessages, runs: 1,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5."},
	{file: "ai_sdk_ui_messages.json", format: FormatAISDKUIMessages, runs: 1,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	// A run that only hands off made no call: it is read, not refused.
	{file: "openai_agents_handoff_history.json", format: FormatResponses, runs: 1,
		calls: [][]string{nil}, answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "openai_agents_handoff_raw_responses.json", format: FormatResponses, runs: 1,
		calls: [][]string{nil}, tokens: &Tokens{Input: 230, Output: 16, Total: 246}, answer: "The sum is 5."},
	{file: "openai_agents_handoff_history.jsonl", format: FormatResponses, runs: 3,
		calls: [][]string{nil, nil, nil}, answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "openai_agents_018_handoff_history.jsonl", format: FormatResponses, runs: 2,
		calls: [][]string{nil, nil}, answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	// A run that calls and one that only hands off, a line each: neither
	// refuses the other.
	{file: "openai_agents_mixed_history.jsonl", format: FormatResponses, runs: 2,
		calls: [][]string{{"sum_agent:get_sum=The sum of 2 and 3 is 5."}, nil}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	// The Python SDK's to_input_list(): snake_case items, the handoff's
	// output the transfer message as JSON text.
	{file: "openai_agents_py_input_list.json", format: FormatResponses, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	// OpenInference's OpenAI instrumentation: the calls are in the LLM
	// spans' messages, the agents are AGENT spans, one inside the other.
	{file: "openinference_openai_agents.json", format: FormatOTel, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5.", "sum_agent:echo=Echo: 2 + 3"}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 350, Output: 27, Total: 377}, model: "gpt-4o-2024-08-06", answer: "The sum is 5.",
		prompt: "What is 2 + 3?", agent: "triage", edges: []Delegation{{From: "triage", To: "sum_agent"}}, catalog: ":2"},
	// OpenLLMetry with no workflow around the runs: every model call is a
	// trace of its own, joined into runs by the calls their messages carry,
	// or by the session id OpenLLMetry's association properties give them.
	{file: "openllmetry_rootless.json", format: FormatOTel, runs: 2,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5.", "echo=Echo: sum 5"}, {"get-sum=The sum of 2 and 4 is 6.", "echo=Echo: sum 6"}},
		args:  map[string]any{"a": 2.0, "b": 3.0}, tokens: &Tokens{Input: 420, Output: 37, Total: 457}, model: "gpt-4o-2024-08-06",
		answer: "The sum is 5.", prompt: "What is 2 + 3?", catalog: ":2", warnings: 1},
	{file: "openllmetry_sessions.json", format: FormatOTel, runs: 2,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5.", "echo=Echo: sum 5"}, {"get-sum=The sum of 2 and 4 is 6.", "echo=Echo: sum 6"}},
		args:  map[string]any{"a": 2.0, "b": 3.0}, tokens: &Tokens{Input: 420, Output: 37, Total: 457}, model: "gpt-4o-2024-08-06",
		answer: "The sum is 5.", prompt: "What is 2 + 3?", catalog: ":2", warnings: 1},
	// OpenLLMetry's withWorkflow around withAgent triage around withAgent
	// sum_agent: each run one trace, its agents the agent spans.
	{file: "openllmetry_agents.json", format: FormatOTel, runs: 2,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5.", "sum_agent:echo=Echo: sum 5"}, {"sum_agent:get-sum=The sum of 2 and 4 is 6.", "sum_agent:echo=Echo: sum 6"}},
		args:  map[string]any{"a": 2.0, "b": 3.0}, tokens: &Tokens{Input: 420, Output: 37, Total: 457}, model: "gpt-4o-2024-08-06",
		answer: "The sum is 5.", prompt: "What is 2 + 3?", agent: "triage", edges: []Delegation{{From: "triage", To: "sum_agent"}}, catalog: ":2"},
	// AI SDK 7: result.responseMessages holds every step, the result saved
	// whole its model and usage; result.response.messages holds the last
	// step only, read with a warning that says so.
	{file: "ai_sdk7_responses_messages.json", format: FormatAISDKMessages, runs: 1,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5.", "echo=Echo: sum 5"}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5."},
	{file: "ai_sdk7_result.json", format: FormatAISDKMessages, runs: 1,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5.", "echo=Echo: sum 5"}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 420, Output: 37, Total: 457}, model: "gpt-4o-2024-08-06", answer: "The sum is 5."},
	{file: "ai_sdk7_response_messages.json", format: FormatAnthropic, runs: 1,
		calls: [][]string{nil}, answer: "The sum is 5.", warnings: 1},
	{file: "langchain_openinference_spans.json", format: FormatOTel, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 270, Output: 25, Total: 295}, model: "scripted-sum-1", answer: "The sum is 5.",
		prompt: "What is 2 + 3?", agent: "sum_agent"},
	{file: "mastra_result_messages.json", format: FormatMastra, runs: 1,
		calls: [][]string{{"everything_get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		model: "scripted-sum-1", answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "mastra_memory_messages.json", format: FormatMastra, runs: 1,
		calls: [][]string{{"everything_get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		model: "scripted-sum-1", answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "llamaindex_chat_messages.json", format: FormatLlamaIndex, runs: 1,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "llamaindex_workflow_events.json", format: FormatLlamaIndexEvents, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		model: "scripted-sum-1", answer: "The sum is 5.", prompt: "What is 2 + 3?", agent: "sum_agent"},
	{file: "llamaindex_handoff_chat_messages.json", format: FormatLlamaIndex, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		answer: "The sum is 5.", prompt: "What is 2 + 3?"},
	{file: "llamaindex_handoff_workflow_events.json", format: FormatLlamaIndexEvents, runs: 1,
		calls: [][]string{{"sum_agent:get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		model: "scripted-sum-1", answer: "The sum is 5.", prompt: "What is 2 + 3?", agent: "triage",
		edges: []Delegation{{From: "triage", To: "sum_agent"}}},
	{file: "inspect_sum_log.json", format: FormatInspect, runs: 2,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5."}, {"get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 270, Cached: 64, Output: 25, Total: 295}, model: "gpt-4o-mini-2024-07-18", answer: "The sum is 5.",
		prompt: "What is 2 + 3?"},
	{file: "inspect_sum.eval", format: FormatInspect, runs: 2,
		calls: [][]string{{"get-sum=The sum of 2 and 3 is 5."}, {"get-sum=The sum of 2 and 3 is 5."}}, args: map[string]any{"a": 2.0, "b": 3.0},
		tokens: &Tokens{Input: 270, Cached: 64, Output: 25, Total: 295}, model: "gpt-4o-mini-2024-07-18", answer: "The sum is 5.",
		prompt: "What is 2 + 3?"},
}

// outcome is the text of a call's result, with " (error)" when the call
// failed.
func outcome(call Call) string {
	if call.IsError {
		return resultText(call.Result) + " (error)"
	}
	return resultText(call.Result)
}

func TestFrameworkReads(t *testing.T) {
	for _, tt := range frameworkReads {
		t.Run(tt.file, func(t *testing.T) {
			c, err := ReadFile("testdata/ok/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got := frameworkRead{file: tt.file, format: c.Format, runs: len(c.Runs), model: c.Model, prompt: c.Prompt,
				agent: c.Agent, warnings: len(c.Warnings)}
			var cats []string
			for _, sc := range c.Catalog {
				cats = append(cats, sc.Server+":"+strconv.Itoa(len(sc.Tools)))
			}
			got.catalog = strings.Join(cats, ",")
			for i, r := range c.Runs {
				var calls []string
				for _, call := range r.callList() {
					s := call.ID() + "=" + outcome(call)
					if call.Agent != "" {
						s = call.Agent + ":" + s
					}
					calls = append(calls, s)
					if got.args == nil {
						got.args, _ = call.Arguments.Value().(map[string]any)
					}
				}
				got.calls = append(got.calls, calls)
				if i == 0 {
					got.tokens, got.edges = r.Tokens, r.Delegations
					if n := len(r.Turns); n > 0 {
						got.answer = r.Turns[n-1].FinalResponse
					}
				}
			}
			if !reflect.DeepEqual(got, tt) {
				t.Errorf("read\n %+v\nwant\n %+v", got, tt)
				if got.tokens != nil {
					t.Errorf("tokens %+v", *got.tokens)
				}
			}
		})
	}
}

// TestAgentsTraceForms reads the Agents SDK's trace export in the forms
// a processor may save it: the exporter's body, the items as an array,
// one item a line, one batch of the exporter a line (a trace's spans in
// several); each is the same run.
func TestAgentsTraceForms(t *testing.T) {
	data, err := os.ReadFile("testdata/ok/openai_agents_trace.json")
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Data []json.RawMessage }
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	var lines, array, batches bytes.Buffer
	array.WriteString("[")
	for i, item := range body.Data {
		var b bytes.Buffer
		if err := json.Compact(&b, item); err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b.Bytes(), '\n'))
		if i > 0 {
			array.WriteString(",")
		}
		array.Write(b.Bytes())
	}
	array.WriteString("]")
	// Two batches of the exporter, a line each: a trace's spans are in both.
	half := strings.Index(array.String(), `{"object":"trace.span","id":"span_c23e98d072d44e74a7de4a82"`)
	if half < 0 {
		t.Fatal("no span to split the batches at")
	}
	batches.WriteString(`{"data": ` + array.String()[:half-1] + "]}\n" + `{"data": [` + array.String()[half:] + "}\n")
	want, err := Read("fuzz.json", data)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string][]byte{"lines": lines.Bytes(), "array": array.Bytes(), "batches": batches.Bytes()} {
		c, err := Read("fuzz.json", doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%s: read %+v\nwant %+v", name, c, want)
		}
		checkRead(t, c, err)
	}
}

// TestAgentsHandoffs: in the Agents SDK's items a call to transfer_to_<x>
// is a handoff, no tool call; its result names the agent taking over,
// who makes the calls after it; a handoff from a known agent is a
// delegation. A transfer_to_ call without a callId (any other client's)
// is a tool call.
func TestAgentsHandoffs(t *testing.T) {
	call := func(id, name string) string {
		return `{"type": "function_call", "callId": "` + id + `", "name": "` + name + `", "arguments": "{}"}`
	}
	result := func(id, out string) string {
		return `{"type": "function_call_result", "callId": "` + id + `", "output": {"type": "text", "text": ` + strconv.Quote(out) + `}}`
	}
	doc := "[" + strings.Join([]string{`{"type": "message", "role": "user", "content": "go"}`,
		call("h1", "transfer_to_math_agent"), result("h1", `{"assistant":"Math Agent"}`),
		call("c1", "get_sum"), result("c1", "5"),
		call("h2", "transfer_to_writer"), result("h2", `{"assistant":"writer"}`),
		call("c2", "echo"), result("c2", "hi"),
		`{"type": "function_call", "call_id": "c3", "name": "transfer_to_x", "arguments": "{}"}`,
	}, ", ") + "]"
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.Agent+":"+call.Tool+"="+resultText(call.Result))
	}
	want := []string{"Math Agent:get_sum=5", "writer:echo=hi", "writer:transfer_to_x="}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(c.Runs[0].Delegations, []Delegation{{From: "Math Agent", To: "writer"}}) {
		t.Errorf("calls %q, delegations %+v", got, c.Runs[0].Delegations)
	}
}

// TestLangChainForms: a graph's state {"messages": [...]} is read as its
// messages; a ToolMessage of status "error" is a failed call; cached
// input tokens are read from input_token_details.cache_read.
func TestLangChainForms(t *testing.T) {
	data, err := os.ReadFile("testdata/ok/langchain_lc_messages.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read("t", data)
	if err != nil {
		t.Fatal(err)
	}
	state := append(append([]byte(`{"messages": `), data...), '}')
	if c, err := Read("t", state); err != nil || !reflect.DeepEqual(c, want) {
		t.Errorf("the state: %v\n%+v\nwant %+v", err, c, want)
	}
	doc := `[{"type": "human", "data": {"content": "hi"}},
		{"type": "ai", "data": {"content": "", "name": "a", "tool_calls": [{"id": "1", "name": "get-env", "args": {}}],
		 "usage_metadata": {"input_tokens": 100, "output_tokens": 5, "total_tokens": 105, "input_token_details": {"cache_read": 40}}}},
		{"type": "tool", "data": {"content": "denied", "tool_call_id": "1", "status": "error"}},
		{"type": "ai", "data": {"content": [{"type": "text", "text": "I could not."}]}}]`
	c, err := Read("t", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Runs[0].callList()
	if len(calls) != 1 || !calls[0].IsError || resultText(calls[0].Result) != "denied" || calls[0].Agent != "a" ||
		*c.Runs[0].Tokens != (Tokens{Input: 100, Cached: 40, Output: 5, Total: 105}) || c.Runs[0].Turns[0].FinalResponse != "I could not." {
		t.Errorf("calls %+v, tokens %+v, turns %+v", calls, c.Runs[0].Tokens, c.Runs[0].Turns)
	}
}

// TestModelMessageResults: the typed outputs of AI SDK 5 and later, and
// the result and isError of AI SDK 4, make the call's result and say
// whether it failed.
func TestModelMessageResults(t *testing.T) {
	part := func(id, rest string) string {
		return `{"type": "tool-result", "toolCallId": "` + id + `", "toolName": "t", ` + rest + `}`
	}
	var calls, results []string
	for i, rest := range []string{
		`"output": {"type": "text", "value": "plain"}`,
		`"output": {"type": "json", "value": {"n": 5}}`,
		`"output": {"type": "error-text", "value": "boom"}`,
		`"output": {"type": "execution-denied", "reason": "no"}`,
		`"output": {"type": "json", "value": {"content": [{"type": "text", "text": "mcp"}], "isError": true}}`,
		`"result": "old", "isError": true`,
		`"result": {"content": [{"type": "text", "text": "old mcp"}]}`,
	} {
		id := strconv.Itoa(i)
		calls = append(calls, `{"type": "tool-call", "toolCallId": "`+id+`", "toolName": "t", "args": {"i": `+id+`}}`)
		results = append(results, part(id, rest))
	}
	doc := `[{"role": "user", "content": [{"type": "text", "text": "go"}]}, {"role": "assistant", "content": [` + strings.Join(calls, ", ") +
		`]}, {"role": "tool", "content": [` + strings.Join(results, ", ") + `]}]`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		s := outcome(call)
		got = append(got, s)
	}
	want := []string{"plain", `{"n":5}`, "boom (error)", "no (error)", "mcp (error)", "old (error)", "old mcp"}
	if !reflect.DeepEqual(got, want) || c.Prompt != "go" || c.Format != FormatAISDKMessages {
		t.Errorf("results %q, prompt %q, format %s", got, c.Prompt, c.Format)
	}
}

// TestOpenInferenceSpans: a TOOL span is a call, by the AGENT span around
// it; an error status or a ToolMessage of status "error" fails it; an LLM
// span's token counts (cache reads among them) are the tokens, its
// llm.model_name the model; a span of another kind is no call.
func TestOpenInferenceSpans(t *testing.T) {
	attr := func(k, v string) string {
		return `{"key": "` + k + `", "value": {"stringValue": ` + strconv.Quote(v) + `}}`
	}
	num := func(k string, n int) string {
		return `{"key": "` + k + `", "value": {"intValue": "` + strconv.Itoa(n) + `"}}`
	}
	span := func(id, parent, name, status string, attrs ...string) string {
		return `{"traceId": "t1", "spanId": "` + id + `", "parentSpanId": "` + parent + `", "name": "` + name +
			`", "startTimeUnixNano": "1` + id + `", "endTimeUnixNano": "2` + id + `", "status": {"code": ` + status + `}, "attributes": [` + strings.Join(attrs, ", ") + `]}`
	}
	doc := `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Join([]string{
		span("1", "", "planner", "1", attr(oiKind, "AGENT"), attr("agent.name", "planner")),
		span("2", "1", "ChatOpenAI", "1", attr(oiKind, "LLM"), attr("llm.model_name", "gpt-x"), num("llm.token_count.prompt", 100),
			num("llm.token_count.completion", 10), num("llm.token_count.prompt_details.cache_read", 60),
			attr("llm.output_messages.0.message.role", "assistant"), attr("llm.output_messages.0.message.content", "done")),
		span("3", "1", "search", "2", attr(oiKind, "TOOL"), attr("input.value", `{"q": "x"}`), attr("output.value", "timeout")),
		span("4", "1", "lookup", "1", attr(oiKind, "TOOL"), attr("tool.name", "fetch"),
			attr("output.value", `{"lc": 1, "type": "constructor", "id": ["ToolMessage"], "kwargs": {"content": "denied", "status": "error"}}`)),
		// A RETRIEVER span is no call, though it names a tool that was called.
		span("5", "1", "retriever", "1", attr(oiKind, "RETRIEVER"), attr("tool.name", "fetch")),
	}, ", ") + `]}]}]}`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.Agent+":"+call.Tool+"="+resultText(call.Result)+" "+strconv.FormatBool(call.IsError))
	}
	want := []string{"planner:search=timeout true", "planner:fetch=denied true"}
	if !reflect.DeepEqual(got, want) || c.Model != "gpt-x" || c.Agent != "planner" ||
		*c.Runs[0].Tokens != (Tokens{Input: 100, Cached: 60, Output: 10, Total: 110}) || c.Runs[0].Turns[0].FinalResponse != "done" {
		t.Errorf("calls %q, model %q, agent %q, tokens %+v, turns %+v", got, c.Model, c.Agent, c.Runs[0].Tokens, c.Runs[0].Turns)
	}
}

// TestAgentsHostedMCP: a hosted MCP tool's call, in the Agents SDK's
// items a hosted_tool_call whose providerData is the Responses API's
// mcp_call, is a call of that server with its output; its mcp_list_tools
// is the catalog. Before, both were passed over and the run had no call.
func TestAgentsHostedMCP(t *testing.T) {
	doc := `[{"type": "message", "role": "user", "content": "which transports?"},
		{"type": "hosted_tool_call", "id": "mcpl_1", "name": "mcp_list_tools", "status": "completed",
		 "providerData": {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki", "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}]}},
		{"type": "hosted_tool_call", "id": "mcp_1", "name": "mcp_call", "status": "completed", "output": "stdio and HTTP",
		 "providerData": {"type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki", "name": "ask_question", "arguments": "{\"q\": \"t\"}", "error": null}},
		{"type": "hosted_tool_call", "id": "mcp_2", "name": "mcp_call", "status": "completed",
		 "providerData": {"type": "mcp_call", "id": "mcp_2", "server_label": "deepwiki", "name": "ask_question", "arguments": "{}", "error": "timeout"}},
		{"type": "hosted_tool_call", "id": "ws_1", "name": "web_search_call", "status": "completed", "providerData": {"type": "web_search_call"}},
		{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "stdio and HTTP."}]}]`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.ID()+"="+resultText(call.Result)+" "+strconv.FormatBool(call.IsError))
	}
	want := []string{"deepwiki.ask_question=stdio and HTTP false", "deepwiki.ask_question=timeout true"}
	if !reflect.DeepEqual(got, want) || len(c.Catalog) != 1 || c.Catalog[0].Server != "deepwiki" || len(c.Catalog[0].Tools) != 1 {
		t.Errorf("calls %q, catalog %+v", got, c.Catalog)
	}
}
