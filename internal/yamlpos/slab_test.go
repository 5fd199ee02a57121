package yamlpos

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestSlabNodesReused: lists of drawn items in the shapes fastItem reads
// (mappings of words, numbers and quoted strings, nested block lists and
// mappings, one-line flow collections), read item by item in chunks of
// one to three items, many documents at once on four cores, so that the
// blocks of nodes one chunk gave back are handed to the chunks parsed
// after it, of the same document and of others: each reads exactly as
// the whole parse, values, positions and errors.
func TestSlabNodesReused(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	r := rand.New(rand.NewPCG(40, 3))
	type doc struct {
		text  []byte
		whole *Doc
	}
	var docs []doc
	for range 24 {
		text := []byte(drawList(r, 20+r.IntN(100)))
		docs = append(docs, doc{text, readWhole("s.yml", text, releaseOpts)})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fails []string
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, d := range docs {
				o := releaseOpts
				o.chunk = 1 + (i+g)%3
				o.SplitMin = 1
				split := readSplit("s.yml", d.text, o)
				what := ""
				switch {
				case split == nil:
					what = "not cut"
				case !reflect.DeepEqual(d.whole.Root, split.Root):
					what = fmt.Sprintf("values differ:\nwhole %v\nsplit %v", d.whole.Root, split.Root)
				case !reflect.DeepEqual(d.whole.root, split.root) || !reflect.DeepEqual(d.whole.nums, split.nums):
					what = "positions differ"
				case !reflect.DeepEqual(d.whole.Errs, split.Errs):
					what = fmt.Sprintf("errors differ:\nwhole %s\nsplit %s", errList(d.whole), errList(split))
				}
				if what != "" {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("document %d, chunks of %d: %s\n%s", i, o.chunk, what, d.text))
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(fails) > 0 {
		t.Fatal(fails[0])
	}
}

// drawList is a suite-like text whose tests: list holds n drawn items.
func drawList(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("servers:\n  s: {command: x}\ntests:\n")
	words := []string{"alpha", "beta", "s.get_user", "path/to/file.json", "gamma_delta", "x"}
	word := func() string { return words[r.IntN(len(words))] }
	for i := range n {
		fmt.Fprintf(&b, "  - name: t%d\n", i)
		for range r.IntN(5) {
			switch r.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "    %s: %d\n", word(), r.IntN(1000))
			case 1:
				fmt.Fprintf(&b, "    %s: \"%s %s\"\n", word(), word(), word())
			case 2:
				fmt.Fprintf(&b, "    %s: [%s, %s, %d]\n", word(), word(), word(), r.IntN(9))
			case 3:
				fmt.Fprintf(&b, "    %s: { name: %s, members: [%s] }\n", word(), word(), word())
			case 4:
				fmt.Fprintf(&b, "    %s:\n", word())
				for range 1 + r.IntN(3) {
					fmt.Fprintf(&b, "      - { %s: %d }\n", word(), r.IntN(50))
				}
			default:
				fmt.Fprintf(&b, "    %s:\n      %s: '%s'\n      %s:\n        - %s\n", word(), word(), word(), word(), word())
			}
		}
	}
	b.WriteString("agents: []\n")
	return b.String()
}
