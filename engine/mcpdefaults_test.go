package engine

import (
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

// TestMCPDefaults walks the tables of the protocol's defaults: for every
// member, a result that leaves it out reads the default at its target, a
// result that sends it reads what was sent, and the result given is never
// changed.
func TestMCPDefaults(t *testing.T) {
	read := func(doc any, target string) (any, bool) {
		tg, err := expr.ParsePath(target)
		if err != nil {
			t.Fatal(err)
		}
		return tg.Lookup(map[string]any{"result": doc})
	}
	for k, d := range callDefaults {
		for _, shape := range []map[string]any{{"content": []any{}}, {"content": []any{}, "structuredContent": map[string]any{}}} {
			before := cloneMap(shape)
			for name, got := range map[string]any{"tools/call": withDefaults("tools/call", shape), "recorded": recordedResult(shape)} {
				if v, ok := read(got, "result."+k); !ok || v != d {
					t.Errorf("%s: result.%s of %v reads %v (%v), want the default %v", name, k, shape, v, ok, d)
				}
			}
			sent := cloneMap(shape)
			sent[k] = !d.(bool)
			if v, _ := read(withDefaults("tools/call", sent), "result."+k); v != sent[k] {
				t.Errorf("result.%s sent as %v reads %v", k, sent[k], v)
			}
			if !reflect.DeepEqual(shape, before) {
				t.Errorf("withDefaults changed its input: %v", shape)
			}
		}
	}
	for k, d := range hintDefaults {
		for _, tool := range []map[string]any{{"name": "a"}, {"name": "b", "annotations": map[string]any{}}, {"name": "c", "annotations": map[string]any{"title": "C"}}} {
			list := map[string]any{"tools": []any{tool}}
			if v, ok := read(withDefaults("tools/list", list), "result.tools[0].annotations."+k); !ok || v != d {
				t.Errorf("%s of %v reads %v (%v), want %v", k, tool, v, ok, d)
			}
			if ann, _ := tool["annotations"].(map[string]any); ann[k] != nil {
				t.Errorf("withDefaults changed the tool %v", tool)
			}
		}
	}
	// Other shapes read as they are: a framework's own tool output, a
	// result of a method without defaults, annotations that are no object.
	for _, tc := range []struct {
		method string
		v      any
	}{
		{"recorded", map[string]any{"temperature": 20.0}},
		{"recorded", "plain text"},
		{"resources/read", map[string]any{"contents": []any{}}},
		{"tools/list", map[string]any{"tools": []any{map[string]any{"name": "x", "annotations": "bad"}}}},
	} {
		got := tc.v
		if tc.method == "recorded" {
			got = recordedResult(tc.v)
		} else {
			got = withDefaults(tc.method, tc.v)
		}
		if !reflect.DeepEqual(got, tc.v) {
			t.Errorf("%s %v read as %v", tc.method, tc.v, got)
		}
	}
}

func cloneMap(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
