package cassette

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestProblemsAreBounded: a file of many broken values is refused with the
// first maxProblems problems and a count of the rest, in time linear in its
// size; an object that repeats one key 200,000 times is too (each repeat
// names the first occurrence without searching the object again).
func TestProblemsAreBounded(t *testing.T) {
	const n = 200_000
	for name, doc := range map[string]string{
		"broken calls":  `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [` + strings.Repeat(`{"tool":1},`, n-1) + `{"tool":1}]}]}]}`,
		"repeated keys": `{"mcptest_cassette": 1, "runs": [], "x-a": {` + strings.Repeat(`"a":1,`, n) + `"a":1}}`,
	} {
		start := time.Now()
		_, err := Read("f.json", []byte(doc))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v to refuse %d bytes", name, d, len(doc))
		}
		l := diagErrors(t, err)
		last := l[len(l)-1].Error()
		want := "f.json:1:1: 199900 more problems not shown: the file has 200000, these are the first 100 [cassette]"
		if len(l) != maxProblems+1 || last != want {
			t.Errorf("%s: %d errors, the last %q, want %d and %q", name, len(l), last, maxProblems+1, want)
		}
	}
}

// TestDeepRecordingsAreLinear: a trace whose 50,000 tool spans each
// enclose the next, and a Claude Code session of 50,000 subagent events,
// read in time linear in their size (each span's agent is found once, each
// event tags only its own calls).
func TestDeepRecordingsAreLinear(t *testing.T) {
	const n = 50_000
	var otlp strings.Builder
	otlp.WriteString(`{"resourceSpans": [{"scopeSpans": [{"spans": [`)
	otlp.WriteString(`{"traceId": "t", "spanId": "s0", "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}, {"key": "gen_ai.agent.name", "value": {"stringValue": "root"}}]}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&otlp, `, {"traceId": "t", "spanId": "s%d", "parentSpanId": "s%d", "name": "execute_tool x", "startTimeUnixNano": "%d", `+
			`"attributes": [{"key": "mcp.method.name", "value": {"stringValue": "tools/call"}}]}`, i, i-1, i)
	}
	otlp.WriteString(`]}]}]}`)
	var claude strings.Builder
	claude.WriteString(`{"type":"system","subtype":"init","session_id":"s","tools":[]}` + "\n")
	claude.WriteString(`{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"task","name":"Task","input":{"subagent_type":"w"}}]}}` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&claude, `{"type":"assistant","session_id":"s","parent_tool_use_id":"task","message":{"role":"assistant","content":[{"type":"tool_use","id":"u%d","name":"mcp__a__b","input":{}}]}}`+"\n", i)
	}
	for name, doc := range map[string]string{"otlp": otlp.String(), "stream-json": claude.String()} {
		start := time.Now()
		c, err := Read("f.json", []byte(doc))
		d := time.Since(start)
		if d > 15*time.Second {
			t.Errorf("%s: %v to read %d bytes", name, d, len(doc))
		}
		t.Logf("%s: %d bytes in %v", name, len(doc), d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		calls := c.Runs[0].callList()
		if len(calls) < n || calls[len(calls)-1].Agent == "" {
			t.Errorf("%s: %d calls, the last by %q", name, len(calls), calls[len(calls)-1].Agent)
		}
	}
}

// TestResultsOutOfOrderAreLinear: a transcript of 100,000 calls whose
// results come back in reverse order is matched by id in linear time: it
// reads in about the time of the same calls answered in order. The two are
// timed alternately and the least of each kept, so a loaded machine slows
// both alike; a matching by scan would take thousands of times longer.
func TestResultsOutOfOrderAreLinear(t *testing.T) {
	const n = 100_000
	transcript := func(reverse bool) []byte {
		var b strings.Builder
		b.WriteString(`{"messages": [{"role": "assistant", "content": [`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type": "tool_use", "id": "u%d", "name": "t", "input": {}}`, i)
		}
		b.WriteString(`]}, {"role": "user", "content": [`)
		for k := 0; k < n; k++ {
			i := k
			if reverse {
				i = n - 1 - k
			}
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type": "tool_result", "tool_use_id": "u%d", "content": "r%d"}`, i, i)
		}
		b.WriteString(`]}]}`)
		return []byte(b.String())
	}
	docs := [2][]byte{transcript(false), transcript(true)}
	least := [2]time.Duration{}
	var c *Cassette
	for round := 0; round < 2; round++ {
		for k, doc := range docs {
			start := time.Now()
			got, err := Read("f.json", doc)
			d := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if least[k] == 0 || d < least[k] {
				least[k] = d
			}
			c = got
		}
	}
	if least[1] > 4*least[0]+100*time.Millisecond {
		t.Errorf("%v to read %d calls answered in reverse, %v in order", least[1], n, least[0])
	}
	calls := c.Runs[0].callList()
	if len(calls) != n || resultText(calls[0].Result) != "r0" || resultText(calls[n-1].Result) != fmt.Sprintf("r%d", n-1) {
		t.Errorf("%d calls, results %v … %v", len(calls), calls[0].Result, calls[n-1].Result)
	}
}

// TestTokenSumsSaturate: token counts summed over many spans or messages
// stop at maxCount instead of wrapping: 1,100 model calls of 2^53 input
// tokens each summed to a negative total, which passed a budget of
// `tokens.total <= 100`.
func TestTokenSumsSaturate(t *testing.T) {
	const n = 1100
	var spans, msgs []string
	for i := range n {
		spans = append(spans, fmt.Sprintf(`{"traceId": "t", "spanId": "s%d", "name": "chat", "startTimeUnixNano": "%d", "endTimeUnixNano": "%d",
 "attributes": [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "9007199254740992"}}]}`, i, i+1, i+2))
		msgs = append(msgs, `{"role": "assistant", "content": "a", "usage": {"prompt_tokens": 9007199254740992, "completion_tokens": 0}}`)
	}
	for name, doc := range map[string]string{
		"otel":       `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Join(spans, ",") + `]}]}]}`,
		"transcript": `{"messages": [{"role": "user", "content": "q"}, ` + strings.Join(msgs, ",") + `]}`,
	} {
		c, err := Read(name+".json", []byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tok := c.Runs[0].Tokens
		if tok == nil || tok.Input != maxCount || tok.Total != maxCount {
			t.Errorf("%s: tokens %+v, want input and total saturated at %d", name, tok, int64(maxCount))
		}
	}
}

// TestHugeTokenCountSaturates: a count past 2^53 is read as 2^53, not
// dropped: a response of 1.2e29 input tokens read as 0 and passed
// tokens.total <= 5.
func TestHugeTokenCountSaturates(t *testing.T) {
	doc := `{"object": "response", "model": "gpt-4o", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}],
 "usage": {"input_tokens": 123456789012345678901234567890, "output_tokens": 1}}`
	c, err := Read("r.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if tok := c.Runs[0].Tokens; tok == nil || tok.Input != maxCount || tok.Total != maxCount {
		t.Errorf("tokens %+v, want input and total %d", tok, int64(maxCount))
	}
}
