package cassette

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// agentsItemsCall and agentsItemsResult are an Agents SDK function call
// item and its function_call_result.
func agentsItemsCall(id, name string) string {
	return `{"type": "function_call", "callId": "` + id + `", "name": "` + name + `", "arguments": "{}"}`
}

func agentsItemsResult(id, out string) string {
	return `{"type": "function_call_result", "callId": "` + id + `", "output": {"type": "text", "text": ` + strconv.Quote(out) + `}}`
}

// agentsItemsRead reads the items and returns each call as
// agent:tool=result, with " (error)" when it failed, and the delegations.
func agentsItemsRead(t *testing.T, items ...string) ([]string, []Delegation) {
	t.Helper()
	c, err := Read("t.json", []byte("["+strings.Join(items, ", ")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		s := call.Agent + ":" + call.Tool + "=" + outcome(call)
		got = append(got, s)
	}
	return got, c.Runs[0].Delegations
}

// TestAgentsHandoffRenames: the agent a handoff's result names replaces
// the snake-case name of the function in the handoff and in the next
// one's "from", also when the next handoff was called before the first's
// result came; a handoff of an agent to itself is no delegation.
func TestAgentsHandoffRenames(t *testing.T) {
	user := `{"type": "message", "role": "user", "content": "go"}`
	got, edges := agentsItemsRead(t, user,
		agentsItemsCall("h0", "transfer_to_triage"), agentsItemsResult("h0", `{"assistant":"Triage"}`),
		agentsItemsCall("h1", "transfer_to_math_agent"), agentsItemsCall("h2", "transfer_to_writer"),
		agentsItemsResult("h1", `{"assistant":"Math Agent"}`), agentsItemsResult("h2", `{"assistant":"Writer"}`),
		agentsItemsCall("c1", "echo"), agentsItemsResult("c1", "hi"),
		agentsItemsCall("h3", "transfer_to_writer"), agentsItemsResult("h3", `{"assistant":"Writer"}`))
	if want := []string{"Writer:echo=hi"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if want := []Delegation{{From: "Triage", To: "Math Agent"}, {From: "Math Agent", To: "Writer"}}; !reflect.DeepEqual(edges, want) {
		t.Errorf("delegations %+v, want %+v", edges, want)
	}
}

// TestAgentsItemsRules: an output names its call by call_id, else by
// callId; a transfer_to_ call without a callId, or without an agent after
// the prefix, is a tool call; input_text and output_text items are text;
// a result that is an MCP error message alone fails the call, one among
// other content does not; the SDK's camelCase usage is read, its total
// as written and its cached tokens summed over the details.
func TestAgentsItemsRules(t *testing.T) {
	user := `{"type": "message", "role": "user", "content": "go"}`
	got, _ := agentsItemsRead(t, user,
		`{"type": "function_call", "callId": "c1", "name": "echo", "arguments": "{}"}`,
		`{"type": "function_call", "callId": "c2", "name": "echo", "arguments": "{}"}`,
		`{"type": "function_call_result", "call_id": "", "callId": "c2", "output": [{"type": "output_text", "text": "two"}, {"type": "input_text", "text": " more"}]}`,
		`{"type": "function_call_result", "callId": "c1", "output": {"type": "input_text", "text": "one"}}`,
		`{"type": "function_call", "callId": "c3", "name": "transfer_to_", "arguments": "{}"}`,
		agentsItemsResult("c3", "MCP error -32602: bad"),
		`{"type": "function_call", "callId": "c4", "name": "echo", "arguments": "{}"}`,
		`{"type": "function_call_result", "callId": "c4", "output": [{"type": "text", "text": "MCP error 1: x"}, {"type": "text", "text": "y"}]}`,
		`{"type": "function_call", "callId": "c5", "name": "echo", "arguments": "{}"}`,
		`{"type": "function_call_result", "callId": "c5", "output": {"type": "image", "text": "MCP error 1: not text"}}`)
	want := []string{":echo=one", ":echo=two more", ":transfer_to_=MCP error -32602: bad (error)", ":echo=MCP error 1: xy", ":echo="}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}

	for _, tc := range []struct {
		usage string
		want  Tokens
	}{
		{`{"inputTokens": 100, "outputTokens": 10, "totalTokens": 125, "inputTokensDetails": [{"cachedTokens": 30}, {"cachedTokens": 20}, {}]}`,
			Tokens{Input: 100, Cached: 50, Output: 10, Total: 125}},
		{`{"inputTokens": 100, "inputTokensDetails": {"cachedTokens": 40}}`, Tokens{Input: 100, Cached: 40, Total: 100}},
		{`{"outputTokens": 7, "inputTokensDetails": []}`, Tokens{Output: 7, Total: 7}},
		{`{"input_tokens": 9, "output_tokens": 1}`, Tokens{Input: 9, Output: 1, Total: 10}},
	} {
		c, err := Read("t.json", []byte(`[{"output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}], "usage": `+tc.usage+`}]`))
		if err != nil {
			t.Fatal(err)
		}
		if tk := c.Runs[0].Tokens; tk == nil || *tk != tc.want {
			t.Errorf("usage %s: tokens %+v, want %+v", tc.usage, tk, tc.want)
		}
	}
}
