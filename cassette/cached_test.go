package cassette

import "testing"

// TestCachedInputTokens checks the cached input a trace records, in each
// provider's naming: OpenAI's cached_tokens are inside the prompt count,
// Anthropic's cache reads and writes beside it (added to the input).
func TestCachedInputTokens(t *testing.T) {
	call := `"tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]`
	for name, tc := range map[string]struct {
		doc                  string
		input, cached, total int64
	}{
		"chat completion": {`{"object": "chat.completion", "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", ` + call + `}}],
 "usage": {"prompt_tokens": 2000, "completion_tokens": 100, "total_tokens": 2100, "prompt_tokens_details": {"cached_tokens": 1024}}}`, 2000, 1024, 2100},
		"responses": {`{"object": "response", "model": "gpt-4.1", "output": [{"type": "function_call", "call_id": "c", "name": "t", "arguments": "{}"}],
 "usage": {"input_tokens": 1500, "output_tokens": 50, "total_tokens": 1550, "input_tokens_details": {"cached_tokens": 1280}}}`, 1500, 1280, 1550},
		"anthropic message": {`{"type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": "u", "name": "t", "input": {}}],
 "usage": {"input_tokens": 2000, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 8000, "output_tokens": 500}}`, 10300, 8000, 10800},
		"otel span": {`{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "s", "name": "chat", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
 "attributes": [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "3000"}}, {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "40"}},
  {"key": "gen_ai.usage.cache_read.input_tokens", "value": {"intValue": "2048"}}]}]}]}]}`, 3000, 2048, 3040},
		"no cache": {`{"object": "chat.completion", "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", ` + call + `}}],
 "usage": {"prompt_tokens": 412, "completion_tokens": 27}}`, 412, 0, 439},
	} {
		c, err := Read(name+".json", []byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tok := c.Runs[0].Tokens
		if tok == nil || tok.Input != tc.input || tok.Cached != tc.cached || tok.Total != tc.total {
			t.Errorf("%s: tokens %+v, want input %d, cached %d, total %d", name, tok, tc.input, tc.cached, tc.total)
		}
	}
}
