package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/report"
)

// Formats are the formats Render writes, the first the default.
var Formats = []string{"text", "json", "markdown", "html"}

// OrderedBy says how a window is ordered, in every format.
const OrderedBy = "run.started_at, then run.id"

// Render writes h to w in format (one of Formats).
func Render(w io.Writer, format string, h *History) error {
	switch format {
	case "text", "pretty":
		return Text(w, h)
	case "json":
		return JSON(w, h)
	case "markdown":
		return Markdown(w, h)
	case "html":
		return HTML(w, h)
	}
	return fmt.Errorf("unknown history format %q: expected one of %s", format, strings.Join(Formats, ", "))
}

// Num formats a figure's value: percents and tokens to at most two
// decimals, cost in USD to at most six.
func Num(f Figure, v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	places := 2
	if f == Cost {
		places = 6
	}
	return strconv.FormatFloat(round(v, places), 'f', -1, 64)
}

// SlopeWords formats a slope per run: "-1 per run", "+0.25 per run".
func SlopeWords(f Figure, s float64) string {
	places := 4
	if f == Cost {
		places = 8
	}
	v := round(s, places)
	if v == 0 {
		return "0 per run"
	}
	sign := ""
	if v > 0 {
		sign = "+"
	}
	return sign + strconv.FormatFloat(v, 'f', -1, 64) + " per run"
}

// label names a series, with pass^k's k.
func (s *Series) label() string {
	if s.Figure == PassHat && s.K > 0 {
		l := "pass^" + strconv.Itoa(s.K)
		if s.KVaries {
			l += " (k varies)"
		}
		return l
	}
	return s.Figure.Label()
}

// summary is "90 -> 79, -1 per run" for a series with a value.
func (s *Series) summary() string {
	first, last, _, _, ok := s.Ends()
	if !ok {
		return "no value"
	}
	out := Num(s.Figure, first) + " -> " + Num(s.Figure, last)
	if sl, ok := s.Slope(); ok {
		out += ", " + SlopeWords(s.Figure, sl)
	}
	return out
}

// values lists a series' values, "-" where a run has none.
func (s *Series) values() string {
	parts := make([]string, len(s.Values))
	for i, v := range s.Values {
		parts[i] = Num(s.Figure, v)
	}
	return strings.Join(parts, " ")
}

// changed reports a series whose values are not all the same.
func (s *Series) changed() bool {
	first := math.NaN()
	for _, v := range s.Values {
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(first) {
			first = v
		} else if v != first {
			return true
		}
	}
	return false
}

// Words is the line of a slid floor: "certified_lower of weather: 84
// -> 79 over 10 runs (-0.5 per run)"; name is the case's or the suite's
// name, already escaped for where it goes.
func (s Slide) Words(name, runs string) string {
	return fmt.Sprintf("%s of %s: %s -> %s over %d %s (%s)", s.Figure.Label(), name, Num(s.Figure, s.From), Num(s.Figure, s.To), s.ToRun-s.FromRun+1, runs, SlopeWords(s.Figure, s.Slope))
}

func verdictMark(v report.Verdict) string {
	switch v {
	case report.Pass:
		return "P"
	case report.Fail:
		return "F"
	case report.Inconclusive:
		return "?"
	}
	return "."
}

// runWords names run i for text: "#3 (a1b2c3d4e5f6)".
func (h *History) runWords(i int, clean func(string) string) string {
	if i < 0 || i >= len(h.Runs) {
		return "#" + strconv.Itoa(i+1)
	}
	return "#" + strconv.Itoa(i+1) + " (" + clean(h.Runs[i].Label()) + ")"
}

// Text writes h for a terminal or a log: every recorded string with its
// control characters shown as escapes (annotate.Clean).
func Text(w io.Writer, h *History) error {
	b := bufio.NewWriter(w)
	q := annotate.Clean
	fmt.Fprintf(b, "mcptest history: %d %s, oldest first by %s\n", len(h.Runs), plural(len(h.Runs), "run", "runs"), OrderedBy)
	for _, r := range h.Runs {
		fmt.Fprintf(b, "  #%-3d %s  %s  %s  %s\n", r.Index+1, orDash(q(r.StartedAt)), orDash(q(r.Label())), orDash(q(r.Verdict)), q(r.Name))
	}
	for si := range h.Suites {
		s := &h.Suites[si]
		fmt.Fprintf(b, "\nsuite %s: %d %s, %d %s\n", q(s.Path), len(s.Runs), plural(len(s.Runs), "run", "runs"), len(s.Cases), plural(len(s.Cases), "case", "cases"))
		for i := range s.Series {
			sr := &s.Series[i]
			fmt.Fprintf(b, "  %-22s %s\n  %-22s %s\n", sr.label()+" ("+sr.Figure.Unit()+")", sr.summary(), "", sr.values())
		}
		if len(s.Slides) > 0 {
			fmt.Fprintf(b, "  floors that slid (%d):\n", len(s.Slides))
			for _, sl := range s.Slides {
				name := "the suite"
				if sl.Case != "" {
					name = q(sl.Case)
				}
				fmt.Fprintf(b, "    %s\n", sl.Words(name, "runs"))
			}
		}
		if len(s.Flaky) > 0 {
			fmt.Fprintf(b, "  cases that flip often (%d or more flips):\n", h.FlakyFlips)
			for _, f := range s.Flaky {
				fmt.Fprintf(b, "    %s: %d flips\n", q(f.Case), f.Flips)
			}
		}
		for _, p := range s.Added {
			fmt.Fprintf(b, "  added: %s at %s\n", q(p.Case), h.runWords(p.Run, q))
		}
		for _, p := range s.Removed {
			fmt.Fprintf(b, "  removed: %s at %s\n", q(p.Case), h.runWords(p.Run, q))
		}
		fmt.Fprintf(b, "  cases:\n")
		for ci := range s.Cases {
			c := &s.Cases[ci]
			marks := make([]string, len(c.Verdicts))
			for i, v := range c.Verdicts {
				marks[i] = verdictMark(v)
			}
			fmt.Fprintf(b, "    %s [%s] %s\n", q(c.Name), orDash(q(c.Kind)), strings.Join(marks, ""))
			for _, f := range c.Flips {
				fmt.Fprintf(b, "      flip at %s: %s -> %s\n", h.runWords(f.Run, q), f.From, f.To)
			}
			for i := range c.Series {
				sr := &c.Series[i]
				if !sr.changed() {
					continue
				}
				fmt.Fprintf(b, "      %s: %s\n", sr.label(), sr.summary())
			}
		}
	}
	return b.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Markdown writes h as GitHub markdown: every recorded string escaped
// (annotate.Text), so it opens no link, tag or mention.
func Markdown(w io.Writer, h *History) error {
	b := bufio.NewWriter(w)
	m := func(s string) string { return annotate.Text(s, 0) }
	fmt.Fprintf(b, "## mcptest history\n\n%d %s, oldest first by `%s`.\n\n", len(h.Runs), plural(len(h.Runs), "run", "runs"), OrderedBy)
	fmt.Fprintf(b, "| # | started | commit or run | verdict |\n| ---: | --- | --- | --- |\n")
	for _, r := range h.Runs {
		fmt.Fprintf(b, "| %d | %s | %s | %s |\n", r.Index+1, m(r.StartedAt), code(r.Label()), m(r.Verdict))
	}
	for si := range h.Suites {
		s := &h.Suites[si]
		fmt.Fprintf(b, "\n### Suite %s\n\n%d %s, %d %s.\n\n", m(s.Path), len(s.Runs), plural(len(s.Runs), "run", "runs"), len(s.Cases), plural(len(s.Cases), "case", "cases"))
		if len(s.Series) > 0 {
			fmt.Fprintf(b, "| figure | first -> last, slope | series |\n| --- | --- | --- |\n")
			for i := range s.Series {
				sr := &s.Series[i]
				fmt.Fprintf(b, "| %s (%s) | %s | %s |\n", sr.label(), sr.Figure.Unit(), sr.summary(), sr.values())
			}
		}
		if len(s.Slides) > 0 {
			fmt.Fprintf(b, "\n**Floors that slid**\n\n")
			for _, sl := range s.Slides {
				name := "the suite"
				if sl.Case != "" {
					name = m(sl.Case)
				}
				fmt.Fprintf(b, "- %s\n", sl.Words(name, "runs"))
			}
		}
		if len(s.Flaky) > 0 {
			fmt.Fprintf(b, "\n**Cases that flip often** (%d or more flips)\n\n", h.FlakyFlips)
			for _, f := range s.Flaky {
				fmt.Fprintf(b, "- %s: %d flips\n", m(f.Case), f.Flips)
			}
		}
		if len(s.Added)+len(s.Removed) > 0 {
			fmt.Fprintf(b, "\n**Added and removed**\n\n")
			for _, p := range s.Added {
				fmt.Fprintf(b, "- added: %s at %s\n", m(p.Case), h.runWords(p.Run, m))
			}
			for _, p := range s.Removed {
				fmt.Fprintf(b, "- removed: %s at %s\n", m(p.Case), h.runWords(p.Run, m))
			}
		}
		fmt.Fprintf(b, "\n| case | verdicts | flips | moved |\n| --- | --- | --- | --- |\n")
		for ci := range s.Cases {
			c := &s.Cases[ci]
			marks := make([]string, len(c.Verdicts))
			for i, v := range c.Verdicts {
				marks[i] = verdictMark(v)
			}
			var flips, moved []string
			for _, f := range c.Flips {
				flips = append(flips, fmt.Sprintf("%s %s -> %s", h.runWords(f.Run, m), f.From, f.To))
			}
			for i := range c.Series {
				if sr := &c.Series[i]; sr.changed() {
					moved = append(moved, sr.label()+": "+sr.summary())
				}
			}
			fmt.Fprintf(b, "| %s | `%s` | %s | %s |\n", m(c.Name), strings.Join(marks, ""), orDash(strings.Join(flips, "; ")), orDash(strings.Join(moved, "; ")))
		}
	}
	return b.Flush()
}

// code puts a one-line recorded string in a code span whose fence is
// longer than any backtick run in it; a control character shows as an
// escape and a table's | is escaped, as GitHub reads it even in code.
func code(s string) string {
	s = strings.ReplaceAll(annotate.Clean(clip(s, annotate.MaxField)), "|", "\\|")
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// The JSON form of a History.
type (
	jsonHistory struct {
		Order          string      `json:"order"`
		FlakyFlips     int         `json:"flaky_flips"`
		SlideThreshold float64     `json:"slide_threshold"`
		Runs           []Run       `json:"runs"`
		Suites         []jsonSuite `json:"suites"`
	}
	jsonSuite struct {
		Path    string       `json:"path"`
		Runs    []int        `json:"runs"`
		Figures []jsonSeries `json:"figures"`
		Slid    []jsonSlide  `json:"slid"`
		Flaky   []Flaky      `json:"flaky"`
		Added   []Presence   `json:"added"`
		Removed []Presence   `json:"removed"`
		Cases   []jsonCase   `json:"cases"`
	}
	jsonSeries struct {
		Figure  string     `json:"figure"`
		Unit    string     `json:"unit"`
		K       int        `json:"k,omitempty"`
		KVaries bool       `json:"k_varies,omitempty"`
		Values  []*float64 `json:"values"`
		First   *float64   `json:"first"`
		Last    *float64   `json:"last"`
		Points  int        `json:"points"`
		Slope   *float64   `json:"slope"`
	}
	jsonSlide struct {
		Figure string `json:"figure"`
		Slide
	}
	jsonCase struct {
		Name     string       `json:"name"`
		Kind     string       `json:"kind"`
		FirstRun int          `json:"first_run"`
		LastRun  int          `json:"last_run"`
		Verdicts []*string    `json:"verdicts"`
		Flips    []jsonFlip   `json:"flips"`
		Figures  []jsonSeries `json:"figures"`
	}
	jsonFlip struct {
		Flip
		Commit string `json:"commit,omitempty"`
	}
)

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func toJSONSeries(ss []Series) []jsonSeries {
	out := make([]jsonSeries, 0, len(ss))
	for i := range ss {
		s := &ss[i]
		js := jsonSeries{Figure: s.Figure.ID(), Unit: s.Figure.Unit(), K: s.K, KVaries: s.KVaries, Points: s.Points()}
		js.Values = make([]*float64, len(s.Values))
		for j, v := range s.Values {
			js.Values[j] = ptr(v)
		}
		if first, last, _, _, ok := s.Ends(); ok {
			js.First, js.Last = ptr(first), ptr(last)
		}
		if sl, ok := s.Slope(); ok {
			js.Slope = ptr(round(sl, 6))
		}
		out = append(out, js)
	}
	return out
}

// JSON writes h as one JSON document: the runs, then per suite its
// figures (a value per run, null where there is none, the first and last
// values, the slope per run rounded to six decimals), the slid floors,
// the flaky, added and removed cases and each case's verdicts, flips and
// figures.
func JSON(w io.Writer, h *History) error {
	out := jsonHistory{Order: OrderedBy, FlakyFlips: h.FlakyFlips, SlideThreshold: h.SlideThreshold, Runs: h.Runs, Suites: []jsonSuite{}}
	if out.Runs == nil {
		out.Runs = []Run{}
	}
	for si := range h.Suites {
		s := &h.Suites[si]
		js := jsonSuite{Path: s.Path, Runs: s.Runs, Figures: toJSONSeries(s.Series), Slid: []jsonSlide{}, Flaky: nonNil(s.Flaky),
			Added: nonNil(s.Added), Removed: nonNil(s.Removed), Cases: make([]jsonCase, 0, len(s.Cases))}
		for _, sl := range s.Slides {
			sl.Slope = round(sl.Slope, 6)
			js.Slid = append(js.Slid, jsonSlide{Figure: sl.Figure.ID(), Slide: sl})
		}
		for ci := range s.Cases {
			c := &s.Cases[ci]
			jc := jsonCase{Name: c.Name, Kind: c.Kind, FirstRun: c.First, LastRun: c.Last, Flips: []jsonFlip{}, Figures: toJSONSeries(c.Series)}
			jc.Verdicts = make([]*string, len(c.Verdicts))
			for i, v := range c.Verdicts {
				if v != "" {
					s := string(v)
					jc.Verdicts[i] = &s
				}
			}
			for _, f := range c.Flips {
				jc.Flips = append(jc.Flips, jsonFlip{Flip: f, Commit: h.Runs[f.Run].Commit})
			}
			js.Cases = append(js.Cases, jc)
		}
		out.Suites = append(out.Suites, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
