package cassette

import (
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
		for _, call := range r.Calls() {
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
