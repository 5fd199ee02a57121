package yamlpos

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// placedDoc is a drawn block-style YAML document with the place of each
// of its values and keys, 1-based, by pointer.
type placedDoc struct {
	r     *rand.Rand
	b     strings.Builder
	line  int
	value map[string]diag.Pos
	key   map[string]diag.Pos
	// bad is the pointer of the value written as .inf (not a finite
	// number), "" for none.
	bad    string
	badSet bool
}

// scalar writes a scalar value at col of the current line and ends the
// line; now and then the one bad value of the document.
func (g *placedDoc) scalar(ptr string, col int) {
	g.value[ptr] = diag.Pos{File: "p.yml", Line: g.line, Col: col}
	v := []string{"1", "x", "'q'", "true", "2.5"}[g.r.IntN(5)]
	if !g.badSet && g.r.IntN(12) == 0 {
		v, g.bad, g.badSet = ".inf", ptr, true
	}
	g.b.WriteString(v + "\n")
	g.line++
}

// mapping writes a block mapping of drawn keys (some holding '/' or '~')
// at indent, its first key at col first on the current line.
func (g *placedDoc) mapping(ptr string, indent, first, depth int) {
	names := []string{"a", "b/c", "t~d", "e", "g", "f"}
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for i, name := range names[:1+g.r.IntN(3)] {
		col := first
		if i > 0 {
			col = indent + 1
			g.b.WriteString(strings.Repeat(" ", indent))
		}
		p := ptr + "/" + EscapePointer(name)
		if i == 0 {
			g.value[ptr] = diag.Pos{File: "p.yml", Line: g.line, Col: col}
		}
		g.key[p] = diag.Pos{File: "p.yml", Line: g.line, Col: col}
		g.b.WriteString(name + ":")
		g.node(p, indent+2, col+len(name)+2, depth+1)
	}
}

// sequence writes a block sequence of one to three items at indent, its
// first dash at col first on the current line.
func (g *placedDoc) sequence(ptr string, indent, first, depth int) {
	for i := range 1 + g.r.IntN(3) {
		col := first
		if i > 0 {
			col = indent + 1
			g.b.WriteString(strings.Repeat(" ", indent))
		}
		if i == 0 {
			g.value[ptr] = diag.Pos{File: "p.yml", Line: g.line, Col: col}
		}
		g.b.WriteString("- ")
		p := fmt.Sprintf("%s/%d", ptr, i)
		if depth < 4 && g.r.IntN(3) == 0 {
			g.mapping(p, col+1, col+2, depth+1)
			continue
		}
		g.scalar(p, col+2)
	}
}

// node writes the value of a key that ends at col-2 (its colon at col-2):
// a scalar after a space, or a mapping or sequence on the next lines.
func (g *placedDoc) node(ptr string, indent, col, depth int) {
	switch k := g.r.IntN(4); {
	case depth < 4 && k == 0:
		g.b.WriteString("\n" + strings.Repeat(" ", indent))
		g.line++
		g.mapping(ptr, indent, indent+1, depth)
	case depth < 4 && k == 1:
		g.b.WriteString("\n" + strings.Repeat(" ", indent))
		g.line++
		g.sequence(ptr, indent, indent+1, depth)
	default:
		g.b.WriteString(" ")
		g.scalar(ptr, col)
	}
}

// TestPositionsOfDrawnDocs draws block-style YAML documents (nested
// mappings and sequences, keys holding '/' and '~', after a drawn
// number of comment lines, now and then one value that is not a finite
// number) with the place of every value and key, and holds the document
// read to them: At gives each value's place, KeyAt each key's (a
// sequence item's and the root's own place where there is no key), a
// pointer to nothing (an item one past the last, a negative index, an
// index with a leading zero, a name) falls back to the deepest value on
// its way (At and KeyAt alike), and the bad value's error names its place
// and pointer.
func TestPositionsOfDrawnDocs(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 49))
	items0, errs := 0, 0
	for round := range 600 {
		g := &placedDoc{r: r, line: 1, value: map[string]diag.Pos{}, key: map[string]diag.Pos{}}
		for range r.IntN(3) {
			g.b.WriteString("# note\n")
			g.line++
		}
		if r.IntN(3) == 0 {
			g.sequence("", 0, 1, 0)
		} else {
			g.mapping("", 0, 1, 0)
		}
		text := g.b.String()
		d := Read("p.yml", []byte(text), opts)
		switch {
		case g.bad == "" && len(d.Errs) > 0:
			t.Fatalf("round %d: %v\n%s", round, d.Errs, text)
		case g.bad != "":
			if len(d.Errs) != 1 || d.Errs[0].Pointer != g.bad || d.Errs[0].Pos != g.value[g.bad] {
				t.Fatalf("round %d: errors %v, want one at %s %v\n%s", round, d.Errs, g.bad, g.value[g.bad], text)
			}
			errs++
		}
		for ptr, want := range g.value {
			if got := d.At(ptr); got != want {
				t.Fatalf("round %d: At(%q) = %v, want %v\n%s", round, ptr, got, want, text)
			}
			wantKey, ok := g.key[ptr]
			if !ok {
				wantKey = want
			}
			if got := d.KeyAt(ptr); got != wantKey || d.IsKey(ptr) != ok {
				t.Fatalf("round %d: KeyAt(%q) = %v (a key: %v), want %v\n%s", round, ptr, got, d.IsKey(ptr), wantKey, text)
			}
			if strings.HasSuffix(ptr, "/0") {
				items0++
			}
			missing := []string{ptr + "/nope", ptr + "/-1", ptr + "/01", ptr + "/9/0"}
			for k := range 4 {
				if _, ok := g.value[fmt.Sprintf("%s/%d", ptr, k)]; !ok {
					missing = append(missing, fmt.Sprintf("%s/%d", ptr, k))
				}
			}
			for _, missing := range missing {
				if got := d.At(missing); got != want || d.KeyAt(missing) != want {
					t.Fatalf("round %d: At(%q) = %v, KeyAt %v: want the place of %q, %v\n%s", round, missing, got, d.KeyAt(missing), ptr, want, text)
				}
			}
		}
	}
	t.Logf("%d items 0 placed, %d bad values", items0, errs)
	if items0 < 300 || errs < 60 {
		t.Fatalf("the draw is lopsided: %d items 0, %d bad values", items0, errs)
	}
}
