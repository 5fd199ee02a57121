package stats

import (
	"math"
	"math/big"
)

// exactLimit bounds the number of trials for which LowerPercent decides with
// exact integer arithmetic; above it the (still conservative) floating-point
// bound is used, so a huge sample cannot make a gate slow.
const exactLimit = 5000

// LowerPercent returns the one-sided Clopper-Pearson lower confidence bound
// on the success rate at confidence 1-alpha, expressed as the
// largest integer percent k (0..100) with k/100 <= the bound: the bound
// rounded down, never up.
//
// The bound p_L for s successes in n trials is the p at which seeing s or
// more successes has probability exactly alpha: P(X >= s | n, p_L) = alpha.
// Since that tail grows with p, k/100 <= p_L exactly when
// P(X >= s | n, k/100) <= alpha, which is decided here with integers:
//
//	alphaDen * sum_{i=s..n} C(n,i) k^i (100-k)^(n-i) <= alphaNum * 100^n
//
// alpha is alphaNum/alphaDen (1/20 for 95% confidence). No successes (and no
// trials) certify 0.
func LowerPercent(s, n int64, alphaNum, alphaDen int64) int64 {
	if n <= 0 || s <= 0 || alphaNum <= 0 || alphaDen <= 0 || alphaNum >= alphaDen {
		return 0
	}
	s = min(s, n)
	if n > exactLimit {
		return int64(math.Floor(100*Lower(s, n, float64(alphaNum)/float64(alphaDen)) - 1e-9))
	}
	ok := func(k int64) bool { return tailAtMost(s, n, k, alphaNum, alphaDen) }
	lo, hi := int64(0), int64(100) // ok(lo) holds; find the largest k with ok(k)
	if ok(hi) {
		return hi
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// LowerPercent95 is LowerPercent at 95% confidence.
func LowerPercent95(s, n int64) int64 { return LowerPercent(s, n, 1, 20) }

// tailAtMost reports whether P(X >= s | n, k/100) <= alphaNum/alphaDen.
// The floating-point tail (upperTail, relative error under 1e-10 for n up
// to exactLimit: its logarithms are below 5e4, each good to 1e-15 of
// itself) decides when it is more than screenMargin away from alpha, the
// integers only near it: LowerPercent's bisection asks about seven k, of
// which at most one or two are that close, and the integer tail of 2,000
// runs was a tenth of a run's CPU, on the goroutine that finishes the case.
func tailAtMost(s, n, k, alphaNum, alphaDen int64) bool {
	if k > 0 && k < 100 {
		alpha := float64(alphaNum) / float64(alphaDen)
		switch t := upperTail(s, n, float64(k)/100); {
		case t < alpha*(1-screenMargin):
			return true
		case t > alpha*(1+screenMargin):
			return false
		}
	}
	return tailAtMostExact(s, n, k, alphaNum, alphaDen)
}

// screenMargin is how far, relative to alpha, the floating-point tail must
// be for tailAtMost to trust it: ten thousand times its error.
const screenMargin = 1e-6

// tailAtMostExact is tailAtMost decided with integers alone.
func tailAtMostExact(s, n, k, alphaNum, alphaDen int64) bool {
	if k == 0 {
		return true // s >= 1 successes are impossible at p = 0
	}
	if k == 100 {
		return alphaNum >= alphaDen // the tail is 1
	}
	// term_i = C(n,i) k^i (100-k)^(n-i); term_{i+1} = term_i * (n-i)/(i+1) * k/(100-k).
	// Work with T_i = C(n,i) k^i (100-k)^(n-i) directly as big integers.
	bk, bm := big.NewInt(k), big.NewInt(100-k)
	term := new(big.Int).Binomial(n, s)
	term.Mul(term, new(big.Int).Exp(bk, big.NewInt(s), nil))
	term.Mul(term, new(big.Int).Exp(bm, big.NewInt(n-s), nil))
	sum := new(big.Int).Set(term)
	num, q := new(big.Int), new(big.Int)
	for i := s; i < n; i++ {
		// term * (n-i) * k / ((i+1) * (100-k)) is an integer: it is the next term.
		num.Mul(term, big.NewInt((n-i)*k))
		q.Quo(num, big.NewInt((i+1)*(100-k)))
		term.Set(q)
		sum.Add(sum, term)
	}
	lhs := sum.Mul(sum, big.NewInt(alphaDen))
	rhs := new(big.Int).Exp(big.NewInt(100), big.NewInt(n), nil)
	rhs.Mul(rhs, big.NewInt(alphaNum))
	return lhs.Cmp(rhs) <= 0
}

// Lower returns the one-sided Clopper-Pearson lower confidence bound at
// confidence 1-alpha as a float, found by bisection on the binomial tail
// (evaluated in log space). It is for display; gates decide with
// LowerPercent.
func Lower(s, n int64, alpha float64) float64 {
	if n <= 0 || s <= 0 {
		return 0
	}
	s = min(s, n)
	if s == n {
		return math.Pow(alpha, 1/float64(n))
	}
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if upperTail(s, n, mid) <= alpha {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-15 {
			break
		}
	}
	return lo
}

// upperTail is P(X >= s) for X ~ Binomial(n, p), 0 < p < 1. It keeps no
// term: the terms rise to the binomial's mode and fall after it, so the
// largest summed is by the mode (s when the mode is below s), and the
// terms more than 750 below it in log, whose exponentials are exactly 0,
// are skipped where they lie at either end (found by halving on the
// rising side). A bisection over 100,000 runs asked it some fifty times,
// each with a list of the run's terms (37 MB) and two log-gammas a run.
func upperTail(s, n int64, p float64) float64 {
	lp, lq := math.Log(p), math.Log1p(-p)
	lgN, _ := math.Lgamma(float64(n + 1))
	term := func(i int64) float64 {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		return lgN - a - b + float64(i)*lp + float64(n-i)*lq
	}
	mode := max(s, min(n, int64(float64(n+1)*p)))
	top := term(mode)
	// Next to the mode a term may equal it, and round above it: the
	// largest of the three, as a list of every term would find it.
	for _, i := range []int64{mode - 1, mode + 1} {
		if i >= s && i <= n {
			top = max(top, term(i))
		}
	}
	// The first term from s on within range of the top: the rising side
	// is monotone, so halve between s and the mode.
	lo, hi := s, mode
	for lo < hi {
		mid := lo + (hi-lo)/2
		if term(mid)-top < -underflow {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	sum := 0.0
	for i := lo; i <= n; i++ {
		d := term(i) - top
		if d < -underflow && i > mode {
			break // this term's exponential is 0, and every later one's
		}
		sum += math.Exp(d)
	}
	return math.Exp(top + math.Log(sum))
}

// underflow is where math.Exp of a negative number is exactly 0 (below
// -745.2), with a margin.
const underflow = 750
