package cassette

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// drawDeepPath writes a cassette-like document whose value at the end of
// a pointer depth levels deep is the leaf {"leaf": true}: each level an
// object (the path's key plain, escaped, holding "/" or "~", with sibling
// members before and after it, their values strings with escapes and
// brackets, nests, repeated keys after the first) or an array (elements
// before it). It returns the document, the pointer, and the leaf's
// offset.
func drawDeepPath(r *rand.Rand, depth int) (doc, ptr string, leaf int) {
	keys := []struct{ raw, token string }{
		{`p`, `p`}, {`a\/b`, `a~1b`}, {`t~x`, `t~0x`}, {`\u00e9`, `é`}, {`q\"q`, `q"q`}, {`x/y`, `x~1y`},
	}
	siblings := []string{`"s": "a\"]}[{\\"`, `"n": [1, {"m": "}"}]`, `"e": {}`, `"z": "\u005d"`}
	var b, p strings.Builder
	var closers []string
	b.WriteString(`{"runs": `)
	p.WriteString("/runs")
	for range depth {
		if r.IntN(3) == 0 {
			b.WriteString("[")
			n := r.IntN(3)
			for range n {
				b.WriteString(`"]\"[", `)
			}
			fmt.Fprintf(&p, "/%d", n)
			closers = append(closers, "]")
			continue
		}
		k := keys[r.IntN(len(keys))]
		b.WriteString("{")
		for range r.IntN(3) {
			b.WriteString(siblings[r.IntN(len(siblings))] + ", ")
		}
		b.WriteString(`"` + k.raw + `": `)
		p.WriteString("/" + k.token)
		closer := "}"
		if r.IntN(2) == 0 {
			// A repeated key after the path's: the first is followed.
			closer = `, "` + k.raw + `": 0}`
		}
		closers = append(closers, closer)
	}
	leaf = b.Len()
	b.WriteString(`{"leaf": true}`)
	for i := len(closers) - 1; i >= 0; i-- {
		b.WriteString(closers[i])
	}
	b.WriteString("}")
	return b.String(), p.String(), leaf
}

// TestLocateDeepGenerated is a generator test over pointers drawn on
// both sides of a shallow path and 8,000 levels deep (objects with
// siblings, escaped keys and repeated ones, arrays): Locate places the
// pointer's value, and the nearest value holding a member that is not
// there, and allocates in proportion to the document and the pointer. A
// map of each ancestor's pointer, and a pointer string built for every
// member on the way, cost the cube of the depth: 8,000 levels took 26 s.
func TestLocateDeepGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	for n := range 60 {
		depth := []int{r.IntN(8), 500 + r.IntN(8000)}[n%2]
		doc, ptr, leaf := drawDeepPath(r, depth)
		data := []byte(doc)
		line, col := diag.LineCol(data, int64(leaf))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		pos, ok := Locate("c.json", data, ptr)
		missing, okMissing := Locate("c.json", data, ptr+"/absent")
		runtime.ReadMemStats(&after)
		if !ok || pos.Line != line || pos.Col != col {
			t.Fatalf("depth %d: Locate(%.200q) = %v %v, want %d:%d", depth, ptr, pos, ok, line, col)
		}
		if !okMissing || missing != pos {
			t.Fatalf("depth %d: a member missing under the leaf: %v %v, want the leaf %v", depth, missing, okMissing, pos)
		}
		if alloc, max := after.TotalAlloc-before.TotalAlloc, uint64(8*(len(doc)+len(ptr))+64<<10); alloc > max {
			t.Fatalf("depth %d (%d bytes, a pointer of %d): Locate allocated %d bytes, want at most %d", depth, len(doc), len(ptr), alloc, max)
		}
		if depth < 8 {
			// The whole-document reader agrees where the keys are not
			// repeated on the way.
			want := map[string]*jsonpos.Target{ptr: jsonpos.NewTarget()}
			jsonpos.Locate(data, want)
			if !strings.Contains(doc, `: 0}`) && want[ptr].Val != leaf {
				t.Fatalf("depth %d: jsonpos.Locate %d, want %d", depth, want[ptr].Val, leaf)
			}
		}
	}
}
