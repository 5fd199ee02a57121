package report

import (
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// TestCheckBudgetAtItsEdge: a text is refused when it would cost more
// than its budget, not as much; a text that is not JSON is left to its
// decoder; each array is costed with the room the case decoder gives it.
func TestCheckBudgetAtItsEdge(t *testing.T) {
	// [0,0,...] with s spaces before it: each element costs 32 and adds 2
	// bytes (24 of budget), a space adds 12 of budget, so a count of
	// elements puts the cost exactly at the budget.
	edge := func(k, s int) []byte {
		return []byte(strings.Repeat(" ", s) + "[" + strings.TrimSuffix(strings.Repeat("0,", k), ",") + "]")
	}
	found := 0
	for s := range 4 {
		lo, hi := 1, 4<<20
		for lo < hi {
			mid := (lo + hi) / 2
			if d := edge(mid, s); DecodeCost(d) < jsonpos.DecodeBudget(len(d)) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		d := edge(lo, s)
		if DecodeCost(d) != jsonpos.DecodeBudget(len(d)) {
			continue
		}
		found++
		if err := CheckBudget("it", d); err != nil {
			t.Errorf("at its budget (%d elements, %d spaces): %v", lo, s, err)
		}
		over := edge(lo+1, s)
		err := CheckBudget("cases[3]", over)
		if err == nil || !strings.HasPrefix(err.Error(), "cases[3] would take 64.0 MiB decoded, over the decode budget of 64.0 MiB for JSON of 4.0 MiB (12 times its size, plus 16 MiB)") {
			t.Errorf("one element past its budget: %v", err)
		}
		if err := CheckBudget("it", append(over[:len(over)-1:len(over)-1], ",]"...)); err != nil {
			t.Errorf("not JSON, and refused for its budget: %v", err)
		}
	}
	if found == 0 {
		t.Fatal("no text costs its budget exactly")
	}
	// Each array brings arraySlack: a flood of empty arrays is refused at
	// a sixth of the length jsonpos alone would refuse it.
	arrays := []byte("[" + strings.TrimSuffix(strings.Repeat("[],", 1<<20), ",") + "]")
	if CheckBudget("it", arrays) == nil {
		t.Errorf("a million empty arrays within the budget")
	}
	if over, _ := jsonpos.OverBudget(arrays, jsonpos.DecodeBudget(len(arrays))); over {
		t.Errorf("the flood of empty arrays is over jsonpos's budget alone: it does not test arraySlack")
	}
	// The costliest text a byte, arrays nested, within maxCostPerByte.
	nested := []byte(strings.Repeat("[", 1<<20) + strings.Repeat("]", 1<<20))
	if cost, most := DecodeCost(nested), maxCostPerByte*int64(len(nested)); cost > most || cost < most*99/100 {
		t.Errorf("nested arrays cost %d, not just under %d", cost, most)
	}
}
