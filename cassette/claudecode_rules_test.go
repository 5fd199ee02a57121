package cassette

import (
	"strings"
	"testing"
)

// claudeSession is a Claude Code stream-json session: an init event,
// the lines, and a result event with its fields.
func claudeSession(result string, lines ...string) []byte {
	all := append([]string{`{"type":"system","subtype":"init","session_id":"s","tools":[]}`}, lines...)
	all = append(all, `{"type":"result","subtype":"success","session_id":"s","result":"done"`+result+`}`)
	return []byte(strings.Join(all, "\n") + "\n")
}

func claudeToolUse(id, name, parent string) string {
	p := ""
	if parent != "" {
		p = `"parent_tool_use_id":"` + parent + `",`
	}
	return `{"type":"assistant","session_id":"s",` + p + `"message":{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{"subagent_type":"` + map[bool]string{true: "", false: "writer"}[id == "task0"] + `"}}]}}`
}

// TestClaudeCodeBounds: the session's cost is a number of dollars from 0
// to under 2^53 micro-dollars, a usage count an integer from 0; -0.01, a
// cost of 2^53 micro-dollars and a count of -1 are refused.
func TestClaudeCodeBounds(t *testing.T) {
	for _, tc := range []struct {
		result string
		ok     bool
		micros int64
	}{
		{`,"total_cost_usd":0`, true, 0},
		{`,"total_cost_usd":0.25`, true, 250000},
		{`,"total_cost_usd":9007199254.74`, true, -1},
		{`,"total_cost_usd":9007199254.740992`, false, 0},
		{`,"total_cost_usd":-0.01`, false, 0},
		{`,"usage":{"input_tokens":0,"output_tokens":0}`, true, -1},
		{`,"usage":{"input_tokens":-1,"output_tokens":0}`, false, -1},
	} {
		c, err := Read("s.jsonl", claudeSession(tc.result))
		if (err == nil) != tc.ok {
			t.Errorf("result %s: %v, want read %v", tc.result, err, tc.ok)
			continue
		}
		if err == nil && tc.micros >= 0 && (c.Runs[0].CostMicros == nil || *c.Runs[0].CostMicros != tc.micros) {
			t.Errorf("result %s: cost %v, want %d micro-dollars", tc.result, c.Runs[0].CostMicros, tc.micros)
		}
	}
}

// TestClaudeCodeSubagents: the calls a Task's subagent makes are its
// agent's, "subagent" when the Task names none; the calls before are the
// main agent's.
func TestClaudeCodeSubagents(t *testing.T) {
	c, err := Read("s.jsonl", claudeSession("",
		claudeToolUse("u0", "mcp__srv__first", ""),
		claudeToolUse("task", "Task", ""),
		claudeToolUse("u1", "mcp__srv__a", "task"),
		claudeToolUse("u2", "mcp__srv__b", "task"),
		claudeToolUse("task0", "Task", ""),
		claudeToolUse("u3", "mcp__srv__c", "task0"),
	))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].Calls() {
		got = append(got, call.Agent+":"+call.Tool)
	}
	if want := ":first :Task writer:a writer:b :Task subagent:c"; strings.Join(got, " ") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, " "), want)
	}
}

// TestSizeBound: a file of exactly MaxSize bytes is read (here refused
// for its content, at its first byte, not for its size).
func TestSizeBound(t *testing.T) {
	data := append([]byte("x"), make([]byte, MaxSize-1)...)
	_, err := Read("big.json", data)
	if err == nil || strings.Contains(err.Error(), "limit") {
		t.Errorf("Read of %d bytes: %v, want a refusal of its content", len(data), err)
	}
}
