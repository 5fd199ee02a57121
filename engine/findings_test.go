package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

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
	gates := []string{"", "equal_function_sets", "tool_edges", "expect_state", "no_calls"}
	levels := []string{"error", "warning", "notice", "info"}
	for i := range 400 {
		var in []report.Finding
		busy := gates[rng.IntN(len(gates))] // most findings are of one gate
		for range rng.IntN(6 * maxGateFindings) {
			msg := fmt.Sprintf("finding %d ", len(in))
			switch rng.IntN(12) {
			case 0:
				msg += strings.Repeat([]string{"a", "é", "日本"}[rng.IntN(3)], rng.IntN(3*maxFindingBytes))
			case 1: // at the bound, and a byte either side of it
				msg += strings.Repeat("b", maxFindingBytes-len(msg)-1+rng.IntN(3))
			}
			g := busy
			if rng.IntN(3) == 0 {
				g = gates[rng.IntN(len(gates))]
			}
			in = append(in, report.Finding{Level: levels[rng.IntN(len(levels))], Gate: g, Message: msg, Run: rng.IntN(3)})
		}
		res := &report.CaseResult{Findings: append([]report.Finding(nil), in...)}
		before := caseVerdict(&report.CaseResult{Findings: in}, false)
		boundFindings(res)
		if after := caseVerdict(res, false); after != before {
			t.Fatalf("case %d: verdict %s after, %s before", i, after, before)
		}
		// What each gate keeps, and what it leaves out, from the input.
		// worst is the level of the first of those left out at the most
		// severe level among them.
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
		for _, f := range res.Findings {
			k := seen[f.Gate]
			seen[f.Gate]++
			if k == maxGateFindings {
				want := fmt.Sprintf("%d more findings of this gate are not listed", left[f.Gate])
				if !strings.HasPrefix(f.Message, want) || f.Level != worst[f.Gate] {
					t.Fatalf("case %d, gate %q: the count of those left out is %s %q, want %q at %s", i, f.Gate, f.Level, f.Message, want, worst[f.Gate])
				}
				continue
			}
			if k > maxGateFindings {
				t.Fatalf("case %d, gate %q: %d findings", i, f.Gate, k+1)
			}
			w := kept[f.Gate][k]
			if f.Level != w.Level || f.Run != w.Run || f.Gate != w.Gate || !utf8.ValidString(f.Message) {
				t.Fatalf("case %d, gate %q, finding %d: %+v, want %+v", i, f.Gate, k, f, w)
			}
			if len(w.Message) <= maxFindingBytes {
				if f.Message != w.Message {
					t.Fatalf("case %d: a message within the bound changed: %q", i, f.Message)
				}
				continue
			}
			head, tail, ok := strings.Cut(f.Message, "… (")
			if !ok || len(head) > maxFindingBytes || len(head) < maxFindingBytes-3 || !strings.HasPrefix(w.Message, head) ||
				tail != fmt.Sprintf("%d more bytes not shown)", len(w.Message)-len(head)) {
				t.Fatalf("case %d: a message of %d bytes cut to %d (%q)", i, len(w.Message), len(f.Message), f.Message[max(0, len(f.Message)-60):])
			}
		}
		for g, n := range left {
			if seen[g] != maxGateFindings+1 {
				t.Fatalf("case %d, gate %q: %d findings kept, %d left out", i, g, seen[g], n)
			}
		}
	}
}
