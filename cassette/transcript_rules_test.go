package cassette

import (
	"strings"
	"testing"
)

// TestTranscriptRules states rules of the OpenAI transcript reader: turns
// start at a user message once the previous turn is answered; legacy
// function_call messages are calls and their role "function" messages
// results, matched by name; a null function_call or message is absent.
func TestTranscriptRules(t *testing.T) {
	user := func(s string) string { return `{"role": "user", "content": "` + s + `"}` }
	say := func(s string) string { return `{"role": "assistant", "content": "` + s + `"}` }
	call := func(id, name string) string {
		return `{"role": "assistant", "content": null, "tool_calls": [{"id": "` + id + `", "type": "function", "function": {"name": "` + name + `", "arguments": "{}"}}]}`
	}
	result := func(id, s string) string {
		return `{"role": "tool", "tool_call_id": "` + id + `", "content": "` + s + `"}`
	}
	for _, tt := range []struct {
		name string
		msgs []string
		want string // each turn's calls, turns separated by " | "
	}{
		{"two prompts, two turns", []string{user("a"), call("c1", "get_sum"), result("c1", "5"), say("5"), user("b"), call("c2", "echo"), result("c2", "x")},
			"get_sum=5 | echo=x"},
		{"a second prompt before the answer stays in its turn", []string{user("a"), user("a again"), call("c1", "get_sum"), result("c1", "5"), say("5")},
			"get_sum=5"},
		{"legacy function call", []string{user("a"), `{"role": "assistant", "content": null, "function_call": {"name": "get_sum", "arguments": "{}"}}`,
			`{"role": "function", "name": "get_sum", "content": "5"}`, say("5")}, "get_sum=5"},
		{"a result without an id goes to the waiting call of its tool", []string{user("a"),
			`{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_sum", "arguments": "{}"}}, ` +
				`{"id": "c2", "type": "function", "function": {"name": "echo", "arguments": "{}"}}]}`,
			`{"role": "function", "name": "echo", "content": "x"}`}, "get_sum= echo=x"},
		{"function_call null", []string{user("a"), `{"role": "assistant", "content": "hello", "function_call": null}`}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("t.json", []byte(`{"messages": [`+strings.Join(tt.msgs, ", ")+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || c.Prompt != "a" {
				t.Fatalf("runs %+v, prompt %q", c.Runs, c.Prompt)
			}
			var turns []string
			for _, tr := range c.Runs[0].Turns {
				var calls []string
				for _, cl := range tr.Calls {
					calls = append(calls, cl.Tool+"="+resultText(cl.Result))
				}
				turns = append(turns, strings.Join(calls, " "))
			}
			if got := strings.Join(turns, " | "); got != tt.want {
				t.Errorf("turns %q, want %q", got, tt.want)
			}
		})
	}
	_, err := Read("r.json", []byte(`{"choices": [{"index": 0, "message": null}]}`))
	if want := `r.json:1:14: choices[0]: missing "message": a choice holds the assistant message chosen [cassette]`; err == nil || err.Error() != want {
		t.Errorf("a choice whose message is null: got %v, want %s", err, want)
	}
}

// TestUsageSumRules: Anthropic counts its cache reads and writes beside
// input_tokens, and the input is their sum; OpenAI counts cached tokens
// inside the input. Either Anthropic count alone marks the naming.
func TestUsageSumRules(t *testing.T) {
	for _, tt := range []struct {
		usage string
		want  Tokens
	}{
		{`{"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100}`, Tokens{Input: 110, Cached: 100, Output: 5, Total: 115}},
		{`{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 20}`, Tokens{Input: 30, Output: 5, Total: 35}},
		{`{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}`, Tokens{Input: 10, Output: 5, Total: 15}},
		{`{"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 4}}`, Tokens{Input: 10, Cached: 4, Output: 5, Total: 15}},
	} {
		doc := `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": null, "usage": ` + tt.usage + `,
			"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_sum", "arguments": "{}"}}]}]}`
		c, err := Read("t.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Runs[0].Tokens; got == nil || *got != tt.want {
			t.Errorf("%s: tokens %+v, want %+v", tt.usage, got, tt.want)
		}
	}
}
