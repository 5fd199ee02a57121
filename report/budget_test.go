package report

import (
	"bytes"
	"fmt"
	"regexp"
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
		} else if at := err.(*BudgetError).At; at != len(over)-2 {
			t.Errorf("the budget runs out at offset %d, not at the last element (%d)", at, len(over)-2)
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

// TestBudgetPlaced: a case, a member of the head and a whole envelope over
// the budget are refused at the line and column where the budget runs
// out, in a document whose flood is spread over lines and whose cases
// stand on lines of their own.
func TestBudgetPlaced(t *testing.T) {
	flood := "[" + strings.TrimSuffix(strings.Repeat("{\"a\":0},\n", 600_000), ",\n") + "]"
	for _, tc := range []struct{ name, doc, unit string }{
		{"a case", "{\"schema_version\": 1,\n \"cases\": [\n  {\"name\": \"a\"},\n  {\"name\": \"b\", \"matcher\": " + flood + "}\n ]\n}\n", `{"name": "b"`},
		{"a member of the head", "{\"schema_version\": 1,\n \"labels\": {\"x\": 1},  \"floors\": " + flood + ",\n \"cases\": []\n}\n", "[{"},
	} {
		doc := []byte(tc.doc)
		// the unit the stream holds to its budget: the member, or the case
		start, end := strings.Index(tc.doc, tc.unit), strings.Index(tc.doc, tc.unit)+len(flood)
		if tc.unit != "[{" {
			end = strings.LastIndex(tc.doc, "}\n ]") + 1
		}
		raw := doc[start:end]
		be, _ := CheckBudget("it", raw).(*BudgetError)
		if be == nil {
			t.Fatalf("%s: the flood is within its budget", tc.name)
		}
		line, col := (&jsonpos.Lines{Data: doc}).At(start + be.At)
		want := fmt.Sprintf("e.json:%d:%d: ", line, col)
		if line < 3 {
			t.Fatalf("%s: the flood runs out of budget at %d:%d, not inside it", tc.name, line, col)
		}
		cr, err := NewCaseReader(bytes.NewReader(doc), "e.json")
		for err == nil {
			_, err = cr.Next()
		}
		if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "the values before this point take up the decode budget of") {
			t.Errorf("%s, the case stream: %v, want it placed at %s", tc.name, err, want)
		}
		// the case flooded is the second: named by its index
		if tc.unit != "[{" && !strings.Contains(err.Error(), ": cases[1] would take ") {
			t.Errorf("%s, the case stream: %v, want it named cases[1]", tc.name, err)
		}
		// the whole document, from its own budget
		if whole := PlaceBudget("e.json", doc); whole == nil || !regexp.MustCompile(`^e\.json:\d+:\d+: the envelope would take `).MatchString(whole.Error()) {
			t.Errorf("%s, whole: %v", tc.name, whole)
		}
		_, err = Read(bytes.NewReader(doc), "e.json")
		if err == nil || !strings.HasPrefix(err.Error(), "e.json:") || !strings.Contains(err.Error(), "decode budget") {
			t.Errorf("%s, Read: %v", tc.name, err)
		}
	}
}
