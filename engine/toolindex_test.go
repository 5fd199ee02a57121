package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestToolIndexIsSet: over drawn sequences of tools added (few and many,
// past indexScan, each drawn from a small or a large set of names so that
// repeats come early and late), a toolIndex holds each (server, tool)
// once, in the order first added, as a set kept beside a list does.
func TestToolIndexIsSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 13))
	for seq := range 500 {
		var x toolIndex
		var want []toolKey
		seen := map[toolKey]bool{}
		distinct := 1 + rng.IntN(4*indexScan)
		for range rng.IntN(8 * indexScan) {
			k := toolKey{fmt.Sprintf("s%d", rng.IntN(3)), fmt.Sprintf("t%d", rng.IntN(distinct))}
			if rng.IntN(5) == 0 {
				k.server = ""
			}
			x.addTool(k.server, k.tool)
			if !seen[k] {
				seen[k] = true
				want = append(want, k)
			}
		}
		if !slices.Equal(x.keys, want) {
			t.Fatalf("sequence %d: the index holds %v, want %v", seq, x.keys, want)
		}
		if (x.seen != nil) != (len(want) > indexScan) || x.seen != nil && len(x.seen) != len(want) {
			t.Fatalf("sequence %d: %d tools, a map of %d (nil %v)", seq, len(want), len(x.seen), x.seen == nil)
		}
	}
}
