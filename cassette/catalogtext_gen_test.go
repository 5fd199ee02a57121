package cassette

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// toolGen writes recorded catalogs' tools as a recording may hold them:
// members in any order and spacing, keys spelled with escapes, strings
// with escapes and multi-byte characters, null members (the required name
// and inputSchema among them, now and then), members whose keys look like
// the ones read but are not, vendor members of any JSON value, nested
// deeper than the text is written of from the bytes now and then, and a
// rule of the format broken now and then (a member of the wrong type, an
// empty name, a key repeated, a number out of range).
type toolGen struct {
	rng *rand.Rand
	b   strings.Builder
	// bad says a rule encoding/json's decode does not see was broken (a
	// repeated key: encoding/json keeps the last).
	bad bool
}

var (
	genStrings = []string{`"plain"`, `"caf\u00e9"`, `"q \" \\ \/ x"`, `"a\nb\tc"`, `"\u2028\u2029"`,
		`"emoji \ud83d\ude00"`, `"<a> & b"`, `"naïve 日本"`, `"nul \u0000"`, `""`, `"\u0041BC"`, `"\\"`, `"\\\\"`}
	genNumbers = []string{`0`, `-0`, `1E2`, `2.50`, `-1e-7`, `12345678901234567890`, `5e-324`, `1e21`, `0.000001`}
	// genKeys are member names of a tool besides the ones it is read by:
	// some spell a read key with an escape (the same key), some look like
	// one and are not, some need escaping when written.
	genKeys = []string{`"x-vendor"`, `"\u006eame"`, `"descr\u0069ption"`, `"name "`, `"Name"`, `"inputschema"`,
		`"a\"b"`, `"line\nkey"`, `"é"`, `"title\u0000"`, `"_meta"`, `""`}
)

func (g *toolGen) space() {
	if g.rng.IntN(3) == 0 {
		g.b.WriteString([]string{" ", "\n  ", "\t", "\r\n", "  "}[g.rng.IntN(5)])
	}
}

// value writes a JSON value nested at most depth deep.
func (g *toolGen) value(depth int) {
	switch n := g.rng.IntN(10); {
	case depth > 0 && n < 3:
		g.object(depth-1, genKeys)
	case depth > 0 && n < 4:
		g.b.WriteByte('[')
		for i := range g.rng.IntN(4) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.space()
			g.value(depth - 1)
		}
		g.b.WriteByte(']')
	case n < 6:
		g.b.WriteString(genStrings[g.rng.IntN(len(genStrings))])
	case n < 8:
		g.b.WriteString(genNumbers[g.rng.IntN(len(genNumbers))])
	default:
		g.b.WriteString([]string{"true", "false", "null"}[g.rng.IntN(3)])
	}
}

// object writes an object of keys drawn from keys, distinct unless a
// repeat is drawn (which sets bad).
func (g *toolGen) object(depth int, keys []string) {
	g.b.WriteByte('{')
	n := g.rng.IntN(4)
	perm := g.rng.Perm(len(keys))
	for i := range min(n, len(keys)) {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.space()
		g.b.WriteString(keys[perm[i]])
		g.b.WriteByte(':')
		g.space()
		g.value(depth)
	}
	if n > 0 && g.rng.IntN(100) == 0 {
		g.b.WriteByte(',')
		g.b.WriteString(keys[perm[0]])
		g.b.WriteString(":1")
		g.bad = true
	}
	g.b.WriteByte('}')
}

// deep writes an object nested n arrays deep, past the depth
// jsonpos.AppendCanonical writes an object of from the bytes.
func (g *toolGen) deep(n int) {
	g.b.WriteString(strings.Repeat("[", n))
	g.b.WriteString(`{"k":"v"}`)
	g.b.WriteString(strings.Repeat("]", n))
}

// tool writes one tools/list entry.
func (g *toolGen) tool(i int) {
	type member struct {
		key   string
		write func()
	}
	str := func(s string) func() { return func() { g.b.WriteString(s) } }
	name := fmt.Sprintf(`"tool%d"`, i)
	if g.rng.IntN(3) == 0 {
		name = fmt.Sprintf(`"t\u00e9%d \"q\""`, i)
	}
	members := []member{{`"name"`, str(name)}}
	if g.rng.IntN(8) == 0 {
		members[0].key = `"\u006eame"`
	}
	obj := func() { g.object(2, genKeys) }
	for _, m := range []member{
		{`"description"`, func() { g.b.WriteString(genStrings[g.rng.IntN(len(genStrings))]) }},
		{`"title"`, func() { g.b.WriteString(genStrings[g.rng.IntN(len(genStrings))]) }},
		{`"inputSchema"`, obj},
		{`"annotations"`, obj},
		{`"outputSchema"`, obj},
		{genKeys[g.rng.IntN(len(genKeys))], func() { g.value(3) }},
		{`"x-deep"`, func() { g.deep(60 + g.rng.IntN(10)) }},
	} {
		if g.rng.IntN(3) == 0 {
			continue
		}
		if m.key == `"x-deep"` && g.rng.IntN(6) > 0 {
			continue
		}
		if g.rng.IntN(6) == 0 && !slices.Contains([]string{`"\u006eame"`, `"descr\u0069ption"`, `"inputSchema"`}, m.key) {
			m.write = str("null")
		}
		members = append(members, m)
	}
	// Now and then a rule broken: a member of the wrong type, a name
	// that is null, empty or not a string, a number out of range.
	if g.rng.IntN(25) == 0 {
		k := g.rng.IntN(len(members))
		members[k].write = str([]string{`7`, `[]`, `""`, `{}`, `true`, `1e400`, `null`}[g.rng.IntN(7)])
	}
	g.rng.Shuffle(len(members), func(a, b int) { members[a], members[b] = members[b], members[a] })
	g.b.WriteByte('{')
	seen := map[string]bool{}
	for k, m := range members {
		if k > 0 {
			g.b.WriteByte(',')
		}
		g.space()
		g.b.WriteString(m.key)
		g.space()
		g.b.WriteByte(':')
		g.space()
		m.write()
		g.space()
		var key string
		_ = json.Unmarshal([]byte(m.key), &key)
		if seen[key] {
			g.bad = true
		}
		seen[key] = true
	}
	g.b.WriteByte('}')
}

// brokenTool reports whether a decoded entry breaks a rule of the
// format: a name that is not a non-empty string, a description or title
// not a string, an inputSchema, annotations or outputSchema not an
// object; an optional member that is null is absent.
func brokenTool(m map[string]any) bool {
	if name, ok := m["name"].(string); !ok || name == "" {
		return true
	}
	if s, ok := m["inputSchema"]; ok {
		if _, isObj := s.(map[string]any); !isObj {
			return true
		}
	}
	for k, v := range m {
		if v == nil {
			continue
		}
		switch k {
		case "description", "title":
			if _, ok := v.(string); !ok {
				return true
			}
		case "annotations", "outputSchema":
			if _, ok := v.(map[string]any); !ok {
				return true
			}
		}
	}
	return false
}

// TestCatalogToolsAgreeGenerated draws recorded catalogs (toolGen) and
// holds each tool read to encoding/json's decode of the same bytes: its
// name and description, its text (what encoding/json writes of the entry
// with its optional null members left out), Raw, every member (Member,
// InputSchema, HasInputSchema) and members it lacks; a catalog that
// breaks a rule of the format is refused. Tools are kept as text where the
// bytes allow (canonical) and decoded where they do not (a key repeated,
// a nesting too deep): both ways are drawn.
func TestCatalogToolsAgreeGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 30))
	draws := 600
	if testing.Short() {
		draws = 200
	}
	refused, checked, nulls := 0, 0, 0
	for i := range draws {
		g := &toolGen{rng: rng}
		g.b.WriteString(`{"mcptest_cassette":1,"catalog":{`)
		servers := 1 + rng.IntN(2)
		for s := range servers {
			if s > 0 {
				g.b.WriteByte(',')
			}
			fmt.Fprintf(&g.b, `"s%d":{"tools":[`, s)
			g.space()
			for n := range rng.IntN(6) {
				if n > 0 {
					g.b.WriteByte(',')
				}
				g.space()
				g.tool(n)
				g.space()
			}
			g.b.WriteString(`]}`)
		}
		g.b.WriteString(`},"runs":[]}`)
		text := g.b.String()
		var doc struct {
			Catalog map[string]struct{ Tools []map[string]any }
		}
		broken := g.bad || json.Unmarshal([]byte(text), &doc) != nil
		for _, sc := range doc.Catalog {
			for _, m := range sc.Tools {
				broken = broken || brokenTool(m)
			}
		}
		c, err := Read(fmt.Sprintf("draw%d.json", i), []byte(text))
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
		if len(c.Catalog) != len(doc.Catalog) {
			t.Fatalf("draw %d: %d servers, want %d", i, len(c.Catalog), len(doc.Catalog))
		}
		for _, sc := range c.Catalog {
			want := doc.Catalog[sc.Server].Tools
			if len(sc.Tools) != len(want) {
				t.Fatalf("draw %d: server %q has %d tools, want %d", i, sc.Server, len(sc.Tools), len(want))
			}
			for k, tool := range sc.Tools {
				nulls += checkToolText(t, fmt.Sprintf("draw %d %s.%d", i, sc.Server, k), tool, want[k])
				checked++
			}
		}
	}
	t.Logf("%d catalogs, %d refused, %d tools checked, %d null members left out", draws, refused, checked, nulls)
	if refused < draws/10 || checked < draws || nulls < draws/10 {
		t.Fatalf("the draws refused %d catalogs, checked %d tools with %d null members: the generator lost its reach", refused, checked, nulls)
	}
}

// checkToolText holds tool to m, its entry as encoding/json decodes it,
// and returns the number of null members left out of it.
func checkToolText(t *testing.T, where string, tool Tool, m map[string]any) int {
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
	if tool.Text != JSONOf(want) {
		t.Fatalf("%s: text\n%s\nwant\n%s", where, tool.Text, JSONOf(want))
	}
	if got := tool.Raw(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Raw\n%v\nwant\n%v", where, got, want)
	}
	keys := []string{"name", "description", "title", "inputSchema", "annotations", "outputSchema", "x-deep",
		"missing", "nam", "names", "", "a\"b", "line\nkey", "é", "title\x00", "x-vendor", "Name"}
	for k := range m {
		keys = append(keys, k)
	}
	for _, k := range keys {
		got := tool.Member(k)
		if got == "" {
			if want[k] != nil {
				t.Fatalf("%s: member %q not found, want %v", where, k, want[k])
			}
			continue
		}
		if got != JSONOf(want[k]) {
			t.Fatalf("%s: member %q = %s, want %s", where, k, got, JSONOf(want[k]))
		}
	}
	if got := tool.InputSchema(); !reflect.DeepEqual(got, m["inputSchema"]) || tool.HasInputSchema() != (m["inputSchema"] != nil) {
		t.Fatalf("%s: inputSchema %v (has %v), want %v", where, got, tool.HasInputSchema(), m["inputSchema"])
	}
	return len(m) - len(want)
}

// drawnEntry draws a tools/list entry as encoding/json decodes it: the
// members the format reads, each of the right type, the wrong type or
// null now and then, and vendor members.
func drawnEntry(rng *rand.Rand) map[string]any {
	values := []any{nil, "", "s", `"q" \ é`, "a\nb", 7.0, -0.5, true, false,
		map[string]any{}, map[string]any{"type": "object", "name": nil}, []any{}, []any{1.0, "x", nil}}
	m := map[string]any{}
	for _, k := range []string{"name", "description", "title", "inputSchema", "annotations", "outputSchema",
		"x-vendor", "a\"b", "nam", "names", "é", "", "Name"} {
		switch n := rng.IntN(10); {
		case n < 4:
		case n < 7 && (k == "name" || k == "description" || k == "title"):
			m[k] = []string{"tool", "t é", `"q"`, "line\nnext", "\u2028", "<&>", `\`, `\\`}[rng.IntN(8)]
		case n < 7 && (k == "inputSchema" || k == "annotations" || k == "outputSchema"):
			m[k] = map[string]any{"type": "object", "k": []any{nil, 1.0}}
		default:
			m[k] = values[rng.IntN(len(values))]
		}
	}
	return m
}

// TestCleanToolGenerated holds cleanTool, over the canonical text of
// drawn entries (what encoding/json writes of them, null members kept or
// left out by dropNullMembers), to the rules walker.tool checks: clean
// exactly when the entry breaks none, with the spans of its name and
// description decoding to them. A text found not clean is decoded and
// checked as a value, to the same tool, so only this test sees a rule
// that refuses too much.
func TestCleanToolGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 31))
	clean, dirty := 0, 0
	for i := range 5000 {
		m := drawnEntry(rng)
		text := []byte(JSONOf(m))
		want := map[string]any{}
		for k, v := range m {
			if v != nil || k == "name" || k == "inputSchema" {
				want[k] = v
			}
		}
		dropped := dropNullMembers(append([]byte(nil), text...))
		if string(dropped) != string(JSONOf(want)) {
			t.Fatalf("draw %d: dropNullMembers(%s) = %s, want %s", i, text, dropped, JSONOf(want))
		}
		name, desc, ok := cleanTool(dropped)
		if ok != !brokenTool(m) {
			t.Fatalf("draw %d: cleanTool(%s) clean %v, want %v", i, dropped, ok, !brokenTool(m))
		}
		if !ok {
			dirty++
			continue
		}
		clean++
		wantDesc, _ := want["description"].(string)
		if got := textString(JSON(dropped), name); got != want["name"] {
			t.Fatalf("draw %d: name of %s read %q, want %q", i, dropped, got, want["name"])
		}
		if got := textString(JSON(dropped), desc); got != wantDesc {
			t.Fatalf("draw %d: description of %s read %q, want %q", i, dropped, got, wantDesc)
		}
	}
	if clean < 500 || dirty < 500 {
		t.Fatalf("%d clean and %d not: the draws lost their reach", clean, dirty)
	}
}

// TestDropNullMembersRules: the null members of an object's compact text
// are left out, but the name's and the inputSchema's, wherever they lie
// (first, last, side by side, all of them), and values that hold a null
// or begin like one are kept.
func TestDropNullMembersRules(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, `{}`},
		{`{"a":null}`, `{}`},
		{`{"a":null,"b":null,"c":null}`, `{}`},
		{`{"a":null,"b":1}`, `{"b":1}`},
		{`{"a":1,"b":null}`, `{"a":1}`},
		{`{"a":1,"b":null,"c":2}`, `{"a":1,"c":2}`},
		{`{"a":null,"b":1,"c":null,"d":[null],"e":null}`, `{"b":1,"d":[null]}`},
		{`{"inputSchema":null,"name":null,"title":null}`, `{"inputSchema":null,"name":null}`},
		{`{"a":null,"name":null}`, `{"name":null}`},
		{`{"x":{"n":null},"y":"null","z":null}`, `{"x":{"n":null},"y":"null"}`},
		{`{"na\"me":null,"name ":null}`, `{}`},
		{`{"n":"nu","o":null}`, `{"n":"nu"}`},
	} {
		if got := dropNullMembers([]byte(c.in)); string(got) != c.want {
			t.Errorf("dropNullMembers(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestCountItemsGenerated holds countItems, over drawn arrays (spaced any
// way, of any values, nested, empty) at drawn offsets of a document, to
// the number of items encoding/json decodes and the bytes from the '['
// to the ']'.
func TestCountItemsGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 32))
	for i := range 3000 {
		g := &toolGen{rng: rng}
		g.b.WriteString(strings.Repeat(" ", rng.IntN(3)) + `{"k":`)
		from := g.b.Len()
		g.b.WriteByte('[')
		g.space()
		n := rng.IntN(6)
		for k := range n {
			if k > 0 {
				g.space()
				g.b.WriteByte(',')
			}
			g.space()
			g.value(2)
		}
		g.space()
		g.b.WriteByte(']')
		to := g.b.Len()
		g.space()
		g.b.WriteString(`}`)
		data := []byte(g.b.String())
		var items []json.RawMessage
		if err := json.Unmarshal(data[from:to], &items); err != nil {
			continue // a drawn number out of range: not a valid document
		}
		gotN, gotSize := countItems(data, from)
		if gotN != len(items) || gotSize != to-from {
			t.Fatalf("draw %d: countItems(%s) = %d items of %d bytes, want %d of %d", i, data, gotN, gotSize, len(items), to-from)
		}
	}
}

// TestKeepTextRules: a text is copied into the current block while it
// fits; a new block is of toolBlock bytes, or of what the tools left to
// read need when that is less, and at least twice the text; a text over
// a quarter of a block is kept alone, the block left as it was.
func TestKeepTextRules(t *testing.T) {
	type step struct {
		size, left int
		// capAfter is the block's capacity after the step; alone says
		// the text is kept out of it.
		capAfter int
		alone    bool
	}
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"first text, much left", []step{{10, 1 << 20, toolBlock, false}, {20, 1 << 20, toolBlock, false}}},
		{"first text, little left", []step{{10, 100, 100, false}, {90, 0, 100, false}, {1, 0, 2, false}}},
		{"left under twice the text", []step{{100, 150, 200, false}}},
		{"exactly fits then not", []step{{50, 0, 100, false}, {50, 0, 100, false}, {1, 0, 2, false}}},
		{"a quarter block", []step{{toolBlock / 4, 1 << 20, toolBlock, false}}},
		{"over a quarter block", []step{{10, 1 << 20, toolBlock, false}, {toolBlock/4 + 1, 1 << 20, toolBlock, true}, {10, 0, toolBlock, false}}},
		{"over a quarter, no block", []step{{toolBlock/4 + 1, 1 << 20, 0, true}}},
		{"twice over the block", []step{{toolBlock / 4, 0, toolBlock / 2, false}}},
		{"one byte", []step{{1, 1, 2, false}}},
	} {
		var d decoder
		var kept []JSON
		var texts []string
		for k, s := range c.steps {
			text := strings.Repeat(string(rune('a'+k)), s.size)
			d.toolLeft = s.left
			before := len(d.toolBlock)
			got := d.keepText([]byte(text))
			kept, texts = append(kept, got), append(texts, text)
			if cap(d.toolBlock) != s.capAfter {
				t.Errorf("%s: step %d: block of %d bytes, want %d", c.name, k, cap(d.toolBlock), s.capAfter)
			}
			if s.alone && len(d.toolBlock) != before {
				t.Errorf("%s: step %d: a text of %d bytes went into the block", c.name, k, s.size)
			}
			if !s.alone && (len(d.toolBlock) < s.size || string(d.toolBlock[len(d.toolBlock)-s.size:]) != text) {
				t.Errorf("%s: step %d: the block does not end with the text", c.name, k)
			}
		}
		for k := range kept {
			if string(kept[k]) != texts[k] {
				t.Errorf("%s: text %d kept as %.20q, want %.20q", c.name, k, kept[k], texts[k])
			}
		}
	}
}

// TestMemberRules: Member finds a member of a tool's text by its decoded
// key, first to last, not a key it merely begins or ends like; a null
// member and a missing one are ""; a tool without a text or whose text is
// not an object has no member.
func TestMemberRules(t *testing.T) {
	tool := Tool{Text: `{"":1,"a\"b":[2],"inputSchema":{"type":"object"},"n":null,"na":"x","name":"t","z":{"y":null}}`}
	for _, c := range []struct {
		key  string
		want JSON
	}{
		{"", "1"}, {`a"b`, "[2]"}, {"inputSchema", `{"type":"object"}`}, {"n", ""}, {"na", `"x"`},
		{"name", `"t"`}, {"z", `{"y":null}`}, {"y", ""}, {"nam", ""}, {"names", ""}, {"a", ""}, {"zz", ""},
	} {
		if got := tool.Member(c.key); got != c.want {
			t.Errorf("Member(%q) = %s, want %s", c.key, got, c.want)
		}
	}
	for _, text := range []JSON{"", "{}", `[{"name":"t"}]`, `"name"`, "null"} {
		if got := (Tool{Text: text}).Member("name"); got != "" {
			t.Errorf("Tool{Text: %s}.Member(name) = %s, want none", text, got)
		}
	}
	if (Tool{Text: `{"inputSchema":null}`}).HasInputSchema() || !(Tool{Text: `{"inputSchema":{}}`}).HasInputSchema() {
		t.Error("HasInputSchema: want false for a null inputSchema, true for {}")
	}
}

// TestToolOfRules: ToolOf and SchemaTool keep the entry as encoding/json
// writes it, with its name and description where they are strings, and
// SchemaTool adds no inputSchema for none.
func TestToolOfRules(t *testing.T) {
	for _, c := range []struct {
		raw        map[string]any
		name, desc string
		text       JSON
	}{
		{map[string]any{"name": "t", "description": "d <&>"}, "t", "d <&>", `{"description":"d <&>","name":"t"}`},
		{map[string]any{"name": 7.0, "description": []any{"d"}}, "", "", `{"description":["d"],"name":7}`},
		{map[string]any{"x": nil}, "", "", `{"x":null}`},
		{nil, "", "", `null`},
	} {
		got := ToolOf(c.raw)
		if got.Name != c.name || got.Description != c.desc || got.Text != c.text {
			t.Errorf("ToolOf(%v) = %+v, want %q %q %s", c.raw, got, c.name, c.desc, c.text)
		}
	}
	if got := SchemaTool("s", nil); got.Text != `{"name":"s"}` || got.Name != "s" || got.HasInputSchema() || got.InputSchema() != nil {
		t.Errorf("SchemaTool(s, nil) = %+v, want no inputSchema", got)
	}
	schema := map[string]any{"type": "object", "required": []any{"q"}}
	if got := SchemaTool("s", schema); got.Text != `{"inputSchema":{"required":["q"],"type":"object"},"name":"s"}` ||
		!reflect.DeepEqual(got.InputSchema(), schema) || !reflect.DeepEqual(got.Raw(), map[string]any{"name": "s", "inputSchema": schema}) {
		t.Errorf("SchemaTool(s, schema) = %+v", got)
	}
	if (Tool{}).Raw() != nil || (Tool{Text: "[1]"}).Raw() != nil {
		t.Error("Raw of a tool without an object text: want nil")
	}
}
