package cassette

import (
	"strings"
	"testing"
)

// TestLostCallsInLines holds the no-silent-zero rule for a recording
// spread over the lines of a JSON Lines file (OTLP export requests one a
// line): read with runs and no calls, the file is refused at the first
// line that names a tool, placed at its own line, past blank lines and
// lines that hold none; a file whose lines name no tool reads.
func TestLostCallsInLines(t *testing.T) {
	span := func(attrs string) string {
		return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab", "spanId": "01", "name": "step", "attributes": [` +
			`{"key": "openinference.span.kind", "value": {"stringValue": "CHAIN"}}, ` + attrs +
			`{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "5"}}]}]}]}]}`
	}
	plain, named := span(""), span(`{"key": "tool.name", "value": {"stringValue": "get-sum"}}, `)
	for _, tt := range []struct {
		name, text, want string
	}{
		{"the third line names a tool", plain + "\n\n" + named + "\n", "fuzz.jsonl:3:"},
		{"the first line names a tool", named + "\n" + plain + "\n", "fuzz.jsonl:1:"},
		{"no line names a tool", plain + "\n\n" + plain + "\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("fuzz.jsonl", []byte(tt.text))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "" && (len(c.Runs) == 0 || hasCalls(c.Runs)):
				t.Fatalf("runs %+v", c.Runs)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want) || !strings.Contains(err.Error(), `"tool.name" span attribute naming the tool "get-sum"`)):
				t.Fatalf("got %v\nwant the prefix %s and the tool named", err, tt.want)
			}
		})
	}
}

// TestFindShapeDepth: the search for call-shaped data descends
// maxShapeDepth levels, arrays and objects alike, and no deeper: an
// OpenAI tool call, two levels under its message, is found under up to
// maxShapeDepth-2 levels.
func TestFindShapeDepth(t *testing.T) {
	call := map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1", "type": "function",
		"function": map[string]any{"name": "get_sum", "arguments": "{}"}}}}
	for _, tt := range []struct {
		levels int
		found  bool
	}{{maxShapeDepth - 3, true}, {maxShapeDepth - 2, true}, {maxShapeDepth - 1, false}, {maxShapeDepth, false}} {
		var v any = call
		for range tt.levels {
			v = []any{v}
		}
		var o any = call
		for range tt.levels {
			o = map[string]any{"k": o}
		}
		for _, doc := range []any{v, o} {
			if _, found := findShape(doc); found != tt.found {
				t.Errorf("a call under %d levels: found %v, want %v", tt.levels, found, tt.found)
			}
		}
	}
}
