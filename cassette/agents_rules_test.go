package cassette

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// agentsDoc is an Agents SDK trace export of the spans, all of trace t1,
// and of a trace t-empty without spans; start and end are the seconds of
// the span's times (none when "").
func agentsDoc(t *testing.T, spans ...agentsTestSpan) []byte {
	t.Helper()
	items := []any{map[string]any{"object": "trace", "id": "t1"}, map[string]any{"object": "trace", "id": "t-empty"}}
	for _, s := range spans {
		item := map[string]any{"object": "trace.span", "id": s.id, "trace_id": "t1", "parent_id": s.parent, "span_data": s.data}
		if s.start != "" {
			item["started_at"] = "2026-11-27T09:00:" + s.start + "Z"
		}
		if s.end != "" {
			item["ended_at"] = "2026-11-27T09:00:" + s.end + "Z"
		}
		if s.err != "" {
			item["error"] = map[string]any{"message": s.err}
		}
		items = append(items, item)
	}
	data, err := json.Marshal(map[string]any{"data": items})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

type agentsTestSpan struct {
	id, parent, start, end, err string
	data                        map[string]any
}

func usageOf(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out}
}

// TestAgentsTraceRules: a trace without spans is no run; the spans are
// read in start order (a span without a start first); a function span's
// tool is the MCP tool of its server's list whose name the SDK made it
// (kept when none or several are, or when the list has the name itself);
// a call's duration needs a start and an end not before it (0 when
// equal); a failed span without output has its error as result; only the
// innermost spans that record usage count, a total and cached tokens as
// written; a handoff counts once and needs both agents; each server's
// first tool list is its catalog, servers sorted; the first agent, model
// and user message are the run's, the last non-blank assistant text its
// answer.
func TestAgentsTraceRules(t *testing.T) {
	fn := func(name, server, output string) map[string]any {
		d := map[string]any{"type": "function", "name": name, "input": "{}"}
		if server != "" {
			d["mcp_data"] = map[string]any{"server": server}
		}
		if output != "" {
			d["output"] = output
		}
		return d
	}
	turn := func(agent string, u map[string]any) map[string]any {
		return map[string]any{"type": "custom", "name": "turn", "data": map[string]any{"sdk_span_type": "turn", "agent_name": agent, "usage": u}}
	}
	doc := agentsDoc(t,
		agentsTestSpan{id: "task", start: "00", end: "59", data: map[string]any{"type": "custom", "name": "task",
			"data": map[string]any{"sdk_span_type": "task", "usage": usageOf(1000, 100)}}},
		agentsTestSpan{id: "a1", parent: "task", start: "01", end: "50", data: map[string]any{"type": "agent", "name": "planner"}},
		agentsTestSpan{id: "a2", parent: "task", start: "51", end: "58", data: map[string]any{"type": "agent", "name": "writer"}},
		agentsTestSpan{id: "l2", parent: "a1", start: "02", end: "03", data: map[string]any{"type": "mcp_tools", "server": "srv", "result": []any{"get-sum", "get.sum", "x_y", "x-y", "one-two"}}},
		agentsTestSpan{id: "l3", parent: "a1", start: "02", end: "03", data: map[string]any{"type": "mcp_tools", "server": "srv", "result": []any{"later"}}},
		agentsTestSpan{id: "l1", parent: "a1", start: "02", end: "03", data: map[string]any{"type": "mcp_tools", "server": "alpha", "result": []any{"a"}}},
		agentsTestSpan{id: "t1", parent: "a1", start: "04", end: "20", data: turn("planner", usageOf(300, 30))},
		agentsTestSpan{id: "g1", parent: "t1", start: "05", end: "06", data: map[string]any{"type": "generation", "model": "m-1", "usage": map[string]any{"input_tokens": 200, "output_tokens": 20, "total_tokens": 230, "cached_input_tokens": 50},
			"input":  []any{map[string]any{"role": "system", "content": "sys"}, map[string]any{"role": "user", "content": "first ask"}},
			"output": []any{map[string]any{"role": "assistant", "content": "thinking"}}}},
		agentsTestSpan{id: "f3", parent: "t1", start: "09", end: "09", data: fn("x_y", "srv", `{"type":"text","text":"exact"}`)},
		agentsTestSpan{id: "f1", parent: "t1", start: "07", end: "08", data: fn("get_sum", "srv", `{"type":"text","text":"5"}`)},
		agentsTestSpan{id: "f2", parent: "t1", start: "08", end: "07", data: fn("one_two", "srv", `{"type":"text","text":"12"}`)},
		agentsTestSpan{id: "f4", parent: "t1", start: "10", data: fn("one_two", "other", "")},
		agentsTestSpan{id: "f5", parent: "t1", end: "11", err: "it broke", data: fn("local", "", "")},
		agentsTestSpan{id: "f6", parent: "t1", start: "12", end: "13", data: fn("mcp", "", `{"content":[{"type":"text","text":"no"}],"isError":true}`)},
		agentsTestSpan{id: "h1", parent: "t1", start: "14", end: "15", data: map[string]any{"type": "handoff", "from_agent": "planner", "to_agent": "writer"}},
		agentsTestSpan{id: "h2", parent: "t1", start: "16", end: "17", data: map[string]any{"type": "handoff", "from_agent": "planner", "to_agent": "writer"}},
		agentsTestSpan{id: "h3", parent: "t1", start: "18", end: "19", data: map[string]any{"type": "handoff", "from_agent": "", "to_agent": "writer"}},
		agentsTestSpan{id: "t2", parent: "a2", start: "52", end: "57", data: turn("writer", usageOf(40, 4))},
		agentsTestSpan{id: "g2", parent: "t2", start: "53", end: "54", data: map[string]any{"type": "generation", "model": "m-2",
			"input":  []any{map[string]any{"role": "user", "content": "second ask"}},
			"output": []any{map[string]any{"role": "assistant", "content": "the answer"}, map[string]any{"role": "assistant", "content": "  "}}}},
	)
	c, err := Read("trace.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 1 {
		t.Fatalf("%d runs, want 1 (a trace without spans is none)", len(c.Runs))
	}
	run := c.Runs[0]
	var got []string
	for _, call := range run.callList() {
		s := call.Agent + ":" + call.ID() + "=" + outcome(call)
		if call.DurationMS != nil {
			s += " " + strconv.FormatFloat(*call.DurationMS, 'f', -1, 64) + "ms"
		}
		got = append(got, s)
	}
	want := []string{
		"planner:local=it broke (error)",
		"planner:srv.get_sum=5 1000ms",
		"planner:srv.one-two=12",
		"planner:srv.x_y=exact 0ms",
		"planner:other.one_two=",
		"planner:mcp=no (error) 1000ms",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls\n %q\nwant\n %q", got, want)
	}
	if *run.Tokens != (Tokens{Input: 240, Cached: 50, Output: 24, Total: 274}) {
		t.Errorf("tokens %+v, want the innermost usages only (200+40 in, 50 cached, 20+4 out, 230+44 in all)", *run.Tokens)
	}
	if !reflect.DeepEqual(run.Delegations, []Delegation{{From: "planner", To: "writer"}}) {
		t.Errorf("delegations %+v", run.Delegations)
	}
	var cats []string
	for _, sc := range c.Catalog {
		var names []string
		for _, tool := range sc.Tools {
			names = append(names, tool.Name)
		}
		cats = append(cats, sc.Server+":"+strings.Join(names, ","))
	}
	if want := []string{"alpha:a", "srv:get-sum,get.sum,x_y,x-y,one-two"}; !reflect.DeepEqual(cats, want) {
		t.Errorf("catalog %q, want %q", cats, want)
	}
	if c.Agent != "planner" || c.Model != "m-1" || c.Prompt != "first ask" || run.Turns[0].FinalResponse != "the answer" {
		t.Errorf("agent %q, model %q, prompt %q, answer %q", c.Agent, c.Model, c.Prompt, run.Turns[0].FinalResponse)
	}
}

// TestAgentsTraceItemRules: a body is an Agents SDK export when its data
// holds a trace or a span; an object with "object" is an item even with a
// "data" member of its own; runs are in the order of their trace objects;
// calls that start at the same time keep the file's order; a call's agent
// is the nearest agent span above it with a name, or the agent_name of the
// turn span between, however long the chain of spans up to it.
func TestAgentsTraceItemRules(t *testing.T) {
	span := func(trace, id, parent, start string, data string) string {
		return `{"object":"trace.span","trace_id":"` + trace + `","id":"` + id + `","parent_id":"` + parent +
			`","started_at":"2026-11-27T09:00:` + start + `Z","span_data":` + data + `}`
	}
	fn := func(name string) string { return `{"type":"function","name":"` + name + `"}` }
	agent := func(name string) string { return `{"type":"agent","name":"` + name + `"}` }
	turn := func(name string) string {
		return `{"type":"custom","name":"turn","data":{"sdk_span_type":"turn","agent_name":"` + name + `"}}`
	}
	body := func(items ...string) string { return `{"data":[` + strings.Join(items, ",") + `]}` }
	trace := func(id string) string { return `{"object":"trace","id":"` + id + `"}` }
	for _, tc := range []struct {
		rule, doc, want string
	}{
		{"a body whose data holds no trace or span is no export", `{"data":[{"id":"x"}]}`, "unrecognized"},
		{"an item with a data member is an item", `{"object":"trace.span","trace_id":"t1","id":"f","data":{"x":1},"span_data":` + fn("get") + `}`, ":get"},
		{"runs in the order of their trace objects", body(trace("t2"), trace("t1"), span("t1", "a", "", "01", fn("in-t1")), span("t2", "b", "", "02", fn("in-t2"))), ":in-t2 | :in-t1"},
		{"calls started at once keep the file's order", body(trace("t1"), span("t1", "b", "", "05", fn("first")), span("t1", "a", "", "05", fn("second")), span("t1", "c", "", "04", fn("earlier"))), ":earlier,:first,:second"},
		{"an agent at the top of a chain as long as the spans", body(trace("t1"), span("t1", "a", "", "01", agent("planner")), span("t1", "t", "a", "02", turn("")), span("t1", "", "t", "03", fn("deep"))), "planner:deep"},
		{"an agent span without a name is passed over", body(trace("t1"), span("t1", "a", "", "01", agent("outer")), span("t1", "b", "a", "02", agent("")), span("t1", "f", "b", "03", fn("x"))), "outer:x"},
		{"a turn's agent_name before the agent above it", body(trace("t1"), span("t1", "a", "", "01", agent("outer")), span("t1", "t", "a", "02", turn("turn-agent")), span("t1", "f", "t", "03", fn("x"))), "turn-agent:x"},
		{"an agent span directly above", body(trace("t1"), span("t1", "a", "", "01", agent("outer")), span("t1", "b", "a", "02", agent("inner")), span("t1", "f", "b", "03", fn("x"))), "inner:x"},
	} {
		c, err := Read("trace.json", []byte(tc.doc))
		var got string
		if err != nil {
			got = "error: " + err.Error()
			if strings.Contains(err.Error(), "unrecognized recording") {
				got = "unrecognized"
			}
		} else if c.Format != FormatAgentsTrace {
			got = "read as " + string(c.Format)
		} else {
			var runs []string
			for _, r := range c.Runs {
				var calls []string
				for _, call := range r.callList() {
					calls = append(calls, call.Agent+":"+call.Tool)
				}
				runs = append(runs, strings.Join(calls, ","))
			}
			got = strings.Join(runs, " | ")
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.rule, got, tc.want)
		}
	}
}
