package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestParamBeforeSepGenerated is a generator test of a small write's hold
// for a URL's parameter that comes before the run's "://" (a "://" later
// in a run makes the whole run a URL, whose parameters the mask reads:
// "?token=…x://h" is masked whole). Drawn streams put such a parameter
// (each byte that may begin one: ? & ; # and JSON's \u0026, a key
// QueryKey names or not) after text that ends in a break or none, then
// the "://" and the rest of the run, and are written in small writes cut
// at drawn places, one of them, most times, at the parameter's first byte
// (so the bytes the writer holds begin with it once the text before was
// passed). The output is the whole text's mask, byte for byte.
func TestParamBeforeSepGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 245))
	before := []string{"", "a b", "ran\n", `x "`, "q", "see <"}
	starts := []string{"?", "&", ";", "#", `\u0026`}
	keys := []string{"token", "api_key", "sig", "code", "page", "x"}
	after := []string{"x://h/p", "://h", "https://h/x", ":/", "z"}
	ends := []string{"", " done", "\n", `"`}
	leaked := 0
	for i := range 3000 {
		k := &Known{}
		if r.IntN(4) == 0 {
			k.Add(fmt.Sprintf("known%x", r.Uint32()))
		}
		pre := before[r.IntN(len(before))]
		param := starts[r.IntN(len(starts))] + keys[r.IntN(len(keys))] + "=" + fmt.Sprintf("v%x", r.Uint64())
		if r.IntN(3) == 0 {
			param += "&" + keys[r.IntN(len(keys))] + "=" + fmt.Sprintf("w%x", r.Uint32())
		}
		text := pre + param + after[r.IntN(len(after))] + ends[r.IntN(len(ends))]
		want := k.Mask(text)
		// the cuts: at the parameter's first byte (most times), and up to
		// two more anywhere
		cuts := []int{}
		if r.IntN(4) != 0 && len(pre) > 0 {
			cuts = append(cuts, len(pre))
		}
		for range r.IntN(3) {
			cuts = append(cuts, 1+r.IntN(len(text)-1))
		}
		var got bytes.Buffer
		w := NewKnownWriter(&got, k)
		last := 0
		for _, c := range sortedUnique(cuts) {
			w.Write([]byte(text[last:c]))
			last = c
		}
		w.Write([]byte(text[last:]))
		w.Flush()
		if got.String() != want {
			t.Fatalf("draw %d: %q written cut at %v gives %q, want the whole text's mask %q", i, text, sortedUnique(cuts), got.String(), want)
		}
		if want != text {
			leaked++
		}
	}
	if leaked < 500 {
		t.Errorf("only %d of 3000 drawn streams hold a secret the mask changes: the rule is hardly drawn", leaked)
	}
}

// sortedUnique is the cuts in order, each once.
func sortedUnique(cuts []int) []int {
	out := slices.Clone(cuts)
	slices.Sort(out)
	return slices.Compact(out)
}
