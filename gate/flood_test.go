package gate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// TestTallyBoundedDrawn draws sequences of names (few and many distinct,
// repeated, added in counts) and holds a tally to its rule: it names the
// first maxNamed distinct names in first-seen order with their exact
// counts, counts the rest in more, and its sum is every count added;
// adding one tally to another (addTally) keeps the same sum.
func TestTallyBoundedDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 1))
	for range 300 {
		distinct := 1 + rng.IntN(4*maxNamed)
		var tl, merged tally
		var firstSeen []string
		counts := map[string]int{}
		total := 0
		for range rng.IntN(2000) {
			name := fmt.Sprintf("tool_%d", rng.IntN(distinct))
			k := 1 + rng.IntN(3)
			if counts[name] == 0 {
				firstSeen = append(firstSeen, name)
			}
			counts[name] += k
			total += k
			tl.addN(name, k)
		}
		want := firstSeen[:min(len(firstSeen), maxNamed)]
		if !slices.Equal(tl.order, want) {
			t.Fatalf("named %v, want the first %d seen %v", tl.order, maxNamed, want)
		}
		for _, name := range tl.order {
			if tl.n[name] != counts[name] {
				t.Fatalf("%s counted %d, want %d", name, tl.n[name], counts[name])
			}
		}
		if len(tl.n) != len(tl.order) || tl.sum() != total {
			t.Fatalf("%d counted under %d names, sum %d, want %d", len(tl.n), len(tl.order), tl.sum(), total)
		}
		merged.addTally(&tl)
		merged.addTally(&tl)
		if merged.sum() != 2*total || len(merged.order) > maxNamed {
			t.Fatalf("two tallies added: sum %d, want %d, %d names", merged.sum(), 2*total, len(merged.order))
		}
	}
}

// floodRun is one run whose calls each name a tool drawn from distinct
// names (a new name with nearly every call when distinct is large), with
// long names now and then, on one server or none.
func floodRun(rng *rand.Rand, calls, distinct int) cassette.Run {
	var r cassette.Run
	turn := cassette.Turn{}
	for range calls {
		name := fmt.Sprintf("t%d", rng.IntN(distinct))
		if rng.IntN(50) == 0 {
			name += strings.Repeat("x", rng.IntN(9000))
		}
		server := "s"
		if rng.IntN(4) == 0 {
			server = ""
		}
		turn.Calls = append(turn.Calls, cassette.Call{Server: server, Tool: name, Arguments: cassette.JSON(`{"q":1}`)})
	}
	r.Turns = []cassette.Turn{turn}
	return r
}

// TestGatesNameFloodsBounded feeds every gate that names the tools of a
// recording (selection F1, token efficiency, tool edges, arguments,
// budget) runs of drawn floods of tool names and
// holds what each says to a bound that does not grow with the calls: no
// more than maxNamed plus a few findings (its summary and the gate's own
// lines), and no finding of more than maxNamed names' worth of text.
func TestGatesNameFloodsBounded(t *testing.T) {
	// The bounds, written out (not the constants they follow from, so
	// that raising a constant fails here): 50 names, 50 violations of
	// arguments:, a few lines of each gate's own; 50 names of at most
	// 9,000 bytes in one line.
	const floodFindings, floodMessage = 104, 50*9100 + 1000
	rng := rand.New(rand.NewPCG(60, 2))
	classes := []Class{{Name: "a", Members: []string{"s.t0"}}, {Name: "b", Members: []string{"s.t1"}}}
	for i := range 12 {
		runs, calls, distinct := 1+rng.IntN(5), 500+rng.IntN(3000), 1+rng.IntN(20000)
		sel := NewSelectionBy(classes, Counting(rng.IntN(2)))
		te := NewTokenEfficiency(classes)
		edges := NewEdges(Edges{Allowed: []string{"s.t0", "s.t1"}, Restricted: []string{"s.t2"}})
		args := NewArguments(ArgumentsConfig{})
		one := int64(1)
		budget := NewBudget(Budget{MaxCalls: &one})
		var fp int64
		for run := range runs {
			r := floodRun(rng, calls, distinct)
			fp += sel.Add(&r).FP
			te.Add(&r)
			edges.Add(&r)
			budget.Add(&r)
			args.Add(run+1, &r, nil)
		}
		for name, res := range map[string]Result{"selection": sel.Result(), "tokens": te.Result(), "edges": edges.Result(), "arguments": args.Result(), "budget": budget.Result()} {
			if len(res.Findings) > floodFindings {
				t.Errorf("flood %d (%d runs of %d calls over %d names), %s: %d findings", i, runs, calls, distinct, name, len(res.Findings))
			}
			for _, f := range res.Findings {
				if len(f.Message) > floodMessage {
					t.Errorf("flood %d, %s: a finding of %d bytes", i, name, len(f.Message))
				}
			}
		}
		if got := sel.Result().Counts["tool_selection.fp"]; got != fp {
			t.Errorf("flood %d: tool_selection.fp %d, the runs' false positives %d", i, got, fp)
		}
	}
}
