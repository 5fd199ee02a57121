package cassette

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"
)

// The recordings of Mastra, LlamaIndex.TS and Inspect AI, mutated as a
// framework one version newer would write them: no mutation may read as
// runs whose calls a gate would pass.
var mutatedFiles = []string{
	"mastra_result_messages.json", "mastra_memory_messages.json",
	"llamaindex_chat_messages.json", "llamaindex_workflow_events.json",
	"llamaindex_handoff_chat_messages.json", "llamaindex_handoff_workflow_events.json",
	"inspect_sum_log.json",
}

// mutationKeys are the keys these formats name and hold a call by.
var mutationKeys = []string{"toolInvocation", "toolName", "toolCallId", "args", "toolCall", "toolCalls", "toolId",
	"toolKwargs", "toolOutput", "toolResult", "tool_calls", "function", "tool_call_id", "name", "input", "id", "arguments"}

// renameKey returns v with every member key renamed to.
func renameKey(v any, key, to string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if k == key {
				k = to
			}
			out[k] = renameKey(e, key, to)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = renameKey(e, key, to)
		}
		return out
	}
	return v
}

// dropKey returns v without the member key anywhere.
func dropKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if k != key {
				out[k] = dropKey(e, key)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = dropKey(e, key)
		}
		return out
	}
	return v
}

// nestCalls returns v with every object that names a call (a string under
// one of names beside an id) moved one level down, under "call".
func nestCalls(v any, names ...string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = nestCalls(e, names...)
		}
		for _, n := range names {
			if _, ok := v[n].(string); ok && (v["id"] != nil || v["toolCallId"] != nil || v["toolId"] != nil) {
				return map[string]any{"call": out}
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = nestCalls(e, names...)
		}
		return out
	}
	return v
}

// TestFrameworkMutationsNeverPass is a generator test: each framework
// recording, with each call key renamed to an unseen spelling, each call
// container dropped (its results kept), and each call object moved one
// level deeper, reads as an error, or as runs none of which holds a call
// (inconclusive to every gate, see engine's no_calls), or exactly as the
// file did (the key was not one its reader reads). Never as some of the
// runs' calls gone.
func TestFrameworkMutationsNeverPass(t *testing.T) {
	for _, file := range mutatedFiles {
		data, err := os.ReadFile("testdata/ok/" + file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Read("m.json", data)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		mutations := map[string]any{}
		for _, k := range mutationKeys {
			mutations["rename "+k] = renameKey(doc, k, k+"V2")
			mutations["drop "+k] = dropKey(doc, k)
		}
		mutations["deeper"] = nestCalls(doc, "toolName", "name", "function")
		names := make([]string, 0, len(mutations))
		for n := range mutations {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			b, err := json.Marshal(mutations[name])
			if err != nil {
				t.Fatal(err)
			}
			c, err := Read("m.json", b)
			if err != nil {
				continue
			}
			calls := 0
			for _, r := range c.Runs {
				calls += len(r.callList())
			}
			same := len(c.Runs) == len(want.Runs)
			for i := 0; same && i < len(c.Runs); i++ {
				same = reflect.DeepEqual(runCallIDs(c.Runs[i]), runCallIDs(want.Runs[i]))
			}
			if calls > 0 && !same {
				t.Errorf("%s, %s: read as %s with calls %v, the file's were %v", file, name, c.Format, runCalls(c), runCalls(want))
			}
		}
	}
}

func runCallIDs(r Run) []string {
	var out []string
	for _, c := range r.callList() {
		out = append(out, c.ID())
	}
	return out
}

func runCalls(c *Cassette) string {
	var out []string
	for _, r := range c.Runs {
		out = append(out, fmt.Sprint(runCallIDs(r)))
	}
	return fmt.Sprint(out)
}
