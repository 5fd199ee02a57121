package annotate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// Reporter renders a run envelope.
type Reporter interface {
	Report(w io.Writer, env *report.Envelope) error
}

// Options tune the human reporters.
type Options struct {
	// Color turns on ANSI colour; the caller decides (a TTY, no NO_COLOR).
	Color bool
	// AgentBudget is the agent reporter's token budget (0: the default).
	AgentBudget int
	// Recorded reads a case's evidence again from its recordings for the
	// html report (HTML.Recorded); nil shows only what the envelope holds.
	Recorded Recorded
}

// Names lists the reporters New knows, in the order help shows them: the
// one vocabulary of every command's --format. The plain report is text;
// pretty, its older name, is an alias (Canonical).
var Names = []string{"text", "json", "junit", "sarif", "html", "agent"}

// Canonical is the format name for name: text for its alias pretty, name
// itself otherwise.
func Canonical(name string) string {
	if name == "pretty" {
		return "text"
	}
	return name
}

// New returns the reporter called name (or its alias, Canonical).
func New(name string, opt Options) (Reporter, error) {
	switch Canonical(name) {
	case "text":
		return Pretty{Color: opt.Color}, nil
	case "json":
		return JSON{}, nil
	case "junit":
		return JUnit{}, nil
	case "sarif":
		return SARIF{}, nil
	case "html":
		return HTML{Recorded: opt.Recorded}, nil
	case "agent":
		return Agent{Budget: opt.AgentBudget}, nil
	}
	return nil, fmt.Errorf("unknown reporter %q: expected one of %s", name, strings.Join(Names, ", "))
}

// Render renders env in format (one of Names) and returns the bytes: how
// `mcptest run --output FORMAT=FILE` and the Action's reports: input
// render every extra report, so both write what `--format FORMAT --output
// FILE` writes.
func Render(format string, env *report.Envelope, opt Options) ([]byte, error) {
	rep, err := New(format, opt)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// JSON writes the envelope as JSON indented by two spaces, each case and
// each catalog one line of compact JSON, with a final newline. Maps are
// written with sorted keys, so the output is byte-identical for the same
// envelope. The cases are encoded and written one at a time, so the
// output is never held whole in memory.
type JSON struct{}

// Report implements Reporter.
func (JSON) Report(w io.Writer, env *report.Envelope) error {
	if env.Cases == nil {
		// "cases": null, as a decoded envelope may have it.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", jsonIndent)
		if err := enc.Encode(env); err != nil {
			return fmt.Errorf("encode run envelope: %w", err)
		}
		data, err := catalogLines(buf.Bytes(), env.Catalogs)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	ce := newCaseEncoder()
	return writeEnvelope(w, env, len(env.Cases), func(w *bufio.Writer) error {
		for i, c := range env.Cases {
			data, err := ce.encode(c)
			if err != nil {
				return err
			}
			if err := writeCase(w, i, data); err != nil {
				return err
			}
		}
		return nil
	})
}

// Pretty renders one line per case, then the checks it failed, each once
// with its evidence under it (caseFailures, the model the job summary and
// the HTML report render too), the findings that explain them, then a
// summary line.
type Pretty struct {
	Color bool
}

const (
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	dim    = "\x1b[2m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

func (p Pretty) paint(code, s string) string {
	if !p.Color {
		return s
	}
	return code + s + reset
}

// Report implements Reporter.
func (p Pretty) Report(w io.Writer, env *report.Envelope) error {
	var b strings.Builder
	for _, c := range env.Cases {
		p.caseText(&b, c)
	}
	p.tail(&b, env, uncheckedCalls(env))
	_, err := io.WriteString(w, b.String())
	return err
}

// caseText writes the lines of one case: its verdict, then what failed.
func (p Pretty) caseText(b *strings.Builder, c *report.CaseResult) {
	label := map[report.Verdict]string{
		report.Pass: p.paint(green, "PASS"), report.Fail: p.paint(red, "FAIL"), report.Inconclusive: p.paint(yellow, "INCONCLUSIVE"),
	}[c.Verdict]
	fmt.Fprintf(b, "%s  %s%s%s\n", label, Clean(c.Name), p.paint(dim, runsLabel(c)), p.paint(dim, targetsLabel(c, false)))
	p.failures(b, c)
	for _, f := range c.Findings {
		if c.Verdict != report.Pass && (f.Level == "error" || c.Verdict == report.Inconclusive && f.Level == "warning") {
			continue // a check the case failed, or its evidence, printed above
		}
		if c.Verdict == report.Pass && f.Level != "warning" && !restrictedCall(f) {
			continue
		}
		msg := f.Message
		if f.Position != nil && f.Position.File != "" {
			msg = f.Position.String() + ": " + msg
		}
		fmt.Fprintf(b, "      %s %s\n", p.paint(levelColor(f.Level), f.Level+":"), Clean(msg))
	}
	p.world(b, c)
	p.reliability(b, c)
	p.multiRun(b, c)
}

// tail writes what follows the cases: the run's reliability summary and
// its totals; unchecked is the calls of every case no schema checked.
func (p Pretty) tail(b *strings.Builder, env *report.Envelope, unchecked int64) {
	p.summary(b, env)
	t := env.Totals
	summary := fmt.Sprintf("%d passed, %d failed, %d inconclusive (%d %s)", t.Passed, t.Failed, t.Inconclusive, t.Total, pluralWord(t.Total, "case", "cases"))
	if env.Run.Shard != "" {
		summary = strings.TrimSuffix(summary, ")") + ", shard " + Clean(env.Run.Shard) + ")"
	}
	if n := failedFloors(env); n > 0 {
		summary += fmt.Sprintf("; %d suite %s failed", n, pluralWord(n, "floor", "floors"))
	}
	if n := unchecked; n > 0 {
		summary += fmt.Sprintf("; %d %s not checked against a schema (arguments.unchecked)", n, pluralWord(int(n), "call", "calls"))
	}
	if env.Verdict == report.Fail {
		summary = p.paint(bold+red, summary)
	} else {
		summary = p.paint(bold, summary)
	}
	fmt.Fprintf(b, "\n%s\n", summary)
}

func levelColor(level string) string {
	switch level {
	case "error":
		return red
	case "warning":
		return yellow
	}
	return dim
}

func runsLabel(c *report.CaseResult) string {
	if c.Kind != report.KindAgent {
		return ""
	}
	if c.Runs == 1 {
		return "  (1 run)"
	}
	return fmt.Sprintf("  (%d runs)", c.Runs)
}

// targetsLabel renders a case's targets and labels for its line:
// "  name=value name=value", or "" when it has none. Without reliability,
// the reliability.* figures are left out (the pretty reporter says them on
// a line of their own).
func targetsLabel(c *report.CaseResult, reliability bool) string {
	var parts []string
	for _, f := range caseFigures(c) {
		if reliability || !strings.HasPrefix(f, "reliability.") {
			parts = append(parts, f)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, " ")
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// Clean makes recorded text safe for a terminal: control characters
// (escape sequences included) become visible \u escapes, so nothing from a
// cassette or a suite can move the cursor or recolour the screen.
func Clean(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// failures prints the checks a case failed (caseFailures), each once:
// "file:line:col: message", then its evidence indented under it, a
// floor's FLOOR lines in red.
func (p Pretty) failures(b *strings.Builder, c *report.CaseResult) {
	for _, pr := range caseFailures(c) {
		for i, l := range pr.TextLines() {
			switch {
			case i == 0 && pr.Level != "":
				fmt.Fprintf(b, "      %s%s\n", p.paint(levelColor(pr.Level), pr.Level+":"), Clean(strings.TrimPrefix(l, pr.Level+":")))
			case i == 0 && pr.Located:
				pos := pr.Pos.String() + ":"
				fmt.Fprintf(b, "      %s%s\n", p.paint(dim, Clean(pos)), Clean(strings.TrimPrefix(l, pos)))
			case strings.HasPrefix(l, "  FLOOR "):
				fmt.Fprintf(b, "        %s%s\n", p.paint(red, "FLOOR"), Clean(l[len("  FLOOR"):]))
			default:
				fmt.Fprintf(b, "      %s\n", Clean(l))
			}
		}
	}
}
