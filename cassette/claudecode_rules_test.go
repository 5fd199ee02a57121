package cassette

import (
	"strconv"
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
	for _, call := range c.Runs[0].callList() {
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

// TestClaudeCodeSessionRules: an init event with nothing read before it
// gives no empty run; the first init's model is the cassette's; a
// message's usage counts once per message id (an event that repeats it
// adds none; one without an id, or whose id came first without usage,
// counts); only a Task call starts a subagent; a result event's empty
// text keeps the answer said; a session without its result event is a
// run; every call of a subagent's message is its agent's, the first of a
// turn too; a usage count that is null is no count.
func TestClaudeCodeSessionRules(t *testing.T) {
	const init = `{"type":"system","subtype":"init","session_id":"s","model":"m-1","tools":[]}`
	say := func(id, text, usage string) string {
		u := ""
		if usage != "" {
			u = `,"usage":` + usage
		}
		return `{"type":"assistant","session_id":"s","message":{"id":"` + id + `","role":"assistant","content":[{"type":"text","text":"` + text + `"}]` + u + `}}`
	}
	use := func(parent string, calls ...string) string {
		p := ""
		if parent != "" {
			p = `"parent_tool_use_id":"` + parent + `",`
		}
		var blocks []string
		for _, c := range calls {
			id, name, _ := strings.Cut(c, "=")
			blocks = append(blocks, `{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{"subagent_type":"writer"}}`)
		}
		return `{"type":"assistant","session_id":"s",` + p + `"message":{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}}`
	}
	user := func(text string) string {
		return `{"type":"user","session_id":"s","message":{"role":"user","content":"` + text + `"}}`
	}
	const u = `{"input_tokens":10,"output_tokens":2}`
	const result = `{"type":"result","subtype":"success","session_id":"s"}`
	for _, tc := range []struct {
		rule  string
		lines []string
		want  string
	}{
		{"an init with nothing before it starts no run", []string{init, init, say("", "hi", ""), result}, `m-1: "hi"`},
		{"the first init's model", []string{init, say("", "a", ""), result, strings.Replace(init, "m-1", "m-2", 1), say("", "b", ""), result}, `m-1: "a" | "b"`},
		{"a message's usage once per id", []string{init, say("m1", "a", u), say("m1", "b", u), result}, `m-1: "b" 10/2`},
		{"a message without an id counts each time", []string{init, say("", "a", u), say("", "b", u), result}, `m-1: "b" 20/4`},
		{"an id first seen without usage counts a later usage", []string{init, say("m1", "a", ""), say("m1", "b", u), result}, `m-1: "b" 10/2`},
		{"only a Task call starts a subagent", []string{init, use("", "o1=mcp__srv__other"), use("o1", "u1=mcp__srv__x"), result}, `m-1: :other,subagent:x ""`},
		{"an empty result text keeps the answer said", []string{init, say("", "hello", ""), `{"type":"result","subtype":"success","session_id":"s","result":""}`}, `m-1: "hello"`},
		{"a session without its result event", []string{init, say("", "hi", "")}, `m-1: "hi"`},
		{"a subagent's call first in its turn", []string{init, user("go"), use("", "task=Task"), user("more"), use("task", "u1=mcp__srv__a")}, `m-1: :Task,writer:a ""`},
		{"a subagent's message of two calls", []string{init, use("", "task=Task"), use("task", "u1=mcp__srv__a", "u2=mcp__srv__b"), result}, `m-1: :Task,writer:a,writer:b ""`},
		{"a null usage count", []string{init, say("", "hi", ""), `{"type":"result","subtype":"success","session_id":"s","usage":{"input_tokens":5,"cache_creation_input_tokens":null,"output_tokens":1}}`}, `m-1: "hi" 5/1`},
	} {
		c, err := Read("s.jsonl", []byte(strings.Join(tc.lines, "\n")+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		var runs []string
		for _, r := range c.Runs {
			var calls []string
			for _, call := range r.callList() {
				calls = append(calls, call.Agent+":"+call.Tool)
			}
			s := strings.Join(calls, ",")
			if s != "" {
				s += " "
			}
			final := ""
			if n := len(r.Turns); n > 0 {
				final = r.Turns[n-1].FinalResponse
			}
			s += strconv.Quote(final)
			if r.Tokens != nil {
				s += " " + strconv.FormatInt(r.Tokens.Input, 10) + "/" + strconv.FormatInt(r.Tokens.Output, 10)
			}
			runs = append(runs, s)
		}
		if got := c.Model + ": " + strings.Join(runs, " | "); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.rule, got, tc.want)
		}
	}
}
