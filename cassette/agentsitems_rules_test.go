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
	for _, call := range c.Runs[0].Calls() {
		s := call.Agent + ":" + call.Tool + "=" + resultText(call.Result)
		if call.IsError {
			s += " (error)"
		}
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
