package world

import "math"

// Golden is the outcome of comparing a recorded call sequence with a
// scenario's golden trajectory.
//
//   - Exact: the recorded names equal golden.calls, in order.
//   - Alternate: not exact, and the recorded names equal one of
//     golden.alternates, in order.
//   - Matched: Exact or Alternate.
//   - Penalty: the edit distance (insertions, deletions and substitutions
//     of one call name, each costing 1) between the recorded sequence and
//     the nearest accepted sequence (golden.calls or any alternate). It is
//     0 exactly when Matched.
//   - Efficiency: an integer percent, 100 × L / max(R, L), rounded half
//     away from zero, where R is the number of recorded calls and L the
//     length of the shortest accepted sequence (golden.calls or any
//     alternate). It measures wasted calls against the cheapest accepted
//     path: 100 when the agent made no more calls than that path needs, 75
//     for 4 calls where 3 suffice, 50 for twice as many. An accepted but
//     longer alternate therefore scores below 100. An agent that stopped
//     short is not inefficient but wrong, which Penalty and the final
//     state show. No recorded calls and an empty golden path is 100.
type Golden struct {
	Exact, Alternate, Matched bool
	Penalty                   int
	Efficiency                float64
	// Nearest is the index of the accepted sequence nearest the recording
	// (the shorter on a tie): 0 for golden.calls, i+1 for alternates[i].
	Nearest int
}

// Score compares recorded with calls and alternates.
func Score(recorded, calls []string, alternates [][]string) Golden {
	var g Golden
	accepted := append([][]string{calls}, alternates...)
	best, bestLen := -1, 0
	for i, seq := range accepted {
		d := EditDistance(recorded, seq)
		if best < 0 || d < g.Penalty || (d == g.Penalty && len(seq) < bestLen) {
			best, bestLen, g.Penalty = i, len(seq), d
		}
		if d == 0 {
			if i == 0 {
				g.Exact = true
			} else if !g.Exact {
				g.Alternate = true
			}
		}
	}
	g.Nearest = best
	g.Matched = g.Exact || g.Alternate
	shortest := len(calls)
	for _, alt := range alternates {
		shortest = min(shortest, len(alt))
	}
	denom := max(len(recorded), shortest)
	if denom == 0 {
		g.Efficiency = 100
	} else {
		g.Efficiency = math.Round(100 * float64(shortest) / float64(denom))
	}
	return g
}

// EditDistance is the Levenshtein distance between two name sequences.
func EditDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
