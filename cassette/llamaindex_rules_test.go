package cassette

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestLlamaMessagesRules: a ChatMessage list is LlamaIndex.TS's when a
// message's options hold a toolCall array or a toolResult; a toolResult
// answers the call with its id (isError fails it) and starts no turn; a
// streamed call's input, a JSON string, is parsed; handOff passes the
// run to its toAgent, whose calls carry its name, and is no call; a call
// without a name is an error at it.
func TestLlamaMessagesRules(t *testing.T) {
	doc := `[{"role": "system", "content": "be brief"},
		{"role": "user", "content": [{"type": "text", "text": "go"}]},
		{"role": "assistant", "content": "", "options": {"toolCall": [{"id": "1", "name": "search", "input": {"q": "x"}},
			{"id": "2", "name": "fetch", "input": "{\"url\": \"u\"}"}]}},
		{"role": "user", "content": "found", "options": {"toolResult": {"id": "1", "result": "found", "isError": false}}},
		{"role": "user", "content": "Error: boom", "options": {"toolResult": {"id": "2", "result": "Error: boom", "isError": true}}},
		{"role": "assistant", "content": "", "options": {"toolCall": [{"id": "h", "name": "handOff", "input": {"toAgent": "writer", "reason": "r"}}]}},
		{"role": "user", "content": "handed", "options": {"toolResult": {"id": "h", "result": "handed", "isError": false}}},
		{"role": "assistant", "content": "", "options": {"toolCall": [{"id": "3", "name": "mcp__fs__write", "input": {}}]}},
		{"role": "user", "content": "{\"content\": [{\"type\": \"text\", \"text\": \"ok\"}]}", "options": {"toolResult": {"id": "3", "result": "{\"content\": [{\"type\": \"text\", \"text\": \"ok\"}]}", "isError": false}}},
		{"role": "assistant", "content": "written"}]`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.Agent+":"+call.ID()+"="+outcome(call))
	}
	want := []string{":search=found", ":fetch=Error: boom (error)", "writer:fs.write=ok"}
	if !reflect.DeepEqual(got, want) || c.Format != FormatLlamaIndex || len(c.Runs[0].Turns) != 1 ||
		c.Runs[0].Turns[0].FinalResponse != "written" || c.Prompt != "go" {
		t.Errorf("calls %q, format %s, turns %+v, prompt %q", got, c.Format, c.Runs[0].Turns, c.Prompt)
	}
	if args := c.Runs[0].callList()[1].Arguments.Value(); !reflect.DeepEqual(args, map[string]any{"url": "u"}) {
		t.Errorf("streamed input read as %v", args)
	}

	// A handOff whose input is no object (a framework's change, a damaged
	// file) hands to no one and is no call; it once panicked.
	for _, input := range []string{`null`, `"sum_agent"`, `[1]`, `{"toAgent": 7}`} {
		c, err := Read("t.json", []byte(`[{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "options": {"toolCall": [{"id": "h", "name": "handOff", "input": `+input+`}]}}]`))
		if err != nil || len(c.Runs[0].callList()) != 0 || len(c.Runs[0].Delegations) != 0 {
			t.Errorf("handOff input %s: %v %+v", input, err, c)
		}
	}

	for _, tc := range []struct{ doc, want string }{
		{`[{"role": "assistant", "content": "", "options": {"toolCall": [{"id": "1", "input": {}}]}}]`, `[0].options.toolCall[0]: missing "name"`},
		{`[{"role": "assistant", "content": "", "options": {"toolCall": [7]}}]`, `[0].options.toolCall[0]: expected a tool call`},
		{`[{"role": "user", "content": "x", "options": {"toolResult": {"id": "1", "result": "x"}}}, {"role": "assistant", "content": "", "options": {"toolCall": {"id": "1"}}}]`, `[1].options.toolCall: expected an array`},
	} {
		if _, err := Read("t.json", []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
}

// TestLlamaEventsRules: a workflow event stream is read from the
// events' data, whatever their numbered types: an agentToolCallResult
// alone is the call and its result; a handOff between two agents is a
// delegation; each llamaindex-start begins a run; an agentStream raw
// chunk's usage is the tokens; an event that is not {"type", "data"} is
// an error at it.
func TestLlamaEventsRules(t *testing.T) {
	ev := func(typ, data string) string { return `{"type": "` + typ + `", "data": ` + data + `}` }
	result := func(id, name, out string, isErr bool) string {
		e := "false"
		if isErr {
			e = "true"
		}
		return ev("9", `{"toolName": "`+name+`", "toolKwargs": {"n": 1}, "toolId": "`+id+`", "toolOutput": {"id": "`+id+`", "result": "`+out+`", "isError": `+e+`}, "returnDirect": false, "raw": null}`)
	}
	doc := "[" + strings.Join([]string{
		ev("llamaindex-start", `{"userInput": "first"}`),
		ev("4", `{"delta": "", "response": "", "currentAgentName": "planner", "raw": {"model": "gpt-x", "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}}`),
		ev("8", `{"agentName": "planner", "toolName": "handOff", "toolKwargs": {"toAgent": "coder", "reason": "r"}, "toolId": "h1"}`),
		result("h1", "handOff", "handed", false),
		ev("8", `{"agentName": "coder", "toolName": "run", "toolKwargs": {"n": 1}, "toolId": "c1"}`),
		result("c1", "run", "ran", false),
		result("c2", "lint", "Error: bad", true),
		ev("llamaindex-stop", `{"result": "all done", "message": {"role": "assistant", "content": "all done"}}`),
		ev("llamaindex-start", `{"userInput": "second"}`),
		ev("5", `{"response": {"role": "assistant", "content": "", "options": {"toolCall": [{"id": "d1", "name": "peek", "input": {}}]}}, "toolCalls": [{"agentName": "planner", "toolName": "peek", "toolKwargs": {}, "toolId": "d1"}], "raw": null, "currentAgentName": "planner"}`),
		ev("llamaindex-stop", `{"result": "seen"}`),
	}, ", ") + "]"
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, r := range c.Runs {
		var calls []string
		for _, call := range r.callList() {
			calls = append(calls, call.Agent+":"+call.Tool+"="+outcome(call))
		}
		got = append(got, calls)
	}
	want := [][]string{{"coder:run=ran", "coder:lint=Error: bad (error)"}, {"planner:peek="}}
	if !reflect.DeepEqual(got, want) || c.Format != FormatLlamaIndexEvents || c.Model != "gpt-x" || c.Agent != "planner" ||
		!reflect.DeepEqual(c.Runs[0].Delegations, []Delegation{{From: "planner", To: "coder"}}) ||
		c.Runs[0].Tokens == nil || *c.Runs[0].Tokens != (Tokens{Input: 10, Output: 2, Total: 12}) ||
		c.Runs[0].Turns[0].FinalResponse != "all done" || c.Prompt != "first" {
		t.Errorf("calls %q, format %s, model %q, agent %q, delegations %+v, tokens %+v, turns %+v",
			got, c.Format, c.Model, c.Agent, c.Runs[0].Delegations, c.Runs[0].Tokens, c.Runs[0].Turns)
	}

	bad := "[" + ev("llamaindex-start", `{"userInput": "x"}`) + `, {"type": "8"}, ` +
		ev("8", `{"agentName": "a", "toolName": 3, "toolKwargs": {}, "toolId": "1"}`) + "]"
	_, err = Read("t.json", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "[1]: expected a workflow event") || !strings.Contains(err.Error(), "[2].data.toolName") {
		t.Errorf("broken events: %v", err)
	}
}

// TestLlamaEventsLines: the workflow's events written one a line (as a
// stream is appended to a file) read as the array of them does.
func TestLlamaEventsLines(t *testing.T) {
	data, err := os.ReadFile("testdata/ok/llamaindex_workflow_events.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read("t.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var events []json.RawMessage
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	for _, e := range events {
		if err := json.Compact(&lines, e); err != nil {
			t.Fatal(err)
		}
		lines.WriteByte('\n')
	}
	twice := append(bytes.Clone(lines.Bytes()), lines.Bytes()...)
	c, err := Read("t.json", lines.Bytes())
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("one event a line: %v\n%+v\nwant %+v", err, c, want)
	}
	c, err = Read("t.json", twice)
	if err != nil || len(c.Runs) != 2 || !reflect.DeepEqual(c.Runs[1], want.Runs[0]) {
		t.Errorf("two runs' events: %v %+v", err, c)
	}
}
