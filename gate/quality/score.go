package quality

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Heuristics names the six TDQS heuristics, in the order Scores reports
// them.
var Heuristics = []string{"presence", "length", "parameters", "conciseness", "return_format", "annotations"}

// Scores returns the six TDQS heuristic scores of a tool, each 0..1:
//
//   - presence: 1 when the description is not blank.
//   - length: 1 for 20..500 characters, 0.5 for under 20 or 501..1000,
//     0.25 over 1000, 0 when blank.
//   - parameters: the share of input properties that carry a description
//     (1 for a tool without properties).
//   - conciseness: 1 when no argument is described at more length than the
//     tool and the description is at most 500 characters; 0.5 when one of
//     the two fails, 0 when both do.
//   - return_format: 1 when the description says what comes back or the
//     tool declares an outputSchema.
//   - annotations: 1 for an annotations object whose hints are all
//     booleans, 0.5 for one with a non-boolean hint, 0 for none.
func Scores(t Tool) []float64 {
	desc := strings.TrimSpace(t.Description)
	n := utf8.RuneCountInString(desc)
	out := make([]float64, 6)
	if n > 0 {
		out[0] = 1
	}
	switch {
	case n == 0:
	case n < MinDescription:
		out[1] = 0.5
	case n <= MaxDescription:
		out[1] = 1
	case n <= 2*MaxDescription:
		out[1] = 0.5
	default:
		out[1] = 0.25
	}
	ps := t.params()
	out[2] = 1
	if len(ps) > 0 {
		documented := 0
		for _, p := range ps {
			if strings.TrimSpace(p.description()) != "" {
				documented++
			}
		}
		out[2] = float64(documented) / float64(len(ps))
	}
	out[3] = 1
	if n > MaxDescription {
		out[3] -= 0.5
	}
	for _, p := range ps {
		if utf8.RuneCountInString(p.description()) > n {
			out[3] -= 0.5
			break
		}
	}
	if t.OutputSchema != nil || returnRE().MatchString(desc) {
		out[4] = 1
	}
	if t.HasAnnotations && t.Annotations != nil {
		out[5] = 1
		if _, _, fired := Rules[10].check(t); fired { // DESC-011
			out[5] = 0.5
		}
	}
	return out
}

// Score is a tool's TDQS score: the mean of its six heuristic scores,
// rounded to two decimals.
func Score(t Tool) float64 {
	sum := 0.0
	for _, s := range Scores(t) {
		sum += s
	}
	return round2(sum / 6)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
