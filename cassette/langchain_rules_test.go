package cassette

import (
	"strings"
	"testing"
)

// TestLangChainRules: a constructor message needs "lc": 1, "type"
// "constructor", a class in its id and its kwargs; a StoredMessage is
// exactly {"type", "data"} with a content in data; the first element
// decides whether a list is LangChain's. The first AI message that names
// itself is the agent and the first model the model (a state's "model"
// wins); a ToolMessage without tool_call_id answers the first waiting call
// of its name; a total_tokens is taken as written (15 for 10 in and 2 out),
// and usage without it or cache reads has none.
func TestLangChainRules(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		langChain bool
	}{
		{"constructor", `[{"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"], "kwargs": {"content": "hi"}}]`, true},
		{"lc 2", `[{"lc": 2, "type": "constructor", "id": ["HumanMessage"], "kwargs": {"content": "hi"}}]`, false},
		{"not a constructor", `[{"lc": 1, "type": "secret", "id": ["HumanMessage"], "kwargs": {"content": "hi"}}]`, false},
		{"no id", `[{"lc": 1, "type": "constructor", "id": [], "kwargs": {"content": "hi"}}]`, false},
		{"no kwargs", `[{"lc": 1, "type": "constructor", "id": ["HumanMessage"]}]`, false},
		{"unknown class", `[{"lc": 1, "type": "constructor", "id": ["Retriever"], "kwargs": {"content": "hi"}}]`, false},
		{"stored", `[{"type": "human", "data": {"content": "hi"}}]`, true},
		{"stored, a third key", `[{"type": "human", "data": {"content": "hi"}, "x": 1}]`, false},
		{"stored, no content", `[{"type": "human", "data": {"text": "hi"}}]`, false},
		{"stored, unknown type", `[{"type": "robot", "data": {"content": "hi"}}]`, false},
		{"the first decides", `[{"role": "user", "content": "hi"}, {"type": "human", "data": {"content": "hi"}}]`, false},
	} {
		c, err := Read("t.json", []byte(tc.doc))
		if got := err == nil && c.Format == FormatLangChain; got != tc.langChain {
			format := Format("")
			if c != nil {
				format = c.Format
			}
			t.Errorf("%s: read as %q (%v); LangChain %v, want %v", tc.name, format, err, got, tc.langChain)
		}
	}

	doc := `{"model": "state-model", "messages": [
		{"type": "human", "data": {"content": "go"}},
		{"type": "ai", "data": {"content": "", "tool_calls": [{"id": "1", "name": "a", "args": {}}],
		 "response_metadata": {"model": "m-1"}, "usage_metadata": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 15}}},
		{"type": "ai", "data": {"content": "", "name": "worker", "tool_calls": [{"id": "", "name": "b", "args": {}}, {"id": "", "name": "b", "args": {}}],
		 "response_metadata": {"model_name": "m-2"}, "usage_metadata": {"input_tokens": 20, "output_tokens": 3, "input_token_details": {}}}},
		{"type": "ai", "data": {"content": "", "name": "other", "tool_calls": [{"id": "2", "name": "c", "args": {}}]}},
		{"type": "tool", "data": {"content": "first b", "name": "b"}},
		{"type": "tool", "data": {"content": "a done", "tool_call_id": "1", "status": "success"}},
		{"type": "tool", "data": {"content": "c failed", "tool_call_id": "2", "status": "error"}},
		{"type": "ai", "data": {"content": "done"}}]}`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		s := call.Agent + ":" + call.Tool + "=" + outcome(call)
		got = append(got, s)
	}
	if want := ":a=a done|worker:b=first b|worker:b=|other:c=c failed (error)"; strings.Join(got, "|") != want {
		t.Errorf("calls %q, want %q", strings.Join(got, "|"), want)
	}
	if c.Agent != "worker" || c.Model != "state-model" || *c.Runs[0].Tokens != (Tokens{Input: 30, Output: 5, Total: 38}) {
		t.Errorf("agent %q, model %q, tokens %+v", c.Agent, c.Model, *c.Runs[0].Tokens)
	}
	c, err = Read("t.json", []byte(`[{"type": "human", "data": {"content": "go"}},
		{"type": "ai", "data": {"content": "x", "response_metadata": {"model": "m-1"}}},
		{"type": "ai", "data": {"content": "y", "response_metadata": {"model_name": "m-2"}}}]`))
	if err != nil || c.Model != "m-1" {
		t.Errorf("model %q (%v), want the first message's", c.Model, err)
	}
}

// TestLangChainStatePath: the messages of a graph's state are at
// "messages", so a problem in one is named and placed there, as it is at
// the root of a bare message list.
func TestLangChainStatePath(t *testing.T) {
	msgs := `[{"type": "human", "data": {"content": "go"}},
 "oops"]`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"a state", `{"model": "m", "messages": ` + msgs + `}`, `f.json:2:2: messages[1]: expected a LangChain message`},
		{"a list", msgs, `f.json:2:2: [1]: expected a LangChain message`},
	} {
		_, err := Read("f.json", []byte(tc.doc))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
}
