package live

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// drawDeepDups writes a catalog of one tool whose input schema nests
// depth levels (objects under drawn keys, arrays) down to an object that
// repeats a key dups times, as JSON or as YAML (flow style under a block
// document, so it is not read as JSON). Keys are plain, escaped, non-ASCII
// or thousands of bytes long.
func drawDeepDups(r *rand.Rand, depth, dups int, yaml bool) string {
	// A repeated key is cut in its message too (YAML's implicit keys
	// stop at 1,024 characters).
	dup := []string{"a", strings.Repeat("k", 5000)}[r.IntN(2)]
	if yaml && dup != "a" {
		dup = dup[:1000]
	}
	keys := []string{`p`, `properties`, `we\"ird\\key`, `\u00e9t\u00e9`, `x-1`, strings.Repeat("long", 500)}
	if yaml {
		keys[len(keys)-1] = strings.Repeat("long", 200) // YAML's implicit keys stop at 1,024 characters
	}
	var b strings.Builder
	if yaml {
		b.WriteString("tools:\n- name: t\n  inputSchema:\n    x: ")
	} else {
		b.WriteString(`{"tools":[{"name":"t","inputSchema":{"x":`)
	}
	var closers []byte
	for range depth {
		if r.IntN(3) == 0 {
			b.WriteString("[1, ")
			closers = append(closers, ']')
			continue
		}
		b.WriteString(`{"` + keys[r.IntN(len(keys))] + `": `)
		closers = append(closers, '}')
	}
	b.WriteString("{")
	for i := range dups + 1 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + dup + `": 1`)
	}
	b.WriteString("}")
	for i := len(closers) - 1; i >= 0; i-- {
		b.WriteByte(closers[i])
	}
	if yaml {
		b.WriteString("\n")
	} else {
		b.WriteString("}}]}")
	}
	return b.String()
}

// TestCatalogDeepDuplicateBoundedGenerated is a generator test over
// catalogs (JSON and YAML) that repeat a key at the bottom of a nest
// drawn on both sides of diag.PathBytes (a few levels to 3,000, keys up
// to 2,000 bytes): every repetition is reported, and each message is
// bounded whatever the depth and the keys' length, so the errors of a
// file cost at most a constant per repetition. Before diag.Path each
// message named the whole path: 4,000 levels and 1,000 repetitions (a
// 46 KB file) wrote 8 MB of errors and took 25 s, building each path
// step by step anew.
func TestCatalogDeepDuplicateBoundedGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	// A message: the path (diag.PathBytes, plus at most a step each side
	// of the elision, a key of KeyRunes characters escaped) and the words
	// around it.
	const maxStep = 4 + 6*diag.KeyRunes + 3
	const maxMsg = diag.PathBytes + 2*maxStep + 200
	for n := range 60 {
		depth := []int{r.IntN(6), r.IntN(200), r.IntN(3000)}[n%3]
		dups := 1 + r.IntN(150)
		yaml := n%2 == 1
		doc := drawDeepDups(r, depth, dups, yaml)
		errs := checkCatalog("c", []byte(doc))
		got := 0
		for _, e := range errs {
			if !strings.Contains(e.Message, "duplicate key \"") {
				t.Fatalf("depth %d (yaml %v): unexpected error %.300s", depth, yaml, e.Message)
			}
			got++
			if len(e.Message) > maxMsg {
				t.Fatalf("depth %d (yaml %v): a message of %d bytes, want at most %d: %.300s", depth, yaml, len(e.Message), maxMsg, e.Message)
			}
		}
		if got != dups {
			t.Fatalf("depth %d (yaml %v): %d repetitions reported, want %d", depth, yaml, got, dups)
		}
	}
}
