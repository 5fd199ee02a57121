package annotate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// maxPrettyRuns is how many runs the pretty and HTML reporters list one by
// one: every run of a case with at most this many, else its failing runs
// up to this many. The envelope and JUnit hold every run.
const maxPrettyRuns = 10

// reliabilityWords is a case's runs as a reliability measure, one line:
// "3/4 runs passed (75%): flaky".
func reliabilityWords(r *report.ReliabilityDetail) string {
	pct := int64(0)
	if r.Runs > 0 {
		pct = (200*r.PassedRuns + r.Runs) / (2 * r.Runs)
	}
	return fmt.Sprintf("%d/%d runs passed (%d%%): %s", r.PassedRuns, r.Runs, pct, Clean(r.Class))
}

// reliabilityLine adds the pass^k figures and the certified bound to
// reliabilityWords: "3/4 runs passed (75%), pass^1..4 75/50/25/0%,
// certified lower bound 24% at 95% confidence: flaky".
func reliabilityLine(c *report.CaseResult) string {
	r := c.Reliability
	var hats []string
	for k := 1; ; k++ {
		v, ok := c.Targets[fmt.Sprintf("reliability.pass_hat_%d", k)]
		if !ok {
			break
		}
		hats = append(hats, compact(v))
	}
	head, class, _ := strings.Cut(reliabilityWords(r), ": ")
	if len(hats) > 0 {
		head += fmt.Sprintf(", pass^1..%d %s%%", len(hats), strings.Join(hats, "/"))
	}
	if v, ok := c.Targets["reliability.certified_lower"]; ok {
		head += fmt.Sprintf(", certified lower bound %s%% at %s%% confidence", compact(v), compact(r.Confidence))
	}
	return head + ": " + class
}

// runWords says what a run failed, or "" for a run that passed.
func runWords(v report.RunVerdict) string {
	return strings.Join(v.Failed, "; ")
}

// shownRuns picks the runs a reader is shown one by one: all of them when
// there are at most maxPrettyRuns and the case lists no tool_selection:
// rows of its own, else the failing ones, at most maxPrettyRuns. more
// counts the failing runs left out.
func shownRuns(c *report.CaseResult) (rows []report.RunVerdict, more int) {
	r := c.Reliability
	if r == nil {
		return nil, 0
	}
	if len(r.Rows) <= maxPrettyRuns && c.ToolSelection == nil {
		return r.Rows, 0
	}
	for _, row := range r.Rows {
		if row.Passed {
			continue
		}
		if len(rows) == maxPrettyRuns {
			more++
			continue
		}
		rows = append(rows, row)
	}
	return rows, more
}

// reliability prints the reliability line of a case some run of which
// failed; which runs failed each check is said under the check
// (caseFailures), so the runs are not listed again:
//
//	reliability: 3/4 runs passed (75%), pass^1..4 75/50/25/0%, certified lower bound 24% at 95% confidence: flaky
func (p Pretty) reliability(b *strings.Builder, c *report.CaseResult) {
	r := c.Reliability
	if r == nil || r.PassedRuns == r.Runs {
		return
	}
	fmt.Fprintf(b, "      %s %s\n", p.paint(dim, "reliability:"), reliabilityLine(c))
}

// caseFigures lists a case's targets and labels as "name=value", in name
// order: the numbers as JSON, the words as written with their control
// characters escaped (a label may hold a recorded string), so the pairs
// stay on the one line the reporters print them on.
func caseFigures(c *report.CaseResult) []string {
	pairs := figurePairs(c)
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = Clean(p[0]) + "=" + Clean(p[1])
	}
	return out
}

// figurePairs lists a case's targets and labels as name, value pairs in
// name order.
func figurePairs(c *report.CaseResult) [][2]string {
	keys := make([]string, 0, len(c.Targets)+len(c.Labels))
	for k := range c.Targets {
		keys = append(keys, k)
	}
	for k := range c.Labels {
		if _, dup := c.Targets[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return figureLess(keys[i], keys[j]) })
	out := make([][2]string, len(keys))
	for i, k := range keys {
		if v, ok := c.Targets[k]; ok {
			out[i] = [2]string{k, compact(v)}
		} else {
			out[i] = [2]string{k, c.Labels[k]}
		}
	}
	return out
}

// agentRuns is the agent reporter's runs: line for a case with several
// runs: "3/4 runs passed (75%): flaky; failed: #2", at most maxPrettyRuns
// run numbers; "" for a case without.
func agentRuns(c *report.CaseResult) string {
	r := c.Reliability
	if r == nil {
		return ""
	}
	var failed []string
	for _, row := range r.Rows {
		if row.Passed {
			continue
		}
		if len(failed) == maxPrettyRuns {
			failed = append(failed, "…")
			break
		}
		failed = append(failed, fmt.Sprintf("#%d", row.Run))
	}
	s := reliabilityWords(r)
	if len(failed) > 0 {
		s += "; failed: " + strings.Join(failed, ", ")
	}
	return s
}

// figureLess orders figure names by name, a trailing number by its value:
// reliability.pass_hat_2 before reliability.pass_hat_10.
func figureLess(a, b string) bool {
	ab, an := splitNumber(a)
	bb, bn := splitNumber(b)
	if ab != bb || an < 0 || bn < 0 {
		return a < b
	}
	return an < bn
}

// splitNumber splits "pass_hat_12" into "pass_hat_" and 12; the number is
// -1 when the name does not end in one (or it is too long to be one).
func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n := 0
	for _, c := range s[i:] {
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}

// showSummary reports whether the human reporters show the run's summary:
// when the suite declares floors, or two cases or more have reliability
// figures and one is flaky or failed every run. A run whose every case
// passed every run says all there is on its totals line, and the summary
// of one case is that case's own figures.
func showSummary(env *report.Envelope) bool {
	s := env.Summary
	return len(env.Floors) > 0 || s != nil && s.Cases > 1 && s.Classes.Flaky+s.Classes.StableFail > 0
}

// summaryHead is the summary's first line: "50 cases, 200 runs (84
// passed): 10 stable_pass, 18 flaky, 22 stable_fail".
func summaryHead(s *report.Summary) string {
	return fmt.Sprintf("%d %s, %d runs (%d passed): %d stable_pass, %d flaky, %d stable_fail",
		s.Cases, pluralWord(int(s.Cases), "case", "cases"), s.Runs, s.PassedRuns, s.Classes.StablePass, s.Classes.Flaky, s.Classes.StableFail)
}

// summaryTable is the summary's pass^k table as rows of cells: the k, the
// mean pass^k and the mean pass@k in percent with one decimal, and the
// cases they are over.
func summaryTable(s *report.Summary) [4][]string {
	t := [4][]string{{"k"}, {"pass^k"}, {"pass@k"}, {"cases"}}
	for i, p := range s.PassHat {
		t[0] = append(t[0], fmt.Sprint(p.K))
		t[1] = append(t[1], fmt.Sprintf("%.1f%%", p.Value))
		at := "-"
		if i < len(s.PassAt) {
			at = fmt.Sprintf("%.1f%%", s.PassAt[i].Value)
		}
		t[2] = append(t[2], at)
		t[3] = append(t[3], fmt.Sprint(p.Cases))
	}
	return t
}

// floorWords describes a suite floor's outcome for a reader:
// "`summary.pass_hat_1` >= 40: 42.0", with the reason when it failed.
func floorWords(f report.SuiteFloor) string {
	s := fmt.Sprintf("`%s` %s", f.Target, matcherWords(f.Matcher))
	if f.Actual != nil {
		s += ": " + compact(f.Actual)
	}
	if !f.Passed || f.Deferred {
		if _, why, ok := strings.Cut(f.Message, ") "); ok {
			s += " (" + why + ")"
		}
	}
	return s
}

// matcherWords renders a one-key comparison matcher as ">= 40", any other
// as compact JSON.
func matcherWords(m any) string {
	if mm, ok := m.(map[string]any); ok && len(mm) == 1 {
		for k, v := range mm {
			if _, isNum := v.(float64); isNum {
				return k + " " + compact(v)
			}
		}
	}
	return literal(m)
}

// summary prints the run's reliability summary as a small table, then the
// suite's floors:
//
//	reliability: 50 cases, 200 runs (84 passed): 10 stable_pass, 18 flaky, 22 stable_fail
//	  k       1      2      3      4
//	  pass^k  42.0%  27.3%  22.0%  20.0%
//	  pass@k  42.0%  56.7%  62.0%  64.0%
//	  cases   50     50     50     50
//	floor [PASS] `summary.pass_hat_1` >= 40: 42
func (p Pretty) summary(b *strings.Builder, env *report.Envelope) {
	if !showSummary(env) {
		return
	}
	b.WriteString("\n")
	if s := env.Summary; s != nil {
		fmt.Fprintf(b, "%s %s\n", p.paint(bold, "reliability:"), summaryHead(s))
		t := summaryTable(s)
		width := make([]int, len(t[0]))
		for _, row := range t {
			for i, cell := range row {
				width[i] = max(width[i], len(cell))
			}
		}
		for _, row := range t {
			var line strings.Builder
			for i, cell := range row {
				if i == len(row)-1 {
					line.WriteString(cell)
					break
				}
				fmt.Fprintf(&line, "%-*s  ", width[i], cell)
			}
			fmt.Fprintf(b, "  %s\n", line.String())
		}
	}
	for _, f := range env.Floors {
		verdict := p.paint(green, "[PASS]")
		switch {
		case f.Deferred:
			verdict = p.paint(yellow, "[DEFERRED]")
		case !f.Passed:
			verdict = p.paint(red, "[FAIL]")
		}
		fmt.Fprintf(b, "%s floor %s %s\n", p.paint(dim, f.Position.String()+":"), verdict, Clean(floorWords(f)))
	}
}

// failedFloors counts the suite floors that failed (a deferred one has not).
func failedFloors(env *report.Envelope) int {
	n := 0
	for _, f := range env.Floors {
		if !f.Passed && !f.Deferred {
			n++
		}
	}
	return n
}

// uncheckedCalls counts the calls of every case whose arguments no
// schema checked (arguments.unchecked: no schema, or one that does not
// compile), which the summary line names so a pass never hides them.
func uncheckedCalls(env *report.Envelope) int64 {
	var n int64
	for _, c := range env.Cases {
		n += c.Counts["arguments.unchecked"]
	}
	return n
}

// summaryMarkdown renders the run's reliability summary for a job summary
// or a PR comment: a line of counts, the pass^k table and the floors; ""
// when there is nothing to show (see showSummary).
func summaryMarkdown(env *report.Envelope) string {
	if !showSummary(env) {
		return ""
	}
	var b strings.Builder
	b.WriteString("#### Reliability across runs\n\n")
	if s := env.Summary; s != nil {
		fmt.Fprintf(&b, "%s.\n\n", summaryHead(s))
		t := summaryTable(s)
		for i, row := range t {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
			if i == 0 {
				b.WriteString("| ---" + strings.Repeat(" | ---:", len(row)-1) + " |\n")
			}
		}
		b.WriteString("\n")
	}
	for _, f := range env.Floors {
		mark := "✅ pass"
		switch {
		case f.Deferred:
			mark = "⏸ deferred"
		case !f.Passed:
			mark = "❌ **fail**"
		}
		fmt.Fprintf(&b, "- %s: floor %s\n", mark, Markdown(floorWords(f)))
	}
	if len(env.Floors) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// restrictedCall reports whether a finding is a restricted call of a
// tool_edges: block (or the count of those not listed): shown whatever the
// case's verdict, since an expect: list that reads only allowed_pct would
// otherwise let it pass unseen.
func restrictedCall(f report.Finding) bool {
	return f.Gate == "tool_edges" && f.Level == "error"
}

// restrictedOnPass lists the restricted calls of a passing case (the
// findings restrictedCall picks, in the order the gate recorded them), the
// evidence the pretty, agent and JUnit reporters show and the Action
// annotates, summarises and writes to SARIF as a warning. A failing case
// has none here: its restricted calls are among the reasons it failed.
func restrictedOnPass(c *report.CaseResult) []report.Finding {
	if c.Verdict != report.Pass {
		return nil
	}
	var out []report.Finding
	for _, f := range c.Findings {
		if restrictedCall(f) {
			out = append(out, f)
		}
	}
	return out
}

// labelWords renders a word-valued target of a comparison as "stable_pass
// -> flaky", "A (new)" or "F (gone)"; ok is false when it did not change.
func labelWords(l baseline.LabelDelta, arrow string) (string, bool) {
	switch {
	case l.Baseline == nil && l.Current != nil:
		return *l.Current + " (new)", true
	case l.Current == nil && l.Baseline != nil:
		return *l.Baseline + " (gone)", true
	case l.Current == nil || *l.Baseline == *l.Current:
		return "", false
	}
	return *l.Baseline + " " + arrow + " " + *l.Current, true
}

// changedLabels lists a case's changed labels as "name words", each part
// escaped with esc.
func changedLabels(d baseline.CaseDelta, arrow string, esc func(string) string) []string {
	var out []string
	if d.Status == baseline.Removed {
		return nil
	}
	for _, l := range d.Labels {
		if s, ok := labelWords(l, arrow); ok {
			out = append(out, esc(l.Name)+" "+esc(s))
		}
	}
	return out
}

// summaryDeltaWords lists the summary figures that moved, as "pass^1 42.0
// -> 40.0 (-2.0)"; a figure new or gone on one side says so.
func summaryDeltaWords(r *baseline.ReliabilityDelta, arrow string) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, f := range r.Figures {
		name := strings.TrimPrefix(f.Name, "summary.")
		if k, ok := strings.CutPrefix(name, "pass_hat_"); ok {
			name = "pass^" + k
		}
		if k, ok := strings.CutPrefix(name, "pass_at_"); ok {
			name = "pass@" + k
		}
		one := func(v float64) string { return fmt.Sprintf("%.1f", v) }
		if !strings.HasPrefix(f.Name, "summary.pass") {
			one = func(v float64) string { return fmt.Sprintf("%d", int64(v)) }
		}
		switch {
		case f.Baseline == nil && f.Current != nil:
			out = append(out, fmt.Sprintf("%s %s (new)", name, one(*f.Current)))
		case f.Current == nil && f.Baseline != nil:
			out = append(out, fmt.Sprintf("%s %s (gone)", name, one(*f.Baseline)))
		case f.Delta != nil && *f.Delta != 0:
			sign := "+"
			if *f.Delta < 0 {
				sign = ""
			}
			out = append(out, fmt.Sprintf("%s %s %s %s (%s%s)", name, one(*f.Baseline), arrow, one(*f.Current), sign, one(*f.Delta)))
		}
	}
	return out
}

// flipWhat names a flip's subject for a markdown table.
func flipWhat(f baseline.Flip, esc func(string) string) string {
	switch f.Subject {
	case baseline.SubjectAssertion:
		s := fmt.Sprintf("assertion #%d %s", *f.Index, esc(f.Name))
		if f.Block != "" {
			s += " in " + esc(f.Block)
		}
		return s
	case baseline.SubjectFloor:
		return "floor " + esc(f.Name)
	case baseline.SubjectClass:
		return "reliability class"
	case baseline.SubjectSuiteFloor:
		return fmt.Sprintf("suite floor #%d %s", *f.Index, esc(f.Name))
	}
	return "case"
}
