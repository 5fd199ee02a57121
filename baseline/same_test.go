package baseline_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// TestSameCaseIsCompareCase: a case compared with itself (the same
// pointer, as a comparison that finds the baseline's case of the very
// same bytes compares it) has the delta of the case compared with a copy
// of itself (another pointer: the comparison field by field), over drawn
// cases (by CaseResult's type, so a field added is drawn too) and drawn
// cases whose assertions or floors are given twice, some with other
// verdicts.
func TestSameCaseIsCompareCase(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	drawn, twice := 0, 0
	for drawn < 1500 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, r.IntN(3) > 0)
		var c, copied report.CaseResult
		if json.Unmarshal(b.Bytes(), &c) != nil {
			continue
		}
		drawn++
		switch r.IntN(4) {
		case 0:
			if len(c.Assertions) > 0 {
				a := c.Assertions[r.IntN(len(c.Assertions))]
				a.Passed = !a.Passed
				c.Assertions = append(c.Assertions, a)
				twice++
			}
		case 1:
			if len(c.Floors) > 0 {
				f := c.Floors[r.IntN(len(c.Floors))]
				f.Passed = r.IntN(2) == 0
				c.Floors = append(c.Floors, f)
				twice++
			}
		case 2:
			c.DefinitionSHA256 = ""
		}
		data, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &copied); err != nil {
			t.Fatal(err)
		}
		same, field := baseline.CaseOf(&c, &c, ""), baseline.CaseOf(&copied, &c, "")
		if !reflect.DeepEqual(same, field) {
			t.Fatalf("case %s:\nwith itself %+v\nwith a copy %+v", data, same, field)
		}
	}
	if twice < 250 {
		t.Fatalf("%d drawn cases give an assertion or floor twice: the drawing misses the fallback", twice)
	}
}
