package yamlpos

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// FuzzRead feeds any bytes to the reader: it never panics, answers
// quickly whatever the aliases, places every error at a line and column
// of the file, records a position for every value it decoded, and Count
// agrees with it on a document without errors.
func FuzzRead(f *testing.F) {
	for _, pattern := range []string{"../../engine/testdata/*/*.yml", "../../live/testdata/catalogs/*/*", "../../cmd/mcptest/testdata/toolbench/*/*.yml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(billionLaughs(9)))
	f.Add([]byte("a: &a [b, *a]\n"))
	f.Add([]byte("a: 1\n---\nb: 2\n"))
	f.Add([]byte("{<<: {x: 1}, [k]: v, a: .nan, a: 0x1F}\n"))
	f.Add([]byte("\xef\xbb\xbf- \"\\ud83d\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		d := Read("f.yml", data, opts)
		if el := time.Since(start); el > 5*time.Second { // a nesting too deep is placed by bisection: about 0.6 s for 20 KB, more under the fuzzer
			t.Fatalf("Read took %v on %d bytes", el, len(data))
		}
		for _, e := range d.Errs {
			if e.Pos.File != "f.yml" || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Message == "" {
				t.Fatalf("badly placed error %+v", e)
			}
		}
		if d.Node == nil && d.Root != nil {
			t.Fatal("a value without a document")
		}
		if d.Len() > len(data)+MaxAliasValues+MaxDepth {
			t.Fatalf("%d values from %d bytes", d.Len(), len(data))
		}
		for _, ptr := range pointers(d) {
			if p := d.At(ptr); p.Line < 1 {
				t.Fatalf("value %q without a line", ptr)
			}
			d.Value(ptr)
		}
		if d.Node != nil && len(d.Errs) == 0 && Count(d.Node) != d.Len() {
			t.Fatalf("Count %d, Read decoded %d", Count(d.Node), d.Len())
		}
		d.UnknownKeys("", "root", []string{"a"}, "syntax")
		sameRead(t, data)
	})
}

// pointers lists the pointer of every value d recorded a position for.
func pointers(d *Doc) []string {
	var out []string
	var walk func(n *node, ptr string)
	walk = func(n *node, ptr string) {
		if n.flags&hasValue != 0 {
			out = append(out, ptr)
		}
		for i := range n.kids {
			seg := strconv.Itoa(i)
			if n.flags&isSeq == 0 {
				seg = EscapePointer(n.kids[i].name)
			}
			walk(&n.kids[i], ptr+"/"+seg)
		}
	}
	walk(&d.root, "")
	return out
}
