package cassette

import (
	"fmt"
	"strings"
	"testing"
)

// TestOTelReaderRules states rules of the OTLP span reader at their edges.
func TestOTelReaderRules(t *testing.T) {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	toolSpan := `{"traceId": "ab", "spanId": "03", "name": "execute_tool get-sum", "startTimeUnixNano": "5", "attributes": [` +
		attr("gen_ai.operation.name", "execute_tool") + `, ` + attr("gen_ai.tool.name", "get-sum") + `]}`
	for _, tt := range []struct {
		name, json string
		agent      string // the first call's agent; "" with err set: refused
		err        string
	}{
		// A member that is null is absent: no element, no problem.
		{"scopeSpans null", `{"resourceSpans": [{"scopeSpans": null}, {"scopeSpans": [{"spans": [` + toolSpan + `]}]}]}`, "", ""},
		{"start time null", `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Replace(toolSpan, `"5"`, `null`, 1) + `]}]}]}`, "", ""},
		{"spans a number", `{"resourceSpans": [{"scopeSpans": [{"spans": 7}]}]}`, "", "spans"},
		// The agent of a call is found walking up from its span's parent,
		// every span of the trace at most once: a span whose parents loop
		// back to it is its own agent.
		{"parents in a loop", `{"resourceSpans": [{"scopeSpans": [{"spans": [
			{"traceId": "ab", "spanId": "01", "parentSpanId": "02", "name": "bot", "startTimeUnixNano": "1", "attributes": [` +
			attr("openinference.span.kind", "AGENT") + `, ` +
			attr("gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "get-sum", "arguments": {"a": 2}}]}]`) + `]},
			{"traceId": "ab", "spanId": "02", "parentSpanId": "01", "name": "loop", "startTimeUnixNano": "2", "attributes": []}]}]}]}`, "bot", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("spans.json", []byte(tt.json))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != 1 || len(c.Runs[0].Calls()) != 1 || c.Runs[0].Calls()[0].Agent != tt.agent {
				t.Fatalf("runs %+v, want one call by %q", c.Runs, tt.agent)
			}
		})
	}
}
