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
				if sameFast(t, l.text(data, 0, i), l.indent) {
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
				text := l.text(data, 0, i)
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
//	go test -run '^$' -bench ReadList ./internal/yamlpos
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

// writtenSuite is a suite of n tests written as the repository's suites
// write theirs: the items of every root list of the suites of
// corpusFiles that read without error, in turn,
// with their comments, block scalars and flow collections, indented by
// two, until there are n.
func writtenSuite(tb testing.TB, n int) []byte {
	tb.Helper()
	var items [][]byte
	for _, file := range corpusFiles() {
		if strings.Contains(file, "catalogs") || strings.Contains(file, "toolbench") {
			continue // not suites
		}
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		if d := Read(file, data, releaseOpts); len(d.Errs) > 0 {
			continue // the corpus of errors
		}
		for _, l := range cutLists(data) {
			for i := range l.items {
				var b bytes.Buffer
				for _, line := range strings.SplitAfter(string(l.text(data, 0, i)), "\n") {
					b.WriteString("  " + line[min(l.indent, len(line)-len(strings.TrimLeft(line, " "))):])
				}
				if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
					b.WriteByte('\n')
				}
				items = append(items, b.Bytes())
			}
		}
	}
	if len(items) == 0 {
		tb.Fatal("no items in the corpus")
	}
	out := []byte("tests:\n")
	for i := range n {
		out = append(out, items[i%len(items)]...)
	}
	return out
}

// TestWrittenSuiteReads: the suite BenchmarkFastItem reads parses without
// error, the same with fastItem and without.
func TestWrittenSuiteReads(t *testing.T) {
	data := writtenSuite(t, 2000)
	if len(data) < splitMin {
		t.Fatalf("%d bytes: under the %d that are read item by item", len(data), splitMin)
	}
	d := Read("s.yml", data, releaseOpts)
	if len(d.Errs) > 0 {
		t.Fatalf("read: %v", errList(d))
	}
	withFast = false
	defer func() { withFast = true }()
	d2 := Read("s.yml", data, releaseOpts)
	if !reflect.DeepEqual(d.Root, d2.Root) || len(d2.Errs) > 0 {
		t.Fatal("the suite reads differently without fastItem")
	}
}

// BenchmarkFastItem reads 2,000-test suites with fastItem and without
// (every item then goes to yaml.v3), in turn within each iteration, the
// order alternating: "written", the items of the repository's own suites
// repeated (writtenSuite), and "generated", 2,000 tests of the plain
// shapes a generator writes, as BenchmarkReadList's. ns/op is the read
// with fastItem; x-without is the read without it over that; items-fast
// is the share of the suite's items fastItem reads. No suite of the
// repository reaches the 64 KiB from which items are read on their own,
// so on any of them fastItem never runs.
//
//	go test ./internal/yamlpos -run '^$' -bench BenchmarkFastItem -benchtime 20x -count 5
func BenchmarkFastItem(b *testing.B) {
	var generated strings.Builder
	generated.WriteString("tests:\n")
	for i := range 2000 {
		fmt.Fprintf(&generated, "  - name: test %d\n    cassette: c/%d.json\n    expect:\n      - calls: { \">=\": %d }\n", i, i, i%7)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"written", writtenSuite(b, 2000)}, {"generated", []byte(generated.String())}} {
		b.Run(in.name, func(b *testing.B) {
			fastShare := 0
			lists := cutLists(in.data)
			for i := range lists[0].items {
				if fastItem(lists[0].text(in.data, 0, i), lists[0].indent) != nil {
					fastShare++
				}
			}
			read := func(fast bool) time.Duration {
				withFast = fast
				defer func() { withFast = true }()
				start := time.Now()
				if d := Read("s.yml", in.data, releaseOpts); len(d.Errs) > 0 {
					b.Fatalf("read: %v", d.Errs)
				}
				return time.Since(start)
			}
			var with, without time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%2 == 0 {
					with += read(true)
					without += read(false)
				} else {
					without += read(false)
					with += read(true)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(with.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(without)/float64(with), "x-without")
			b.ReportMetric(float64(fastShare)/float64(len(lists[0].items)), "items-fast")
		})
	}
}
