package engine

import (
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
	}
	slowSuites = []string{
		"tests:\n  - {name: a, type: agent, runs: 2}\n",
		"agents:\n  - {name: a}\n",
		"tests:\n  - {name: '', type: agent}\n",
		"tests:\n  - {name: a}\n",
		"tests:\n  - {name: a, type: agent, expect: [{x: {'>=': '80'}}]}\n",
		"tests:\n  - {name: a, type: agent, expect: [{x: {'>=': 80, '<': 90}}]}\n",
		"tests:\n  - {name: a, type: agent, expect: [{target: x, matcher: {'>=': 1}, extra: 1}]}\n",
		"tests:\n  - {name: a, type: agent, equal_function_sets: {classes: [{name: x, members: []}]}}\n",
		"tests:\n  - {name: a, type: agent, equal_function_sets: {count: each, classes: []}}\n",
		"tests:\n  - {name: a, type: agent, cassette: c.json}\nservers: 3\n",
		"tests: {a: 1}\n",
	}
)

// TestValidSuiteFastPath: the generated suites of many tests, and the
// shapes above, are judged valid without the validator over their tests;
// the variants are left to it, and it refuses them.
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
	for i, text := range slowSuites { // the first two are valid, the rest not
		root := yamlpos.Read("s.yml", []byte(text), suiteYAML).Root
		if validSuite(root) {
			t.Errorf("on the fast path: %s", text)
		}
		if i > 1 && schema.Suite().Validate(root) == nil {
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
