package annotate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Trend is how the floors of a suite moved over a window of runs (the
// last baselines of the default branch, then the run at hand), as the
// Action shows it. The Action takes it from the history package's model
// (history.History.Trend), the one fold of a window: nothing here counts
// a flip or decides a slide.
type Trend struct {
	// Points label the runs, oldest first ("run 41", "this run").
	Points []string
	// Baselines counts the points that are baselines (the rest is the run
	// at hand).
	Baselines int
	// Floors are the series: each suite floor, then each case's
	// certified_lower, in the order they first appear.
	Floors []TrendSeries
	// Flips are the cases whose verdict flipped at least once, most
	// flips first, then by name.
	Flips []TrendFlips
	// Fallen are the floors whose last figure is below their first, the
	// largest fall first, then by name.
	Fallen []TrendSlide
	// Sustained are the floors that slid past the window's threshold by
	// history's one rule (history.Sustained); none when the threshold is 0.
	Sustained []TrendSlide
}

// TrendSeries is one floor's figure run by run; NaN where a run has none.
type TrendSeries struct {
	Name   string
	Values []float64
}

// TrendFlips counts a case's verdict flips; Last labels the run of its
// latest.
type TrendFlips struct {
	Case  string
	Flips int
	Last  string
}

// TrendSlide is a floor that fell over the window: its first and last
// figure and how many runs hold one.
type TrendSlide struct {
	Floor       string
	First, Last float64
	Runs        int
}

// Fall is how many points the floor lost.
func (s TrendSlide) Fall() float64 { return s.First - s.Last }

// Span is a series' first and last figure and how many runs hold one; ok
// is false with fewer than two.
func (s TrendSeries) Span() (first, last float64, n int, ok bool) {
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

// The trend block's bounds: the floors and cases it lists, and how many of
// each floor's last figures it shows.
const (
	MaxTrendFloors = 30
	MaxTrendCases  = 5
	MaxTrendValues = 12
	// MaxSlideLines bounds the sliding-floor lines of a comment.
	MaxSlideLines = 10
)

// TrendFigure renders a floor's figure: at most three decimals, no
// trailing zeros (84, 79.5, 61.234); "–" for a run without one.
func TrendFigure(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// TrendWindow says what a window is made of: "10 baselines" or "11 runs
// (10 baselines and this run)".
func TrendWindow(t *Trend) string {
	if len(t.Points) == t.Baselines {
		return pluralize(t.Baselines, "baseline", "baselines")
	}
	return fmt.Sprintf("%d runs (%s and this run)", len(t.Points), pluralize(t.Baselines, "baseline", "baselines"))
}

// SlideLine is the one line of a floor that fell over the window, its
// name escaped for markdown: "certified_lower of X: 84 -> 79 over 11 runs
// (10 baselines and this run)".
func SlideLine(s TrendSlide, t *Trend) string {
	return fmt.Sprintf("%s: %s -> %s over %s", Text(s.Floor, 200), TrendFigure(s.First), TrendFigure(s.Last), TrendWindow(t))
}

// slideBlock is the sliding-floor lines of the summary, the comment and
// the drift issue: one per floor whose figure fell over the window, even
// when no floor flipped, the largest fall first, at most MaxSlideLines.
func (r ActionReport) slideBlock() (block, bool) {
	if r.Trend == nil {
		return block{}, false
	}
	slides := r.Trend.Fallen
	if len(slides) == 0 {
		return block{}, false
	}
	bl := block{head: fmt.Sprintf("**Floors that fell over the last %s:**\n\n", TrendWindow(r.Trend)), tail: "\n"}
	for i, s := range slides {
		if i == MaxSlideLines {
			bl.rows = append(bl.rows, fmt.Sprintf("- _%d more in the job summary's history_\n", len(slides)-i))
			break
		}
		bl.rows = append(bl.rows, "- "+SlideLine(s, r.Trend)+"\n")
	}
	return bl, true
}

// trendBlocks are the job summary's compact trend: the last figures of
// each floor (the falling ones first) and the cases that flip most.
func (r ActionReport) trendBlocks() []block {
	t := r.Trend
	if t == nil || len(t.Points) == 0 {
		return nil
	}
	var out []block
	head := fmt.Sprintf("#### History: the last %s\n\n", TrendWindow(t))
	if r.HistoryPage != "" {
		head += fmt.Sprintf("The page with a chart per figure is the artifact holding `%s`.\n\n", Text(r.HistoryPage, 200))
	}
	floors := orderFloors(t)
	if len(floors) == 0 {
		head += "No floor has a figure in these runs.\n\n"
		out = append(out, block{head: head})
	} else {
		from := max(0, len(t.Points)-MaxTrendValues)
		bl := block{head: head + fmt.Sprintf("| floor | %s (oldest → newest) | change |\n| --- | --- | --- |\n", pluralize(len(t.Points)-from, "run", "runs")), tail: "\n"}
		for i, s := range floors {
			if i == MaxTrendFloors {
				bl.tail = fmt.Sprintf("\n_%d more floors are on the history page._\n\n", len(floors)-i)
				break
			}
			vals := make([]string, 0, len(s.Values)-from)
			for _, v := range s.Values[from:] {
				vals = append(vals, TrendFigure(v))
			}
			change := "–"
			if first, last, _, ok := s.Span(); ok {
				change = signed(last - first)
			}
			bl.rows = append(bl.rows, fmt.Sprintf("| %s | %s | %s |\n", Text(s.Name, 200), strings.Join(vals, " · "), change))
		}
		out = append(out, bl)
	}
	if len(t.Flips) > 0 {
		bl := block{head: "| case that flips most | flips | latest |\n| --- | --- | --- |\n", tail: "\n"}
		for i, f := range t.Flips {
			if i == MaxTrendCases {
				break
			}
			bl.rows = append(bl.rows, fmt.Sprintf("| %s | %d | %s |\n", Text(f.Case, 200), f.Flips, Text(f.Last, 100)))
		}
		out = append(out, bl)
	}
	return out
}

// orderFloors puts the floors that fell first, largest fall first, then
// the others in the order they appear.
func orderFloors(t *Trend) []TrendSeries {
	byName := map[string]TrendSeries{}
	for _, s := range t.Floors {
		byName[s.Name] = s
	}
	var out []TrendSeries
	fell := map[string]bool{}
	for _, sl := range t.Fallen {
		out = append(out, byName[sl.Floor])
		fell[sl.Floor] = true
	}
	for _, s := range t.Floors {
		if !fell[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// signed renders a change with its sign: +2, -5, 0.
func signed(d float64) string {
	s := TrendFigure(d)
	if d > 0 {
		return "+" + s
	}
	return s
}

// seriesText is a series' figures, oldest first: "84 · 83 · – · 79".
func seriesText(s TrendSeries) string {
	vals := make([]string, len(s.Values))
	for i, v := range s.Values {
		vals[i] = TrendFigure(v)
	}
	return strings.Join(vals, " · ")
}

// TrendText is the compact trend as plain lines for a log, untrusted names
// made printable (Clean): each floor's last figures (the falling ones
// first), then the cases that flip most; at most MaxTrendFloors and
// MaxTrendCases lines.
func TrendText(t *Trend) []string {
	var out []string
	from := max(0, len(t.Points)-MaxTrendValues)
	for i, s := range orderFloors(t) {
		if i == MaxTrendFloors {
			break
		}
		change := "–"
		if first, last, _, ok := s.Span(); ok {
			change = signed(last - first)
		}
		out = append(out, fmt.Sprintf("%s: %s (%s)", Clean(clip(s.Name, 200)), seriesText(TrendSeries{Values: s.Values[from:]}), change))
	}
	for i, f := range t.Flips {
		if i == MaxTrendCases {
			break
		}
		out = append(out, fmt.Sprintf("flips: %s %s, latest at %s", Clean(clip(f.Case, 200)), pluralize(f.Flips, "time", "times"), Clean(f.Last)))
	}
	return out
}
