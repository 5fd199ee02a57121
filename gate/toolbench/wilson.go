package toolbench

import "math"

// z95 is the two-sided 95% normal quantile.
const z95 = 1.959963984540054

// Wilson returns the 95% Wilson score interval of k successes in n trials,
// clamped to [0, 1]; n = 0 gives [0, 1].
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nn := float64(n)
	z2 := z95 * z95
	center := p + z2/(2*nn)
	half := z95 * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn))
	den := 1 + z2/nn
	lo, hi = (center-half)/den, (center+half)/den
	return max(0, lo), min(1, hi)
}
