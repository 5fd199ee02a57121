package gate

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate/tokens"
)

// catalogDraw writes recorded catalogs as a recording holds them: members
// in any order and spacing, keys spelled with escapes, strings with every
// escape JSON has, numbers written oddly, schemas nested deep (past the
// depth the text is written of from the bytes, now and then), null
// members, keys that look like the ones read but are not, and now and
// then one rule broken (a key repeated, a number out of range, a member
// of the wrong type), so a rule the reader forgets is seen alone.
type catalogDraw struct {
	rng *rand.Rand
	b   strings.Builder
	// breaks is the rule the first tool breaks (breakKinds), -1 for none;
	// bad says the draw broke it.
	breaks int
	bad    bool
}

// The rules a draw breaks, one a catalog: a name that is not a non-empty
// string, a description, title, outputSchema, inputSchema or annotations
// of the wrong type, a number out of range, a key of the tool repeated, a
// key of its inputSchema repeated, a null member repeated.
var breakKinds = []string{`"name"`, `"description"`, `"title"`, `"outputSchema"`, `"inputSchema"`, `"annotations"`,
	`"huge"`, "repeated", "nested", "null"}
var breakValues = map[string]string{`"description"`: `7`, `"title"`: `{}`, `"outputSchema"`: `true`,
	`"inputSchema"`: `["not","an","object"]`, `"annotations"`: `"read-only"`, `"huge"`: `1e400`,
	"nested": `{"type":"object","properties":{"a":1,"a":2}}`, "null": "null"}

var (
	drawnStrings = []string{`"plain"`, `"caf\u00e9"`, `"\"q\" \\ \/"`, `"line\nnext\ttab"`, `"\u2028sep\u2029"`,
		`"emoji \ud83d\ude00"`, `"lone \ud800 x"`, `"<tag> & amp"`, `"naïve 日本"`, `"nul \u0000"`, `""`}
	drawnNumbers = []string{`0`, `-0`, `1E2`, `1.50`, `-0.0001e-3`, `12345678901234567890`, `1e308`, `5e-324`, `0.1`, `7`}
	drawnKeys    = []string{`"type"`, `"properties"`, `"required"`, `"description"`, `"items"`, `"enum"`, `"default"`,
		`"x-\u00e9"`, `"a b"`, `"\u0074itle"`}
)

func (d *catalogDraw) space() {
	if d.rng.IntN(4) == 0 {
		d.b.WriteString([]string{" ", "\n  ", "\t", "\r\n"}[d.rng.IntN(4)])
	}
}

// value writes a JSON value nested at most depth deep.
func (d *catalogDraw) value(depth int) {
	switch n := d.rng.IntN(10); {
	case depth > 0 && n < 3:
		d.object(depth - 1)
	case depth > 0 && n < 4:
		d.b.WriteByte('[')
		for i := range d.rng.IntN(4) {
			if i > 0 {
				d.b.WriteByte(',')
			}
			d.space()
			d.value(depth - 1)
		}
		d.b.WriteByte(']')
	case n < 6:
		d.b.WriteString(drawnStrings[d.rng.IntN(len(drawnStrings))])
	case n < 8:
		d.b.WriteString(drawnNumbers[d.rng.IntN(len(drawnNumbers))])
	default:
		d.b.WriteString([]string{"true", "false", "null"}[d.rng.IntN(3)])
	}
}

// object writes an object of drawn keys, a key repeated now and then.
func (d *catalogDraw) object(depth int) {
	d.b.WriteByte('{')
	keys := d.rng.Perm(len(drawnKeys))[:d.rng.IntN(len(drawnKeys))]
	for i, k := range keys {
		if i > 0 {
			d.b.WriteByte(',')
		}
		d.space()
		d.b.WriteString(drawnKeys[k])
		d.space()
		d.b.WriteByte(':')
		d.space()
		d.value(depth)
	}
	d.b.WriteByte('}')
}

// deep writes an object nested n deep.
func (d *catalogDraw) deep(n int) {
	d.b.WriteString(strings.Repeat(`{"items":`, n) + `{"type":"string"}` + strings.Repeat("}", n))
}

// tool writes one tools/list entry.
func (d *catalogDraw) tool(n int) {
	type member struct {
		key   string
		write func()
	}
	ms := []member{{`"name"`, func() { fmt.Fprintf(&d.b, `"t%d"`, n) }}}
	kind := ""
	if d.breaks >= 0 && n == 0 {
		kind, d.bad = breakKinds[d.breaks], true
	}
	switch kind {
	case `"name"`:
		ms[0].write = func() { d.b.WriteString([]string{`""`, `7`, `null`}[d.rng.IntN(3)]) }
	case "repeated":
	case "nested":
		ms = append(ms, member{`"inputSchema"`, func() { d.b.WriteString(breakValues[kind]) }})
	case "null":
		ms = append(ms, member{`"title"`, func() { d.b.WriteString("null") }})
	case "":
	default:
		ms = append(ms, member{kind, func() { d.b.WriteString(breakValues[kind]) }})
	}
	if d.rng.IntN(6) == 0 {
		ms[0].key = `"n\u0061me"`
	}
	add := func(p int, key string, write func()) {
		if d.rng.IntN(p) == 0 {
			ms = append(ms, member{key, write})
		}
	}
	add(2, `"description"`, func() { d.b.WriteString(drawnStrings[d.rng.IntN(len(drawnStrings))]) })
	add(8, `"description"`, func() { d.b.WriteString("null") })
	add(1, `"inputSchema"`, func() {
		if d.rng.IntN(12) == 0 {
			d.deep(60 + d.rng.IntN(20))
			return
		}
		d.object(1 + d.rng.IntN(4))
	})
	add(3, `"annotations"`, func() {
		fmt.Fprintf(&d.b, `{"readOnlyHint":%v,"destructiveHint":%v}`, d.rng.IntN(2) == 0, d.rng.IntN(2) == 0)
	})
	for _, k := range []string{`"annotations"`, `"title"`, `"outputSchema"`, `"x-vendor"`, `"_meta"`} {
		add(10, k, func() { d.b.WriteString("null") })
	}
	add(5, `"title"`, func() { d.b.WriteString(drawnStrings[d.rng.IntN(len(drawnStrings))]) })
	add(5, `"outputSchema"`, func() { d.object(2) })
	for _, k := range []string{`"input_schema"`, `"InputSchema"`, `"inputSchema "`, `"x-vendor"`, `"annotations_"`} {
		add(8, k, func() { d.value(2) })
	}
	seen := map[string]bool{}
	var kept []member
	for _, m := range ms {
		canon := strings.ReplaceAll(m.key, `\u0061`, "a")
		if seen[canon] {
			continue
		}
		seen[canon] = true
		kept = append(kept, m)
	}
	d.rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
	switch kind {
	case "repeated":
		kept = append(kept, kept[d.rng.IntN(len(kept))])
	case "null":
		for _, m := range kept {
			if m.key == `"title"` {
				kept = append(kept, m)
				break
			}
		}
	}
	d.b.WriteByte('{')
	for i, m := range kept {
		if i > 0 {
			d.b.WriteByte(',')
		}
		d.space()
		d.b.WriteString(m.key + ":")
		d.space()
		m.write()
	}
	d.b.WriteByte('}')
}

// toolBroken reports whether a decoded entry breaks a rule of the
// format's tools (the reader refuses the cassette): a name that is not a
// non-empty string, a description or title that is not a string, an
// inputSchema that is not an object, annotations or an outputSchema that
// are not objects (a null member other than the name and the inputSchema
// being absent).
func toolBroken(m map[string]any) bool {
	name, ok := m["name"].(string)
	if !ok || name == "" {
		return true
	}
	for k, v := range m {
		if v == nil && k != "inputSchema" {
			continue
		}
		switch k {
		case "description", "title":
			if _, ok := v.(string); !ok {
				return true
			}
		case "inputSchema", "annotations", "outputSchema":
			if _, ok := v.(map[string]any); !ok {
				return true
			}
		}
	}
	return false
}

// TestCatalogTextAgreesWithDecoded draws recorded catalogs (catalogDraw)
// and holds every consumer of a tool kept as its text to what it read of
// the decoded entry before: the name, the description, the entry (Raw,
// its null members left out), each member, the inputSchema the arguments:
// gate compiles, the annotations MayWrite reads and the tokens
// token_efficiency: counts, against encoding/json's decoding of the same
// bytes; a cassette with a key repeated, a number out of range or a tool
// of the wrong shape is refused, as it was.
func TestCatalogTextAgreesWithDecoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 12))
	draws := 300
	if testing.Short() {
		draws = 60
	}
	refused, checked := 0, 0
	for i := range draws {
		d := &catalogDraw{rng: rng, breaks: -1}
		if rng.IntN(3) == 0 {
			d.breaks = rng.IntN(len(breakKinds))
		}
		d.b.WriteString(`{"mcptest_cassette":1,"catalog":{`)
		servers := 1 + rng.IntN(3)
		for s := range servers {
			if s > 0 {
				d.b.WriteByte(',')
			}
			fmt.Fprintf(&d.b, `"s%d":`, s)
			d.space()
			d.b.WriteString(`{"tools":[`)
			for n := range rng.IntN(8) {
				if n > 0 {
					d.b.WriteByte(',')
				}
				d.space()
				d.tool(n)
			}
			d.b.WriteString(`],"nextCursor":null}`)
		}
		d.b.WriteString(`},"runs":[]}`)
		text := d.b.String()
		var doc struct {
			Catalog map[string]struct{ Tools []map[string]any }
		}
		decodeErr := json.Unmarshal([]byte(text), &doc)
		broken := d.bad || decodeErr != nil
		for _, sc := range doc.Catalog {
			for _, m := range sc.Tools {
				broken = broken || toolBroken(m)
			}
		}
		c, err := cassette.Read(fmt.Sprintf("draw%d.json", i), []byte(text))
		if broken {
			if err == nil {
				t.Fatalf("draw %d: read, want refused:\n%s", i, text)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("draw %d: %v\n%s", i, err, text)
		}
		servers = len(doc.Catalog)
		names := make([]string, 0, servers)
		for s := range doc.Catalog {
			names = append(names, s)
		}
		sort.Strings(names)
		if len(c.Catalog) != len(names) {
			t.Fatalf("draw %d: %d servers, want %d", i, len(c.Catalog), len(names))
		}
		for s, sc := range c.Catalog {
			want := doc.Catalog[names[s]].Tools
			if sc.Server != names[s] || len(sc.Tools) != len(want) {
				t.Fatalf("draw %d: server %q of %d tools, want %q of %d", i, sc.Server, len(sc.Tools), names[s], len(want))
			}
			for k, tool := range sc.Tools {
				checkToolAgrees(t, fmt.Sprintf("draw %d %s.%d", i, sc.Server, k), tool, want[k])
				checked++
			}
		}
	}
	t.Logf("%d catalogs, %d refused, %d tools checked", draws, refused, checked)
	if refused < draws/10 || checked < draws {
		t.Fatalf("the draws refused %d catalogs and checked %d tools: the generator lost its reach", refused, checked)
	}
}

// checkToolAgrees holds one tool read as text to m, its entry decoded by
// encoding/json.
func checkToolAgrees(t *testing.T, where string, tool cassette.Tool, m map[string]any) {
	t.Helper()
	want := map[string]any{}
	for k, v := range m {
		if v != nil || k == "name" || k == "inputSchema" {
			want[k] = v
		}
	}
	name, _ := m["name"].(string)
	desc, _ := m["description"].(string)
	if tool.Name != name || tool.Description != desc {
		t.Fatalf("%s: name %q, description %q; want %q, %q", where, tool.Name, tool.Description, name, desc)
	}
	if got := tool.Raw(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Raw\n%v\nwant\n%v", where, got, want)
	}
	for _, k := range []string{"name", "description", "inputSchema", "annotations", "title", "outputSchema", "x-vendor", "input_schema", "missing"} {
		if got := tool.Member(k).Value(); !reflect.DeepEqual(got, want[k]) {
			t.Fatalf("%s: member %s = %v, want %v", where, k, got, want[k])
		}
	}
	if got := tool.InputSchema(); !reflect.DeepEqual(got, m["inputSchema"]) || tool.HasInputSchema() != (m["inputSchema"] != nil) {
		t.Fatalf("%s: inputSchema %v, want %v", where, got, m["inputSchema"])
	}
	if MayWrite(tool.Name, tool.Member("annotations").Value()) != MayWrite(name, m["annotations"]) {
		t.Fatalf("%s: MayWrite differs", where)
	}
	if got, want := tokens.ToolOfText(tool.Name, tool.Description, string(tool.Member("inputSchema"))), tokens.Tool(name, desc, m["inputSchema"]); got != want {
		t.Fatalf("%s: %d tokens, want %d (%s)", where, got, want, tool.Member("inputSchema"))
	}
}
