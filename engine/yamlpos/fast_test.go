package yamlpos

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// yamlItem parses text, one item of a list whose dashes are at column
// indent+1, as the chunks do when fastItem gives up: alone in a stream,
// followed by its marker unless last says it ends the text.
func yamlItem(text []byte, indent int, last bool) *yaml.Node {
	l := &list{indent: indent, items: []item{{start: 0, line: 1}}, end: len(text)}
	if !last {
		l.endLine = 2
	}
	return l.decode(yaml.NewDecoder(&itemStream{data: text, l: l, items: []int{0}}), 1, len(text))
}

// sameFast fails unless fastItem, when it reads text, builds exactly the
// nodes yaml.v3 builds, whether the item ends the text or not; it reports
// whether fastItem read it.
func sameFast(t testing.TB, text []byte, indent int) bool {
	t.Helper()
	n := fastItem(text, indent)
	if n == nil {
		return false
	}
	for _, last := range []bool{false, true} {
		y := yamlItem(text, indent, last)
		if !reflect.DeepEqual(n, y) {
			t.Fatalf("item %q (ends the text: %v):\nfast   %s\nyaml.v3 %s", text, last, dump(n), dump(y))
		}
	}
	return true
}

// dump renders a node tree with every field, for failures.
func dump(n *yaml.Node) string {
	if n == nil {
		return "nil"
	}
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		c := *n
		c.Content = nil
		fmt.Fprintf(&b, "\n%s%+v", strings.Repeat("  ", depth), c)
		for _, k := range n.Content {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// TestFastItem: the shapes fastItem reads give yaml.v3's nodes, and it
// gives up on the others.
func TestFastItem(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		read       bool
	}{
		{"generated test", "  - name: transcript 0\n    type: agent\n    cassette: transcripts/transcript-000000.json\n    equal_function_sets:\n      count: distinct\n      classes:\n        - { name: \"get_reservation_details\", members: [\"get_reservation_details\"] }\n        - { name: \"calculate\", members: [\"calculate\"] }\n      expect:\n        - tool_selection.f1: { \">=\": 80 }\n", true},
		{"nested lists", "- name: search\n  members:\n    - brave.web_search\n    - google.search\n  runs: 3\n", true},
		{"flow", "- { a: [1, 22, x y], 'b': {}, c: [] , d: [[a], {e: f}] }\n", true},
		{"plain scalar", "- Find the 2026 population (estimate), then pull the page.\n", true},
		{"blank lines", "  - a: b\n\n    c: d\n\n", true},
		{"no final line break", "- a: b\n  c: [d]", true},
		{"single-quoted", "- 'a \"b\" \\c'\n", true},
		{"int", "- n: 0\n  m: 123456789012345678\n", true},
		{"long int", "- 1234567890123456789\n", false},
		{"leading zero", "- 012\n", false},
		{"float", "- 1.5\n", false},
		{"bool", "- a: true\n", false},
		{"null key", "- null: x\n", false},
		{"comment", "- a: b # c\n", false},
		{"comment line", "- a: b\n  # c\n  d: e\n", false},
		{"escape", "- \"a\\nb\"\n", false},
		{"quote in single quotes", "- 'it''s'\n", false},
		{"anchor", "- a: &x b\n", false},
		{"alias", "- a: *x\n", false},
		{"tag", "- a: !!str b\n", false},
		{"block scalar", "- a: |\n    b\n", false},
		{"empty value", "- a:\n  b: c\n", false},
		{"multi-line plain", "- a: b\n    c\n", false},
		{"list at the key's indentation", "- a:\n  - b\n", false},
		{"flow across lines", "- [a,\n   b]\n", false},
		{"trailing comma", "- [a, ]\n", false},
		{"trailing space", "- a: b \n", false},
		{"tab", "- a:\tb\n", false},
		{"crlf", "- a: b\r\n", false},
		{"utf-8", "- a: é\n", false},
		{"complex key", "- ? a\n  : b\n", false},
		{"colon in a plain scalar", "- a: b:c\n", false},
		{"dash alone", "-\n", false},
		{"nested dash", "- - a\n", false},
		{"misaligned key", "- a: b\n   c: d\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			indent := len(tt.text) - len(strings.TrimLeft(tt.text, " "))
			if got := sameFast(t, []byte(tt.text), indent); got != tt.read {
				t.Errorf("read %v, want %v", got, tt.read)
			}
		})
	}
}

// TestFastCorpus: the items of the repository's suites that fastItem
// reads give yaml.v3's nodes, and most items of the generated suites are
// read.
func TestFastCorpus(t *testing.T) {
	read, all := 0, 0
	for _, file := range corpusFiles() {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range cutLists(data) {
			for i := range l.items {
				all++
				if sameFast(t, l.text(data, i), l.indent) {
					read++
				}
			}
		}
	}
	t.Logf("fastItem read %d of %d items", read, all)
	if read < all/4 {
		t.Errorf("fastItem read only %d of %d items", read, all)
	}
}

// FuzzFastItem holds fastItem to yaml.v3 for any item text.
func FuzzFastItem(f *testing.F) {
	for _, file := range corpusFiles() {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, l := range cutLists(data) {
			for i := range min(len(l.items), 5) {
				text := l.text(data, i)
				f.Add(bytes.TrimPrefix(bytes.TrimLeft(text, " "), []byte("- ")), uint8(l.indent))
			}
		}
	}
	f.Add([]byte("{ a: [1, x y], 'b': {}, c: \"d\" }\n"), uint8(2))
	f.Add([]byte("a: b\n  c:\n    - d\n    - e: f\n      g: 0\n"), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, indent uint8) {
		in := int(indent % 8)
		text := append([]byte(strings.Repeat(" ", in)+"- "), body...)
		start := time.Now()
		fastItem(text, in)
		if el := time.Since(start); el > 100*time.Millisecond {
			t.Fatalf("fastItem took %v on %d bytes", el, len(text))
		}
		sameFast(t, text, in)
	})
}

// BenchmarkReadList reads a suite of 10,000 tests (about 1 MB) whose
// items fastItem reads ("plain"), and the same with a comment on every
// item, which yaml.v3 parses ("commented"), item by item on every core.
//
//	go test -run '^$' -bench ReadList ./engine/yamlpos
func BenchmarkReadList(b *testing.B) {
	for _, shape := range []struct{ name, comment string }{{"plain", ""}, {"commented", " # why"}} {
		b.Run(shape.name, func(b *testing.B) {
			var text strings.Builder
			text.WriteString("tests:\n")
			for i := range 10_000 {
				fmt.Fprintf(&text, "  - name: test %d%s\n    cassette: c/%d.json\n    expect:\n      - calls: { \">=\": %d }\n", i, shape.comment, i, i%7)
			}
			data := []byte(text.String())
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if d := Read("s.yml", data, releaseOpts); len(d.Errs) > 0 || d.Root == nil {
					b.Fatalf("read: %v", d.Errs)
				}
			}
		})
	}
}
