package engine

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// fastSuites are suites whose every test has the shape validSuite checks
// itself, and variants that it must leave to the validator.
var (
	fastSuites = []string{
		"tests:\n  - {name: a, type: agent, cassette: c.json, expect: [{tool_selection.f1: {'>=': 80}}]}\n",
		"servers:\n  s: {command: [x]}\ntests:\n  - name: a\n    type: agent\n    servers: [s]\n    prompt: p\n    equal_function_sets: {count: distinct, classes: [{name: x, members: [s.x]}], expect: [{target: tool_selection.f1, matcher: {not: {'<': 1}}, message: m}]}\n",
		"tests: []\n",
		"tests:\n  - {name: a, type: agent, expect: [{calls: 3}, {x: {contains: [1]}}, {y: {regex: 'a'}}, {z: {exact: {a: 1}}}]}\n",
		"tests:\n  - {name: a, type: agent, cassette: d/, tool_edges: {allowed: [s.a, s.b], restricted: [], delegation: [{from: p, to: r}], expect: [{edges.restricted_attempts: {'<=': 0}}]}}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: {}}\n",
		"tests:\n  - {name: a, type: agent, runs: 2}\n",
		"agents:\n  - {name: a}\n",
	}
	slowSuites = []string{
		"tests:\n  - {name: '', type: agent}\n",
		"tests:\n  - {name: a}\n",
		"tests:\n  - {name: a, type: agent, expect: [{x: {'>=': '80'}}]}\n",
		"tests:\n  - {name: a, type: agent, expect: [{x: {'>=': 80, '<': 90}}]}\n",
		"tests:\n  - {name: a, type: agent, expect: [{target: x, matcher: {'>=': 1}, extra: 1}]}\n",
		"tests:\n  - {name: a, type: agent, equal_function_sets: {classes: [{name: x, members: []}]}}\n",
		"tests:\n  - {name: a, type: agent, equal_function_sets: {count: each, classes: []}}\n",
		"tests:\n  - {name: a, type: agent, cassette: c.json}\nservers: 3\n",
		"tests: {a: 1}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: {allowed: ['']}}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: {delegation: [{from: p}]}}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: {delegation: [{from: p, to: r, via: q}]}}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: {denied: [s.a]}}\n",
		"tests:\n  - {name: a, type: agent, tool_edges: [s.a]}\n",
	}
)

// TestValidSuiteFastPath: the generated suites of many tests, and the
// shapes above, are judged valid without the validator; the variants are
// left to it, and it refuses them.
func TestValidSuiteFastPath(t *testing.T) {
	if err := schema.Suite().Validate(map[string]any{}); err != nil {
		t.Fatalf("validSuite takes a root of tests: alone as valid, and the validator refuses the empty object: %v", err)
	}
	texts := append([]string{string(gen.CaseSuite(gen.DefaultSeed, 50)), string(gen.TranscriptSuite(gen.DefaultSeed, 50))}, fastSuites...)
	for _, text := range texts {
		root := yamlpos.Read("s.yml", []byte(text), suiteYAML).Root
		if !validSuite(root) {
			t.Errorf("not on the fast path: %.200s", text)
		}
		if err := schema.Suite().Validate(root); err != nil {
			t.Errorf("the validator refuses %.200s: %v", text, err)
		}
	}
	for _, text := range slowSuites {
		root := yamlpos.Read("s.yml", []byte(text), suiteYAML).Root
		if validSuite(root) {
			t.Errorf("on the fast path: %s", text)
		}
		if schema.Suite().Validate(root) == nil {
			t.Errorf("the validator accepts %s", text)
		}
	}
}

// FuzzValidSuite: whatever the document, validSuite says valid only for
// documents the suite schema's validator finds valid.
func FuzzValidSuite(f *testing.F) {
	for _, s := range append(fastSuites, slowSuites...) {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/*/*.yml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := yamlpos.Read("f.yml", data, suiteYAML)
		if len(d.Errs) > 0 || !validSuite(d.Root) {
			return
		}
		if err := schema.Suite().Validate(d.Root); err != nil {
			t.Fatalf("judged valid, the validator says %v", err)
		}
	})
}

// TestToolEdgesFastPathIsTheSchema draws tool_edges values, each key
// present or not and each value valid or broken in one drawn place (a
// wrong type, an empty name, a delegation edge missing an end or with a
// key too many, an unknown key, a bad assertion), and holds the fast
// path to the validator: a value the validator accepts is judged valid
// without it, and one it refuses is left to it.
func TestToolEdgesFastPathIsTheSchema(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	var fast, slow int
	for range 600 {
		edges := drawToolEdges(rng)
		root := map[string]any{"tests": []any{map[string]any{"name": "a", "type": "agent", "cassette": "d/", "tool_edges": edges}}}
		valid := schema.Suite().Validate(root) == nil
		if got := validSuite(root); got != valid {
			t.Fatalf("tool_edges %v: the fast path says %v, the validator %v", edges, got, valid)
		}
		if valid {
			fast++
		} else {
			slow++
		}
	}
	if fast < 100 || slow < 100 {
		t.Fatalf("draws too one-sided: %d valid, %d refused", fast, slow)
	}
}

// drawToolEdges draws a tool_edges value, broken in at most one place
// (about half of them).
func drawToolEdges(rng *rand.Rand) any {
	if rng.IntN(30) == 0 {
		return []any{"s.a"} // not a mapping
	}
	broken := -1
	if rng.IntN(2) == 0 {
		broken = rng.IntN(4)
	}
	e := map[string]any{}
	for i, key := range []string{"allowed", "restricted", "delegation", "expect"} {
		if i != broken && rng.IntN(3) == 0 {
			continue
		}
		e[key] = drawEdgesValue(rng, key, i == broken)
	}
	if broken == 3 && rng.IntN(2) == 0 {
		e["denied"] = []any{"s.a"} // a key the schema does not know
	}
	return e
}

func drawEdgesValue(rng *rand.Rand, key string, broken bool) any {
	switch key {
	case "delegation":
		l := []any{}
		for range rng.IntN(3) {
			l = append(l, map[string]any{"from": "planner", "to": "researcher"})
		}
		if broken {
			bad := []any{
				map[string]any{"from": "planner"},
				map[string]any{"to": "r"},
				map[string]any{"from": "", "to": "r"},
				map[string]any{"from": "p", "to": 3.0},
				map[string]any{"from": "p", "to": "r", "via": "q"},
				"planner",
				map[string]any{"from": "p", "to": "r"}, // a list with a string
			}
			i := rng.IntN(len(bad))
			if i == len(bad)-1 {
				return "p->r"
			}
			l = append(l, bad[i])
		}
		return l
	case "expect":
		l := []any{map[string]any{"edges.restricted_attempts": map[string]any{"<=": 0.0}}}
		if broken {
			l = append(l, map[string]any{"edges.restricted_attempts": map[string]any{"<=": "0"}})
		}
		return l
	}
	l := []any{}
	for range rng.IntN(4) {
		l = append(l, "server.tool")
	}
	if broken {
		bad := []any{"", 3.0, nil, []any{"x"}}
		l = append(l, bad[rng.IntN(len(bad))])
		if rng.IntN(4) == 0 {
			return "server.tool" // not a list
		}
	}
	return l
}
