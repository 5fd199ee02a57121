package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestBrokenIsScan holds broken's sorted search to the scan it replaced:
// drawn pointers of schema errors (siblings that share a prefix, /tests/1
// beside /tests/10 and /tests/1-x, escaped keys, the root, repeats) and
// drawn pointers asked about, on a builder whose errors grow between the
// questions.
func TestBrokenIsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	segs := []string{"tests", "1", "10", "1-x", "1~1b", "name", "runs", "expect", "0", "a/", ""}
	draw := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString("/" + segs[rng.IntN(len(segs))])
		}
		return b.String()
	}
	scan := func(errs diag.List, ptr string) bool {
		for _, e := range errs {
			if e.Pointer == ptr || strings.HasPrefix(e.Pointer, ptr+"/") {
				return true
			}
		}
		return false
	}
	for range 500 {
		b := &builder{}
		for range rng.IntN(5) {
			for range rng.IntN(30) {
				b.schemaErrs = append(b.schemaErrs, &diag.Error{Pointer: draw()})
			}
			for range 40 {
				ptr := draw()
				if got, want := b.broken(ptr), scan(b.schemaErrs, ptr); got != want {
					t.Fatalf("broken(%q) = %v, a scan says %v, over %d errors", ptr, got, want, len(b.schemaErrs))
				}
			}
		}
	}
}
