package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/prices"
)

// TestWarnUnpricedOncePerRun is a generator test: for random sets of
// models a run could not price, with the runs that name no model among
// them or not, the run warns in one line, naming every named model once
// with its count of cases, and not at all when no named model is missing.
func TestWarnUnpricedOncePerRun(t *testing.T) {
	table, err := prices.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 6))
	for i := range 300 {
		unpriced := map[string]int{}
		for range rng.IntN(4) {
			unpriced[fmt.Sprintf("acme-router-%d", rng.IntN(9))] = 1 + rng.IntN(5)
		}
		if rng.IntN(2) == 0 {
			unpriced[""] = 1 + rng.IntN(5) // runs that name no model
		}
		var lines []string
		warnUnpriced(func(s string) { lines = append(lines, s) }, unpriced, table)
		named := len(unpriced)
		if _, ok := unpriced[""]; ok {
			named--
		}
		if named == 0 {
			if len(lines) != 0 {
				t.Fatalf("#%d %v: warned %q with no named model missing", i, unpriced, lines)
			}
			continue
		}
		if len(lines) != 1 {
			t.Fatalf("#%d %v: %d warnings, want one", i, unpriced, len(lines))
		}
		for m, n := range unpriced {
			want := fmt.Sprintf("model %q (%d case(s)", m, n)
			if m != "" && strings.Count(lines[0], want) != 1 {
				t.Errorf("#%d: %q does not name %s once", i, lines[0], want)
			}
		}
		if strings.Contains(lines[0], `""`) || strings.Contains(lines[0], "name none") || strings.Contains(lines[0], "\n") {
			t.Errorf("#%d: %q", i, lines[0])
		}
	}
}
