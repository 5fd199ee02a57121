package history

import (
	"bufio"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/report"
)

//go:embed page/history.tmpl
var pageTemplate string

//go:embed page/history.css
var pageCSS string

var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("history").Parse(pageTemplate))
})

// PageCSP is the page's Content-Security-Policy: it loads nothing and runs
// no script; only its own style applies.
const PageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"

// The chart geometry, in SVG user units.
const (
	chartW, chartH       = 640, 220
	chartX0, chartX1     = 56, 630
	chartYTop, chartYBot = 14, 194
	sparkW, sparkH       = 240, 44
)

type pageData struct {
	Title, Order, Span string
	CSP                string
	CSS                template.CSS
	Suites             []pageSuite
	Runs               []pageRun
}

type pageSuite struct {
	Path                string
	RunCount, CaseCount int
	FlipRuns            bool
	Charts              []chart
	Slides              []string
	Flaky               []pageRef
	Added, Removed      []pageRef
	Cases               []pageCase
}

type pageRef struct {
	Name, Anchor, Run string
	Flips             int
}

type pageRun struct {
	Num                                        int
	StartedAt, Label, Suite, Verdict, LinkText string
	VerdictClass                               string
	Link                                       string
}

type chart struct {
	ID, Figure, Floor, Label, Trend string
	Aria                            string
	W, H, X0, X1, YTop, YBot        int
	XLabel, YTopText, YBotText      int
	Min, Max, FirstRun, LastRun     string
	Points                          string
	Dots                            []dot
	Flips                           []flipLine
}

type dot struct {
	X, Y  int
	Title string
}

type flipLine struct {
	X     int
	Title string
}

type pageCase struct {
	Name, Anchor, Words string
	Flaky               bool
	spark
}

type spark struct {
	W, H         int
	Aria, Points string
	Marks        []mark
}

type mark struct {
	X, Y   int
	ToPass bool
	Title  string
	Link   string
}

// HTML writes h as one self-contained page: the report's own style sheet,
// an inline SVG chart per suite figure (the runs where a case flipped
// marked), the slid floors, the flaky, added and removed cases, a small
// multiple per case with its flips marked and linked to the run's
// evidence when the run has a Link, and the runs. It loads nothing and
// runs no script; every recorded string is escaped by html/template.
func HTML(w io.Writer, h *History) error {
	d := pageData{Title: "mcptest history", Order: OrderedBy, CSP: PageCSP, CSS: template.CSS(annotate.ReportCSS() + pageCSS)}
	if len(h.Suites) > 0 {
		paths := make([]string, len(h.Suites))
		for i, s := range h.Suites {
			paths[i] = annotate.Clean(s.Path)
		}
		d.Title = strings.Join(paths, ", ")
	}
	if n := len(h.Runs); n > 0 {
		d.Span = annotate.Clean(h.Runs[0].StartedAt) + " to " + annotate.Clean(h.Runs[n-1].StartedAt)
	}
	for _, r := range h.Runs {
		pr := pageRun{Num: r.Index + 1, StartedAt: annotate.Clean(r.StartedAt), Label: annotate.Clean(r.Label()), Suite: annotate.Clean(r.Suite),
			Verdict: annotate.Clean(r.Verdict), VerdictClass: verdictClass(r.Verdict), Link: r.Link}
		if r.Link != "" {
			pr.LinkText = "envelope"
			if strings.HasSuffix(r.Link, ".html") {
				pr.LinkText = "report"
			}
		}
		d.Runs = append(d.Runs, pr)
	}
	for si := range h.Suites {
		d.Suites = append(d.Suites, h.pageSuite(si))
	}
	b := bufio.NewWriter(w)
	if err := page().Execute(b, d); err != nil {
		return err
	}
	return b.Flush()
}

func verdictClass(v string) string {
	switch v {
	case string(report.Pass), string(report.Fail), string(report.Inconclusive):
		return v
	}
	return "muted"
}

func (h *History) runTitle(i int) string {
	if i < 0 || i >= len(h.Runs) {
		return "#" + strconv.Itoa(i+1)
	}
	return "#" + strconv.Itoa(i+1) + " (" + annotate.Clean(h.Runs[i].Label()) + ")"
}

func (h *History) pageSuite(si int) pageSuite {
	s := &h.Suites[si]
	ps := pageSuite{Path: annotate.Clean(s.Path), RunCount: len(s.Runs), CaseCount: len(s.Cases)}
	anchor := func(ci int) string { return fmt.Sprintf("case-%d-%d", si, ci) }
	index := make(map[string]int, len(s.Cases))
	flipsAt := make([]int, len(h.Runs))
	for ci := range s.Cases {
		index[s.Cases[ci].Name] = ci
		for _, f := range s.Cases[ci].Flips {
			if f.Run >= 0 && f.Run < len(flipsAt) {
				flipsAt[f.Run]++
			}
		}
	}
	var flips []flipLine
	for run, n := range flipsAt {
		if n > 0 {
			ps.FlipRuns = true
			flips = append(flips, flipLine{X: xAt(run, len(h.Runs), chartX0, chartX1), Title: fmt.Sprintf("%s: %d %s flipped", h.runTitle(run), n, plural(n, "case", "cases"))})
		}
	}
	for i := range s.Series {
		ps.Charts = append(ps.Charts, h.chart(si, &s.Series[i], flips))
	}
	for i := range s.Floors {
		c := h.chart(si, &s.Floors[i], flips)
		c.ID, c.Figure, c.Floor = fmt.Sprintf("suite-%d-floor-%d", si, i), "", s.Floors[i].Target
		ps.Charts = append(ps.Charts, c)
	}
	for _, sl := range s.Slides {
		name := "the suite"
		if sl.Case != "" {
			name = annotate.Clean(sl.Case)
		}
		ps.Slides = append(ps.Slides, sl.Words(name, "runs"))
	}
	for _, f := range s.Flaky {
		ps.Flaky = append(ps.Flaky, pageRef{Name: annotate.Clean(f.Case), Anchor: anchor(index[f.Case]), Flips: f.Flips})
	}
	for _, p := range s.Added {
		ps.Added = append(ps.Added, pageRef{Name: annotate.Clean(p.Case), Anchor: anchor(index[p.Case]), Run: h.runTitle(p.Run)})
	}
	for _, p := range s.Removed {
		ps.Removed = append(ps.Removed, pageRef{Name: annotate.Clean(p.Case), Anchor: anchor(index[p.Case]), Run: h.runTitle(p.Run)})
	}
	for ci := range s.Cases {
		c := &s.Cases[ci]
		ps.Cases = append(ps.Cases, pageCase{Name: annotate.Clean(c.Name), Anchor: anchor(ci), Flaky: len(c.Flips) >= h.FlakyFlips,
			Words: h.caseWords(c), spark: h.spark(c)})
	}
	return ps
}

// xAt places run i of n between x0 and x1.
func xAt(i, n, x0, x1 int) int {
	if n <= 1 {
		return (x0 + x1) / 2
	}
	return x0 + int(math.Round(float64(i)*float64(x1-x0)/float64(n-1)))
}

// yScale maps a value between lo and hi to yBot..yTop.
func yScale(lo, hi float64, top, bot int) func(float64) int {
	return func(v float64) int {
		return bot - int(math.Round((v-lo)/(hi-lo)*float64(bot-top)))
	}
}

// bounds are the least and greatest values of vs, widened when equal.
func bounds(vs []float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1, false
	}
	if lo == hi {
		pad := math.Max(math.Abs(lo)*0.05, 1)
		if lo >= 0 && lo-pad < 0 {
			return 0, hi + pad, true
		}
		return lo - pad, hi + pad, true
	}
	return lo, hi, true
}

func (h *History) chart(si int, s *Series, flips []flipLine) chart {
	n := len(h.Runs)
	c := chart{ID: fmt.Sprintf("suite-%d-%s", si, s.Figure.ID()), Figure: s.Figure.ID(), Label: s.label() + " (" + s.Figure.Unit() + ")", Trend: s.summary(),
		W: chartW, H: chartH, X0: chartX0, X1: chartX1, YTop: chartYTop, YBot: chartYBot, XLabel: chartX0 - 6, YTopText: chartYTop + 4, YBotText: chartYBot + 4,
		FirstRun: h.runTitle(0), LastRun: h.runTitle(n - 1), Flips: flips}
	lo, hi, _ := bounds(s.Values)
	c.Min, c.Max = Num(s.Figure, lo), Num(s.Figure, hi)
	y := yScale(lo, hi, chartYTop, chartYBot)
	var pts strings.Builder
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		x, yy := xAt(i, n, chartX0, chartX1), y(v)
		fmt.Fprintf(&pts, "%d,%d ", x, yy)
		c.Dots = append(c.Dots, dot{X: x, Y: yy, Title: h.runTitle(i) + ": " + Num(s.Figure, v)})
	}
	c.Points = strings.TrimSpace(pts.String())
	c.Aria = fmt.Sprintf("%s of the suite over %d runs: %s", c.Label, n, c.Trend)
	return c
}

// mainSeries is the figure a case's small multiple draws: its
// certified_lower, else pass^k, else pass rate, else its first figure.
func mainSeries(c *Case) *Series {
	for _, f := range []Figure{CertifiedLower, PassHat, PassRate} {
		if s := c.Figure(f); s != nil {
			return s
		}
	}
	if len(c.Series) > 0 {
		return &c.Series[0]
	}
	return nil
}

func (h *History) caseWords(c *Case) string {
	var parts []string
	if s := mainSeries(c); s != nil {
		parts = append(parts, s.label()+" "+s.summary())
	}
	if len(c.Flips) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", len(c.Flips), plural(len(c.Flips), "flip", "flips")))
	}
	if c.First > 0 {
		parts = append(parts, "added at "+h.runTitle(c.First))
	}
	if c.Last < len(h.Runs)-1 {
		parts = append(parts, "last in "+h.runTitle(c.Last))
	}
	return strings.Join(parts, " · ")
}

// spark draws a case's main figure over the window, leaving out the
// points of a flat stretch (a point whose neighbours have its height),
// with a mark at each flip.
func (h *History) spark(c *Case) spark {
	n := len(h.Runs)
	sp := spark{W: sparkW, H: sparkH}
	s := mainSeries(c)
	var vs []float64
	if s != nil {
		vs = s.Values
	}
	lo, hi, _ := bounds(vs)
	y := yScale(lo, hi, 4, sparkH-4)
	type pt struct{ x, y int }
	var pts []pt
	for i, v := range vs {
		if !math.IsNaN(v) {
			pts = append(pts, pt{xAt(i, n, 4, sparkW-4), y(v)})
		}
	}
	var b strings.Builder
	for i, p := range pts {
		if i > 0 && i < len(pts)-1 && pts[i-1].y == p.y && pts[i+1].y == p.y {
			continue
		}
		fmt.Fprintf(&b, "%d,%d ", p.x, p.y)
	}
	sp.Points = strings.TrimSpace(b.String())
	for _, f := range c.Flips {
		m := mark{X: xAt(f.Run, n, 4, sparkW-4), Y: sparkH / 2, ToPass: f.To == report.Pass,
			Title: fmt.Sprintf("%s: %s -> %s", h.runTitle(f.Run), f.From, f.To)}
		if f.Run >= 0 && f.Run < len(vs) && !math.IsNaN(vs[f.Run]) {
			m.Y = y(vs[f.Run])
		}
		if f.Run >= 0 && f.Run < n {
			m.Link = h.Runs[f.Run].Link
		}
		sp.Marks = append(sp.Marks, m)
	}
	label := "no figure"
	if s != nil {
		label = s.label() + " " + s.summary()
	}
	sp.Aria = fmt.Sprintf("%s over %d runs: %s, %d flips", annotate.Clean(c.Name), n, label, len(c.Flips))
	return sp
}
