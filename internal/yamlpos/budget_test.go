package yamlpos

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCostCountsEachShape pins the things Cost counts in small texts, one
// rule each (see weight).
func TestCostCountsEachShape(t *testing.T) {
	for _, c := range []struct {
		text   string
		things int64
	}{
		{"", 0},
		{" \t\r\n", 0},
		{"a", 1},
		{"a sentence of words", 1}, // a run goes on past spaces
		{"a\nb", 2},                // and ends at a line's end
		{"a\r\nb", 2},              //
		{"a: b", 3},                // key, `:`, value
		{"a:b", 3},                 // a `:` ends a run even with no space
		{"a:", 3},                  // the null value at the text's end
		{"a:\n", 3},                // at a line's end
		{"a:   \t\n", 3},           // after spaces
		{"a: # c", 4},              // before a comment (the comment a run)
		{"{a: }", 5},               // before a closing bracket
		{"[a: , b]", 7},            // before a comma
		{"a: b\n", 3},              //
		{"{}", 2},                  // brackets
		{"[a, b]", 5},              // and commas
		{"- a", 2},                 // a sequence's entry
		{"-", 1},                   // at the text's end
		{"-\n-\t-\r\n", 3},         // before white space of every kind
		{"-a", 1},                  // not an entry: a run
		{"read-only", 1},           // a `-` inside a run
		{"a -b", 1},                //
		{"a - b", 3},               // a `-` before a space ends the run, an entry
		{"a-\n", 2},                // and before a line's end
		{"a-", 2},                  // and at the text's end
		{"a-\tb", 3},               //
		{"? a", 4},                 // an explicit key
		{"?", 3},                   //
		{"?a", 1},                  // not one
		{"a?b", 1},                 //
		{"a ? b", 5},               //
		{"'it''s'", 1},             // quotes are plain text
		{"\"a, b\"", 3},            // and do not hide punctuation
		{"x: [{a: 0},{a: 0}]", 15}, //
	} {
		if got := Cost([]byte(c.text)); got != c.things*NodeCost {
			t.Errorf("Cost(%q) = %d things, want %d", c.text, got/NodeCost, c.things)
		}
	}
}

// TestCostAtItsEdge: a budget of exactly a text's cost is not passed; one
// byte less is passed at the thing that takes the cost over it.
func TestCostAtItsEdge(t *testing.T) {
	text := []byte("a: [b, c]\n- d\n")
	// things: a, `:`, `[`, b, `,`, c, `]`, `-`, d
	starts := []int{0, 1, 3, 4, 5, 7, 8, 10, 12}
	if cost, at := CostAt(text, int64(len(starts))*NodeCost); cost != int64(len(starts))*NodeCost || at != -1 {
		t.Fatalf("at its cost: %d, %d", cost, at)
	}
	for k := range starts {
		if _, at := CostAt(text, int64(k+1)*NodeCost-1); at != starts[k] {
			t.Errorf("budget of %d things less a byte: passed at %d, want %d", k+1, at, starts[k])
		}
	}
	if _, at := CostAt(text, 0); at != 0 {
		t.Errorf("budget 0: passed at %d", at)
	}
	if _, at := CostAt(text, -1); at != -1 {
		t.Errorf("no budget: passed at %d", at)
	}
}

// yamlDraw draws YAML texts nobody wrote by hand: block and flow mappings
// and sequences nested at random, null values every way YAML has them
// (`a:`, `-`, `? `, `{a}`, `[a: ]`), quoted and plain scalars (sentences,
// hyphens, colons in URLs), tags, anchors and aliases, comments, and block
// scalars whose lines look like YAML.
type yamlDraw struct {
	rng     *rand.Rand
	anchors int
	aliases bool // whether aliases may be drawn
	key     int
}

func (g *yamlDraw) name() string {
	g.key++
	return fmt.Sprintf("k%d", g.key)
}

func (g *yamlDraw) scalar() string {
	switch g.rng.IntN(12) {
	case 0:
		return `"quoted, with: colons [and] {braces}"`
	case 1:
		return `'it''s - single'`
	case 2:
		return "a sentence of several words - with a hyphen"
	case 3:
		return "read-only"
	case 4:
		return "https://example.com/a?b=c"
	case 5:
		return `""`
	case 6:
		return "!!str 12"
	case 7:
		return "-1.5e3"
	case 8:
		return "~"
	case 9:
		return "true"
	default:
		return fmt.Sprint(g.rng.IntN(1000))
	}
}

// flow draws a value in flow style.
func (g *yamlDraw) flow(depth int) string {
	if depth <= 0 {
		return g.scalar()
	}
	switch g.rng.IntN(9) {
	case 0:
		return "[]"
	case 1:
		return "{}"
	case 2, 3:
		var parts []string
		for range g.rng.IntN(5) {
			switch g.rng.IntN(4) {
			case 0:
				parts = append(parts, g.name()+": ") // a single-pair mapping with a null value
			default:
				parts = append(parts, g.flow(depth-1))
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case 4, 5:
		var parts []string
		for range g.rng.IntN(5) {
			switch g.rng.IntN(4) {
			case 0:
				parts = append(parts, g.name()) // a key with a null value
			case 1:
				parts = append(parts, g.name()+":")
			default:
				parts = append(parts, g.name()+": "+g.flow(depth-1))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case 6:
		if g.aliases && g.anchors > 0 {
			return fmt.Sprintf("*a%d", g.rng.IntN(g.anchors))
		}
		return g.scalar()
	case 7:
		if g.aliases {
			g.anchors++
			return fmt.Sprintf("&a%d %s", g.anchors-1, g.flow(depth-1))
		}
		return g.scalar()
	default:
		return g.scalar()
	}
}

// block draws the lines of a block value at indent, for the key or
// entry that holds it.
func (g *yamlDraw) block(b *strings.Builder, indent string, depth int) {
	if depth <= 0 {
		b.WriteString(" " + g.flow(1) + "\n")
		return
	}
	switch g.rng.IntN(8) {
	case 0, 1: // a mapping
		b.WriteString("\n")
		for range 1 + g.rng.IntN(4) {
			b.WriteString(indent + g.name() + ":")
			switch g.rng.IntN(4) {
			case 0:
				b.WriteString("\n") // null
			case 1:
				b.WriteString(" # a comment, with: punctuation [x]\n")
			default:
				g.block(b, indent+"  ", depth-1)
			}
		}
	case 2, 3: // a sequence
		b.WriteString("\n")
		for range 1 + g.rng.IntN(4) {
			switch g.rng.IntN(5) {
			case 0:
				b.WriteString(indent + "-\n")
			case 1:
				b.WriteString(indent + "- ?\n")
			case 2:
				b.WriteString(indent + "- " + g.name() + ":\n")
			default:
				b.WriteString(indent + "-")
				g.block(b, indent+"  ", depth-1)
			}
		}
	case 4: // a block scalar whose lines look like YAML
		b.WriteString(" |\n" + indent + "- a: [b, {c: d}]\n" + indent + "\"open quote, {x: 0}\n" + indent + "? key\n")
	case 5: // an explicit key
		b.WriteString("\n" + indent + "? " + g.name() + "\n" + indent + ": " + g.flow(depth-1) + "\n")
	default:
		b.WriteString(" " + g.flow(depth) + "\n")
	}
}

// text draws a document: a root mapping of n keys.
func (g *yamlDraw) text(n, depth int) []byte {
	var b strings.Builder
	for range n {
		b.WriteString(g.name() + ":")
		g.block(&b, "  ", depth)
	}
	return []byte(b.String())
}

// treeNodes counts the nodes of a tree, an alias one node.
func treeNodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += treeNodes(k)
	}
	return c
}

// TestCostCountsEveryNode: over drawn texts, the things Cost counts are at
// least the nodes yaml.v3 builds, but for the document's own node and the
// root's (a block sequence of nulls at the root has nothing to count it
// by: below a key, the key's `:` with nothing after it counts it).
func TestCostCountsEveryNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	parsed := 0
	for d := range 4000 {
		g := &yamlDraw{rng: rng, aliases: true}
		text := g.text(1+rng.IntN(6), rng.IntN(6))
		var doc yaml.Node
		if err := yaml.Unmarshal(text, &doc); err != nil {
			continue
		}
		parsed++
		if nodes, things := treeNodes(&doc), Cost(text)/NodeCost; int64(nodes) > things+2 {
			t.Fatalf("draw %d: %d nodes, Cost counts %d things:\n%s", d, nodes, things, text)
		}
	}
	if parsed < 3000 {
		t.Fatalf("only %d of 4000 drawn texts parse: the generator draws too much that is not YAML", parsed)
	}
	// The shapes that cost the most a byte, each a flood of 50.
	for _, s := range floodUnits {
		var doc yaml.Node
		text := flood(s.pre, s.unit, s.post, 50)
		if err := yaml.Unmarshal(text, &doc); err != nil {
			t.Fatalf("%q: %v", s.unit, err)
		}
		if nodes, things := treeNodes(&doc), Cost(text)/NodeCost; int64(nodes) > things+2 {
			t.Errorf("%q: %d nodes, Cost counts %d things", s.unit, nodes, things)
		}
	}
}

// floodUnits are the units of text that cost the most memory a byte to
// read, each repeated to make a flood: in a flow sequence (pre and post
// around the repeats) or as lines of a block sequence (no pre).
var floodUnits = []struct{ pre, unit, post string }{
	{"[", "{a: 0},", "]"},
	{"[", "{},", "]"},
	{"[", "[],", "]"},
	{"[", "{a},", "]"},
	{"[", "0,", "]"},
	{"[", "[a: ],", "]"},
	{"", "- ?\n", ""},
	{"", "- a:\n", ""},
	{"", "-\n", ""},
	{"", "- {a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 0, h: 0, i: 0}\n", ""},
	{"", "- - - -\n", ""},
	{"", "            - a: 0\n", ""},
}

// flood is unit repeated n times as the value of key x of a root mapping.
func flood(pre, unit, post string, n int) []byte {
	if pre == "" {
		return []byte("x:\n" + strings.Repeat(unit, n))
	}
	return []byte("x: " + pre + strings.Repeat(unit, n) + post + "\n")
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCostBoundsTheRead holds Cost at or over the live heap of what Read
// builds when it parses a text whole (the tree kept, every value and
// position): for each flood unit and for drawn texts of about 64 KB
// (within the budget's floor whatever they hold), aliases aside
// (MaxAliasValues bounds what they expand to).
func TestCostBoundsTheRead(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 40 texts of 64 KB")
	}
	check := func(what string, text []byte) {
		t.Helper()
		before := liveHeap()
		d := Read("x.yml", text, Options{})
		live := int64(liveHeap()) - int64(before)
		runtime.KeepAlive(d)
		if len(d.Errs) > 0 {
			t.Fatalf("%s: %v", what, d.Errs)
		}
		if cost := Cost(text); live > cost {
			t.Errorf("%s: %d bytes read into a live heap of %d, over the estimate of %d", what, len(text), live, cost)
		} else {
			t.Logf("%s: %d bytes, live %.1fx, estimate %.1fx", what, len(text), float64(live)/float64(len(text)), float64(cost)/float64(len(text)))
		}
	}
	for _, s := range floodUnits {
		check(fmt.Sprintf("%q", s.unit), flood(s.pre, s.unit, s.post, 64<<10/len(s.unit)))
	}
	rng := rand.New(rand.NewPCG(40, 8))
	for d := range 28 {
		g := &yamlDraw{rng: rng}
		var text []byte
		depth := 1 + d%5
		for len(text) < 64<<10 {
			var doc yaml.Node
			if unit := g.text(4, depth); yaml.Unmarshal(unit, &doc) == nil {
				text = append(text, unit...)
			}
		}
		check(fmt.Sprintf("draw %d (depth %d)", d, depth), text)
	}
}

// TestBudgetRefusesFloods: every flood unit, 1.2 times past the read
// budget, is refused by every reader before it parses, at the byte where
// the estimate passes the budget; at 0.8 of it, it is read.
func TestBudgetRefusesFloods(t *testing.T) {
	for _, s := range floodUnits {
		unitCost := Cost([]byte(s.unit))
		// n units take about n * (unitCost - ratio * len) past the floor.
		over := unitCost - BudgetRatio*int64(len(s.unit))
		if over <= 0 {
			t.Logf("%q: %d a unit, within the ratio at any size", s.unit, unitCost)
			continue
		}
		n := int(BudgetFloor / over)
		big := flood(s.pre, s.unit, s.post, n*12/10)
		budget := Budget(len(big))
		_, at := CostAt(big, budget)
		if at < 0 {
			t.Fatalf("%q: %d units not over the budget", s.unit, n*12/10)
		}
		// Cut, the text may count up to three things more at its end (a
		// `:`, `-` or `?` with nothing after it).
		if c, _ := CostAt(big[:at], -1); c > budget+3*NodeCost {
			t.Errorf("%q: the text before offset %d costs %d, over the budget %d", s.unit, at, c, budget)
		}
		if c, _ := CostAt(big[:at+1], -1); c <= budget {
			t.Errorf("%q: the text through offset %d costs %d, within the budget %d", s.unit, at, c, budget)
		}
		line, col := 1, 1
		for _, r := range string(big[:at]) {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		want := fmt.Sprintf("x.yml:%d:%d: this file would take about %.1f MiB of memory to read; what stands before this point takes up the read budget of %.1f MiB for YAML of %.1f MiB (128 times its size, plus 16.0 MiB)",
			line, col, float64(Cost(big))/(1<<20), float64(budget)/(1<<20), float64(len(big))/(1<<20))
		refused := func(who string, errs []error) {
			t.Helper()
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
				t.Errorf("%q %s: want one error at %s over the read budget, got %v", s.unit, who, want, errs)
			}
		}
		_, errs := Parse("x.yml", big, Options{})
		refused("Parse", asErrors(errs))
		refused("Read", asErrors(Read("x.yml", big, Options{Release: true, SplitMin: 1}).Errs))
		if _, ok := ListNodes(big, "x", func(int, *yaml.Node) bool { return true }); ok {
			t.Errorf("%q: ListNodes read a text over its budget", s.unit)
		}
		small := flood(s.pre, s.unit, s.post, n*8/10)
		if _, at := CostAt(small, Budget(len(small))); at >= 0 {
			t.Errorf("%q: %d units refused at %d", s.unit, n*8/10, at)
		}
		if _, errs := Parse("x.yml", small, Options{}); len(errs) > 0 {
			t.Errorf("%q: %d units: %v", s.unit, n*8/10, errs)
		}
	}
}

// asErrors is l as plain errors.
func asErrors[E error](l []E) []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// TestRealYAMLWithinBudget: the YAML files of this repository (suites,
// examples, test data), a suite of the shape of .ci/bench's and the real
// LiveMCPBench catalog written as YAML are within their read budget, and
// those over 4 KB that parse (the error corpora nest 10,000 deep on
// purpose) cost at most three quarters of its ratio.
func TestRealYAMLWithinBudget(t *testing.T) {
	var files []string
	_ = filepath.WalkDir("../..", func(p string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && (e.Name() == "node_modules" || e.Name() == ".git") {
			return filepath.SkipDir
		}
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 50 {
		t.Fatalf("only %d YAML files found", len(files))
	}
	texts := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = data
	}
	for name, text := range generatedYAML(t) {
		texts[name] = text
	}
	worst, worstName := 0.0, ""
	for name, text := range texts {
		if len(text) == 0 {
			continue
		}
		ratio := float64(Cost(text)) / float64(len(text))
		if ratio > worst {
			worst, worstName = ratio, name
		}
		var doc yaml.Node
		if len(text) > 4096 && ratio > 0.75*BudgetRatio && yaml.Unmarshal(text, &doc) == nil {
			t.Errorf("%s: %d bytes cost %.1f times their size, over three quarters of the ratio", name, len(text), ratio)
		}
		if e := budgetError(name, text, Options{}); e != nil {
			t.Errorf("%s: %v", name, e)
		}
	}
	t.Logf("%d texts; the costliest a byte: %s, %.1f times its size", len(texts), worstName, worst)
	for _, name := range []string{"livemcpbench (block)", "livemcpbench (flow)", "suite of 2,000 transcripts", "suite in flow style"} {
		if text, ok := texts[name]; ok {
			t.Logf("%s: %d bytes, %.1f times", name, len(text), float64(Cost(text))/float64(len(text)))
		}
	}
}

// generatedYAML is YAML as generators and converters write it: the
// LiveMCPBench catalog's 527 tools in block and in flow style, a suite of
// the shape of .ci/bench's 2,000 transcripts, and a suite of 20,000 tests
// in flow style, one a line.
func generatedYAML(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	suites(out)
	data, err := os.ReadFile("../../../shared/data/livemcpbench/livemcptool_catalog.json")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("LiveMCPBench sample not available: %v: CI runs with ../shared/data beside the repository", err)
		}
		t.Logf("LiveMCPBench sample not available (%v): its catalog is left out", err)
		return out
	}
	var tools []*yaml.Node
	var collect func(n *yaml.Node)
	collect = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "inputSchema" {
					tools = append(tools, n)
					return
				}
			}
		}
		for _, k := range n.Content {
			collect(k)
		}
	}
	root, perr := ParseJSON(data)
	if perr != nil {
		t.Fatal(perr)
	}
	collect(root)
	if len(tools) < 500 {
		t.Fatalf("%d tools in the LiveMCPBench catalog", len(tools))
	}
	list := &yaml.Node{Kind: yaml.SequenceNode, Content: tools}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "tools"}, list}}
	block, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	out["livemcpbench (block)"] = block
	setFlow(list)
	flowText, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	out["livemcpbench (flow)"] = flowText
	return out
}

// suites adds suites as generators write them to out.
func suites(out map[string][]byte) {
	var b bytes.Buffer
	b.WriteString("tests:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  - name: transcript %d\n    type: agent\n    cassette: transcripts/transcript-%06d.json\n    equal_function_sets:\n      count: distinct\n      classes:\n", i, i)
		for j := range 1 + i%5 {
			fmt.Fprintf(&b, "        - { name: \"tool_%d\", members: [\"tool_%d\"] }\n", j, j)
		}
		b.WriteString("      expect:\n        - tool_selection.f1: { \">=\": 80 }\n")
	}
	out["suite of 2,000 transcripts"] = b.Bytes()
	var f bytes.Buffer
	f.WriteString("tests:\n")
	for i := range 20000 {
		fmt.Fprintf(&f, "  - {name: t%d, type: agent, cassette: c.json, expect: [{tool_selection.f1: {\">=\": 80}}]}\n", i)
	}
	out["suite in flow style"] = f.Bytes()
}

// setFlow writes the tree of n in flow style.
func setFlow(n *yaml.Node) {
	n.Style = yaml.FlowStyle
	for _, k := range n.Content {
		setFlow(k)
	}
}

// FuzzCost: Cost never panics, stays within maxCostPerByte, and CostAt
// places the point where a budget runs out at the byte that passes it.
func FuzzCost(f *testing.F) {
	for _, s := range floodUnits {
		f.Add([]byte(s.pre+s.unit+s.unit+s.post), int64(700))
	}
	f.Add([]byte("a: b\n- c\n? d\n"), int64(0))
	f.Fuzz(func(t *testing.T, text []byte, budget int64) {
		cost, at := CostAt(text, budget)
		if cost != Cost(text) || cost < 0 || cost > int64(len(text))*maxCostPerByte {
			t.Fatalf("cost %d for %d bytes (Cost %d)", cost, len(text), Cost(text))
		}
		if budget < 0 || cost <= budget {
			if at != -1 {
				t.Fatalf("at %d with cost %d within budget %d", at, cost, budget)
			}
			return
		}
		if at < 0 || at >= len(text) {
			t.Fatalf("cost %d over budget %d, at %d", cost, budget, at)
		}
		if c := Cost(text[:at]); c > budget+3*NodeCost {
			t.Fatalf("before %d: %d over budget %d", at, c, budget)
		}
		if c := Cost(text[:at+1]); c <= budget {
			t.Fatalf("through %d: %d within budget %d", at, c, budget)
		}
	})
}
