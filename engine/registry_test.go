package engine

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/diag"
)

// caseKeys are the keys of an agent test that are not gate blocks.
var caseKeys = []string{"name", "type", "description", "agent", "model", "servers", "prompt", "runs", "no_calls", "cassette", "sources", "aliases", "expect", "reliability"}

// TestGateRegistry walks the gate registry: every row's key is a property
// of an agent test in the suite schema that refers to the row's schema
// fragment, and every other property is a known case key; every target a
// row declares appears in some golden envelope.
func TestGateRegistry(t *testing.T) {
	defs := suiteSchemaDefs(t)
	props, _ := defs["agentTest"].(map[string]any)["properties"].(map[string]any)
	if len(props) == 0 {
		t.Fatal("the suite schema has no $defs/agentTest/properties")
	}
	golden := goldenTargets(t)
	for _, row := range gateRows {
		checkRowSchema(t, row, props, defs)
		for _, target := range row.targets {
			if !golden[target] {
				t.Errorf("%s: target %s appears in no golden envelope (cmd/mcptest/testdata, annotate/testdata, examples)", row.key, target)
			}
		}
	}
	for key := range props {
		if _, ok := rowOf(key); !ok && !slices.Contains(caseKeys, key) {
			t.Errorf("the suite schema's agent test has %q, which is neither a gate row nor a case key: it would be validated and then ignored", key)
		}
	}
}

// TestGateTargetsDocumented checks that every target of the registry is
// listed in a targets table of README.md or docs/*.md.
func TestGateTargetsDocumented(t *testing.T) {
	documented := documentedTargets(t)
	for _, row := range gateRows {
		for _, target := range row.targets {
			if !documented[target] {
				t.Errorf("%s: target %s is listed in no targets table of README.md or docs/*.md", row.key, target)
			}
		}
	}
}

// checkRowSchema checks one row against the suite schema and itself.
func checkRowSchema(t *testing.T, row gateRow, props, defs map[string]any) {
	t.Helper()
	prop, _ := props[row.key].(map[string]any)
	if ref, _ := prop["$ref"].(string); ref != "#/$defs/"+row.schema {
		t.Errorf("%s: the suite schema's agent test property refers to %q, the row names the fragment %q", row.key, ref, row.schema)
	}
	def, _ := defs[row.schema].(map[string]any)
	if title, _ := def["title"].(string); title != row.key {
		t.Errorf("%s: $defs/%s is titled %q", row.key, row.schema, title)
	}
	if p, _ := def["properties"].(map[string]any); p["expect"] == nil {
		t.Errorf("%s: $defs/%s has no expect: list", row.key, row.schema)
	}
	if row.read == nil {
		t.Errorf("%s: the row has no reader", row.key)
	}
	for _, rt := range row.runTargets {
		if !slices.Contains(row.targets, rt) {
			t.Errorf("%s: per-run target %s is not one of the row's targets", row.key, rt)
		}
	}
	if row.def != nil && !slices.Contains(row.targets, row.def.target) {
		t.Errorf("%s: the default assertion's target %s is not one of the row's targets", row.key, row.def.target)
	}
	if row.def != nil {
		// defaultAssertion panics on an operator the matcher grammar
		// does not know.
		a := defaultAssertion(row.key, row.def.target, row.def.op, row.def.value, diag.Pos{})
		if a.Target.String() != row.def.target || !a.Default {
			t.Errorf("%s: the default assertion reads as %s", row.key, a.Target.String())
		}
	}
	for _, other := range gateRows {
		for _, target := range row.targets {
			if other.key != row.key && slices.Contains(other.targets, target) {
				t.Errorf("target %s is declared by both %s and %s", target, row.key, other.key)
			}
		}
	}
}

func suiteSchemaDefs(t *testing.T) map[string]any {
	t.Helper()
	var doc struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(schema.SuiteJSON, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Defs
}

// goldenTargets collects the target and label names of every case of every
// golden envelope.
func goldenTargets(t *testing.T) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, root := range []string{"../cmd/mcptest/testdata", "../annotate/testdata", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var env struct {
				SchemaVersion any `json:"schema_version"`
				Cases         []struct {
					Targets map[string]any    `json:"targets"`
					Labels  map[string]string `json:"labels"`
				} `json:"cases"`
			}
			if json.Unmarshal(data, &env) != nil || env.SchemaVersion == nil {
				return nil // not an envelope
			}
			for _, c := range env.Cases {
				for k := range c.Targets {
					seen[k] = true
				}
				for k := range c.Labels {
					seen[k] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return seen
}

var backtickedName = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.]*|\\.[A-Za-z_][A-Za-z0-9_]*)`")

// documentedTargets collects the dotted names the table rows of README.md
// and docs/*.md list. A row may shorten the names after the first that
// share its namespace: `tool_selection.f1`, `.precision`, `.recall`.
func documentedTargets(t *testing.T) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob("../docs/*.md")
	files = append(files, "../README.md")
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "|") {
				tableRowTargets(line, seen)
			}
		}
	}
	return seen
}

func tableRowTargets(line string, seen map[string]bool) {
	ns := ""
	for _, m := range backtickedName.FindAllStringSubmatch(line, -1) {
		name := m[1]
		if strings.HasPrefix(name, ".") {
			if ns == "" {
				continue
			}
			name = ns + name
		} else if i := strings.IndexByte(name, '.'); i > 0 {
			ns = name[:i]
		}
		seen[name] = true
	}
}

// Every block of an agent test is read by its row into a Block whose Key is
// the row's key, in registry order whatever the order of the file, and the
// case finds it by its key.
func TestGateRegistryReadsEveryBlock(t *testing.T) {
	var keys []string
	for _, row := range gateRows {
		keys = append(keys, row.key)
	}
	suite := `agents:
  - name: every block
    cassette: none.json
    budget: {max_calls: 3}
    trajectory: {match: strict, steps: [{tool: search}]}
    arguments: {strict: true}
    token_efficiency: {classes: [{name: search, members: [search]}]}
    orchestration: {}
    discovery: {name_free: true}
    distractors: {source: {from: catalog}, correct: [search]}
    tool_selection: {expected_tool: search, min_selection_rate: 0.8}
    tool_edges: {allowed: [search]}
    equal_function_sets: {classes: [{name: search, members: [search]}]}
`
	path := filepath.Join(t.TempDir(), "suite.yml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuiteUnrecorded(path)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Cases[0]
	var got []string
	for _, b := range c.Blocks {
		got = append(got, b.Key())
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("blocks %v, want the registry's order %v", got, keys)
	}
	for _, row := range gateRows {
		if b := c.Block(row.key); b == nil || b.Key() != row.key {
			t.Errorf("Block(%q) = %v", row.key, b)
		}
	}
	if c.Block("reliability") != nil {
		t.Error("Block(reliability) is not a gate block")
	}
	checkRunTargets(t, c)
}

// checkRunTargets feeds one run with tokens and timings to the gate of every block of
// c and checks that each of its row's runTargets has a value on it: a row
// that declares a per-run target its gate does not give would make every
// run fail that target's assertion.
func checkRunTargets(t *testing.T, c *Case) {
	t.Helper()
	cas := &cassette.Cassette{Model: "m-1"}
	ms := 12.0
	run := &cassette.Run{Tokens: &cassette.Tokens{Total: 10},
		Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "search", DurationMS: &ms}}}}}
	for _, b := range c.Blocks {
		g := b.newGate(c)
		g.addCassette(cas)
		g.add(cas, run)
		row, _ := rowOf(b.Key())
		for _, target := range row.runTargets {
			if _, ok := g.runValue(target); !ok {
				t.Errorf("%s: the gate gives no value of %s on a run", row.key, target)
			}
		}
	}
}

// A test with every block computes and reports its gates in registry
// order: their findings, then the warnings about the tools they name that
// the recorded catalog lacks, row by row.
func TestGatesReportInRegistryOrder(t *testing.T) {
	cas, err := filepath.Abs("../examples/distractor-floor-fails/cassettes/near-duplicates.json")
	if err != nil {
		t.Fatal(err)
	}
	s := writeSuite(t, `agents:
  - name: every block
    runs: 10
    cassette: `+cas+`
    token_efficiency:
      classes: [{name: search, members: [catalog.search_products]}]
    orchestration: {}
    discovery: {name_free: true}
    distractors:
      count: 9
      source: {from: near_duplicate, of: [search_products, get_product]}
      correct: [catalog.search_products]
    tool_selection: {expected_tool: search_produtcs, min_selection_rate: 0.8}
    tool_edges: {restricted: [catalog.serch_products]}
`, nil)
	var got []string
	for _, f := range run(t, s, Options{}).Cases[0].Findings {
		if len(got) == 0 || got[len(got)-1] != f.Gate {
			got = append(got, f.Gate)
		}
	}
	want := []string{"tool_edges", "distractors", "discovery", "orchestration", "token_efficiency", "tool_edges", "tool_selection"}
	if !slices.Equal(got, want) {
		t.Errorf("findings come from %v, want %v", got, want)
	}
}
