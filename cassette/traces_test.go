package cassette

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// summary renders what the gates read of a cassette, one line per fact,
// for the mapping tests: provenance, catalog, and per run its calls
// (server.tool, ! when an error, @agent, the arguments' keys), final
// responses, tokens, cost and delegations.
func summary(c *Cassette) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format=%s model=%q provider=%q agent=%q prompt=%q\n", c.Format, c.Model, c.Provider, c.Agent, clip(c.Prompt, 30))
	for _, s := range c.Catalog {
		var names []string
		for _, t := range s.Tools {
			names = append(names, t.Name)
		}
		fmt.Fprintf(&b, "catalog %s: %s\n", s.Server, strings.Join(names, " "))
	}
	for i, r := range c.Runs {
		fmt.Fprintf(&b, "run %d:", i)
		for _, call := range r.callList() {
			b.WriteString(" " + call.ID())
			if call.IsError {
				b.WriteString("!")
			}
			if call.Agent != "" {
				b.WriteString("@" + call.Agent)
			}
			if call.Result == nil {
				b.WriteString("(no result)")
			}
		}
		b.WriteString("\n")
		for _, t := range r.Turns {
			if t.FinalResponse != "" {
				fmt.Fprintf(&b, "  final %q\n", clip(t.FinalResponse, 30))
			}
		}
		if r.Tokens != nil {
			fmt.Fprintf(&b, "  tokens %d+%d=%d\n", r.Tokens.Input, r.Tokens.Output, r.Tokens.Total)
		}
		if r.CostMicros != nil {
			fmt.Fprintf(&b, "  cost %dµ$\n", *r.CostMicros)
		}
		for _, d := range r.Delegations {
			fmt.Fprintf(&b, "  delegation %s -> %s\n", d.From, d.To)
		}
	}
	return b.String()
}

// TestReadTraces checks how each recording of the traces teams already
// have maps into the model, on the corpus files.
func TestReadTraces(t *testing.T) {
	tests := []struct{ file, want string }{
		{"openai_assistant_message.json", `format=openai-chat model="" provider="" agent="" prompt=""
run 0: search_flights(no result) get_user_details(no result)
`},
		{"promptfoo_tool_calls.json", `format=openai-chat model="" provider="" agent="" prompt=""
run 0: get_current_weather(no result) get_current_weather(no result)
`},
		{"promptfoo_content_blocks.json", `format=anthropic-messages model="" provider="" agent="" prompt=""
run 0: github.list_pull_requests(no result) github.list_pull_requests(no result)
  final "I'll check both repositories."
`},
		{"openai_completion.json", `format=openai-chat model="gpt-4o-2024-08-06" provider="" agent="" prompt=""
run 0: weather.get_forecast(no result)
  tokens 412+27=439
`},
		{"anthropic_message_response.json", `format=anthropic-messages model="claude-sonnet-4-5-20250929" provider="" agent="" prompt=""
run 0: github.search_issues(no result)
  final "I'll look that up."
  tokens 2095+61=2156
`},
		{"openai_responses_mcp.json", `format=openai-responses model="gpt-4.1-2025-04-14" provider="" agent="" prompt=""
catalog deepwiki: read_wiki_structure ask_question
run 0: deepwiki.ask_question deepwiki.read_wiki_structure!
  final "It supports stdio and Streamab…"
  tokens 1821+143=1964
`},
		{"openai_responses_functions.json", `format=openai-responses model="gpt-4.1-2025-04-14" provider="" agent="" prompt="What is the weather like in Pa…"
catalog : get_weather
run 0: get_weather
  final "It is 14°C with light rain in …"
  tokens 633+38=671
`},
		{"otel_genai_agents.json", `format=otel-genai model="gpt-4.1-2025-04-14" provider="openai" agent="travel-planner" prompt="Book me the cheapest flight fr…"
catalog : search_flights
catalog airline: book_reservation cancel_reservation
run 0: search_flights@travel-planner airline.book_reservation!@booking-agent
  final "The booking failed: your payme…"
  tokens 800+70=870
  delegation travel-planner -> booking-agent
run 1: search_flights(no result)
`},
		{"claude_code_stream.jsonl", `format=claude-stream-json model="claude-sonnet-4-5-20250929" provider="anthropic" agent="" prompt=""
catalog : Task Bash Read
catalog github: search_issues get_issue
catalog weather: get_forecast
run 0: github.search_issues Task github.get_issue!@issue-reader
  final "There is one open bug, #17: \"t…"
  tokens 3818+110=3928
  cost 21300µ$
`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := ReadFile(filepath.Join("testdata", "ok", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(c); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestReadTracesInline covers the cases the corpus files do not: each is
// a recording and what it reads as.
func TestReadTracesInline(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"completion with two choices is two runs, usage not split", `{"model": "m", "choices": [
			{"message": {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "x", "arguments": "{}"}}]}},
			{"message": {"role": "assistant", "content": "no tool"}}], "usage": {"prompt_tokens": 10, "completion_tokens": 2}}`,
			`format=openai-chat model="m" provider="" agent="" prompt=""
run 0: x(no result)
run 1:
  final "no tool"
`},
		{"mcp_call error objects are their JSON text", `{"object": "response", "output": [
			{"type": "mcp_call", "id": "m1", "server_label": "s", "name": "t", "arguments": "{}", "output": null, "error": {"type": "http_error", "code": 500}}]}`,
			`format=openai-responses model="" provider="" agent="" prompt=""
run 0: s.t!
`},
		{"Responses items without a response object", `[{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
			{"type": "function_call", "call_id": "c1", "name": "mcp__fs__read", "arguments": "{\"p\": 1}"},
			{"type": "function_call_output", "call_id": "c1", "output": "x"}]`,
			`format=openai-responses model="" provider="" agent="" prompt="hi"
run 0: fs.read
`},
		{"OTLP export requests one per line, traces merged across lines",
			`{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t2", "spanId": "s1", "startTimeUnixNano": "300", "endTimeUnixNano": "400", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}, {"key": "gen_ai.tool.name", "value": {"stringValue": "late"}}]}]}]}]}
{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t1", "spanId": "s2", "startTimeUnixNano": "200", "name": "execute_tool second"}, {"traceId": "t1", "spanId": "s3", "startTimeUnixNano": "100", "attributes": [{"key": "mcp.method.name", "value": {"stringValue": "tools/call"}}, {"key": "gen_ai.tool.name", "value": {"stringValue": "first"}}], "status": {"code": "STATUS_CODE_ERROR"}}]}]}]}
{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t1", "spanId": "s4", "startTimeUnixNano": "150", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}]}]}]}
`, ``},
		{"two Claude Code sessions in one file are two runs",
			`{"type":"system","subtype":"init","session_id":"a","tools":[],"model":"m"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__s__a","input":{}}]},"session_id":"a"}
{"type":"system","subtype":"init","session_id":"b","tools":[],"model":"m"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"mcp__s__b","input":{}}]},"session_id":"b"}
{"type":"result","subtype":"error_max_turns","session_id":"b","is_error":true}
`, `format=claude-stream-json model="m" provider="anthropic" agent="" prompt=""
run 0: s.a(no result)
run 1: s.b(no result)
`},
		{"OTel trace without tool spans: the model calls' tool_call parts",
			`{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "t", "spanId": "a", "startTimeUnixNano": "1", "attributes": [{"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"tool_call\", \"id\": \"c1\", \"name\": \"mcp__w__get\", \"arguments\": {\"city\": \"Paris\"}}, {\"type\": \"tool_call\", \"id\": \"c2\", \"name\": \"other\"}]}]"}}]},
			{"traceId": "t", "spanId": "b", "startTimeUnixNano": "2", "attributes": [{"key": "gen_ai.input.messages", "value": {"stringValue": "[{\"role\": \"tool\", \"parts\": [{\"type\": \"tool_call_response\", \"id\": \"c1\", \"response\": \"14C\"}]}]"}}, {"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"content\": \"It is 14C.\"}]}]"}}]}]}]}]}`,
			`format=otel-genai model="" provider="" agent="" prompt=""
run 0: w.get other(no result)
  final "It is 14C."
`},
		{"OTLP before 0.15: instrumentationLibrarySpans",
			`{"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": [{"traceId": "t", "spanId": "a", "name": "execute_tool old"}]}]}]}`,
			`format=otel-genai model="" provider="" agent="" prompt=""
run 0: old(no result)
`},
		{"OTel final response: the output of the span that ends last",
			`{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "t", "spanId": "a", "startTimeUnixNano": "1", "endTimeUnixNano": "100", "attributes": [{"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"content\": \"agent's answer\"}]}]"}}]},
			{"traceId": "t", "spanId": "b", "parentSpanId": "a", "startTimeUnixNano": "50", "endTimeUnixNano": "60", "name": "execute_tool x"},
			{"traceId": "t", "spanId": "c", "parentSpanId": "a", "startTimeUnixNano": "70", "endTimeUnixNano": "90", "attributes": [{"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"role\": \"assistant\", \"parts\": [{\"type\": \"text\", \"content\": \"model's last words\"}]}]"}}]}]}]}]}`,
			`format=otel-genai model="" provider="" agent="" prompt=""
run 0: x(no result)
  final "agent's answer"
`},
		{"JSON Lines of transcripts are runs, blank lines and CRLF allowed",
			"{\"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"1\", \"function\": {\"name\": \"a\"}}]}]}\r\n\r\n" +
				"{\"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"1\", \"function\": {\"name\": \"b\"}}]}]}\r\n",
			`format=openai-chat model="" provider="" agent="" prompt=""
run 0: a(no result)
run 1: b(no result)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("inline.json", []byte(tt.data))
			if tt.want == "" {
				// The OTLP case: its third line has an execute_tool span
				// without a tool, placed on line 3.
				if err == nil || !strings.HasPrefix(err.Error(), "inline.json:3:") {
					t.Fatalf("want an error on line 3, got %v", err)
				}
				fixed := strings.Replace(tt.data, `{"traceId": "t1", "spanId": "s4", "startTimeUnixNano": "150", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}`,
					`{"traceId": "t1", "spanId": "s4", "startTimeUnixNano": "150", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}], "name": "execute_tool middle"}`, 1)
				c, err = Read("inline.json", []byte(fixed))
				tt.want = `format=otel-genai model="" provider="" agent="" prompt=""
run 0: first!(no result) middle(no result) second(no result)
run 1: late(no result)
`
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(c); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestReadLiveMCPBenchLines reads LiveMCPBench trajectories as JSON
// Lines, one record a line, and checks each run against the record's own
// executed_tools.
func TestReadLiveMCPBenchLines(t *testing.T) {
	f := "testdata/ok/livemcpbench_3runs.jsonl"
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	c, err := Stream(f, data, func(_ *Cassette, r *Run) { runs = append(runs, *r) })
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != FormatOpenAI || len(runs) != 3 {
		t.Fatalf("format %s, %d runs, want 3 openai-chat runs", c.Format, len(runs))
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		one, err := Read(f, []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		diff(t, runs[i], one.Runs[0])
	}
}

// TestDocExamples reads every ```json block of docs/traces.md: each
// minimal example is a recording mcptest reads, with at least one call.
func TestDocExamples(t *testing.T) {
	data, err := os.ReadFile("../docs/traces.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```json\n")[1:]
	if len(blocks) < 5 {
		t.Fatalf("%d json examples in docs/traces.md", len(blocks))
	}
	for i, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		c, err := Read(fmt.Sprintf("docs/traces.md#%d", i), []byte(b))
		if err != nil {
			t.Errorf("example %d: %v\n%s", i, err, b)
			continue
		}
		if len(c.Runs) == 0 || len(c.Runs[0].callList()) == 0 {
			t.Errorf("example %d (%s) has no call", i, c.Format)
		}
	}
}

// TestOTelResult: a tool span's result is a CallToolResult when it is one,
// else its text.
func TestOTelResult(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want any
	}{
		{`{"content": [{"type": "text", "text": "a"}], "isError": true}`, map[string]any{"content": []any{map[string]any{"type": "text", "text": "a"}}, "isError": true}},
		{`{"temperature": 14}`, textResult(`{"temperature": 14}`)},
		{"sunny", textResult("sunny")},
		{map[string]any{"content": []any{}}, map[string]any{"content": []any{}}},
		{map[string]any{"n": 1.0}, textResult(`{"n":1}`)},
		{[]any{"a", 2.0}, textResult(`["a",2]`)},
		{true, textResult("true")},
	} {
		diff(t, Call{Result: otelResult(tt.in)}.ResultValue(), tt.want)
	}
}

// TestReadTauBenchLines reads the public τ-bench sample of 20 trajectories
// (../shared/data beside the repository root) as it is, JSON Lines: 20
// runs, each the calls of its record's agent_tool_calls, in order.
func TestReadTauBenchLines(t *testing.T) {
	f := filepath.Join("..", "..", "shared", "data", "tau_bench", "v1_airline_gpt-4o_trajectories_sample20_replayed.jsonl")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Skipf("τ-bench data not available: %v", err)
	}
	c, err := Read(f, data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if c.Format != FormatOpenAI || len(c.Runs) != 20 || len(lines) != 20 {
		t.Fatalf("format %s, %d runs of %d lines, want 20 openai-chat runs", c.Format, len(c.Runs), len(lines))
	}
	for i, line := range lines {
		var rec struct {
			AgentToolCalls []struct{ Name string } `json:"agent_tool_calls"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		calls := c.Runs[i].callList()
		if len(calls) != len(rec.AgentToolCalls) {
			t.Fatalf("run %d: %d calls, the record lists %d", i, len(calls), len(rec.AgentToolCalls))
		}
		for j, want := range rec.AgentToolCalls {
			if calls[j].Tool != want.Name {
				t.Errorf("run %d call %d: %s, want %s", i, j, calls[j].Tool, want.Name)
			}
		}
	}
}

// TestMCPCallError: a failed mcp_call's error object is kept as the text
// of its JSON.
func TestMCPCallError(t *testing.T) {
	c, err := Read("r.json", []byte(`{"object": "response", "output": [{"type": "mcp_call", "id": "m1", "server_label": "s", "name": "t", "error": {"code": 500}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	diff(t, c.Runs[0].callList()[0].ResultValue(), textResult(`{"code":500}`))
}

// TestResultsByRepeatedOrUnknownID: a result finds the first call still
// waiting with its id, so two calls sharing an id get their results in
// order; a result whose id names no recorded call is no call's result. The
// orphan was given to the first waiting call, and the second call of a
// shared id took both results' place, leaving the first without one.
func TestResultsByRepeatedOrUnknownID(t *testing.T) {
	// The orphan result (call id "zz") is refused, at its position.
	orphans := map[string]string{"openai": "openai.json:3:2: messages[2]: a result", "anthropic": "anthropic.json:3:31: messages[2].content[0]: a result",
		"responses": "responses.json:2:2: [3]: a result"}
	for name, doc := range map[string]string{
		"openai": `{"messages": [{"role": "user", "content": "q"},
 {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "a", "arguments": "{}"}}, {"id": "c1", "function": {"name": "b", "arguments": "{}"}}, {"id": "c2", "function": {"name": "c", "arguments": "{}"}}]},
 {"role": "tool", "tool_call_id": "zz", "content": "orphan"}, {"role": "tool", "tool_call_id": "c1", "content": "R1"}, {"role": "tool", "tool_call_id": "c1", "content": "R2"}]}`,
		"anthropic": `{"messages": [{"role": "user", "content": "q"},
 {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "a", "input": {}}, {"type": "tool_use", "id": "c1", "name": "b", "input": {}}, {"type": "tool_use", "id": "c2", "name": "c", "input": {}}]},
 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "zz", "content": "orphan"}, {"type": "tool_result", "tool_use_id": "c1", "content": "R1"}, {"type": "tool_result", "tool_use_id": "c1", "content": "R2"}]}]}`,
		"responses": `[{"type": "function_call", "call_id": "c1", "name": "a", "arguments": "{}"}, {"type": "function_call", "call_id": "c1", "name": "b", "arguments": "{}"}, {"type": "function_call", "call_id": "c2", "name": "c", "arguments": "{}"},
 {"type": "function_call_output", "call_id": "zz", "output": "orphan"}, {"type": "function_call_output", "call_id": "c1", "output": "R1"}, {"type": "function_call_output", "call_id": "c1", "output": "R2"}]`,
	} {
		if _, err := Read(name+".json", []byte(doc)); err == nil || !strings.HasPrefix(err.Error(), orphans[name]) ||
			!strings.Contains(err.Error(), `refers to the call id "zz", but no call read from the file has that id`) {
			t.Errorf("%s: %v, want the orphan refused at %s", name, err, orphans[name])
		}
		doc = strings.NewReplacer(`{"role": "tool", "tool_call_id": "zz", "content": "orphan"}, `, "",
			`{"type": "tool_result", "tool_use_id": "zz", "content": "orphan"}, `, "",
			`{"type": "function_call_output", "call_id": "zz", "output": "orphan"}, `, "").Replace(doc)
		c, err := Read(name+".json", []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, call := range c.Runs[0].callList() {
			b, _ := json.Marshal(call.Result)
			got = append(got, call.Tool+"="+string(b))
		}
		want := []string{`a={"content":[{"text":"R1","type":"text"}]}`, `b={"content":[{"text":"R2","type":"text"}]}`, `c=null`}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: calls %q, want %q", name, got, want)
		}
	}
}
