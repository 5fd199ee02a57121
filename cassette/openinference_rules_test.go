package cassette

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// oiAttr and oiNum are OTLP attributes of a string and of an integer.
func oiAttr(k, v string) string {
	return `{"key": "` + k + `", "value": {"stringValue": ` + strconv.Quote(v) + `}}`
}

func oiNum(k string, n int) string {
	return `{"key": "` + k + `", "value": {"intValue": "` + strconv.Itoa(n) + `"}}`
}

// oiDoc is an OTLP export of one trace of the spans, each written by
// oiSpan.
func oiDoc(spans ...string) []byte {
	return []byte(`{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Join(spans, ", ") + `]}]}]}`)
}

func oiSpan(id, parent, name string, attrs ...string) string {
	return `{"traceId": "t1", "spanId": "` + id + `", "parentSpanId": "` + parent + `", "name": "` + name +
		`", "startTimeUnixNano": "1` + id + `", "endTimeUnixNano": "2` + id + `", "status": {"code": 1}, "attributes": [` + strings.Join(attrs, ", ") + `]}`
}

// TestOpenInferenceGraphAgent: the root CHAIN span of a LangGraph graph
// (metadata ls_integration "langgraph") is the agent, named after the
// graph, unless it has a parent, another integration or the default name
// "LangGraph"; a TOOL span without tool.name calls the tool its span
// names, with input.value as arguments.
func TestOpenInferenceGraphAgent(t *testing.T) {
	graph := func(name, parent, integration string) *Cassette {
		c, err := Read("t.json", oiDoc(
			oiSpan("1", parent, name, oiAttr(oiKind, "CHAIN"), oiAttr("metadata", `{"ls_integration": "`+integration+`"}`)),
			oiSpan("2", "1", "search", oiAttr(oiKind, "TOOL"), oiAttr("input.value", `{"q": "x"}`), oiAttr("output.value", "found")),
		))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name, parent, integration, want string
	}{
		{"my_graph", "", "langgraph", "my_graph"},
		{"my_graph", "0", "langgraph", ""},
		{"my_graph", "", "langchain", ""},
		{"LangGraph", "", "langgraph", ""},
	} {
		c := graph(tc.name, tc.parent, tc.integration)
		calls := c.Runs[0].callList()
		if c.Agent != tc.want || len(calls) != 1 || calls[0].Agent != tc.want {
			t.Errorf("CHAIN span %q (parent %q, %s): agent %q, calls %+v; want the agent %q", tc.name, tc.parent, tc.integration, c.Agent, calls, tc.want)
		}
		if len(calls) == 1 && (calls[0].Tool != "search" || !reflect.DeepEqual(calls[0].Arguments.Value(), map[string]any{"q": "x"}) || resultText(calls[0].Result) != "found") {
			t.Errorf("TOOL span: %+v", calls[0])
		}
	}
}

// TestOpenInferenceRules: an AGENT span without agent.name is named
// after the span; a TOOL span's output.value may wrap the ToolMessage in
// "output"; an LLM span without llm.model_name has the model of the
// message in its output.value's generations; llm.token_count.total is the
// total; the prompt is the first non-blank user message of the input
// messages, the answer the last non-blank assistant one of the output. A
// TOOL span's output.value that is another LangChain message than a
// ToolMessage is its text, and an LLM span with a prompt count only has
// those input tokens.
func TestOpenInferenceRules(t *testing.T) {
	c, err := Read("t.json", oiDoc(
		oiSpan("1", "", "helper", oiAttr(oiKind, "AGENT")),
		oiSpan("2", "1", "ChatModel", oiAttr(oiKind, "LLM"),
			oiAttr("output.value", `{"generations": [[{"message": {"lc": 1, "type": "constructor", "id": ["AIMessage"], "kwargs": {"content": "x", "response_metadata": {"model": "m-from-meta"}}}}]]}`),
			oiNum("llm.token_count.prompt", 50), oiNum("llm.token_count.completion", 5), oiNum("llm.token_count.total", 60),
			oiAttr("llm.input_messages.0.message.role", "system"), oiAttr("llm.input_messages.0.message.content", "sys"),
			oiAttr("llm.input_messages.1.message.role", "user"), oiAttr("llm.input_messages.1.message.content", " "),
			oiAttr("llm.input_messages.2.message.role", "user"), oiAttr("llm.input_messages.2.message.content", "the ask"),
			oiAttr("llm.input_messages.3.message.role", "user"), oiAttr("llm.input_messages.3.message.content", "later ask"),
			oiAttr("llm.output_messages.0.message.role", "assistant"), oiAttr("llm.output_messages.0.message.content", "first"),
			oiAttr("llm.output_messages.1.message.role", "assistant"), oiAttr("llm.output_messages.1.message.content", "last"),
			oiAttr("llm.output_messages.2.message.role", "assistant"), oiAttr("llm.output_messages.2.message.content", ""),
			oiAttr("llm.output_messages.4.message.role", "assistant"), oiAttr("llm.output_messages.4.message.content", "after a gap")),
		oiSpan("3", "1", "lookup", oiAttr(oiKind, "TOOL"),
			oiAttr("output.value", `{"output": {"lc": 1, "type": "constructor", "id": ["ToolMessage"], "kwargs": {"content": "ok", "status": "success"}}}`)),
	))
	if err != nil {
		t.Fatal(err)
	}
	calls := c.Runs[0].callList()
	if len(calls) != 1 || calls[0].Agent != "helper" || calls[0].Tool != "lookup" || resultText(calls[0].Result) != "ok" || calls[0].IsError {
		t.Errorf("calls %+v", calls)
	}
	if c.Agent != "helper" || c.Model != "m-from-meta" || c.Prompt != "the ask" || c.Runs[0].Turns[0].FinalResponse != "last" ||
		*c.Runs[0].Tokens != (Tokens{Input: 50, Output: 5, Total: 60}) {
		t.Errorf("agent %q, model %q, prompt %q, answer %q, tokens %+v", c.Agent, c.Model, c.Prompt, c.Runs[0].Turns[0].FinalResponse, *c.Runs[0].Tokens)
	}

	c, err = Read("t.json", oiDoc(
		oiSpan("1", "", "lookup", oiAttr(oiKind, "TOOL"),
			oiAttr("output.value", `{"lc": 1, "type": "constructor", "id": ["AIMessage"], "kwargs": {"content": "hi", "status": "error"}}`)),
		oiSpan("2", "", "ChatModel", oiAttr(oiKind, "LLM"), oiNum("llm.token_count.prompt", 70)),
	))
	if err != nil {
		t.Fatal(err)
	}
	calls = c.Runs[0].callList()
	if len(calls) != 1 || !strings.Contains(resultText(calls[0].Result), `"AIMessage"`) || calls[0].IsError {
		t.Errorf("an AI message as a tool's output: calls %+v", calls)
	}
	if tk := c.Runs[0].Tokens; tk == nil || tk.Input != 70 || tk.Output != 0 {
		t.Errorf("a prompt count only: tokens %+v", tk)
	}
}
