package casedraw

import (
	"strings"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// Floods are JSON texts made to be expensive to decode (arrays of empty
// objects, of one-member maps, of maps nested depth deep, of empty
// arrays), each long enough that its cost (by cost: report.DecodeCost for
// an envelope) passes the budget of its own bytes by scale times the
// budget's floor: over any budget of a text holding it at 1.5, within one
// at 0.9.
func Floods(scale float64, depth int, cost func([]byte) int64) map[string]string {
	out := map[string]string{}
	for shape, elem := range map[string]string{
		"empty objects":   `{}`,
		"one-member maps": `{"a":0}`,
		"nested maps":     strings.Repeat(`{"":`, depth) + "0" + strings.Repeat(`}`, depth),
		"empty arrays":    `[]`,
	} {
		per := cost([]byte("["+elem+"]")) - cost([]byte("[]"))
		over := per - jsonpos.BudgetRatio*int64(len(elem)+1)
		k := int(scale * jsonpos.BudgetFloor / float64(over))
		out[shape] = "[" + strings.TrimSuffix(strings.Repeat(elem+",", k), ",") + "]"
	}
	return out
}
