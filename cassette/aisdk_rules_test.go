package cassette

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// aiSpan is an AI SDK span that is a trace of its own (as without a
// context manager), of the operation op, started and ended at the
// nanoseconds given, with the attributes.
func aiSpan(id, op string, start, end int, attrs ...string) string {
	all := append([]string{oiAttr("ai.operationId", op)}, attrs...)
	return `{"traceId": "t` + id + `", "spanId": "` + id + `", "name": "` + op + `", "startTimeUnixNano": "` + strconv.Itoa(start) +
		`", "endTimeUnixNano": "` + strconv.Itoa(end) + `", "attributes": [` + strings.Join(all, ", ") + `]}`
}

// TestUntracedJoinBounds: without shared traces a span joins the AI SDK
// call span whose time it starts in, its start and its end included, the
// latest started when several hold it, of the same functionId when both
// name one; a span starting after every call span, or a call span that
// never ended, joins none, and is no call span of the warning's count.
// Two spans are enough to join; spans that are all call spans, or none,
// or that share a trace or name a parent, are left as they are, without
// a warning.
func TestUntracedJoinBounds(t *testing.T) {
	tool := func(id, name string, start int, attrs ...string) string {
		return aiSpan(id, "ai.toolCall", start, start+1, append([]string{oiAttr("ai.toolCall.name", name)}, attrs...)...)
	}
	fn := func(f string) string { return oiAttr("ai.telemetry.functionId", f) }
	c, err := Read("t.json", oiDoc(
		aiSpan("r1", "ai.generateText", 100, 200, fn("f")),
		aiSpan("r2", "ai.generateText", 150, 180, fn("g")),
		aiSpan("r3", "ai.generateText", 300, 0),
		tool("a", "at-start", 100),
		tool("b", "other-function", 160, fn("f")),
		tool("c", "innermost", 170),
		tool("d", "at-end", 200),
		tool("e", "after", 201),
		tool("f", "in-unended", 350),
	))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, r := range c.Runs {
		var names []string
		for _, call := range r.callList() {
			names = append(names, call.Agent+":"+call.Tool)
		}
		runs = append(runs, strings.Join(names, ","))
	}
	sort.Strings(runs)
	want := []string{"", ":after", ":in-unended", ":at-start,f:other-function,:at-end", ":innermost"}
	sort.Strings(want)
	if strings.Join(runs, " | ") != strings.Join(want, " | ") {
		t.Errorf("runs %q, want %q", runs, want)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "the 9 spans share no trace") || !strings.Contains(c.Warnings[0], "(2 runs), 4 spans joined") {
		t.Errorf("warnings %q, want 9 spans read as 2 runs, 4 joined", c.Warnings)
	}

	// Two spans are joined; spans that are all call spans, or none, or
	// that share a trace or name a parent, are left as they are.
	for _, tc := range []struct {
		name  string
		spans []string
		runs  int
		warn  bool
	}{
		{"a call span and a tool span", []string{aiSpan("r", "ai.generateText", 100, 200), tool("a", "x", 150)}, 1, true},
		{"call spans only", []string{aiSpan("r", "ai.generateText", 100, 200), aiSpan("q", "ai.streamText", 300, 400)}, 2, false},
		{"no call span", []string{tool("a", "x", 150), tool("b", "y", 160)}, 2, false},
		{"a shared trace", []string{aiSpan("r", "ai.generateText", 100, 200), strings.Replace(tool("a", "x", 150), `"traceId": "ta"`, `"traceId": "tr"`, 1)}, 1, false},
		{"a parent named", []string{aiSpan("r", "ai.generateText", 100, 200), strings.Replace(tool("a", "x", 150), `"spanId": "a"`, `"spanId": "a", "parentSpanId": "zz"`, 1)}, 2, false},
	} {
		c, err := Read("t.json", oiDoc(tc.spans...))
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Runs) != tc.runs || (len(c.Warnings) > 0) != tc.warn {
			t.Errorf("%s: %d runs, warnings %q; want %d runs, a warning %v", tc.name, len(c.Runs), c.Warnings, tc.runs, tc.warn)
		}
	}
}

// TestAISDKSpanRules: a span named ai.toolCall without an operation id is
// a tool call when it names its tool, and none when it does not; the
// catalog is the first ai.prompt.tools holding a JSON object (an entry
// that is JSON but no object is none), a tool's parameters before its
// inputSchema; of AI SDK call spans started at the same time, a span
// without a trace joins the first in the file.
func TestAISDKSpanRules(t *testing.T) {
	tools := func(entries ...string) string {
		var vals []string
		for _, e := range entries {
			vals = append(vals, `{"stringValue": `+strconv.Quote(e)+`}`)
		}
		return `{"key": "ai.prompt.tools", "value": {"arrayValue": {"values": [` + strings.Join(vals, ", ") + `]}}}`
	}
	const both = `{"type":"function","name":"t","parameters":{"title":"P"},"inputSchema":{"title":"I"}}`
	text := func(s string) string { return oiAttr("ai.response.text", s) }
	for _, tc := range []struct {
		rule  string
		spans []string
		want  string
	}{
		{"ai.toolCall naming its tool", []string{oiSpan("1", "", "ai.toolCall", oiAttr("ai.toolCall.name", "lookup"))}, "lookup"},
		{"ai.toolCall naming none", []string{oiSpan("1", "", "ai.toolCall")}, ""},
		{"the first tools holding an object, parameters first", []string{
			oiSpan("1", "", "ai.generateText.doGenerate", tools("[1]", `"x"`, "null")),
			oiSpan("2", "", "ai.generateText.doGenerate", tools(both))}, " catalog t:P"},
		{"a tie of call spans joins the first in the file", []string{
			aiSpan("r1", "ai.generateText", 100, 150, text("first")),
			aiSpan("r2", "ai.generateText", 100, 200, text("second")),
			aiSpan("a", "ai.toolCall", 120, 121, oiAttr("ai.toolCall.name", "x"))}, "x=first | =second"},
	} {
		c, err := Read("t.json", oiDoc(tc.spans...))
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		var runs []string
		for _, r := range c.Runs {
			var names []string
			for _, call := range r.callList() {
				names = append(names, call.Tool)
			}
			s := strings.Join(names, ",")
			if n := len(r.Turns); n > 0 && r.Turns[n-1].FinalResponse != "" {
				s += "=" + r.Turns[n-1].FinalResponse
			}
			runs = append(runs, s)
		}
		got := strings.Join(runs, " | ")
		for _, sc := range c.Catalog {
			for _, tool := range sc.Tools {
				schema, _ := tool.InputSchema().(map[string]any)
				got += fmt.Sprintf(" catalog %s:%v", tool.Name, schema["title"])
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.rule, got, tc.want)
		}
	}
}
