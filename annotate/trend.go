package annotate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/baseline"
)

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
func TrendWindow(t *baseline.Trend) string {
	if len(t.Points) == t.Baselines {
		return pluralize(t.Baselines, "baseline", "baselines")
	}
	return fmt.Sprintf("%d runs (%s and this run)", len(t.Points), pluralize(t.Baselines, "baseline", "baselines"))
}

// SlideLine is the one line of a floor that fell over the window, its
// name escaped for markdown: "certified_lower of X: 84 -> 79 over 11 runs
// (10 baselines and this run)".
func SlideLine(s baseline.Slide, t *baseline.Trend) string {
	return fmt.Sprintf("%s: %s -> %s over %s", Text(s.Floor, 200), TrendFigure(s.First), TrendFigure(s.Last), TrendWindow(t))
}

// slideBlock is the sliding-floor lines of the summary, the comment and
// the drift issue: one per floor whose figure fell over the window, even
// when no floor flipped, the largest fall first, at most MaxSlideLines.
func (r ActionReport) slideBlock() (block, bool) {
	if r.Trend == nil {
		return block{}, false
	}
	slides := r.Trend.Slides()
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
func orderFloors(t *baseline.Trend) []baseline.FloorSeries {
	byName := map[string]baseline.FloorSeries{}
	for _, s := range t.Floors {
		byName[s.Name] = s
	}
	var out []baseline.FloorSeries
	fell := map[string]bool{}
	for _, sl := range t.Slides() {
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
func seriesText(s baseline.FloorSeries) string {
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
func TrendText(t *baseline.Trend) []string {
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
		out = append(out, fmt.Sprintf("%s: %s (%s)", Clean(clip(s.Name, 200)), seriesText(baseline.FloorSeries{Values: s.Values[from:]}), change))
	}
	for i, f := range t.Flips {
		if i == MaxTrendCases {
			break
		}
		out = append(out, fmt.Sprintf("flips: %s %s, latest at %s", Clean(clip(f.Case, 200)), pluralize(f.Flips, "time", "times"), Clean(f.Last)))
	}
	return out
}
