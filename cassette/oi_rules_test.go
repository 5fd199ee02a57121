package cassette

import (
	"fmt"
	"testing"
)

// TestOpenInferenceUsage: an OpenInference LLM span's token counts are
// read when it records either of them (prompt or completion), and a span
// that records neither gives the run no usage.
func TestOpenInferenceUsage(t *testing.T) {
	attr := func(k, v string) string {
		return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v)
	}
	count := func(k string, n int) string { return fmt.Sprintf(`{"key": %q, "value": {"intValue": "%d"}}`, k, n) }
	doc := func(counts string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "ab", "spanId": "01", "name": "agent", "attributes": [` + attr("openinference.span.kind", "CHAIN") + `]},
			{"traceId": "ab", "spanId": "02", "parentSpanId": "01", "name": "model", "startTimeUnixNano": "1", "attributes": [` +
			attr("openinference.span.kind", "LLM") + counts + `]},
			{"traceId": "ab", "spanId": "03", "parentSpanId": "01", "name": "get-sum", "startTimeUnixNano": "2", "attributes": [` +
			attr("openinference.span.kind", "TOOL") + `, ` + attr("tool.name", "get-sum") + `, ` + attr("input.value", `{"a": 2}`) + `, ` + attr("output.value", "5") + `]}]}]}]}`
	}
	for _, tt := range []struct {
		name, counts string
		want         *Tokens
	}{
		{"prompt and completion", ", " + count("llm.token_count.prompt", 11) + ", " + count("llm.token_count.completion", 7), &Tokens{Input: 11, Output: 7, Total: 18}},
		{"completion only", ", " + count("llm.token_count.completion", 7), &Tokens{Output: 7, Total: 7}},
		{"prompt only", ", " + count("llm.token_count.prompt", 11), &Tokens{Input: 11, Total: 11}},
		{"no counts", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("spans.json", []byte(doc(tt.counts)))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || len(c.Runs[0].callList()) != 1 {
				t.Fatalf("runs %+v", c.Runs)
			}
			got := c.Runs[0].Tokens
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("tokens %+v, want %+v", got, tt.want)
			}
		})
	}
}
