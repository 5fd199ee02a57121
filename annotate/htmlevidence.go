package annotate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// The HTML report's share of a case's evidence: the runs shown per case
// (failing runs first), the length of an excerpt shown before its "full"
// toggle, and the budget in bytes of evidence text over the whole page,
// spent on failing and inconclusive cases first, so a report of
// thousands of cases stays a few megabytes. What is left out is in the
// envelope and in `mcptest view`.
const (
	htmlEvidenceRuns   = 3
	htmlExcerpt        = 240
	htmlEvidenceBudget = 512 << 10
)

// htmlRunEvidence is one run's timeline in the HTML report.
type htmlRunEvidence struct {
	Run                 int
	Passed              bool
	Model, Tokens, Cost string
	// Arguments is the run's count of calls with invalid arguments
	// ("1 call with invalid arguments"), "" without an arguments: block.
	Arguments string
	Missed    []string
	Failed    []string
	// Figures are the run's own gate figures, "steps.calls 3", in name
	// order; Notes what a gate saw of it (a trajectory's divergence).
	Figures, Notes           []string
	Turns                    []htmlTurn
	OmittedCalls             int
	HasVerdict               bool
	FinalClipped, AnyClipped bool
}

type htmlTurn struct {
	N            int
	Calls        []htmlCall
	Final        htmlText
	FinalClipped bool
}

type htmlCall struct {
	N  int
	ID string
	// RecordedAs is the tool's name in the recording, when the suite's
	// aliases: gave it ID's name.
	RecordedAs       string
	Args             htmlText
	Result           htmlText
	IsError, Clipped bool
	Marks            []string
	Violations       []string
	Duration         string
}

// htmlText is an excerpt: Short is shown, Full (when set) behind a
// "full" toggle.
type htmlText struct {
	Short, Full string
}

func textOf(s string) htmlText {
	s = cleanLines(s)
	short := clip(s, htmlExcerpt)
	if short == s {
		return htmlText{Short: s}
	}
	return htmlText{Short: short, Full: s}
}

// cleanLines is Clean for text shown with its line breaks: each line is
// cleaned, the breaks (and tabs) kept.
func cleanLines(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = Clean(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}

// evidenceSize is the bytes of recorded text a case's evidence would add.
func evidenceSize(runs []report.RunEvidence) int {
	n := 0
	for _, r := range runs {
		for _, t := range r.Turns {
			n += len(t.FinalResponse) + 250
			for _, c := range t.Calls {
				n += min(len(c.Arguments), htmlExcerpt) + min(len(c.Result), htmlExcerpt) + len(c.Arguments) + len(c.Result) + 450
			}
		}
	}
	return n
}

// evidenceBudget decides which cases show their evidence: failing and
// inconclusive cases first, then passing ones, in suite order, while the
// page's budget lasts. A case whose envelope carries no evidence has it
// read again from its recordings by recorded (when given), only while
// the budget lasts, so the page reads no more recordings than it shows:
// reread holds, by case, what was read and the note the page shows.
func evidenceBudget(env *report.Envelope, recorded Recorded, budget int) (shown map[int]bool, reread map[int]rereadEvidence) {
	cases := env.Cases
	order := make([]int, len(cases))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return cases[order[a]].Verdict != report.Pass && cases[order[b]].Verdict == report.Pass
	})
	shown, reread = map[int]bool{}, map[int]rereadEvidence{}
	left := budget
	for _, i := range order {
		c := cases[i]
		if len(c.Evidence) == 0 && recorded != nil && c.Cassettes != nil && left >= htmlRereadMin {
			ev, note := recorded(env.Suite.Path, c)
			if note == "" {
				note = "timelines read again from the case's recordings (their sha256 matches the run's)"
			}
			withEv := *c
			withEv.Evidence = ev
			if n := evidenceSize(pickRuns(&withEv, htmlEvidenceRuns)); n > 0 && n <= left {
				left -= n
				shown[i] = true
				reread[i] = rereadEvidence{evidence: ev, note: note}
			} else if ev == nil {
				reread[i] = rereadEvidence{note: "no timelines: " + note}
			}
			continue
		}
		n := evidenceSize(pickRuns(c, htmlEvidenceRuns))
		if n == 0 || n > left {
			continue
		}
		left -= n
		shown[i] = true
	}
	return shown, reread
}

// rereadEvidence is a case's evidence read again from its recordings,
// and what the page says of it.
type rereadEvidence struct {
	evidence []report.RunEvidence
	note     string
}

// htmlRereadMin is the budget under which the page reads no more
// recordings.
const htmlRereadMin = 4 << 10

// pickRuns chooses the runs a case shows: its failing runs first, then
// the others, in run order, at most n.
func pickRuns(c *report.CaseResult, n int) []report.RunEvidence {
	failed := map[int]bool{}
	if r := c.Reliability; r != nil {
		for _, row := range r.Rows {
			if !row.Passed {
				failed[row.Run] = true
			}
		}
	}
	var first, rest []report.RunEvidence
	for _, ev := range c.Evidence {
		if failed[ev.Run] {
			first = append(first, ev)
		} else {
			rest = append(rest, ev)
		}
	}
	out := append(first, rest...)
	if len(out) > n {
		out = out[:n]
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Run < out[b].Run })
	return out
}

// evidenceOf renders the runs pickRuns chose as timelines.
func evidenceOf(c *report.CaseResult) []htmlRunEvidence {
	return timelines(c, pickRuns(c, htmlEvidenceRuns))
}

// timelines renders runs of case c as timelines, with each run's verdict.
func timelines(c *report.CaseResult, runs []report.RunEvidence) []htmlRunEvidence {
	verdicts := map[int]report.RunVerdict{}
	if r := c.Reliability; r != nil {
		for _, row := range r.Rows {
			verdicts[row.Run] = row
		}
	}
	var out []htmlRunEvidence
	for _, ev := range runs {
		hr := htmlRunEvidence{Run: ev.Run, Model: Clean(ev.Model), Missed: cleanAll(ev.Missed), OmittedCalls: ev.OmittedCalls}
		if v, ok := verdicts[ev.Run]; ok {
			hr.HasVerdict, hr.Passed, hr.Failed = true, v.Passed, cleanAll(v.Failed)
		}
		if t := ev.Tokens; t != nil {
			hr.Tokens = fmt.Sprintf("%d tokens (%d in, %d out)", t.Total, t.Input, t.Output)
		}
		if ev.CostMicros != nil {
			hr.Cost = fmt.Sprintf("$%.4f", float64(*ev.CostMicros)/1e6)
		}
		hr.Figures, hr.Notes = runFigures(ev.Figures), cleanAll(ev.Notes)
		if n := ev.ArgumentsInvalid; n != nil {
			hr.Arguments = fmt.Sprintf("%d %s with invalid arguments", *n, pluralWord(int(*n), "call", "calls"))
		}
		for ti, t := range ev.Turns {
			ht := htmlTurn{N: ti + 1, Final: textOf(t.FinalResponse), FinalClipped: t.Clipped}
			for ci, call := range t.Calls {
				ht.Calls = append(ht.Calls, callOf(ci+1, call))
			}
			hr.Turns = append(hr.Turns, ht)
		}
		out = append(out, hr)
	}
	return out
}

func callOf(n int, c report.CallEvidence) htmlCall {
	id := c.Tool
	if c.Server != "" {
		id = c.Server + "." + c.Tool
	}
	hc := htmlCall{N: n, ID: Clean(id), RecordedAs: Clean(c.RecordedAs), Args: textOf(c.Arguments), Result: textOf(c.Result), IsError: c.IsError, Clipped: c.Clipped, Marks: cleanAll(c.Marks), Violations: cleanAll(c.Violations)}
	if c.DurationMS != nil {
		hc.Duration = compact(*c.DurationMS) + " ms"
	}
	return hc
}

// runFigures renders a run's figures as "name value", in name order;
// latency.run_ms reads "latency.run_ms 400 ms".
func runFigures(figures map[string]float64) []string {
	var out []string
	for _, k := range sortedFigureNames(figures) {
		f := Clean(k) + " " + compact(figures[k])
		if strings.HasSuffix(k, "_ms") {
			f += " ms"
		}
		out = append(out, f)
	}
	return out
}

func sortedFigureNames(figures map[string]float64) []string {
	names := make([]string, 0, len(figures))
	for k := range figures {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
