package baseline

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// A Trend is how the floors of a suite moved over a window of runs (the
// last baselines of the default branch, then the run at hand), as the
// Action shows it: each floor's figure run by run, and how often each case
// flipped. It reads only floors, per-case figures, names and verdicts of
// each envelope, never evidence, and holds one envelope at a time
// (TrendBuilder.Add), so a long window costs a value per floor and run.
type Trend struct {
	// Points label the runs, oldest first ("run 41", "this run").
	Points []string
	// Baselines counts the points that are baselines (the rest is the run
	// at hand).
	Baselines int
	// Floors are the series, in the order they first appear: the suite's
	// floors (by target), then each case's certified lower bounds.
	Floors []FloorSeries
	// Flips are the cases that flipped between pass and fail at least
	// once, most flips first, then by name.
	Flips []CaseFlips
}

// FloorSeries is one floor's figure run by run; NaN where a run has none.
type FloorSeries struct {
	Name   string
	Values []float64
}

// CaseFlips counts a case's pass <-> fail changes between consecutive runs
// that both hold it; Last labels the run of its latest flip.
type CaseFlips struct {
	Case  string
	Flips int
	Last  string
}

// TrendBuilder reads a window's envelopes one at a time, oldest first.
type TrendBuilder struct {
	t       Trend
	byName  map[string]int
	verdict map[string]report.Verdict
	flips   map[string]*CaseFlips
}

// NewTrendBuilder starts an empty window.
func NewTrendBuilder() *TrendBuilder {
	return &TrendBuilder{byName: map[string]int{}, verdict: map[string]report.Verdict{}, flips: map[string]*CaseFlips{}}
}

// Add reads the next run of the window; baseline says whether it is one of
// the default branch's baselines.
func (b *TrendBuilder) Add(label string, env *report.Envelope, baseline bool) {
	k := len(b.t.Points)
	b.t.Points = append(b.t.Points, label)
	if baseline {
		b.t.Baselines++
	}
	for i := range b.t.Floors {
		b.t.Floors[i].Values = append(b.t.Floors[i].Values, math.NaN())
	}
	for _, f := range env.Floors {
		if v, ok := number(f.Actual); ok && !f.Deferred {
			b.set(k, "suite floor "+f.Target, v)
		}
	}
	for _, c := range env.Cases {
		if c == nil {
			continue
		}
		for _, target := range certifiedTargets(c.Targets) {
			name := strings.TrimPrefix(target, "reliability.")
			b.set(k, name+" of "+c.Name, c.Targets[target])
		}
		if c.Verdict != report.Pass && c.Verdict != report.Fail {
			continue
		}
		if prev, ok := b.verdict[c.Name]; ok && prev != c.Verdict {
			cf := b.flips[c.Name]
			if cf == nil {
				cf = &CaseFlips{Case: c.Name}
				b.flips[c.Name] = cf
			}
			cf.Flips++
			cf.Last = label
		}
		b.verdict[c.Name] = c.Verdict
	}
}

// certifiedTargets are a case's certified lower bounds, in name order.
func certifiedTargets(targets map[string]float64) []string {
	var out []string
	for t := range targets {
		if strings.HasSuffix(t, "certified_lower") {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func (b *TrendBuilder) set(k int, name string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	i, ok := b.byName[name]
	if !ok {
		i = len(b.t.Floors)
		b.byName[name] = i
		vals := make([]float64, k+1)
		for j := range vals {
			vals[j] = math.NaN()
		}
		b.t.Floors = append(b.t.Floors, FloorSeries{Name: name, Values: vals})
	}
	b.t.Floors[i].Values[k] = v
}

// number reads a floor's actual figure: a JSON number, decoded as float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// Trend is the window read so far.
func (b *TrendBuilder) Trend() *Trend {
	t := b.t
	t.Floors = slices.Clone(b.t.Floors)
	t.Flips = t.Flips[:0:0]
	for _, cf := range b.flips {
		t.Flips = append(t.Flips, *cf)
	}
	slices.SortFunc(t.Flips, func(a, b CaseFlips) int {
		if a.Flips != b.Flips {
			return b.Flips - a.Flips
		}
		return strings.Compare(a.Case, b.Case)
	})
	return &t
}

// Span is a series' first and last figure and how many runs hold one; ok
// is false with fewer than two.
func (s FloorSeries) Span() (first, last float64, n int, ok bool) {
	first, last = math.NaN(), math.NaN()
	for _, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		if n == 0 {
			first = v
		}
		last = v
		n++
	}
	return first, last, n, n >= 2
}

// Slope is the least-squares slope of the series in points per run (runs
// without a figure left out); 0 with fewer than two figures.
func (s FloorSeries) Slope() float64 {
	var n, sx, sy, sxx, sxy float64
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		x := float64(i)
		n++
		sx += x
		sy += v
		sxx += x * x
		sxy += x * v
	}
	d := n*sxx - sx*sx
	if n < 2 || d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// Fallen reports whether the floor's last figure is below its first.
func (s FloorSeries) Fallen() bool {
	first, last, _, ok := s.Span()
	return ok && last < first
}

// Slide is a floor that fell over the window: its first and last figure
// and how many runs hold one.
type Slide struct {
	Floor       string
	First, Last float64
	Runs        int
}

// Fall is how many points the floor lost.
func (s Slide) Fall() float64 { return s.First - s.Last }

// Slides are the floors whose last figure is below their first, the
// largest fall first (then by name).
func (t *Trend) Slides() []Slide {
	var out []Slide
	for _, s := range t.Floors {
		if first, last, n, ok := s.Span(); ok && last < first {
			out = append(out, Slide{Floor: s.Name, First: first, Last: last, Runs: n})
		}
	}
	slices.SortStableFunc(out, func(a, b Slide) int {
		if a.Fall() != b.Fall() {
			if a.Fall() > b.Fall() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Floor, b.Floor)
	})
	return out
}

// MinSustained is the fewest runs with a figure a slide needs to count as
// sustained.
const MinSustained = 3

// Sustained are the slides past threshold points that are sustained: the
// floor fell by at least threshold from its first figure to its last, over
// at least MinSustained runs, and its least-squares slope over the window
// points down (a single bad run at the end of a flat series does not
// count, nor one dip that recovered). threshold <= 0 finds none.
func (t *Trend) Sustained(threshold float64) []Slide {
	if threshold <= 0 {
		return nil
	}
	var out []Slide
	for _, sl := range t.Slides() {
		if sl.Fall() < threshold || sl.Runs < MinSustained {
			continue
		}
		for _, s := range t.Floors {
			if s.Name == sl.Floor && s.Slope() < 0 && sustainedBelow(s.Values, sl.First) {
				out = append(out, sl)
			}
		}
	}
	return out
}

// sustainedBelow reports whether the second half of the figures stays
// below the first figure: the floor is down, not back up.
func sustainedBelow(values []float64, first float64) bool {
	var vs []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	for _, v := range vs[len(vs)/2:] {
		if v >= first {
			return false
		}
	}
	return true
}
