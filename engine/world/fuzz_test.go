package world

import (
	"encoding/json"
	"math"
	"testing"
)

// fuzzRules exercises every effect and guard form over a small set of
// paths, including paths through scalars and into missing parents.
func fuzzRules() *Rules {
	paths := []Path{{"a"}, {"a", "b"}, {"s"}, {"o", "x"}, {"o"}, {"n"}}
	var ts []Transition
	tools := []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"}
	for i, p := range paths {
		q := paths[(i+1)%len(paths)]
		ts = append(ts,
			Transition{Tool: tools[i%len(tools)], Effects: []Effect{{Path: p, Op: OpInc, N: 1e15}}},
			Transition{Tool: tools[(i+1)%len(tools)], When: []Guard{{Path: q, Cmp: CmpMin, N: 1}}, Effects: []Effect{{Path: p, Op: OpDec, N: 3}}},
			Transition{Tool: tools[(i+2)%len(tools)], When: []Guard{{Path: q, Cmp: CmpMax, N: 10}}, Effects: []Effect{{Path: p, Op: OpSet, Value: map[string]any{"x": 1.0}}}},
			Transition{Tool: tools[(i+3)%len(tools)], When: []Guard{{Path: p, Cmp: CmpEq, Value: "v"}}, Effects: []Effect{{Path: q, Op: OpFromArg, Arg: Path{"v"}}}},
			Transition{Tool: tools[(i+4)%len(tools)], Effects: []Effect{{Path: p, Op: OpSet, Value: "v"}, {Path: q, Op: OpInc, N: 2}}},
		)
	}
	return &Rules{Transitions: ts, Forbidden: []Forbidden{{Tool: "t7", When: []Guard{{Path: Path{"a"}, Cmp: CmpMin, N: 100}}}}, Escalation: []string{"t6"}}
}

// FuzzWorld feeds random call sequences through a world: it must never
// panic, never mutate the seed or the rules, and never hold a number
// beyond ±2^53.
func FuzzWorld(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, `{"a": 1, "s": "x", "o": {"x": 2}}`)
	f.Add([]byte{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, `{"a": {"b": 1}}`)
	f.Add([]byte{7, 15, 23, 31, 255}, `{"n": 9007199254740991}`)
	f.Add([]byte{}, `{}`)
	f.Fuzz(func(t *testing.T, calls []byte, seedJSON string) {
		var seed map[string]any
		if json.Unmarshal([]byte(seedJSON), &seed) != nil {
			seed = map[string]any{}
		}
		before, _ := json.Marshal(seed)
		rules := fuzzRules()
		rulesBefore, _ := json.Marshal(rules)
		w := New(seed, rules)
		for i, c := range calls {
			if i > 200 {
				break
			}
			s := Step{Tool: "t" + string(rune('0'+c%9)), IsError: c&0x80 != 0, Args: map[string]any{"v": float64(c)}}
			s.ID = s.Tool
			res := w.Call(s)
			if res.Outcome != Applied && res.Outcome != Unchanged && res.Outcome != Invalid && res.Outcome != ForbiddenCall {
				t.Fatalf("unknown outcome %q", res.Outcome)
			}
		}
		checkFinite(t, w.State())
		_ = w.Changes()
		after, _ := json.Marshal(seed)
		if string(before) != string(after) {
			t.Fatalf("the seed was mutated:\n%s\n%s", before, after)
		}
		rulesAfter, _ := json.Marshal(rules)
		if string(rulesBefore) != string(rulesAfter) {
			t.Fatal("the rules were mutated")
		}
	})
}

func checkFinite(t *testing.T, v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			checkFinite(t, e)
		}
	case []any:
		for _, e := range x {
			checkFinite(t, e)
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("non-finite number %v in the world", x)
		}
	}
}
