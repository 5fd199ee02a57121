package annotate

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// CompareFormats lists the formats a comparison renders to, in the order
// help shows them.
var CompareFormats = []string{"text", "markdown", "json"}

// RenderComparison writes a comparison of two runs (baseline.Compare) in
// one of CompareFormats. Every format lists cases in order of appearance;
// comparable cases where nothing moved are counted, not listed, except in
// json, which holds everything.
func RenderComparison(w io.Writer, format string, c *baseline.Comparison, opt Options) error {
	var buf bytes.Buffer
	switch Canonical(format) {
	case "text":
		comparePretty(&buf, c, Pretty{Color: opt.Color})
	case "markdown":
		compareMarkdown(&buf, c)
	case "json":
		if err := c.WriteJSON(&buf); err != nil {
			return err
		}
	default:
		return unknownComparison(format)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// NewComparison returns the reporter of a comparison in format, one of
// CompareFormats or html, as New returns a run's: the html page renders
// the compared run with the comparison at its top; the other formats
// render the comparison alone (RenderComparison).
func NewComparison(format string, cmp *baseline.Comparison, opt Options) (Reporter, error) {
	format = Canonical(format)
	switch {
	case format == "html":
		return HTML{Comparison: cmp, Recorded: opt.Recorded}, nil
	case !slices.Contains(CompareFormats, format):
		return nil, unknownComparison(format)
	}
	return comparisonReporter{format: format, cmp: cmp, opt: opt}, nil
}

// comparisonReporter renders a comparison in one of CompareFormats.
type comparisonReporter struct {
	format string
	cmp    *baseline.Comparison
	opt    Options
}

// Report implements Reporter; the comparison already holds what it says
// of the run.
func (r comparisonReporter) Report(w io.Writer, _ *report.Envelope) error {
	return RenderComparison(w, r.format, r.cmp, r.opt)
}

func unknownComparison(format string) error {
	return fmt.Errorf("unknown format %q for a comparison: expected one of %s", format, strings.Join(CompareFormats, ", "))
}

// caseLabel is the word a case's line starts with.
func caseLabel(d baseline.CaseDelta) string {
	switch {
	case d.Outcome() == baseline.Regression:
		return "REGRESSION"
	case d.Outcome() == baseline.Fix:
		return "FIX"
	case d.Status == baseline.New:
		return "NEW"
	case d.Status == baseline.Removed:
		return "REMOVED"
	case d.Status == baseline.NotComparable:
		return "NOT COMPARABLE"
	}
	return "CHANGED"
}

// verdictWords renders a case's verdicts: "pass -> fail", "fail" (new),
// "was pass" (removed).
func verdictWords(d baseline.CaseDelta, arrow string) string {
	switch {
	case d.Baseline == nil && d.Current != nil:
		return string(d.Current.Verdict)
	case d.Current == nil && d.Baseline != nil:
		return "was " + string(d.Baseline.Verdict)
	case d.Current == nil:
		return ""
	}
	if d.Baseline.Verdict == d.Current.Verdict {
		return string(d.Current.Verdict)
	}
	return string(d.Baseline.Verdict) + " " + arrow + " " + string(d.Current.Verdict)
}

func num(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// targetWords renders a target as "100 -> 50 (-50)", "50 (new)",
// "100 (gone)" or, for a case that is not compared, "100 -> 50 (not
// compared)". ok is false for a target that did not move.
func targetWords(t baseline.TargetDelta, arrow string) (string, bool) {
	switch {
	case t.Baseline == nil && t.Current != nil:
		return num(*t.Current) + " (new)", true
	case t.Current == nil && t.Baseline != nil:
		return num(*t.Baseline) + " (gone)", true
	case t.Current == nil:
		return "", false
	case t.Delta == nil && *t.Baseline == *t.Current:
		return "", false
	case t.Delta == nil:
		return num(*t.Baseline) + " " + arrow + " " + num(*t.Current) + " (not compared)", true
	case *t.Delta == 0:
		return "", false
	}
	sign := "+"
	if *t.Delta < 0 {
		sign = ""
	}
	return fmt.Sprintf("%s %s %s (%s%s)", num(*t.Baseline), arrow, num(*t.Current), sign, num(*t.Delta)), true
}

func comparePretty(b *bytes.Buffer, c *baseline.Comparison, p Pretty) {
	if c.NotComparable != "" {
		fmt.Fprintf(b, "%s %s\n", p.paint(yellow, "not comparable:"), Clean(c.NotComparable))
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "%s %s\n", p.paint(yellow, "warning:"), Clean(w))
	}
	if c.NotComparable != "" || len(c.Warnings) > 0 {
		b.WriteString("\n")
	}
	colors := map[string]string{"REGRESSION": red, "FIX": green, "NEW": bold, "REMOVED": dim, "NOT COMPARABLE": yellow, "CHANGED": bold}
	for _, d := range c.Cases {
		if !d.Changed() {
			continue
		}
		label := caseLabel(d)
		fmt.Fprintf(b, "%s  %s  %s\n", p.paint(colors[label], label), Clean(d.Name), p.paint(dim, verdictWords(d, "->")))
		for _, r := range d.Reasons {
			fmt.Fprintf(b, "      %s %s\n", p.paint(yellow, "not comparable:"), Clean(r))
		}
		for _, f := range d.Flips {
			if f.Subject == baseline.SubjectCase {
				continue
			}
			where := ""
			if f.Position != nil {
				where = p.paint(dim, f.Position.String()+":") + " "
			}
			fmt.Fprintf(b, "      %s%s %s: %s -> %s\n", where, p.paint(flipColor(f), string(f.Change)), Clean(f.Label()), f.From, f.To)
			if f.Message != "" {
				fmt.Fprintf(b, "        %s\n", Clean(f.Message))
			}
		}
		for _, t := range d.Targets {
			if s, ok := targetWords(t, "->"); ok && d.Status != baseline.Removed {
				fmt.Fprintf(b, "      %s  %s\n", Clean(t.Name), s)
			}
		}
		for _, l := range changedLabels(d, "->", Clean) {
			name, words, _ := strings.Cut(l, " ")
			fmt.Fprintf(b, "      %s  %s\n", name, words)
		}
		if d.CassettesChanged {
			fmt.Fprintf(b, "      %s\n", p.paint(dim, "cassettes re-recorded (same number of files, other contents)"))
		}
	}
	for _, f := range c.Floors {
		where := ""
		if f.Position != nil {
			where = p.paint(dim, f.Position.String()+":") + " "
		}
		fmt.Fprintf(b, "%s%s %s: %s -> %s\n", where, p.paint(flipColor(f), string(f.Change)), Clean(f.Label()), f.From, f.To)
		if f.Message != "" {
			fmt.Fprintf(b, "  %s\n", Clean(f.Message))
		}
	}
	if ws := summaryDeltaWords(c.Reliability, "->"); len(ws) > 0 {
		fmt.Fprintf(b, "%s %s\n", p.paint(bold, "reliability:"), strings.Join(ws, ", "))
	}
	fmt.Fprintf(b, "\n%s\n", p.paint(bold, c.Headline()))
	g := c.Gate
	verdict := p.paint(bold+green, "pass")
	if g.Failed {
		verdict = p.paint(bold+red, "fail")
	}
	fmt.Fprintf(b, "--fail-on %s: %s", g.FailOn, verdict)
	if len(g.Reasons) > 0 {
		fmt.Fprintf(b, ": %s", strings.Join(g.Reasons, "; "))
	}
	b.WriteString("\n")
}

func flipColor(f baseline.Flip) string {
	switch f.Change {
	case baseline.Regression:
		return red
	case baseline.Noise:
		return dim
	}
	return green
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// compareMarkdown renders GitHub-flavoured markdown for a job summary or a
// PR comment. Every recorded string is escaped with Markdown, so a case
// name cannot open a link, a tag or a table cell.
func compareMarkdown(b *bytes.Buffer, c *baseline.Comparison) {
	b.WriteString("### mcptest: comparison with the baseline\n\n")
	g := c.Gate
	verdict := "**pass**"
	if g.Failed {
		verdict = "**fail**"
	}
	fmt.Fprintf(b, "%s. Gate `--fail-on %s`: %s", c.Headline(), g.FailOn, verdict)
	if len(g.Reasons) > 0 {
		fmt.Fprintf(b, " (%s)", strings.Join(g.Reasons, "; "))
	}
	b.WriteString(".\n\n")
	if c.NotComparable != "" {
		fmt.Fprintf(b, "> **Not comparable:** %s\n\n", c.NotComparable)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "> **Warning:** %s\n\n", Markdown(w))
	}

	var flips [][]string
	for _, d := range c.Cases {
		for _, f := range d.Flips {
			flips = append(flips, []string{"**" + string(f.Change) + "**", Markdown(d.Name), flipWhat(f, Markdown), string(f.From) + " → " + string(f.To)})
		}
	}
	for _, f := range c.Floors {
		flips = append(flips, []string{"**" + string(f.Change) + "**", "(suite)", flipWhat(f, Markdown), string(f.From) + " → " + string(f.To)})
	}
	if len(flips) > 0 {
		b.WriteString("#### Floor flips\n\n| | case | what | verdict |\n| --- | --- | --- | --- |\n")
		for _, row := range flips {
			fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
		}
		b.WriteString("\n")
	}

	var rows [][]string
	for _, d := range c.Cases {
		if !d.Changed() {
			continue
		}
		status := strings.ReplaceAll(string(d.Status), "_", " ")
		if len(d.Reasons) > 0 {
			rs := make([]string, len(d.Reasons))
			for i, r := range d.Reasons {
				rs[i] = Markdown(r)
			}
			status += ": " + strings.Join(rs, "; ")
		}
		var ts []string
		for _, t := range d.Targets {
			if s, ok := targetWords(t, "→"); ok && d.Status != baseline.Removed {
				ts = append(ts, Markdown(t.Name)+" "+s)
			}
		}
		ts = append(ts, changedLabels(d, "→", Markdown)...)
		rows = append(rows, []string{Markdown(d.Name), status, verdictWords(d, "→"), strings.Join(ts, "<br>")})
	}
	if len(rows) > 0 {
		b.WriteString("#### Cases\n\n| case | status | verdict | targets |\n| --- | --- | --- | --- |\n")
		for _, row := range rows {
			fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
		}
		b.WriteString("\n")
	}
	b.WriteString(reliabilityDeltaMarkdown(c.Reliability))
}

// reliabilityDeltaMarkdown renders the change of the summary figures as a
// table, "" when none moved.
func reliabilityDeltaMarkdown(r *baseline.ReliabilityDelta) string {
	if len(summaryDeltaWords(r, "→")) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Reliability against the baseline\n\n| figure | baseline | current | change |\n| --- | ---: | ---: | ---: |\n")
	for _, f := range r.Figures {
		cell := func(v *float64) string {
			switch {
			case v == nil:
				return "—"
			case strings.HasPrefix(f.Name, "summary.pass"):
				return fmt.Sprintf("%.1f%%", *v)
			}
			return fmt.Sprintf("%d", int64(*v))
		}
		change := ""
		if f.Delta != nil && *f.Delta != 0 {
			change = strings.TrimSuffix(cell(f.Delta), "%")
			if *f.Delta > 0 {
				change = "+" + change
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", Markdown(f.Name), cell(f.Baseline), cell(f.Current), change)
	}
	b.WriteString("\n")
	return b.String()
}

// Markdown escapes text for GitHub-flavoured markdown, inline or in a
// table cell: control characters become visible escapes (as Clean does),
// line breaks become spaces, <, > and & become entities, and every other
// ASCII punctuation character is backslash-escaped, so recorded text cannot
// open a link, an image, an HTML tag, an entity, emphasis, a code span or a
// table cell.
func Markdown(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	s = Clean(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r < 0x80 && isASCIIPunct(byte(r)):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
