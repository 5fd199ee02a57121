package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/report"
)

// TestBoundFindingsDrawn draws the findings of cases (a few gates and the
// case's own, every level, messages short and long, some of several-byte
// characters) and holds boundFindings to its rule: a gate keeps its
// first maxGateFindings findings in order, then one that counts the rest
// at their most severe level; each message is cut to maxFindingBytes on a
// character boundary, saying how much it lost; a case within the bounds
// is left as it is; and the verdict the findings give is the same.
func TestBoundFindingsDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 3))
	for i := range 400 {
		in := drawFindings(rng)
		res := &report.CaseResult{Findings: append([]report.Finding(nil), in...)}
		before := caseVerdict(&report.CaseResult{Findings: in}, false)
		boundFindings(res)
		if after := caseVerdict(res, false); after != before {
			t.Fatalf("case %d: verdict %s after, %s before", i, after, before)
		}
		if err := checkBound(in, res.Findings); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
}

// drawFindings draws a case's findings: most of one gate, every level,
// messages short, long (of one- to three-byte characters) and at the
// bound or a byte either side of it.
func drawFindings(rng *rand.Rand) []report.Finding {
	gates := []string{"", "equal_function_sets", "tool_edges", "expect_state", "no_calls"}
	levels := []string{"error", "warning", "notice", "info"}
	var in []report.Finding
	busy := gates[rng.IntN(len(gates))]
	// A case of short messages alone, of long ones alone, or of both.
	mode, n := rng.IntN(3), rng.IntN(6*maxGateFindings)
	if mode == 1 {
		n = rng.IntN(maxGateFindings + 1)
	}
	for range n {
		msg := fmt.Sprintf("finding %d ", len(in))
		kind := rng.IntN(12)
		switch mode {
		case 0:
			kind = 2 // short
		case 1:
			kind = rng.IntN(2) // long, or at the bound or a byte either side of it
		}
		switch kind {
		case 0:
			msg += strings.Repeat([]string{"a", "é", "日本"}[rng.IntN(3)], rng.IntN(3*maxFindingBytes))
		case 1:
			msg += strings.Repeat("b", maxFindingBytes-len(msg)-1+rng.IntN(3))
		}
		g := busy
		if rng.IntN(3) == 0 {
			g = gates[rng.IntN(len(gates))]
		}
		in = append(in, report.Finding{Level: levels[rng.IntN(len(levels))], Gate: g, Message: msg, Run: rng.IntN(3)})
	}
	return in
}

// checkBound checks out, what boundFindings made of in, against what the
// rule keeps of in: each gate's first maxGateFindings, in order, each
// message within maxFindingBytes, then one finding counting the rest at
// the level of the first of them at their most severe level.
func checkBound(in, out []report.Finding) error {
	kept, left, worst := map[string][]report.Finding{}, map[string]int{}, map[string]string{}
	for _, f := range in {
		if len(kept[f.Gate]) < maxGateFindings {
			kept[f.Gate] = append(kept[f.Gate], f)
			continue
		}
		if left[f.Gate] == 0 || severity(f.Level) > severity(worst[f.Gate]) {
			worst[f.Gate] = f.Level
		}
		left[f.Gate]++
	}
	seen := map[string]int{}
	for _, f := range out {
		k := seen[f.Gate]
		seen[f.Gate]++
		switch {
		case k > maxGateFindings:
			return fmt.Errorf("gate %q: %d findings", f.Gate, k+1)
		case k == maxGateFindings:
			want := fmt.Sprintf("%d more findings of this gate are not listed", left[f.Gate])
			if !strings.HasPrefix(f.Message, want) || f.Level != worst[f.Gate] {
				return fmt.Errorf("gate %q: the count of those left out is %s %q, want %q at %s", f.Gate, f.Level, f.Message, want, worst[f.Gate])
			}
		default:
			if err := checkKept(f, kept[f.Gate][k]); err != nil {
				return fmt.Errorf("gate %q, finding %d: %v", f.Gate, k, err)
			}
		}
	}
	for g, n := range left {
		if seen[g] != maxGateFindings+1 {
			return fmt.Errorf("gate %q: %d findings kept, %d left out", g, seen[g], n)
		}
	}
	return nil
}

// checkKept checks a finding kept against the one it was: the same but
// for a message over maxFindingBytes, cut on a character boundary to
// within 3 bytes of it, saying how many bytes it lost.
func checkKept(f, w report.Finding) error {
	if f.Level != w.Level || f.Run != w.Run || f.Gate != w.Gate || !utf8.ValidString(f.Message) {
		return fmt.Errorf("%+v, want %+v", f, w)
	}
	if len(w.Message) <= maxFindingBytes {
		if f.Message != w.Message {
			return fmt.Errorf("a message within the bound changed: %q", f.Message)
		}
		return nil
	}
	head, tail, ok := strings.Cut(f.Message, "… (")
	if !ok || len(head) > maxFindingBytes || len(head) < maxFindingBytes-3 || !strings.HasPrefix(w.Message, head) ||
		tail != fmt.Sprintf("%d more bytes not shown)", len(w.Message)-len(head)) {
		return fmt.Errorf("a message of %d bytes cut to %d (%q)", len(w.Message), len(f.Message), f.Message[max(0, len(f.Message)-60):])
	}
	return nil
}

// TestAddGateSameFactsDrawn draws the findings of a few gates (facts
// repeated within a gate and across gates, few and many) and holds
// addGate to its rule, whether it compares one by one or through a set:
// a finding whose level, run and message a finding already added has is
// not added again, and the rest keep their order.
func TestAddGateSameFactsDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 9))
	for i := range 500 {
		res := &report.CaseResult{}
		var want []report.Finding
		for range 1 + rng.IntN(4) {
			var g gate.Result
			for range rng.IntN(3 * manyFindings) {
				g.Findings = append(g.Findings, gate.Finding{Level: []string{"error", "notice"}[rng.IntN(2)], Gate: "g",
					Message: fmt.Sprintf("fact %d", rng.IntN(40)), Run: rng.IntN(2)})
			}
			for _, f := range g.Findings {
				if !slices.ContainsFunc(want, func(e report.Finding) bool {
					return e.Level == f.Level && e.Run == f.Run && e.Message == f.Message
				}) {
					want = append(want, report.Finding{Level: f.Level, Gate: f.Gate, Message: f.Message, Run: f.Run})
				}
			}
			addGate(res, g)
		}
		if !slices.Equal(res.Findings, want) {
			t.Fatalf("draw %d: %d findings, want %d", i, len(res.Findings), len(want))
		}
	}
}
