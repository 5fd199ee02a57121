package cassette

import (
	"strconv"
	"strings"
	"testing"
)

// otelTestSpan is an OTLP span of trace t1 with the times as written
// (JSON values, "" for none).
func otelTestSpan(id, parent, name, start, end string, attrs ...string) string {
	s := `{"traceId": "t1", "spanId": "` + id + `", "parentSpanId": "` + parent + `", "name": "` + name + `"`
	if start != "" {
		s += `, "startTimeUnixNano": ` + start
	}
	if end != "" {
		s += `, "endTimeUnixNano": ` + end
	}
	return s + `, "attributes": [` + strings.Join(attrs, ", ") + `]}`
}

// TestOTelTimeBounds: a span time written as a number is an integer from
// 0 to under 2^64; 2^64, -1 and 1.5 are refused.
func TestOTelTimeBounds(t *testing.T) {
	for _, tc := range []struct {
		start string
		ok    bool
	}{
		{"0", true}, {`"0"`, true}, {"1000", true}, {"18446744073709549568", true},
		{"18446744073709551616", false}, {"-1", false}, {"1.5", false},
	} {
		doc := oiDoc(otelTestSpan("1", "", "execute_tool t", tc.start, "", oiAttr("gen_ai.operation.name", "execute_tool")))
		if _, err := Read("t.json", doc); (err == nil) != tc.ok {
			t.Errorf("startTimeUnixNano %s: %v, want read %v", tc.start, err, tc.ok)
		}
	}
}

// TestOTelRunRules: the answer is the text of the span that ends last,
// of the later span in start order when two end together; a call's
// duration needs a start and an end not before it (0 when equal; a
// span without a start comes first); an
// agent invoked inside an agent of the same name is no delegation.
func TestOTelRunRules(t *testing.T) {
	answer := func(text string) string {
		return oiAttr("gen_ai.output.messages", `[{"role": "assistant", "parts": [{"type": "text", "content": "`+text+`"}]}]`)
	}
	agent := func(name string) []string {
		return []string{oiAttr("gen_ai.operation.name", "invoke_agent"), oiAttr("gen_ai.agent.name", name)}
	}
	tool := func(name string) string { return oiAttr("gen_ai.tool.name", name) }
	doc := oiDoc(
		otelTestSpan("1", "", "invoke_agent a", `"1"`, `"100"`, agent("a")...),
		otelTestSpan("2", "1", "invoke_agent a", `"2"`, `"90"`, agent("a")...),
		otelTestSpan("3", "2", "invoke_agent b", `"3"`, `"80"`, agent("b")...),
		otelTestSpan("4", "3", "chat", `"4"`, `"50"`, answer("first")),
		otelTestSpan("5", "3", "chat", `"5"`, `"50"`, answer("second")),
		otelTestSpan("6", "3", "chat", `"6"`, `"40"`, answer("earlier end")),
		otelTestSpan("7", "3", "execute_tool same", `"10"`, `"10"`, tool("same")),
		otelTestSpan("8", "3", "execute_tool back", `"20"`, `"19"`, tool("back")),
		otelTestSpan("9", "3", "execute_tool nostart", "", `"30"`, tool("nostart")),
		otelTestSpan("10", "3", "execute_tool ms", `"1000000"`, `"3500000"`, tool("ms")),
	)
	c, err := Read("t.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	run := c.Runs[0]
	var got []string
	for _, call := range run.Calls() {
		d := "none"
		if call.DurationMS != nil {
			d = strconv.FormatFloat(*call.DurationMS, 'f', -1, 64)
		}
		got = append(got, call.Tool+":"+d)
	}
	if want := "nostart:none same:0 back:none ms:2.5"; strings.Join(got, " ") != want {
		t.Errorf("durations %q, want %q", strings.Join(got, " "), want)
	}
	if got := run.Turns[0].FinalResponse; got != "second" {
		t.Errorf("answer %q, want the later of the two ending last", got)
	}
	if len(run.Delegations) != 1 || run.Delegations[0] != (Delegation{From: "a", To: "b"}) {
		t.Errorf("delegations %+v, want only a to b", run.Delegations)
	}
}
