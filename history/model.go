package history

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// Figure names one figure history follows, of a suite and of a case.
type Figure int

// The figures, in the order every renderer lists them.
const (
	// PassRate is a case's reliability.pass_rate (a case of one run: 100
	// when it passed, 0 when it failed); a suite's summary.pass_rate, or
	// the percent of its decided cases that passed when the envelope has
	// no summary.
	PassRate Figure = iota
	// PassHat is pass^k at the largest k the envelope reports: a case's
	// reliability.pass_hat_<k>, a suite's summary pass_hat.
	PassHat
	// CertifiedLower is a case's reliability.certified_lower (else
	// distractors.certified_lower); a suite's mean over the cases that
	// carry one.
	CertifiedLower
	// SelectionF1 is a case's tool_selection.f1 (else token_efficiency.f1);
	// a suite's F1 of the summed tool_selection tp, fp and fn counts.
	SelectionF1
	// Tokens is a case's tool_selection.tokens_median; a suite's sum.
	Tokens
	// Cost is a case's token_efficiency.cost in USD (else cost_micros /
	// 1e6); a suite's sum.
	Cost
	// SurfaceTokens is a case's token_efficiency.tool_surface_tokens; a
	// suite's largest.
	SurfaceTokens
	// NumFigures counts the figures.
	NumFigures
)

var figureInfo = [NumFigures]struct {
	id, label, unit string
	floor           bool
}{
	{"pass_rate", "pass rate", "%", true},
	{"pass_hat", "pass^k", "%", true},
	{"certified_lower", "certified_lower", "%", true},
	{"selection_f1", "selection F1", "%", true},
	{"tokens", "tokens", "tokens", false},
	{"cost", "cost", "USD", false},
	{"tool_surface_tokens", "tool-surface tokens", "tokens", false},
}

// ID is the figure's name in JSON and on the command line: pass_rate,
// pass_hat, certified_lower, selection_f1, tokens, cost,
// tool_surface_tokens.
func (f Figure) ID() string { return figureInfo[f].id }

// Label is the figure's name in text and on the page.
func (f Figure) Label() string { return figureInfo[f].label }

// Unit is the figure's unit: "%", "tokens" or "USD".
func (f Figure) Unit() string { return figureInfo[f].unit }

// Floor reports a figure a floor holds from below (higher is better): the
// percents. Tokens and cost are better lower.
func (f Figure) Floor() bool { return figureInfo[f].floor }

// String is the figure's ID.
func (f Figure) String() string { return f.ID() }

// Run is one envelope of the window, in the window's order.
type Run struct {
	// Index is the run's place in the window, 0 the oldest.
	Index int `json:"index"`
	// Name says where the envelope came from: a file path, an artifact.
	Name      string `json:"name"`
	ID        string `json:"id"`
	StartedAt string `json:"started_at"`
	Commit    string `json:"commit,omitempty"`
	Branch    string `json:"branch,omitempty"`
	Suite     string `json:"suite"`
	Verdict   string `json:"verdict"`
	// Link addresses the run's evidence (its report page, its envelope),
	// when the caller has one; a flip to this run links it.
	Link string `json:"link,omitempty"`
}

// Label names the run for a reader: its commit cut to 12 characters, else
// its run id, else its place in the window.
func (r Run) Label() string {
	switch {
	case r.Commit != "":
		return clip(r.Commit, 12)
	case r.ID != "":
		return clip(r.ID, 26)
	}
	return fmt.Sprintf("#%d", r.Index+1)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Snapshot is what history reads of one envelope: its run, its suite's
// figures and each case's verdict and figures. NaN marks a figure the
// envelope does not have.
type Snapshot struct {
	Run     Run
	Figures [NumFigures]float64
	// K is the k of Figures[PassHat], 0 when there is none.
	K int
	// Floors are the figures the suite's floors read (summary.pass_rate,
	// summary.pass_hat_<k>, summary.pass_at_<k>), in the envelope's order.
	Floors []FloorValue
	Cases  []CaseSnapshot
}

// FloorValue is the figure one suite floor read in one run.
type FloorValue struct {
	Target string
	Value  float64
}

// CaseSnapshot is one case of a Snapshot.
type CaseSnapshot struct {
	Name    string
	Kind    string
	Verdict report.Verdict
	Figures [NumFigures]float64
	K       int
}

// Series is one figure over the window: a value per run of the window,
// NaN (null in JSON) where the run has none.
type Series struct {
	Figure Figure
	// Target names a suite floor's series (summary.pass_hat_3); its
	// Figure is then PassRate, for its unit.
	Target string
	Values []float64
	// K is the k of a pass^k series at its last value; KVaries says k
	// changed within the window.
	K       int
	KVaries bool
}

// Points counts the runs that have a value.
func (s *Series) Points() int {
	n := 0
	for _, v := range s.Values {
		if !math.IsNaN(v) {
			n++
		}
	}
	return n
}

// Ends returns the first and last values and the runs they belong to; ok
// is false when the series has none.
func (s *Series) Ends() (first, last float64, firstRun, lastRun int, ok bool) {
	firstRun, lastRun = -1, -1
	for i, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		if firstRun < 0 {
			firstRun, first = i, v
		}
		lastRun, last = i, v
	}
	return first, last, firstRun, lastRun, firstRun >= 0
}

// Slope is the least-squares slope of the series' values against the run
// index (0 the oldest run of the window), in the figure's unit per run,
// over the runs that have a value; ok is false with fewer than two.
func (s *Series) Slope() (slope float64, ok bool) {
	return Slope(s.Values)
}

// Slope is the ordinary least-squares slope of ys against their index,
// skipping NaN: Σ(x-x̄)(y-ȳ) / Σ(x-x̄)². ok is false with fewer than two
// values.
func Slope(ys []float64) (float64, bool) {
	var n, sx, sy float64
	for i, y := range ys {
		if !math.IsNaN(y) {
			n++
			sx += float64(i)
			sy += y
		}
	}
	if n < 2 {
		return 0, false
	}
	mx, my := sx/n, sy/n
	var num, den float64
	for i, y := range ys {
		if !math.IsNaN(y) {
			dx := float64(i) - mx
			num += dx * (y - my)
			den += dx * dx
		}
	}
	return num / den, true
}

// Flip is a change of a case's verdict between two runs of the window
// where it is present, named by the later run.
type Flip struct {
	Run  int            `json:"run"`
	From report.Verdict `json:"from"`
	To   report.Verdict `json:"to"`
}

// Case is one case's history.
type Case struct {
	Name string
	Kind string
	// First and Last are the runs the case is first and last present in.
	First, Last int
	// Verdicts holds the case's verdict in each run of the window, ""
	// where it is absent.
	Verdicts []report.Verdict
	// Series are the case's figures that have a value in some run, in
	// figure order.
	Series []Series
	Flips  []Flip
}

// Presence is a case added to or removed from a suite within the window,
// and the run where that shows.
type Presence struct {
	Case string `json:"case"`
	Run  int    `json:"run"`
}

// Flaky is a case whose verdict flipped at least Options.FlakyFlips
// times in the window.
type Flaky struct {
	Case  string `json:"case"`
	Flips int    `json:"flips"`
}

// Slide is a floor figure (a percent, higher better) of a suite (Case "")
// or a case that slid over the window (Sustained): its first and last
// values, the runs they belong to, how many runs have a value and the
// slope.
type Slide struct {
	Case    string  `json:"case,omitempty"`
	Figure  Figure  `json:"-"`
	Target  string  `json:"target,omitempty"`
	From    float64 `json:"from"`
	To      float64 `json:"to"`
	FromRun int     `json:"from_run"`
	ToRun   int     `json:"to_run"`
	Points  int     `json:"points"`
	Slope   float64 `json:"slope"`
}

// Suite is the history of one suite (by its path in the envelopes).
type Suite struct {
	Path string
	// Runs are the runs of the window that are of this suite.
	Runs   []int
	Series []Series
	// Floors are the series of the suite's floors, by target, in the order
	// they first appear.
	Floors  []Series
	Cases   []Case
	Added   []Presence
	Removed []Presence
	Flaky   []Flaky
	Slides  []Slide
}

// History is the fold of a window of envelopes.
type History struct {
	Runs   []Run
	Suites []Suite
	// FlakyFlips and SlideThreshold are the Options the fold used.
	FlakyFlips     int
	SlideThreshold float64
}

// Options tune the fold.
type Options struct {
	// FlakyFlips is how many flips make a case flaky; 0 means 2.
	FlakyFlips int
	// SlideThreshold is how many points (of a percent) a floor figure
	// must fall, first value to last, to be a Slide (Sustained); a fall of
	// less is not. 0 lists every sustained fall.
	SlideThreshold float64
	// MaxCells bounds the cases times runs the fold holds, so a window
	// cannot fill the memory; 0 means DefaultMaxCells.
	MaxCells int
}

// DefaultMaxCells is the default bound of cases times runs: 200
// envelopes of 20,000 cases.
const DefaultMaxCells = 4_000_000

// Builder folds snapshots, oldest first, one at a time.
type Builder struct {
	opt    Options
	runs   []Run
	suites []*suiteAcc
	byPath map[string]*suiteAcc
	cells  int
}

type suiteAcc struct {
	path   string
	runs   []int
	series [NumFigures]*seriesAcc
	floors map[string]*seriesAcc
	order  []string
	cases  []*caseAcc
	byName map[string]*caseAcc
}

type seriesAcc struct {
	values  []float64
	k       int
	kVaries bool
}

type caseAcc struct {
	name, kind  string
	first, last int
	verdicts    []report.Verdict
	series      [NumFigures]*seriesAcc
	flips       []Flip
	lastVerdict report.Verdict
}

// NewBuilder starts a fold.
func NewBuilder(opt Options) *Builder {
	if opt.FlakyFlips <= 0 {
		opt.FlakyFlips = 2
	}
	if opt.MaxCells <= 0 {
		opt.MaxCells = DefaultMaxCells
	}
	opt.SlideThreshold = max(opt.SlideThreshold, 0)
	return &Builder{opt: opt, byPath: map[string]*suiteAcc{}}
}

// Len counts the snapshots added.
func (b *Builder) Len() int { return len(b.runs) }

// Add folds the next snapshot of the window: s is newer than every
// snapshot added before. A case named twice in one snapshot counts once
// (its first entry). Add refuses a window over Options.MaxCells.
func (b *Builder) Add(s *Snapshot) error {
	i := len(b.runs)
	b.cells += len(s.Cases)
	if b.cells > b.opt.MaxCells {
		return fmt.Errorf("%s: the window holds more than %d case results (cases times runs): give fewer envelopes", s.Run.Name, b.opt.MaxCells)
	}
	run := s.Run
	run.Index = i
	b.runs = append(b.runs, run)
	sa := b.byPath[run.Suite]
	if sa == nil {
		sa = &suiteAcc{path: run.Suite, byName: map[string]*caseAcc{}, floors: map[string]*seriesAcc{}}
		b.byPath[run.Suite] = sa
		b.suites = append(b.suites, sa)
	}
	sa.runs = append(sa.runs, i)
	for f := range NumFigures {
		sa.series[f] = put(sa.series[f], i, s.Figures[f], s.K, f == PassHat)
	}
	for _, f := range s.Floors {
		acc, ok := sa.floors[f.Target]
		if !ok {
			sa.order = append(sa.order, f.Target)
		}
		if acc == nil || len(acc.values) <= i {
			sa.floors[f.Target] = put(acc, i, f.Value, 0, false)
		}
	}
	for j := range s.Cases {
		cs := &s.Cases[j]
		ca := sa.byName[cs.Name]
		if ca == nil {
			ca = &caseAcc{name: cs.Name, kind: cs.Kind, first: i, last: -1}
			sa.byName[cs.Name] = ca
			sa.cases = append(sa.cases, ca)
		}
		if ca.last == i {
			continue // a second case of the same name in this snapshot
		}
		ca.last = i
		if cs.Kind != "" {
			ca.kind = cs.Kind
		}
		for len(ca.verdicts) < i {
			ca.verdicts = append(ca.verdicts, "")
		}
		ca.verdicts = append(ca.verdicts, cs.Verdict)
		if ca.lastVerdict != "" && cs.Verdict != "" && cs.Verdict != ca.lastVerdict {
			ca.flips = append(ca.flips, Flip{Run: i, From: ca.lastVerdict, To: cs.Verdict})
		}
		if cs.Verdict != "" {
			ca.lastVerdict = cs.Verdict
		}
		for f := range NumFigures {
			ca.series[f] = put(ca.series[f], i, cs.Figures[f], cs.K, f == PassHat)
		}
	}
	return nil
}

// put sets run i of series acc to v (NaN: none), padding the runs before
// it with NaN; a series is made at its first value.
func put(acc *seriesAcc, i int, v float64, k int, passHat bool) *seriesAcc {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return acc
	}
	if acc == nil {
		acc = &seriesAcc{}
	}
	for len(acc.values) < i {
		acc.values = append(acc.values, math.NaN())
	}
	acc.values = append(acc.values, v)
	if passHat {
		if acc.k != 0 && acc.k != k {
			acc.kVaries = true
		}
		acc.k = k
	}
	return acc
}

// History returns the fold of the snapshots added so far.
func (b *Builder) History() *History {
	n := len(b.runs)
	h := &History{Runs: slices.Clone(b.runs), FlakyFlips: b.opt.FlakyFlips, SlideThreshold: b.opt.SlideThreshold}
	for _, sa := range b.suites {
		s := Suite{Path: sa.path, Runs: slices.Clone(sa.runs)}
		s.Series = finish(&sa.series, n)
		for _, target := range sa.order {
			if acc := sa.floors[target]; acc != nil {
				floor := finish(&[NumFigures]*seriesAcc{acc}, n)[0]
				floor.Target = target
				s.Floors = append(s.Floors, floor)
			}
		}
		lastRun := sa.runs[len(sa.runs)-1]
		firstRun := sa.runs[0]
		for _, ca := range sa.cases {
			verdicts := slices.Clone(ca.verdicts)
			for len(verdicts) < n {
				verdicts = append(verdicts, "")
			}
			c := Case{Name: ca.name, Kind: ca.kind, First: ca.first, Last: ca.last, Verdicts: verdicts,
				Series: finish(&ca.series, n), Flips: slices.Clone(ca.flips)}
			if c.First > firstRun {
				s.Added = append(s.Added, Presence{Case: c.Name, Run: c.First})
			}
			if c.Last < lastRun {
				s.Removed = append(s.Removed, Presence{Case: c.Name, Run: nextRun(sa.runs, c.Last)})
			}
			if len(c.Flips) >= b.opt.FlakyFlips {
				s.Flaky = append(s.Flaky, Flaky{Case: c.Name, Flips: len(c.Flips)})
			}
			s.Slides = appendSlides(s.Slides, c.Name, c.Series, b.opt.SlideThreshold)
			s.Cases = append(s.Cases, c)
		}
		s.Slides = appendSlides(s.Slides, "", s.Series, b.opt.SlideThreshold)
		s.Slides = appendSlides(s.Slides, "", s.Floors, b.opt.SlideThreshold)
		slices.SortStableFunc(s.Flaky, func(a, b Flaky) int {
			if a.Flips != b.Flips {
				return b.Flips - a.Flips
			}
			return strings.Compare(a.Case, b.Case)
		})
		slices.SortStableFunc(s.Slides, func(a, b Slide) int {
			if (a.Case == "") != (b.Case == "") {
				if a.Case == "" {
					return -1
				}
				return 1
			}
			fa, fb := a.From-a.To, b.From-b.To
			if fa != fb {
				if fa > fb {
					return -1
				}
				return 1
			}
			if c := strings.Compare(a.Case, b.Case); c != 0 {
				return c
			}
			if a.Figure != b.Figure {
				return int(a.Figure) - int(b.Figure)
			}
			return strings.Compare(a.Target, b.Target)
		})
		h.Suites = append(h.Suites, s)
	}
	slices.SortStableFunc(h.Suites, func(a, b Suite) int { return strings.Compare(a.Path, b.Path) })
	return h
}

// nextRun is the first run of runs after i, the run where a case last
// present in i is gone.
func nextRun(runs []int, i int) int {
	for _, r := range runs {
		if r > i {
			return r
		}
	}
	return i + 1
}

// finish turns the accumulated series into Series padded to n runs.
func finish(accs *[NumFigures]*seriesAcc, n int) []Series {
	var out []Series
	for f, acc := range accs {
		if acc == nil {
			continue
		}
		vs := slices.Clone(acc.values)
		for len(vs) < n {
			vs = append(vs, math.NaN())
		}
		out = append(out, Series{Figure: Figure(f), Values: vs, K: acc.k, KVaries: acc.kVaries})
	}
	return out
}

// appendSlides appends the floor figures of series that slid past
// threshold (Sustained).
func appendSlides(out []Slide, name string, series []Series, threshold float64) []Slide {
	for i := range series {
		s := &series[i]
		if !s.Figure.Floor() || !Sustained(s.Values, threshold) {
			continue
		}
		first, last, fr, lr, _ := s.Ends()
		slope, _ := s.Slope()
		out = append(out, Slide{Case: name, Figure: s.Figure, Target: s.Target, From: first, To: last, FromRun: fr, ToRun: lr, Points: s.Points(), Slope: slope})
	}
	return out
}

// Build folds the snapshots of seq, oldest first, one at a time; the
// first error stops it.
func Build(seq iter.Seq2[*Snapshot, error], opt Options) (*History, error) {
	b := NewBuilder(opt)
	for s, err := range seq {
		if err != nil {
			return nil, err
		}
		if err := b.Add(s); err != nil {
			return nil, err
		}
	}
	return b.History(), nil
}

// Series returns the suite's series of figure f, nil when it has none.
func (s *Suite) Figure(f Figure) *Series { return find(s.Series, f) }

// Figure returns the case's series of figure f, nil when it has none.
func (c *Case) Figure(f Figure) *Series { return find(c.Series, f) }

func find(series []Series, f Figure) *Series {
	for i := range series {
		if series[i].Figure == f {
			return &series[i]
		}
	}
	return nil
}
