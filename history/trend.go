package history

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/annotate"
)

// Trend is the Action's view of the history (annotate.Trend): the suite
// of the window's newest run (the run at hand), each run named by its
// Run.Name ("run 41", "this run"), every run before the newest a
// baseline and the newest one when lastIsBaseline. Its floors are the
// suite's floors ("suite floor <target>") and each case's certified_lower
// ("certified_lower of <case>"); Fallen are those whose last figure is
// below their first, Sustained those among Suite.Slides (the one slide
// rule, Sustained, at the fold's SlideThreshold), none at threshold 0.
// Nil for an empty window.
func (h *History) Trend(lastIsBaseline bool) *annotate.Trend {
	if len(h.Runs) == 0 {
		return nil
	}
	newest := h.Runs[len(h.Runs)-1]
	i := slices.IndexFunc(h.Suites, func(s Suite) bool { return s.Path == newest.Suite })
	if i < 0 {
		return nil
	}
	s := &h.Suites[i]
	t := &annotate.Trend{Baselines: len(s.Runs) - 1}
	if lastIsBaseline {
		t.Baselines++
	}
	for _, r := range s.Runs {
		t.Points = append(t.Points, h.Runs[r].Name)
	}
	pick := func(vs []float64) []float64 {
		out := make([]float64, len(s.Runs))
		for j, r := range s.Runs {
			out[j] = vs[r]
		}
		return out
	}
	for _, f := range s.Floors {
		t.Floors = append(t.Floors, annotate.TrendSeries{Name: floorName("", f.Figure, f.Target), Values: pick(f.Values)})
	}
	for c := range s.Cases {
		ca := &s.Cases[c]
		if cl := ca.Figure(CertifiedLower); cl != nil {
			t.Floors = append(t.Floors, annotate.TrendSeries{Name: floorName(ca.Name, CertifiedLower, ""), Values: pick(cl.Values)})
		}
		if len(ca.Flips) > 0 {
			t.Flips = append(t.Flips, annotate.TrendFlips{Case: ca.Name, Flips: len(ca.Flips), Last: h.Runs[ca.Flips[len(ca.Flips)-1].Run].Name})
		}
	}
	slices.SortStableFunc(t.Flips, func(a, b annotate.TrendFlips) int {
		return cmp.Or(b.Flips-a.Flips, strings.Compare(a.Case, b.Case))
	})
	for _, f := range t.Floors {
		if first, last, n, ok := f.Span(); ok && last < first {
			t.Fallen = append(t.Fallen, annotate.TrendSlide{Floor: f.Name, First: first, Last: last, Runs: n})
		}
	}
	slices.SortStableFunc(t.Fallen, func(a, b annotate.TrendSlide) int {
		return cmp.Or(cmp.Compare(b.Fall(), a.Fall()), strings.Compare(a.Floor, b.Floor))
	})
	if h.SlideThreshold > 0 {
		for _, sl := range s.Slides {
			if (sl.Case == "" && sl.Target != "") || (sl.Case != "" && sl.Figure == CertifiedLower) {
				t.Sustained = append(t.Sustained, annotate.TrendSlide{Floor: floorName(sl.Case, sl.Figure, sl.Target), First: sl.From, Last: sl.To, Runs: sl.Points})
			}
		}
	}
	return t
}

// floorName names a floor of the Action's trend: "suite floor <target>"
// for a suite floor, "certified_lower of <case>" for a case's figure.
func floorName(caseName string, f Figure, target string) string {
	if caseName == "" {
		return "suite floor " + target
	}
	return f.ID() + " of " + caseName
}
