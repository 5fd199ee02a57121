package stats

import (
	"math/big"
	"testing"
)

// TestPassHat checks C(c,k)/C(n,k) against the binomials written out, for
// the four-trial tasks of τ-bench's airline split.
func TestPassHat(t *testing.T) {
	for _, tc := range []struct {
		c, n, k int64
		want    string // exact, "" for undefined
		percent int64
	}{
		{3, 4, 1, "3/4", 75},
		{3, 4, 2, "1/2", 50},   // C(3,2)/C(4,2) = 3/6
		{3, 4, 3, "1/4", 25},   // C(3,3)/C(4,3) = 1/4
		{3, 4, 4, "0", 0},      // C(3,4) = 0
		{2, 4, 2, "1/6", 17},   // 16.67 rounds half up to 17
		{1, 4, 1, "1/4", 25},   //
		{4, 4, 4, "1", 100},    // every trial passed
		{0, 4, 1, "0", 0},      //
		{1, 8, 1, "1/8", 13},   // 12.5 rounds half up to 13
		{7, 10, 3, "7/24", 29}, // C(7,3)/C(10,3) = 35/120
		{3, 4, 5, "", 0},       // k > n: undefined
		{3, 4, 0, "", 0},       //
	} {
		got := PassHat(tc.c, tc.n, tc.k)
		if tc.want == "" {
			if got != nil {
				t.Errorf("PassHat(%d, %d, %d) = %v, want undefined", tc.c, tc.n, tc.k, got)
			}
			continue
		}
		want, _ := new(big.Rat).SetString(tc.want)
		if got == nil || got.Cmp(want) != 0 {
			t.Errorf("PassHat(%d, %d, %d) = %v, want %s", tc.c, tc.n, tc.k, got, tc.want)
			continue
		}
		if p := RatPercent(got); p != tc.percent {
			t.Errorf("RatPercent(PassHat(%d, %d, %d)) = %d, want %d", tc.c, tc.n, tc.k, p, tc.percent)
		}
	}
}

// TestPassAt checks 1 - C(n-c,k)/C(n,k) against the binomials written
// out: the worked examples of docs/metrics.md.
func TestPassAt(t *testing.T) {
	for _, tc := range []struct {
		c, n, k int64
		want    string // exact, "" for undefined
		percent int64
	}{
		{2, 5, 2, "7/10", 70},     // 1 - C(3,2)/C(5,2) = 1 - 3/10
		{2, 5, 1, "2/5", 40},      // pass@1 is the pass rate
		{2, 5, 3, "9/10", 90},     // 1 - C(3,3)/C(5,3) = 1 - 1/10
		{2, 5, 4, "1", 100},       // C(3,4) = 0: every draw of 4 holds a success
		{3, 4, 2, "1", 100},       // C(1,2) = 0
		{1, 4, 2, "1/2", 50},      // 1 - C(3,2)/C(4,2) = 1 - 3/6
		{1, 10, 5, "1/2", 50},     // 1 - C(9,5)/C(10,5) = 1 - 126/252
		{1, 10, 3, "3/10", 30},    // 1 - C(9,3)/C(10,3) = 1 - 84/120
		{3, 20, 5, "137/228", 60}, // 1 - C(17,5)/C(20,5) = 1 - 6188/15504
		{0, 4, 4, "0", 0},         // no success: never
		{4, 4, 1, "1", 100},       //
		{3, 4, 5, "", 0},          // k > n: undefined
		{3, 4, 0, "", 0},          //
	} {
		got := PassAt(tc.c, tc.n, tc.k)
		if tc.want == "" {
			if got != nil {
				t.Errorf("PassAt(%d, %d, %d) = %v, want undefined", tc.c, tc.n, tc.k, got)
			}
			continue
		}
		want, _ := new(big.Rat).SetString(tc.want)
		if got == nil || got.Cmp(want) != 0 {
			t.Errorf("PassAt(%d, %d, %d) = %v, want %s", tc.c, tc.n, tc.k, got, tc.want)
			continue
		}
		if p := RatPercent(got); p != tc.percent {
			t.Errorf("RatPercent(PassAt(%d, %d, %d)) = %d, want %d", tc.c, tc.n, tc.k, p, tc.percent)
		}
	}
}

// TestRounding pins half-up rounding at the two units: percents on cases,
// tenths of a percent on the suite summary.
func TestRounding(t *testing.T) {
	for _, tc := range []struct {
		r              string
		percent, tenth int64
	}{
		{"41/150", 27, 273}, // 27.333...
		{"1/8", 13, 125},    // 12.5 -> 13
		{"1/16", 6, 63},     // 6.25 -> 6, 62.5 -> 63
		{"21/50", 42, 420},
		{"0", 0, 0},
		{"1", 100, 1000},
		{"199/200", 100, 995}, // 99.5 -> 100
	} {
		r, _ := new(big.Rat).SetString(tc.r)
		if p := RatPercent(r); p != tc.percent {
			t.Errorf("RatPercent(%s) = %d, want %d", tc.r, p, tc.percent)
		}
		if p := RatTenths(r); p != tc.tenth {
			t.Errorf("RatTenths(%s) = %d, want %d", tc.r, p, tc.tenth)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		c, n int64
		want ReliabilityClass
	}{
		{4, 4, StablePass}, {0, 4, StableFail}, {3, 4, Flaky}, {1, 4, Flaky}, {1, 1, StablePass}, {0, 1, StableFail}, {0, 0, StableFail},
	} {
		if got := Classify(tc.c, tc.n); got != tc.want {
			t.Errorf("Classify(%d, %d) = %s, want %s", tc.c, tc.n, got, tc.want)
		}
	}
	if StablePass.Rank() >= Flaky.Rank() || Flaky.Rank() >= StableFail.Rank() || ReliabilityClass("x").Rank() != -1 {
		t.Errorf("ranks: %d %d %d", StablePass.Rank(), Flaky.Rank(), StableFail.Rank())
	}
}

// TestMeetsPercent decides floors on the decimal as written.
func TestMeetsPercent(t *testing.T) {
	for _, tc := range []struct {
		r    string
		p    float64
		want bool
	}{
		{"3/4", 75, true},
		{"2/3", 66.67, false},
		{"2/3", 66.66, true},
		{"573/1000", 57.3, true}, // 57.3 is not 57.29999... nor 57.300...01
		{"29/100", 29, true},
		{"7/10", 70.1, false},
		{"0", 0, true},
	} {
		r, _ := new(big.Rat).SetString(tc.r)
		if got := MeetsPercent(r, tc.p); got != tc.want {
			t.Errorf("MeetsPercent(%s, %v) = %v, want %v", tc.r, tc.p, got, tc.want)
		}
	}
}
