package stats

import (
	"math/big"
	"strconv"
)

// ReliabilityClass is a case's reliability class across its recorded runs.
type ReliabilityClass string

// The reliability classes: every run passed, no run passed, or some did.
const (
	StablePass ReliabilityClass = "stable_pass"
	StableFail ReliabilityClass = "stable_fail"
	Flaky      ReliabilityClass = "flaky"
)

// ReliabilityClasses lists the reliability classes from best to worst, the
// order reports and comparisons use.
var ReliabilityClasses = []ReliabilityClass{StablePass, Flaky, StableFail}

// Rank is the class's place in ReliabilityClasses: 0 for stable_pass, 2 for
// stable_fail, -1 for anything else. A higher rank is a worse class.
func (c ReliabilityClass) Rank() int {
	for i, x := range ReliabilityClasses {
		if x == c {
			return i
		}
	}
	return -1
}

// Classify returns the class of c passing runs out of n: stable_pass when
// c = n, stable_fail when c = 0, flaky otherwise. No runs is stable_fail:
// nothing was shown to pass.
func Classify(c, n int64) ReliabilityClass {
	switch {
	case n > 0 && c >= n:
		return StablePass
	case c <= 0:
		return StableFail
	}
	return Flaky
}

// PassHat returns τ-bench's unbiased estimate of pass^k, the chance that k
// i.i.d. trials all succeed, from c successes in n trials:
//
//	pass^k = C(c, k) / C(n, k)
//
// as an exact rational. It is nil when k is outside 1..n (the estimate needs
// at least k trials). It is computed as the product of (c-i)/(n-i) for i =
// 0..k-1, which is the same ratio without the factorials.
func PassHat(c, n, k int64) *big.Rat {
	if k < 1 || k > n || c < 0 || c > n {
		return nil
	}
	if c == n {
		return big.NewRat(1, 1)
	}
	num, den := big.NewInt(1), big.NewInt(1)
	for i := int64(0); i < k; i++ {
		if c-i <= 0 {
			return new(big.Rat)
		}
		num.Mul(num, big.NewInt(c-i))
		den.Mul(den, big.NewInt(n-i))
	}
	return new(big.Rat).SetFrac(num, den)
}

// PassAt returns Chen et al.'s (2021, arXiv:2107.03374) unbiased estimate
// of pass@k, the chance that at least one of k i.i.d. trials succeeds, from
// c successes in n trials:
//
//	pass@k = 1 - C(n-c, k) / C(n, k)
//
// as an exact rational. It is nil when k is outside 1..n. The ratio is the
// product of (n-c-i)/(n-i) for i = 0..k-1, which is 0 as soon as a factor
// is (k > n-c: every draw of k includes a success).
func PassAt(c, n, k int64) *big.Rat {
	if k < 1 || k > n || c < 0 || c > n {
		return nil
	}
	num, den := big.NewInt(1), big.NewInt(1)
	for i := int64(0); i < k; i++ {
		if n-c-i <= 0 {
			return big.NewRat(1, 1)
		}
		num.Mul(num, big.NewInt(n-c-i))
		den.Mul(den, big.NewInt(n-i))
	}
	miss := new(big.Rat).SetFrac(num, den)
	return miss.Sub(big.NewRat(1, 1), miss)
}

// RatPercent returns 100*r rounded half up to an integer percent: the unit
// of every case target.
func RatPercent(r *big.Rat) int64 {
	return roundHalfUp(r, 100)
}

// RatTenths returns 1000*r rounded half up, in tenths of a percent: the
// unit of the suite summary (42.0, 27.3), which τ-bench reports to three
// decimals of a fraction.
func RatTenths(r *big.Rat) int64 {
	return roundHalfUp(r, 1000)
}

// roundHalfUp returns floor(scale*r + 1/2) for r >= 0.
func roundHalfUp(r *big.Rat, scale int64) int64 {
	x := new(big.Rat).Mul(r, big.NewRat(scale, 1))
	x.Add(x, big.NewRat(1, 2))
	q := new(big.Int).Quo(x.Num(), x.Denom()) // both positive: Quo is floor
	return q.Int64()
}

// MeetsPercent reports whether r >= p/100 exactly, p a percent that may
// have decimals (a floor such as 82.5), read as the decimal it was written
// as (57.3 is 573/1000, not the nearest binary fraction). The comparison is
// made on rationals, so a pass rate of 3/4 meets 75 and 2/3 does not meet
// 66.67.
func MeetsPercent(r *big.Rat, p float64) bool {
	floor, ok := new(big.Rat).SetString(strconv.FormatFloat(p, 'f', -1, 64))
	if !ok {
		return false
	}
	floor.Quo(floor, big.NewRat(100, 1))
	return r.Cmp(floor) >= 0
}

// Percent returns num*100/den as an integer percent, rounded half up. A zero
// denominator yields 0, never a not-a-number value.
func Percent(num, den int64) int64 {
	if den <= 0 {
		return 0
	}
	return (200*num + den) / (2 * den)
}
