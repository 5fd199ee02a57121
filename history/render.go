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
	if s.Target != "" {
		return "floor " + s.Target
	}
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
	return s.words(func(v string) string { return v }, name, runs)
}

// words is Words with the floor's target passed through esc.
func (s Slide) words(esc func(string) string, name, runs string) string {
	label := s.Figure.Label()
	if s.Target != "" {
		label = "floor " + esc(s.Target)
	}
	return fmt.Sprintf("%s of %s: %s -> %s over %d %s (%s)", label, name, Num(s.Figure, s.From), Num(s.Figure, s.To), s.ToRun-s.FromRun+1, runs, SlopeWords(s.Figure, s.Slope))
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
		for _, list := range [][]Series{s.Series, s.Floors} {
			for i := range list {
				sr := &list[i]
				fmt.Fprintf(b, "  %-22s %s\n  %-22s %s\n", q(sr.label())+" ("+sr.Figure.Unit()+")", sr.summary(), "", sr.values())
			}
		}
		if len(s.Slides) > 0 {
			fmt.Fprintf(b, "  floors that slid (%d): %s\n", len(s.Slides), SlideRule(h.SlideThreshold))
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
			for _, list := range [][]Series{s.Series, s.Floors} {
				for i := range list {
					sr := &list[i]
					label := sr.label()
					if sr.Target != "" {
						label = "floor " + code(sr.Target)
					}
					fmt.Fprintf(b, "| %s (%s) | %s | %s |\n", label, sr.Figure.Unit(), sr.summary(), sr.values())
				}
			}
		}
		if len(s.Slides) > 0 {
			fmt.Fprintf(b, "\n**Floors that slid** (%s)\n\n", SlideRule(h.SlideThreshold))
			for _, sl := range s.Slides {
				name := "the suite"
				if sl.Case != "" {
					name = m(sl.Case)
				}
				fmt.Fprintf(b, "- %s\n", sl.words(code, name, "runs"))
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

// The JSON form of a History's small parts.
type (
	jsonSlide struct {
		Figure string `json:"figure"`
		Slide
	}
	jsonFlip struct {
		Flip
		Commit string `json:"commit,omitempty"`
	}
	jsonCaseHead struct {
		Name     string `json:"name"`
		Kind     string `json:"kind"`
		FirstRun int    `json:"first_run"`
		LastRun  int    `json:"last_run"`
	}
)

// jsonWriter writes JSON by hand, one case or series a line, so a history
// of thousands of cases streams out without a tree of values in memory.
type jsonWriter struct {
	b   *bufio.Writer
	err error
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.b.WriteString(s)
	}
}

func (j *jsonWriter) value(v any) {
	if j.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		j.err = err
		return
	}
	_, j.err = j.b.Write(data)
}

// num writes v, null for NaN or an infinity.
func (j *jsonWriter) num(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		j.raw("null")
		return
	}
	j.raw(strconv.FormatFloat(v, 'g', -1, 64))
}

// list writes the n items of a list, each by item, one per line at indent
// (or inline when indent is "").
func (j *jsonWriter) list(n int, indent string, item func(i int)) {
	if n == 0 {
		j.raw("[]")
		return
	}
	j.raw("[")
	for i := range n {
		if i > 0 {
			j.raw(",")
		}
		if indent != "" {
			j.raw("\n" + indent + "  ")
		}
		item(i)
	}
	if indent != "" {
		j.raw("\n" + indent)
	}
	j.raw("]")
}

// series writes one series on one line: figure, unit, k, values (null
// where a run has none), first, last, points and the slope rounded to six
// decimals.
func (j *jsonWriter) series(s *Series) {
	j.raw(`{"figure":`)
	j.value(s.Figure.ID())
	if s.Target != "" {
		j.raw(`,"target":`)
		j.value(s.Target)
	}
	j.raw(`,"unit":`)
	j.value(s.Figure.Unit())
	if s.K > 0 {
		j.raw(`,"k":` + strconv.Itoa(s.K))
	}
	if s.KVaries {
		j.raw(`,"k_varies":true`)
	}
	j.raw(`,"values":`)
	j.list(len(s.Values), "", func(i int) { j.num(s.Values[i]) })
	first, last, _, _, ok := s.Ends()
	if !ok {
		first, last = math.NaN(), math.NaN()
	}
	j.raw(`,"first":`)
	j.num(first)
	j.raw(`,"last":`)
	j.num(last)
	j.raw(`,"points":` + strconv.Itoa(s.Points()) + `,"slope":`)
	if sl, ok := s.Slope(); ok {
		j.num(round(sl, 6))
	} else {
		j.raw("null")
	}
	j.raw("}")
}

// JSON writes h as one JSON document: order, flaky_flips,
// slide_threshold, slide_rule (SlideRule), the runs, then per suite its runs, its figures (a value
// per run, null where there is none, the first and last values, the
// points, the slope per run rounded to six decimals), the slid floors, the
// flaky, added and removed cases, and each case (one a line) with its
// verdicts (null where absent), flips (with the commit of the run) and
// figures. It streams: nothing but the line being written is held.
func JSON(w io.Writer, h *History) error {
	j := &jsonWriter{b: bufio.NewWriter(w)}
	j.raw(`{` + "\n" + `  "order": `)
	j.value(OrderedBy)
	j.raw(",\n  \"flaky_flips\": " + strconv.Itoa(h.FlakyFlips) + ",\n  \"slide_threshold\": ")
	j.num(h.SlideThreshold)
	j.raw(",\n  \"slide_rule\": ")
	j.value(SlideRule(h.SlideThreshold))
	j.raw(",\n  \"runs\": ")
	j.list(len(h.Runs), "  ", func(i int) { j.value(h.Runs[i]) })
	j.raw(",\n  \"suites\": ")
	j.list(len(h.Suites), "  ", func(si int) { j.suite(h, &h.Suites[si]) })
	j.raw("\n}\n")
	if j.err != nil {
		return j.err
	}
	return j.b.Flush()
}

func (j *jsonWriter) suite(h *History, s *Suite) {
	const in = "      "
	j.raw("{\n" + in[:6] + `"path": `)
	j.value(s.Path)
	j.raw(",\n" + in + `"runs": `)
	j.list(len(s.Runs), "", func(i int) { j.raw(strconv.Itoa(s.Runs[i])) })
	j.raw(",\n" + in + `"figures": `)
	j.list(len(s.Series), in, func(i int) { j.series(&s.Series[i]) })
	j.raw(",\n" + in + `"floors": `)
	j.list(len(s.Floors), in, func(i int) { j.series(&s.Floors[i]) })
	j.raw(",\n" + in + `"slid": `)
	j.list(len(s.Slides), in, func(i int) {
		sl := s.Slides[i]
		sl.Slope = round(sl.Slope, 6)
		j.value(jsonSlide{Figure: sl.Figure.ID(), Slide: sl})
	})
	j.raw(",\n" + in + `"flaky": `)
	j.list(len(s.Flaky), in, func(i int) { j.value(s.Flaky[i]) })
	j.raw(",\n" + in + `"added": `)
	j.list(len(s.Added), in, func(i int) { j.value(s.Added[i]) })
	j.raw(",\n" + in + `"removed": `)
	j.list(len(s.Removed), in, func(i int) { j.value(s.Removed[i]) })
	j.raw(",\n" + in + `"cases": `)
	j.list(len(s.Cases), in, func(ci int) {
		c := &s.Cases[ci]
		head, _ := json.Marshal(jsonCaseHead{Name: c.Name, Kind: c.Kind, FirstRun: c.First, LastRun: c.Last})
		j.raw(string(head[:len(head)-1]) + `,"verdicts":`)
		j.list(len(c.Verdicts), "", func(i int) {
			if v := c.Verdicts[i]; v != "" {
				j.value(string(v))
			} else {
				j.raw("null")
			}
		})
		j.raw(`,"flips":`)
		j.list(len(c.Flips), "", func(i int) {
			f := c.Flips[i]
			jf := jsonFlip{Flip: f}
			if f.Run >= 0 && f.Run < len(h.Runs) {
				jf.Commit = h.Runs[f.Run].Commit
			}
			j.value(jf)
		})
		j.raw(`,"figures":`)
		j.list(len(c.Series), "", func(i int) { j.series(&c.Series[i]) })
		j.raw("}")
	})
	j.raw("\n    }")
}
