package engine

import (
	"strings"
	"testing"
)

// TestCertifiedFloorBreaches: a certified floor that does not hold says
// why, one FLOOR line for each failing assertion on
// distractors.certified_lower (not a passing one, not a failing assertion
// on another target), then, when every run selected only correct tools,
// that a higher floor needs more runs, else how many runs of how many did
// not.
func TestCertifiedFloorBreaches(t *testing.T) {
	good, bad := runJSON("ok", "catalog.search_products"), runJSON("ok", "catalog.search_products", "shell.exec")
	for i, tc := range []struct {
		runs []string
		want []string
	}{
		{[]string{good, good, good}, []string{
			"FLOOR shop: certified lower bound 36% misses the floor (36 is less than the minimum 90)",
			"  all 3 runs succeeded, and 3 perfect runs certify only 36% at 95% confidence: a higher floor needs more runs"}},
		{[]string{good, bad, good}, []string{
			"FLOOR shop: certified lower bound 13% misses the floor (13 is less than the minimum 90)",
			"  1 of 3 runs chose a distractor, another tool outside the correct set, or no correct tool"}},
		{[]string{bad, bad, good}, []string{
			"FLOOR shop: certified lower bound 1% misses the floor (1 is less than the minimum 90)",
			"  2 of 3 runs chose a distractor, another tool outside the correct set, or no correct tool"}},
	} {
		s := writeSuite(t, `
agents:
  - name: shop
    cassette: c.json
    distractors:
      count: 1
      source: { from: catalog }
      correct: [catalog.search_products]
      expect:
        - distractors.certified_lower: { ">=": 0 }
        - distractors.certified_lower: { ">=": 90 }
        - distractors.accuracy: { ">=": 101 }
`, map[string]string{"c.json": cassetteJSON(tc.runs...)})
		c := run(t, s, Options{}).Cases[0]
		if len(c.Floors) != 1 || c.Floors[0].Passed || strings.Join(c.Floors[0].Lines, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("row %d: floors %+v\nwant lines\n%s", i, c.Floors, strings.Join(tc.want, "\n"))
		}
	}
}
