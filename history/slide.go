package history

import (
	"fmt"
	"math"
)

// MinSustained is the fewest runs with a value a slide needs.
const MinSustained = 3

// Sustained is the one rule for "a floor slid", which `mcptest history
// --slide-threshold` (Suite.Slides) and the Action's history-threshold
// (Trend) both apply to a floor's values over the window (NaN: a run
// without one): the floor fell from its first value to its last by more
// than 0 and by at least threshold points, over at least MinSustained
// runs that have a value, its least-squares slope points down, and every
// value of the later half of those runs is below the first. A single bad
// run at the end of a long flat series does not slide, nor a dip that
// came back. threshold < 0 counts as 0.
func Sustained(values []float64, threshold float64) bool {
	var vs []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) < MinSustained {
		return false
	}
	first, last := vs[0], vs[len(vs)-1]
	if fall := first - last; fall <= 0 || fall < threshold {
		return false
	}
	if slope, ok := Slope(values); !ok || slope >= 0 {
		return false
	}
	for _, v := range vs[len(vs)/2:] {
		if v >= first {
			return false
		}
	}
	return true
}

// SlideRule says the slide rule at threshold in words, as text, markdown
// and JSON print it beside the floors that slid: "down at least 5 points
// first to last over 3 or more runs, slope negative, later half below the
// first".
func SlideRule(threshold float64) string {
	past := "down first to last"
	if threshold > 0 {
		past = fmt.Sprintf("down at least %s points first to last", Num(PassRate, threshold))
	}
	return fmt.Sprintf("%s over %d or more runs, slope negative, later half below the first", past, MinSustained)
}
