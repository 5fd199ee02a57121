package jsonpos

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestLineCols holds the one-pass conversion, and Lines, to diag.LineCol.
func TestLineCols(t *testing.T) {
	data := []byte("ab\ncé☕\n\n\xffx\ny")
	var offs []int
	for i := 0; i <= len(data)+1; i++ {
		offs = append(offs, i)
	}
	got := LineCols(data, offs)
	lines := Lines{Data: data}
	for _, o := range offs {
		l, c := diag.LineCol(data, int64(o))
		if got[o] != [2]int{l, c} {
			t.Errorf("offset %d: %v, diag.LineCol says %d:%d", o, got[o], l, c)
		}
		if o < len(data) && (data[o] < 0x80 || data[o] >= 0xc0) { // Lines is asked at the start of a character
			if ll, lc := lines.At(o); ll != l || lc != c {
				t.Errorf("offset %d: Lines says %d:%d, diag.LineCol %d:%d", o, ll, lc, l, c)
			}
		}
	}
}

// TestLocate: the values and keys pointers address, escaped keys and
// array elements among them, and -1 for what is absent.
func TestLocate(t *testing.T) {
	data := []byte(`{"a": {"b/c": [10, {"d~e": true}]}, "x": "\u0079", "y": 1}`)
	want := map[string]*Target{}
	for _, p := range []string{"", "/a", "/a/b~1c", "/a/b~1c/1", "/a/b~1c/1/d~0e", "/y", "/a/missing", "/a/b~1c/5"} {
		want[p] = NewTarget()
	}
	Locate(data, want)
	for p, w := range map[string]Target{
		"": {-1, 0}, "/a": {1, 6}, "/a/b~1c": {7, 14}, "/a/b~1c/1": {-1, 19}, "/a/b~1c/1/d~0e": {20, 27},
		"/y": {51, 56}, "/a/missing": {-1, -1}, "/a/b~1c/5": {-1, -1},
	} {
		if *want[p] != w {
			t.Errorf("%q: %+v, want %+v", p, *want[p], w)
		}
	}
}

// TestLocatePathAgrees: on generated documents without repeated keys,
// LocatePath, which follows one pointer down, finds what Locate, which
// reads the whole document, finds, for every pointer of the document and
// its ancestors.
func TestLocatePathAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	var gen func(depth int, b *strings.Builder, ptr string, ptrs *[]string)
	gen = func(depth int, b *strings.Builder, ptr string, ptrs *[]string) {
		*ptrs = append(*ptrs, ptr)
		switch k := rng.IntN(4); {
		case depth > 3 || k == 0:
			fmt.Fprintf(b, "%d", rng.IntN(100))
		case k == 1:
			b.WriteString(`"s"`)
		case k == 2:
			b.WriteString("[ ")
			for i := range rng.IntN(5) {
				if i > 0 {
					b.WriteString(",\n")
				}
				gen(depth+1, b, ptr+"/"+strconv.Itoa(i), ptrs)
			}
			b.WriteString("]")
		default:
			b.WriteString("{")
			for i := range rng.IntN(5) {
				if i > 0 {
					b.WriteString(", ")
				}
				key := fmt.Sprintf("k%d/~%d", i, rng.IntN(3))
				fmt.Fprintf(b, "%q: ", key)
				gen(depth+1, b, ptr+"/"+EscapePointer(key), ptrs)
			}
			b.WriteString("}")
		}
	}
	for range 300 {
		var b strings.Builder
		var ptrs []string
		gen(0, &b, "", &ptrs)
		data := []byte(b.String())
		ptrs = append(ptrs, "/nowhere", "/0/99")
		for _, p := range ptrs {
			all := map[string]*Target{}
			var chain []string // p and its ancestors, the root last
			for q := p; ; q = ParentPointer(q) {
				all[q] = NewTarget()
				chain = append(chain, q)
				if q == "" {
					break
				}
			}
			Locate(data, all)
			path := LocatePath(data, p)
			if len(path) != len(chain) {
				t.Fatalf("pointer %q: %d targets, want %d", p, len(path), len(chain))
			}
			for k, q := range chain {
				if got := path[len(path)-1-k]; got != *all[q] {
					t.Fatalf("%s, pointer %q: LocatePath %+v, Locate %+v", data, q, got, *all[q])
				}
			}
		}
	}
}
