package yamlpos

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/diag"
)

// drawnDoc writes a drawn YAML document: block mappings and sequences
// holding flow ones, scalars of every kind Read turns into a value (plain,
// quoted and tagged strings, integers in three bases, floats, booleans in
// their spellings, nulls), anchors on collections and scalars, and aliases
// to the anchors written before them. Every mapping's keys are distinct,
// every number finite, and no collection nests an alias to itself, so the
// document is one Read takes without an error.
type drawnDoc struct {
	r       *rand.Rand
	b       strings.Builder
	anchors []string
	n       int
}

var drawnScalars = []string{
	"x", "a b", "'q'", `"d\tq"`, "''", "!!str 12", "!!float 3", "yes",
	"0", "7", "-3", "0x1f", "0o17", "2.5", "-.5", "1e3", "1.0",
	"true", "false", "True", "FALSE", "!!bool true",
	"null", "~", "Null",
}

// anchor returns " &aN " (a new anchor, known once its node is written)
// or "", and the name to add when the node is written.
func (g *drawnDoc) anchor() (string, string) {
	if g.r.IntN(4) != 0 {
		return "", ""
	}
	g.n++
	name := "a" + strconv.Itoa(g.n)
	return "&" + name + " ", name
}

// alias returns an alias to an anchor written before, or "".
func (g *drawnDoc) alias() string {
	if len(g.anchors) == 0 || g.r.IntN(5) != 0 {
		return ""
	}
	return "*" + g.anchors[g.r.IntN(len(g.anchors))]
}

func (g *drawnDoc) keys() []string {
	names := []string{"a", "b", "c/d", "e~f", "'g'", `"h i"`, "tests"}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names[:1+g.r.IntN(4)]
}

// flow writes a flow value nested up to depth more levels.
func (g *drawnDoc) flow(depth int) {
	if a := g.alias(); a != "" {
		g.b.WriteString(a)
		return
	}
	mark, name := g.anchor()
	g.b.WriteString(mark)
	switch k := g.r.IntN(4); {
	case depth > 0 && k == 0:
		g.b.WriteString("{")
		for i, key := range g.keys() {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.b.WriteString(key + ": ")
			g.flow(depth - 1)
		}
		g.b.WriteString("}")
	case depth > 0 && k == 1:
		g.b.WriteString("[")
		for i := range g.r.IntN(4) {
			if i > 0 {
				g.b.WriteString(", ")
			}
			g.flow(depth - 1)
		}
		g.b.WriteString("]")
	default:
		g.b.WriteString(drawnScalars[g.r.IntN(len(drawnScalars))])
	}
	if name != "" {
		g.anchors = append(g.anchors, name)
	}
}

// block writes the value of a key or a dash at indent: a block mapping
// or sequence on the next lines (anchored now and then), or a flow value
// on this line.
func (g *drawnDoc) block(indent, depth int) {
	pad := strings.Repeat(" ", indent)
	switch k := g.r.IntN(3); {
	case depth > 0 && k == 0:
		mark, name := g.anchor()
		g.b.WriteString(" " + strings.TrimSpace(mark) + "\n")
		for _, key := range g.keys() {
			g.b.WriteString(pad + key + ":")
			g.block(indent+2, depth-1)
		}
		if name != "" {
			g.anchors = append(g.anchors, name)
		}
	case depth > 0 && k == 1:
		mark, name := g.anchor()
		g.b.WriteString(" " + strings.TrimSpace(mark) + "\n")
		for range 1 + g.r.IntN(3) {
			g.b.WriteString(pad + "-")
			g.block(indent+2, depth-1)
		}
		if name != "" {
			g.anchors = append(g.anchors, name)
		}
	default:
		g.b.WriteString(" ")
		g.flow(depth)
		g.b.WriteString("\n")
	}
}

// text draws a document: a root mapping whose values are block lists
// now and then (which Read with Release may parse item by item), or a
// root sequence.
func (g *drawnDoc) text() []byte {
	if g.r.IntN(5) == 0 {
		for range 1 + g.r.IntN(3) {
			g.b.WriteString("-")
			g.block(2, 3)
		}
		return []byte(g.b.String())
	}
	for _, key := range g.keys() {
		g.b.WriteString(key + ":")
		if g.r.IntN(2) == 0 {
			g.b.WriteString("\n")
			for range 1 + g.r.IntN(4) {
				g.b.WriteString("  -")
				g.block(4, 3)
			}
			continue
		}
		g.block(2, 3)
	}
	return []byte(g.b.String())
}

// asRead is what Read makes of a value yaml.v3 decodes: every number a
// float64.
func asRead(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = asRead(x)
		}
	case []any:
		for i, x := range v {
			v[i] = asRead(x)
		}
	case int:
		return float64(v)
	case uint64:
		return float64(v)
	}
	return v
}

// placesOf walks yaml.v3's tree of a document as Read records it: the
// place of every value by pointer and
// of every mapping key. A value an alias names is placed where the node
// the alias names is written.
func placesOf(n *yaml.Node, ptr string, values, keys map[string]diag.Pos) {
	values[ptr] = diag.Pos{File: "g.yml", Line: n.Line, Col: n.Column}
	switch n.Kind {
	case yaml.AliasNode:
		placesOf(n.Alias, ptr, values, keys)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := ptr + "/" + EscapePointer(k.Value)
			keys[p] = diag.Pos{File: "g.yml", Line: k.Line, Col: k.Column}
			placesOf(n.Content[i+1], p, values, keys)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			placesOf(c, ptr+"/"+strconv.Itoa(i), values, keys)
		}
	}
}

// TestReadIsYAMLv3Generated draws documents (see drawnDoc) and holds
// Read's reading of each, whole and with Options.Release (the nodes
// dropped as they are converted, the root's block lists parsed item by
// item), to gopkg.in/yaml.v3's reading of the same text: the same values
// (every number a float64), the place of every value and key as yaml.v3's
// nodes give it, aliases expanded, and Len and Count the number of values.
func TestReadIsYAMLv3Generated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 332))
	rounds, aliases := 1500, 0
	if testing.Short() {
		rounds = 400
	}
	for round := range rounds {
		g := &drawnDoc{r: r}
		text := g.text()
		var want any
		var tree yaml.Node
		if err := yaml.Unmarshal(text, &want); err != nil {
			t.Fatalf("round %d: yaml.v3: %v\n%s", round, err, text)
		}
		if err := yaml.Unmarshal(text, &tree); err != nil || len(tree.Content) != 1 {
			t.Fatalf("round %d: yaml.v3 tree: %v\n%s", round, err, text)
		}
		want = asRead(want)
		values, keys := map[string]diag.Pos{}, map[string]diag.Pos{}
		placesOf(tree.Content[0], "", values, keys)
		aliases += strings.Count(string(text), "*")
		for _, o := range []Options{{}, {Release: true}, {Release: true, SplitMin: 1}} {
			d := Read("g.yml", text, o)
			if len(d.Errs) > 0 {
				t.Fatalf("round %d %+v: %v\n%s", round, o, d.Errs, text)
			}
			if !reflect.DeepEqual(d.Root, want) {
				t.Fatalf("round %d %+v: read\n%#v\nyaml.v3\n%#v\n%s", round, o, d.Root, want, text)
			}
			if d.Len() != len(values) || Count(tree.Content[0]) != len(values) {
				t.Fatalf("round %d %+v: Len %d, Count %d, %d values\n%s", round, o, d.Len(), Count(tree.Content[0]), len(values), text)
			}
			for ptr, pos := range values {
				wantKey, isKey := keys[ptr]
				if !isKey {
					wantKey = pos
				}
				if d.At(ptr) != pos || d.KeyAt(ptr) != wantKey || d.IsKey(ptr) != isKey {
					t.Fatalf("round %d %+v: %q at %v key %v (%v), want %v key %v\n%s", round, o, ptr, d.At(ptr), d.KeyAt(ptr), d.IsKey(ptr), pos, wantKey, text)
				}
			}
		}
	}
	if aliases < rounds/2 {
		t.Fatalf("%d aliases drawn in %d rounds", aliases, rounds)
	}
}

// TestReleaseDropsWhatNoAliasNames holds Options.Release to its rule over
// drawn documents: once the tree is converted, a collection's children are
// dropped exactly when neither it nor a collection around it is anchored
// (no alias can name it), and kept otherwise; nothing an alias names is
// dropped before the alias is converted (the values are yaml.v3's).
func TestReleaseDropsWhatNoAliasNames(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 193))
	dropped, kept := 0, 0
	for round := range 300 {
		g := &drawnDoc{r: r}
		text := g.text()
		root, errs, _ := parse("g.yml", text, Options{})
		if root == nil || len(errs) > 0 {
			t.Fatalf("round %d: %v\n%s", round, errs, text)
		}
		// Each collection of the document as written (not through an
		// alias), and whether it may be dropped.
		type coll struct {
			n    *yaml.Node
			drop bool
		}
		var colls []coll
		var walk func(n *yaml.Node, under bool)
		walk = func(n *yaml.Node, under bool) {
			if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
				return
			}
			under = under || n.Anchor != ""
			colls = append(colls, coll{n, !under})
			for _, c := range n.Content {
				walk(c, under)
			}
		}
		walk(root, false)
		d := &Doc{File: "g.yml", o: Options{Release: true}}
		got := d.convert(root, &d.root, nil, 0, false)
		var want any
		if err := yaml.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, asRead(want)) || len(d.Errs) > 0 {
			t.Fatalf("round %d: read %#v (%v), yaml.v3 %#v\n%s", round, got, d.Errs, want, text)
		}
		for _, c := range colls {
			nils := 0
			for _, k := range c.n.Content {
				if k == nil {
					nils++
				}
			}
			switch {
			case c.drop && nils != len(c.n.Content):
				t.Fatalf("round %d: a collection at %d:%d no alias can name kept %d of its %d children\n%s", round, c.n.Line, c.n.Column, len(c.n.Content)-nils, len(c.n.Content), text)
			case !c.drop && nils > 0:
				t.Fatalf("round %d: an anchored collection or one within it, at %d:%d, dropped %d children\n%s", round, c.n.Line, c.n.Column, nils, text)
			case c.drop:
				dropped++
			default:
				kept++
			}
		}
		if d.anchored != 0 {
			t.Fatalf("round %d: %d anchored collections left open\n%s", round, d.anchored, text)
		}
	}
	if dropped == 0 || kept == 0 {
		t.Fatalf("%d collections dropped, %d kept: the draws miss a side", dropped, kept)
	}
}

// TestInternSharesTheFirstStrings: intern hands back the first copy of
// each of the first maxInterned distinct strings it is given, and any
// other string as it is.
func TestInternSharesTheFirstStrings(t *testing.T) {
	d := &Doc{}
	for i := range maxInterned + 3 {
		first := strconv.Itoa(i)
		if got := d.intern(first); unsafe.StringData(got) != unsafe.StringData(first) {
			t.Fatalf("%d: a new string not handed back as it is", i)
		}
		again := strings.Clone(first)
		got := d.intern(again)
		switch {
		case i < maxInterned && unsafe.StringData(got) != unsafe.StringData(first):
			t.Fatalf("distinct string %d of %d not shared", i+1, maxInterned)
		case i >= maxInterned && unsafe.StringData(got) != unsafe.StringData(again):
			t.Fatalf("distinct string %d, past %d, shared", i+1, maxInterned)
		case got != first:
			t.Fatalf("intern(%q) = %q", first, got)
		}
	}
	if len(d.keys) != maxInterned {
		t.Fatalf("%d strings held, want %d", len(d.keys), maxInterned)
	}
}

// TestReadSplitsFromSplitMin: Read with Release cuts the root's lists into
// items in a text of SplitMin bytes or more, and not in a shorter one.
func TestReadSplitsFromSplitMin(t *testing.T) {
	text := []byte("name: s\ntests:\n  - a: 1\n  - b: [2, 3]\n")
	for _, c := range []struct {
		min  int
		held bool
	}{{len(text) - 1, true}, {len(text), true}, {len(text) + 1, false}} {
		d := Read("s.yml", text, Options{Release: true, Items: "tests", SplitMin: c.min})
		if d.Held() != c.held || len(d.Errs) > 0 {
			t.Errorf("SplitMin %d, a text of %d bytes: held %v (%v), want %v", c.min, len(text), d.Held(), d.Errs, c.held)
		}
	}
}

// TestItemsNestToMaxDepth: an item of a list Read hands over is as deep
// as where the whole parse finds it: nested to exactly MaxDepth it is
// read, one deeper it is refused, as read whole.
func TestItemsNestToMaxDepth(t *testing.T) {
	// The root mapping is at depth 0, tests: at 1, an item at 2.
	for _, lists := range []int{MaxDepth - 2, MaxDepth - 1} {
		item := strings.Repeat("[", lists) + "x" + strings.Repeat("]", lists)
		text := []byte("tests:\n  - " + item + "\n  - y\n")
		whole := readWhole("s.yml", text, releaseOpts)
		if deep := len(whole.Errs) > 0; deep != (lists == MaxDepth-1) {
			t.Fatalf("%d lists nested in an item: errors %v", lists, whole.Errs)
		}
		if !sameItems(t, text) {
			t.Fatalf("%d lists nested in an item: not handed over", lists)
		}
	}
}

// TestAliasBombNamesItsAlias draws alias bombs (lists of aliases to the
// list before, fanning out) and a list of aliases to them, counts the
// values each alias expands to as Read counts them, and holds the one
// error to the alias of the list that crosses MaxAliasValues: its name,
// place and pointer, not those of an alias met inside its expansion nor
// of a value written before it.
func TestAliasBombNamesItsAlias(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 141))
	for round := range 40 {
		fan := 3 + r.IntN(7)
		// size[i] is what an alias to bi adds to the count: the list and,
		// for each of its fan elements, the alias and what it names.
		size := []int{1 + fan}
		var b strings.Builder
		fmt.Fprintf(&b, "b0: &b0 [%s]\n", strings.TrimSuffix(strings.Repeat("x, ", fan), ", "))
		counted := 0
		for {
			l := len(size)
			if counted+fan*size[l-1] > MaxAliasValues/2 {
				break
			}
			counted += fan * size[l-1]
			size = append(size, 1+fan*(1+size[l-1]))
			fmt.Fprintf(&b, "b%d: &b%d [%s]\n", l, l, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*b%d, ", l-1), fan), ", "))
		}
		line := strings.Count(b.String(), "\n") + 1
		b.WriteString("z:\n")
		var want string
		for k := 0; want == "" || r.IntN(2) == 0; k++ {
			line++
			if r.IntN(4) == 0 {
				b.WriteString("  - 1\n")
				continue
			}
			j := len(size) - 1 - r.IntN(min(2, len(size)))
			fmt.Fprintf(&b, "  - *b%d\n", j)
			if counted += size[j]; want == "" && counted > MaxAliasValues {
				want = fmt.Sprintf("bomb.yml:%d:5: aliases expand the suite to over %d values (an alias bomb?); the limit is crossed expanding *b%d here", line, MaxAliasValues, j) +
					" @/z/" + strconv.Itoa(k)
			}
		}
		d := Read("bomb.yml", []byte(b.String()), opts)
		if len(d.Errs) != 1 || !strings.HasPrefix(d.Errs[0].Error(), strings.Split(want, " @")[0]) || !strings.HasSuffix(want, " @"+d.Errs[0].Pointer) {
			t.Fatalf("round %d: %v at %v, want %s\n%s", round, d.Errs, pointerOf(d.Errs), want, b.String())
		}
	}
}

func pointerOf(l diag.List) []string {
	var out []string
	for _, e := range l {
		out = append(out, e.Pointer)
	}
	return out
}
