package stats

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// reference holds the one-sided 95% Clopper-Pearson lower bound for
// (successes, runs), computed independently of this package with mpmath 1.3.0
// at 50 significant digits: the p solving the regularized incomplete beta
// I_p(s, n-s+1) = 0.05 by 200 bisection steps (P(X >= s | n, p) = I_p(s,
// n-s+1)). The script:
//
//	mp.mp.dps = 50
//	f = lambda p: mp.betainc(s, n-s+1, 0, p, regularized=True) - mp.mpf(1)/20
//	bisect f on [0, 1]; percent = floor(100 * p)
var reference = []struct {
	s, n    int64
	bound   string // to 12 significant digits
	percent int64  // floor(100 * bound)
}{
	{1, 1, "0.05", 5},
	{2, 2, "0.22360679775", 22},
	{3, 3, "0.368403149864", 36},
	{5, 5, "0.549280271653", 54},
	{10, 10, "0.741134449107", 74},
	{0, 10, "0.0", 0},
	{1, 10, "0.00511619689182", 0},
	{5, 10, "0.222441101008", 22},
	{8, 10, "0.493098698937", 49},
	{9, 10, "0.605836697563", 60},
	{4, 5, "0.342591681999", 34},
	{20, 20, "0.860891659332", 86},
	{18, 20, "0.717381475114", 71},
	{30, 30, "0.904966147145", 90},
	{50, 50, "0.941844920883", 94},
	{45, 50, "0.801166997484", 80},
	{59, 59, "0.950492390112", 95},
	{100, 100, "0.970486950393", 97},
	{95, 100, "0.897746622357", 89},
	{80, 100, "0.722799750329", 72},
	{1, 2, "0.0253205655191", 2},
	{7, 13, "0.287049002794", 28},
	{999, 1000, "0.995265006425", 99},
}

func TestLowerPercentReference(t *testing.T) {
	for _, r := range reference {
		if got := LowerPercent95(r.s, r.n); got != r.percent {
			t.Errorf("LowerPercent95(%d, %d) = %d, want %d (bound %s)", r.s, r.n, got, r.percent, r.bound)
		}
		want, _ := strconv.ParseFloat(r.bound, 64)
		if got := Lower(r.s, r.n, 0.05); math.Abs(got-want) > 1e-9 {
			t.Errorf("Lower(%d, %d) = %.12g, want %s", r.s, r.n, got, r.bound)
		}
	}
}

// TestOnePerfectRun is the seed's sentence: one perfect run certifies only
// about 5 percent at 95 percent confidence. The bound is exactly 0.05, and
// the exact method must not lose it to a floating-point 4.999...
func TestOnePerfectRun(t *testing.T) {
	if got := LowerPercent95(1, 1); got != 5 {
		t.Fatalf("one perfect run certifies %d%%, want 5%%", got)
	}
}

func TestLowerPercentNeverRoundsUp(t *testing.T) {
	for n := int64(1); n <= 60; n++ {
		for s := int64(0); s <= n; s++ {
			k := LowerPercent95(s, n)
			if k < 0 || k > 100 {
				t.Fatalf("(%d, %d) = %d out of range", s, n, k)
			}
			if k > 0 && float64(k)/100 > Lower(s, n, 0.05)+1e-12 {
				t.Errorf("(%d, %d): %d%% is above the bound %.12g", s, n, k, Lower(s, n, 0.05))
			}
			if k < 100 && float64(k+1)/100 < Lower(s, n, 0.05)-1e-12 {
				t.Errorf("(%d, %d): %d%% is more than one percent under the bound %.12g", s, n, k, Lower(s, n, 0.05))
			}
			if s > 0 && k < LowerPercent95(s-1, n) {
				t.Errorf("(%d, %d): the bound fell with one more success", s, n)
			}
		}
	}
}

func TestLowerPercentEdges(t *testing.T) {
	for _, tt := range []struct{ s, n, want int64 }{
		{0, 0, 0}, {3, 0, 0}, {-1, 5, 0}, {7, 5, 54}, // more successes than runs count as all
	} {
		if got := LowerPercent95(tt.s, tt.n); got != tt.want {
			t.Errorf("LowerPercent95(%d, %d) = %d, want %d", tt.s, tt.n, got, tt.want)
		}
	}
	if got := LowerPercent95(9990, 10000); got != 99 {
		t.Errorf("large n: %d", got)
	}
}

// TestLowerPercentAlphaBounds: an alpha outside (0, 1) certifies nothing,
// on the exact path (up to exactLimit trials) and on the floating-point
// one above it; no successes certify nothing on either.
func TestLowerPercentAlphaBounds(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		s, n, alphaNum, alpha int64
	}{
		{"alpha of 1", 1, 1, 1, 1},
		{"alpha of 1, large n", exactLimit + 1, exactLimit + 1, 1, 1},
		{"alpha of 0, large n", exactLimit + 1, exactLimit + 1, 0, 20},
		{"alpha of 0, large n, a failure", exactLimit, exactLimit + 1, 0, 20},
		{"no successes, large n", 0, exactLimit + 1, 1, 20},
	} {
		if got := LowerPercent(tt.s, tt.n, tt.alphaNum, tt.alpha); got != 0 {
			t.Errorf("%s: LowerPercent(%d, %d, %d, %d) = %d, want 0", tt.name, tt.s, tt.n, tt.alphaNum, tt.alpha, got)
		}
	}
}

// TestLowerPercentLargeN: above exactLimit trials the floating-point bound
// is used, still rounded down: every run passing certifies 99 % at 95 %
// confidence (the bound is 99.94 %), and a bound a hair under 100 % (alpha
// one billionth under 1) is 99, not 100.
func TestLowerPercentLargeN(t *testing.T) {
	n := int64(exactLimit + 1)
	if got := LowerPercent95(n, n); got != 99 {
		t.Errorf("LowerPercent95(%d, %d) = %d, want 99", n, n, got)
	}
	if got := LowerPercent(n, n, 999_999_999, 1_000_000_000); got != 99 {
		t.Errorf("a bound a hair under 100 %%: %d, want 99", got)
	}
}

// TestLowerPercentExactUpToLimit: at exactLimit trials the decision is
// still exact. With alpha the tail at p = 1/2 (rounded up to 18 digits),
// the bound is 50 % exactly, which the exact path certifies; the
// floating-point path, which rounds a hair down, would say 49.
func TestLowerPercentExactUpToLimit(t *testing.T) {
	n, s := int64(exactLimit), int64(2558)
	// P(X >= s | n, 1/2) = sum_{i>=s} C(n,i) / 2^n.
	c := new(big.Int).Binomial(n, s)
	sum := new(big.Int).Set(c)
	for i := s; i < n; i++ {
		c.Mul(c, big.NewInt(n-i))
		c.Quo(c, big.NewInt(i+1))
		sum.Add(sum, c)
	}
	den := int64(1_000_000_000_000_000_000)
	num := new(big.Int).Mul(sum, big.NewInt(den))
	pow := new(big.Int).Lsh(big.NewInt(1), uint(n))
	q, r := new(big.Int).QuoRem(num, pow, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if got := LowerPercent(s, n, q.Int64(), den); got != 50 {
		t.Errorf("LowerPercent(%d, %d, %d, %d) = %d, want 50", s, n, q.Int64(), den, got)
	}
}

// TestLowerNothingCertified: no trials, no successes or a negative count
// certify 0, whatever alpha.
func TestLowerNothingCertified(t *testing.T) {
	for _, alpha := range []float64{0.05, 1} {
		for _, tt := range []struct{ s, n int64 }{{0, 0}, {3, 0}, {0, 5}, {0, 1}, {2, -1}} {
			if got := Lower(tt.s, tt.n, alpha); got != 0 {
				t.Errorf("Lower(%d, %d, %g) = %g, want 0", tt.s, tt.n, alpha, got)
			}
		}
	}
}

// TestLowerAtTheTail: the bound is the p whose upper tail is alpha, from
// below: with alpha the tail at p = 1/2 exactly, the bound is 1/2 itself,
// not the float under it.
func TestLowerAtTheTail(t *testing.T) {
	for _, tt := range []struct{ s, n int64 }{{3, 4}, {5, 10}, {1, 2}} {
		if got := Lower(tt.s, tt.n, upperTail(tt.s, tt.n, 0.5)); got != 0.5 {
			t.Errorf("Lower(%d, %d, tail at 1/2) = %.17g, want 0.5", tt.s, tt.n, got)
		}
	}
}

// TestLowerBisectionStep: Lower bisects [0, 1] until the bracket is
// narrower than 1e-15, which it first is at 2^-50 (2^-49 is 1.8e-15), and
// returns the bracket's lower end: a multiple of 2^-50, the tail at most
// alpha there and over alpha one step of 2^-50 above. A bound that is no
// multiple of 2^-49 shows the fiftieth halving was made; none past it.
func TestLowerBisectionStep(t *testing.T) {
	step := math.Ldexp(1, -50)
	for _, tt := range []struct {
		s, n  int64
		alpha float64
		odd   bool // no multiple of 2^-49: the last halving kept the upper half
	}{
		{1, 2, 0.05, true},
		{3, 10, 0.05, false},
		{7, 9, 0.05, true},
		{99, 100, 0.01, true},
		{4999, 5001, 0.05, false},
	} {
		got := Lower(tt.s, tt.n, tt.alpha)
		if k := got / step; k != math.Trunc(k) {
			t.Errorf("Lower(%d, %d, %g) = %.17g, no multiple of 2^-50", tt.s, tt.n, tt.alpha, got)
		}
		if odd := got/(2*step) != math.Trunc(got/(2*step)); odd != tt.odd {
			t.Errorf("Lower(%d, %d, %g) = %.17g: no multiple of 2^-49 %v, want %v", tt.s, tt.n, tt.alpha, got, odd, tt.odd)
		}
		if upperTail(tt.s, tt.n, got) > tt.alpha || upperTail(tt.s, tt.n, got+step) <= tt.alpha {
			t.Errorf("Lower(%d, %d, %g) = %.17g is not the lower end of a bracket of 2^-50 around the bound", tt.s, tt.n, tt.alpha, got)
		}
	}
}

// TestTailScreenIsExact: the floating-point screen of tailAtMost gives the
// integers' answer for every k of drawn (s, n, alpha) up to exactLimit,
// n drawn small and large, s near 0, near n and between, alpha the
// confidences the gates use and drawn fractions, and for the k on either
// side of each bound LowerPercent returns (where the tail is nearest
// alpha and the screen hands over to the integers).
func TestTailScreenIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 9))
	alphas := [][2]int64{{1, 20}, {1, 100}, {1, 10}, {1, 1000}}
	draws := 300
	if testing.Short() {
		draws = 60
	}
	for d := range draws {
		n := 1 + rng.Int64N(60)
		if d%5 == 0 {
			n = 1 + rng.Int64N(exactLimit)
		}
		s := 1 + rng.Int64N(n)
		switch d % 3 {
		case 0:
			s = n - rng.Int64N(min(n, 4))
		case 1:
			s = 1 + rng.Int64N(min(n, 4))
		}
		a := alphas[rng.IntN(len(alphas))]
		if d%7 == 0 {
			den := 2 + rng.Int64N(1000)
			a = [2]int64{1 + rng.Int64N(den-1), den}
		}
		ks := []int64{1 + rng.Int64N(99), 1 + rng.Int64N(99)}
		if lp := LowerPercent(s, n, a[0], a[1]); lp > 0 && lp < 100 {
			ks = append(ks, lp, lp+1)
		}
		if n <= 60 {
			ks = ks[:0]
			for k := int64(0); k <= 100; k++ {
				ks = append(ks, k)
			}
		}
		for _, k := range ks {
			if got, want := tailAtMost(s, n, k, a[0], a[1]), tailAtMostExact(s, n, k, a[0], a[1]); got != want {
				t.Fatalf("s=%d n=%d k=%d alpha=%d/%d: screened %v, integers %v", s, n, k, a[0], a[1], got, want)
			}
		}
	}
}

// tailByList is upperTail as it was written first: every term of the sum
// kept in a list, the largest found among them.
func tailByList(s, n int64, p float64) float64 {
	lp, lq := math.Log(p), math.Log1p(-p)
	lgN, _ := math.Lgamma(float64(n + 1))
	logs := make([]float64, 0, n-s+1)
	top := math.Inf(-1)
	for i := s; i <= n; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		b, _ := math.Lgamma(float64(n - i + 1))
		l := lgN - a - b + float64(i)*lp + float64(n-i)*lq
		logs = append(logs, l)
		top = max(top, l)
	}
	sum := 0.0
	for _, l := range logs {
		sum += math.Exp(l - top)
	}
	return math.Exp(top + math.Log(sum))
}

// TestUpperTailSameAsListDrawn draws runs n (1 to 200,000), successes s
// and probabilities p (near 0 and 1 among them) and holds upperTail,
// which keeps no term and skips those whose exponentials are 0, to the
// tail summed over a list of every term, bit for bit, and to no
// allocation.
func TestUpperTailSameAsListDrawn(t *testing.T) {
	// Where two terms by the mode tie, the larger in floating point may
	// be the mode's either neighbour, s or n among them (found by search).
	for _, tc := range []struct {
		s, n int64
		p    float64
	}{{11, 49, 0.58}, {1, 4, 0.4}, {5, 7, math.Nextafter(7.0/8, 0)}} {
		if got, want := upperTail(tc.s, tc.n, tc.p), tailByList(tc.s, tc.n, tc.p); got != want {
			t.Errorf("upperTail(%d, %d, %v) = %v, the list's %v", tc.s, tc.n, tc.p, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(61, 12))
	for i := range 400 {
		n := 1 + rng.Int64N([]int64{20, 2_000, 200_000}[i%3])
		s := rng.Int64N(n + 1)
		p := []float64{rng.Float64(), 1e-9 + rng.Float64()*1e-6, 1 - 1e-9 - rng.Float64()*1e-6, 0.5}[rng.IntN(4)]
		if p <= 0 || p >= 1 {
			continue
		}
		got, want := upperTail(s, n, p), tailByList(s, n, p)
		if got != want {
			t.Fatalf("draw %d: upperTail(%d, %d, %v) = %v, the list's %v", i, s, n, p, got, want)
		}
		if i < 30 {
			if a := testing.AllocsPerRun(2, func() { upperTail(s, n, p) }); a != 0 {
				t.Fatalf("draw %d: upperTail allocated %v times", i, a)
			}
		}
	}
}
