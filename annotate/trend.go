package annotate

import (
	"fmt"
	"html"
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

// MaxPageFloors bounds the charts of the Action's own history page.
const MaxPageFloors = 500

// TrendPage renders the Action's own history page of a trend: one
// self-contained HTML file (no script, no network; inline SVG), a line
// chart per floor with each run's figure, and the cases that flip most.
// Every name is HTML-escaped. The history input writes it beside
// report-path when the Action is given no other page renderer.
func TrendPage(t *baseline.Trend, suite string) []byte {
	var b strings.Builder
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mcptest history: %s</title>\n", esc(suite))
	b.WriteString("<style>body{font:14px/1.4 system-ui,sans-serif;margin:1rem auto;max-width:1100px;padding:0 1rem;color:#1f2328}" +
		"figure{margin:1rem 0}svg{width:100%;max-width:640px;height:auto;background:#f6f8fa}" +
		"polyline{fill:none;stroke:#0969da;stroke-width:2}circle{fill:#0969da}table{border-collapse:collapse}" +
		"td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left}.fell{color:#cf222e}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>mcptest history: %s</h1>\n<p>The last %s: %s.</p>\n", esc(suite), esc(TrendWindow(t)), esc(strings.Join(t.Points, ", ")))
	for i, s := range orderFloors(t) {
		if i == MaxPageFloors {
			fmt.Fprintf(&b, "<p>%d more floors are left out.</p>\n", len(t.Floors)-i)
			break
		}
		pageChart(&b, s, t.Points)
	}
	if len(t.Flips) > 0 {
		b.WriteString("<h2>Cases that flip</h2>\n<table><tr><th>case</th><th>flips</th><th>latest</th></tr>\n")
		for i, f := range t.Flips {
			if i == MaxPageFloors {
				break
			}
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td></tr>\n", esc(f.Case), f.Flips, esc(f.Last))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// pageChart is one floor's chart: its figures over the runs, 0 to 100
// (or the largest figure, when over 100), with a point per run that has
// one.
func pageChart(b *strings.Builder, s baseline.FloorSeries, points []string) {
	const w, h, pad = 600.0, 160.0, 10.0
	top := 100.0
	for _, v := range s.Values {
		if !math.IsNaN(v) && v > top {
			top = v
		}
	}
	x := func(i int) float64 {
		if len(s.Values) < 2 {
			return w / 2
		}
		return pad + float64(i)*(w-2*pad)/float64(len(s.Values)-1)
	}
	y := func(v float64) float64 { return h - pad - math.Max(0, v)/top*(h-2*pad) }
	class := ""
	first, last, _, ok := s.Span()
	if ok && last < first {
		class = ` class="fell"`
	}
	fmt.Fprintf(b, "<figure><figcaption%s>%s: %s</figcaption>\n<svg viewBox=\"0 0 %g %g\" role=\"img\" aria-label=\"%s\">", class,
		html.EscapeString(s.Name), html.EscapeString(seriesText(s)), w, h, html.EscapeString(s.Name))
	var pts []string
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
	}
	fmt.Fprintf(b, "<polyline points=\"%s\"/>", strings.Join(pts, " "))
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		fmt.Fprintf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s: %s</title></circle>", x(i), y(v), html.EscapeString(points[i]), TrendFigure(v))
	}
	b.WriteString("</svg></figure>\n")
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
