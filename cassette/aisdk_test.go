package cassette

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestAISDKSpans reads the spans the Vercel AI SDK itself wrote for two
// scripted runs (testdata/frameworks/ai-sdk.mjs): its ai.toolCall spans
// are the calls with their arguments and results, ai.response.text the
// answer, ai.telemetry.functionId the agent, ai.prompt.tools the catalog.
// Without a context manager each span is a trace of its own: the spans
// are joined to the ai.generateText span they started in, one run per
// call, with a warning; with one they share a trace and no warning is
// given. Read as GenAI spans only, the file was 8 runs and no call.
func TestAISDKSpans(t *testing.T) {
	for _, tt := range []struct {
		file     string
		runs     int
		warnings int
	}{
		{"testdata/ok/ai_sdk_spans.json", 2, 1},
		{"testdata/ok/ai_sdk_spans_lines.jsonl", 2, 1},
		{"testdata/ok/ai_sdk_spans_traced.json", 1, 0},
	} {
		t.Run(tt.file, func(t *testing.T) {
			c, err := ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Runs) != tt.runs || len(c.Warnings) != tt.warnings {
				t.Fatalf("%d runs, warnings %q; want %d runs, %d warnings", len(c.Runs), c.Warnings, tt.runs, tt.warnings)
			}
			if tt.warnings > 0 && !strings.Contains(c.Warnings[0], "share no trace") {
				t.Errorf("warning %q", c.Warnings[0])
			}
			if c.Format != FormatOTel || c.Model != "mock-sum-1" || c.Provider != "mock" || c.Prompt != "What is 2 + 3?" {
				t.Errorf("provenance %q %q %q %q", c.Format, c.Model, c.Provider, c.Prompt)
			}
			if len(c.Catalog) != 1 || len(c.Catalog[0].Tools) != 1 || c.Catalog[0].Tools[0].Name != "get-sum" || c.Catalog[0].Tools[0].InputSchema() == nil {
				t.Errorf("catalog %+v", c.Catalog)
			}
			for i := range c.Runs {
				checkAISDKRun(t, i, &c.Runs[i])
			}
		})
	}
}

// checkAISDKRun checks one run of the AI SDK corpus: get-sum(2, 3) by
// sum-agent with its result, the answer and the tokens of its two model
// calls.
func checkAISDKRun(t *testing.T, i int, r *Run) {
	t.Helper()
	calls := r.callList()
	if len(calls) != 1 || len(r.Turns) != 1 {
		t.Fatalf("run %d: %+v", i, r)
	}
	call := calls[0]
	want := map[string]any{"content": []any{map[string]any{"type": "text", "text": "The sum of 2 and 3 is 5."}}, "isError": false}
	if call.Tool != "get-sum" || !reflect.DeepEqual(call.Arguments.Value(), map[string]any{"a": 2.0, "b": 3.0}) ||
		!reflect.DeepEqual(call.ResultValue(), want) || call.IsError || call.Agent != "sum-agent" || call.DurationMS == nil {
		t.Errorf("run %d: call %+v", i, call)
	}
	if r.Turns[0].FinalResponse != "The sum is 5." {
		t.Errorf("run %d: answer %q", i, r.Turns[0].FinalResponse)
	}
	if r.Tokens == nil || *r.Tokens != (Tokens{Input: 270, Output: 25, Total: 295}) {
		t.Errorf("run %d: tokens %+v", i, r.Tokens)
	}
}

// TestUntracedSpans: spans that share no trace are joined to the AI SDK
// call span whose time they start in, of the same function id; a span in
// no call's time stays a run of its own; spans that share a trace, or
// name a parent, are left as they are.
// toolName is the ai.toolCall.name attribute of an ai.toolCall span of
// the tool name; the spans of other operations name no tool.
func toolName(op, name string) string {
	if op != "ai.toolCall" {
		return ""
	}
	return `, {"key": "ai.toolCall.name", "value": {"stringValue": "` + name + `"}}`
}

func TestUntracedSpans(t *testing.T) {
	span := func(trace, name, op, fn string, start, end int) string {
		return `{"traceId": "` + trace + `", "spanId": "s` + trace + `", "name": "` + name + `", "startTimeUnixNano": "` +
			strconv.Itoa(start) + `", "endTimeUnixNano": "` + strconv.Itoa(end) + `", "attributes": [{"key": "ai.operationId", "value": {"stringValue": "` + op +
			`"}}, {"key": "ai.telemetry.functionId", "value": {"stringValue": "` + fn + `"}}` + toolName(op, name) + `]}`
	}
	doc := `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Join([]string{
		span("01", "a", "ai.generateText", "x", 100, 200),
		span("02", "one", "ai.toolCall", "x", 110, 120),
		span("03", "b", "ai.generateText", "y", 105, 300), // overlaps a: another agent
		span("04", "two", "ai.toolCall", "y", 150, 160),
		span("05", "three", "ai.toolCall", "x", 190, 195),
		span("06", "lost", "ai.toolCall", "x", 400, 410),
	}, ", ") + `]}]}]}`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, r := range c.Runs {
		var names []string
		for _, call := range r.callList() {
			names = append(names, call.Tool)
		}
		got = append(got, names)
	}
	if want := [][]string{{"one", "three"}, {"two"}, {"lost"}}; !reflect.DeepEqual(got, want) || len(c.Warnings) != 1 ||
		!strings.Contains(c.Warnings[0], "the 6 spans share no trace") || !strings.Contains(c.Warnings[0], "(2 runs), 3 spans joined") {
		t.Errorf("runs %q, warnings %q", got, c.Warnings)
	}
	shared := strings.ReplaceAll(doc, `"traceId": "02"`, `"traceId": "01"`)
	if c, err := Read("t.json", []byte(shared)); err != nil || len(c.Runs) != 5 || c.Warnings != nil {
		t.Errorf("spans that share a trace: %v, %d runs, warnings %q", err, len(c.Runs), c.Warnings)
	}
}

// TestSpanResultIsError: a tool span whose result is a CallToolResult with
// isError true is a failed call, though its status says nothing (the AI
// SDK sets no error status for an MCP tool's error result).
func TestSpanResultIsError(t *testing.T) {
	doc := `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "a", "name": "ai.toolCall", "attributes": [
		{"key": "ai.operationId", "value": {"stringValue": "ai.toolCall"}}, {"key": "ai.toolCall.name", "value": {"stringValue": "get-env"}},
		{"key": "ai.toolCall.result", "value": {"stringValue": "{\"content\": [{\"type\": \"text\", \"text\": \"denied\"}], \"isError\": true}"}}]},
		{"traceId": "t", "spanId": "b", "name": "execute_tool echo", "attributes": [
		{"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\"content\": [], \"isError\": false}"}}]}]}]}]}`
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Runs[0].callList()
	if len(calls) != 2 || calls[0].Tool != "get-env" || !calls[0].IsError || calls[1].Tool != "echo" || calls[1].IsError {
		t.Errorf("calls %+v", calls)
	}
}
