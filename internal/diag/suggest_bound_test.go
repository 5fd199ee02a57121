package diag

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBandDistanceAgrees holds the banded distance to the full Levenshtein
// distance over generated pairs: equal where the full one is within the
// band, -1 where it is not.
func TestBandDistanceAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 2))
	word := func() string {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteByte("abcé-"[r.IntN(5)])
		}
		return b.String()
	}
	for range 20000 {
		a, b, k := word(), word(), r.IntN(6)
		full := distance(a, b)
		want := full
		if full > k {
			want = -1
		}
		if got := bandDistance([]rune(a), []rune(b), k); got != want {
			t.Fatalf("bandDistance(%q, %q, %d) = %d, want %d (full distance %d)", a, b, k, got, want, full)
		}
	}
}

// TestSuggestBounded: a word over MaxSuggestWord gets no suggestion, and
// a search over MaxSuggestWork cells is not made, so a hostile name costs
// nothing; near typos are still found.
func TestSuggestBounded(t *testing.T) {
	names := make([]string, 3000)
	for i := range names {
		names[i] = "model-" + strings.Repeat("x", i%40) + "-v" + string(rune('a'+i%26))
	}
	if got := Suggest("model-xx-vb", names); got != "model-xx-vb" && got == "" {
		t.Errorf("no suggestion for a near name")
	}
	if got := Suggest(strings.Repeat("m", MaxSuggestWord+1), names); got != "" {
		t.Errorf("a word over %d bytes got %q", MaxSuggestWord, got)
	}
	if got := Suggest("gpt-4", []string{"gpt-4o"}); got != "gpt-4o" {
		t.Errorf("Suggest(gpt-4) = %q", got)
	}
	many := make([]string, MaxSuggestWork/100)
	for i := range many {
		many[i] = "n"
	}
	if got := Suggest(strings.Repeat("n", 100), many); got != "" {
		t.Errorf("a search over MaxSuggestWork was made: %q", got)
	}
}

// distance is the full Levenshtein edit distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
