package annotate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/report"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/baseline"
)

// The platform limits of action.md, with headroom for what the caller adds.
const (
	// AnnotationsPerKind is how many error, warning and notice annotations
	// a step may emit; the runner drops the rest silently.
	AnnotationsPerKind = 10
	// SummaryLimit bounds the job summary (1 MiB per step).
	SummaryLimit = 1000 * 1000
	// CommentLimit bounds a PR comment or issue body (65,536 characters).
	CommentLimit = 60000
)

// ActionReport is what the Action shows about one run: the run, its
// comparison with the baseline (nil when there is none) and how the
// baseline was found or why not.
type ActionReport struct {
	Env *report.Envelope
	// Cmp is nil when there is no baseline; Gate then applies to the run
	// compared with an empty baseline.
	Cmp  *baseline.Comparison
	Gate baseline.Gate
	// BaselineRunID and BaselineURL name the run that supplied the
	// baseline; BaselineFile a local baseline-file: instead.
	BaselineRunID int64
	BaselineURL   string
	BaselineFile  string
	// Missing says why there is no baseline.
	Missing string
	// Notes are said first: degradations (no comment on a fork PR) and
	// the like. They are our own text, not escaped.
	Notes []string
	// IsBaseline is set for a baseline run: nothing is compared.
	IsBaseline bool
	// Suite is the suite file's path, the key of the sticky comment unless
	// CommentKey is set.
	Suite string
	// CommentKey keys the sticky comment (the Action's comment-key input),
	// so two jobs over one suite keep two comments; "" means Suite.
	CommentKey string
	// Trend is how the floors moved over the last baselines and this run
	// (the Action's history input); nil when no history was read. The
	// summary, comment and issue get a line per floor that fell
	// (slideBlock); the summary also the compact trend (trendBlocks).
	Trend *Trend
	// HistoryPage is the history page's file, named in the summary.
	HistoryPage string
}

// Annotation is one workflow-command annotation.
type Annotation struct {
	Level   string // error, warning or notice
	File    string
	Line    int
	Col     int
	Title   string
	Message string
}

// Annotations lists what the Action annotates, in the priority order of
// action.md: pass -> fail flips, then still-failing cases, then a warning
// on the line of each passing case that called a restricted tool
// (restrictedAnnotations), then fail -> pass flips as notices. Without a
// comparison every failing case is an error.
func Annotations(r ActionReport) []Annotation {
	var regress, failing, fixes []Annotation
	byName := map[string]*report.CaseResult{}
	for _, c := range r.Env.Cases {
		byName[c.Name] = c
	}
	flipped := map[string]bool{}
	if r.Cmp != nil {
		for _, d := range r.Cmp.Cases {
			reg, fix := caseFlips(d, byName[d.Name])
			if reg != nil {
				regress = append(regress, *reg)
				flipped[d.Name] = true
			} else if fix != nil {
				fixes = append(fixes, *fix)
			}
		}
		for _, f := range r.Cmp.Floors {
			a := Annotation{Level: "notice", Title: "mcptest fix: suite floor", Message: flatten(fmt.Sprintf("%s: %s -> %s: %s", f.Label(), f.From, f.To, f.Message), 1000)}
			if f.Position != nil {
				a.File, a.Line, a.Col = f.Position.File, f.Position.Line, f.Position.Col
			}
			if f.Change == baseline.Regression {
				a.Level, a.Title = "error", "mcptest regression: suite floor"
				regress = append(regress, a)
			} else {
				fixes = append(fixes, a)
			}
		}
	}
	for _, c := range r.Env.Cases {
		if c.Verdict != report.Fail || flipped[c.Name] {
			continue
		}
		failing = append(failing, Annotation{Level: "error", File: c.Position.File, Line: c.Position.Line, Col: c.Position.Col,
			Title: "mcptest: " + flatten(c.Name, 120), Message: flatten(failureText(c), 1000)})
	}
	return append(append(append(regress, failing...), restrictedAnnotations(r.Env)...), fixes...)
}

// restrictedAnnotations is one warning per passing case that called a
// restricted tool of its tool_edges: block, on the case's line in the
// suite: its expect: did not gate the call, so the pass alone would hide it.
func restrictedAnnotations(env *report.Envelope) []Annotation {
	var out []Annotation
	for _, c := range env.Cases {
		fs := restrictedOnPass(c)
		if len(fs) == 0 {
			continue
		}
		out = append(out, Annotation{Level: "warning", File: c.Position.File, Line: c.Position.Line, Col: c.Position.Col,
			Title: "mcptest: restricted tool called in " + flatten(c.Name, 120), Message: flatten("the case passed, but its runs called a restricted tool: "+restrictedText(fs), 1000)})
	}
	return out
}

// restrictedText lists the restricted calls of a passing case, as the
// tool_edges: gate recorded them.
func restrictedText(fs []report.Finding) string {
	msgs := make([]string, len(fs))
	for i, f := range fs {
		msgs[i] = f.Message
	}
	return strings.Join(msgs, "; ")
}

// caseFlips folds one case's flips into at most one annotation: an error
// at the case's first regressing flip when it has one, else a notice at its
// first fix. The annotation's message leads with that flip and carries the
// case's other flips after it, so one regressed case spends one of the
// step's ten error annotations.
func caseFlips(d baseline.CaseDelta, c *report.CaseResult) (reg, fix *Annotation) {
	var regs, fixes []baseline.Flip
	for _, f := range d.Flips {
		switch f.Change {
		case baseline.Regression:
			regs = append(regs, f)
		case baseline.Noise:
			// a flaky case failing in both runs: neither a regression nor a fix
		default:
			fixes = append(fixes, f)
		}
	}
	all := append(subjectFirst(regs), subjectFirst(fixes)...)
	if len(all) == 0 {
		return nil, nil
	}
	a := Annotation{Level: "notice", Title: "mcptest fix: " + flatten(d.Name, 120)}
	if len(regs) > 0 {
		a.Level, a.Title = "error", "mcptest regression: "+flatten(d.Name, 120)
	}
	if c != nil {
		a.File, a.Line, a.Col = c.Position.File, c.Position.Line, c.Position.Col
	}
	if p := all[0].Position; p != nil && p.Line > 0 {
		a.File, a.Line, a.Col = p.File, p.Line, p.Col
	}
	msgs := make([]string, len(all))
	for i, f := range all {
		msgs[i] = fmt.Sprintf("%s: %s -> %s", f.Label(), f.From, f.To)
		if f.Message != "" {
			msgs[i] += ": " + f.Message
		}
	}
	a.Message = msgs[0]
	if len(msgs) > 1 {
		a.Message += fmt.Sprintf(" (and %d more flips in this case: %s)", len(msgs)-1, strings.Join(msgs[1:], "; "))
	}
	a.Message = flatten(a.Message, 1000)
	if len(regs) > 0 {
		return &a, nil
	}
	return nil, &a
}

// subjectFirst orders a case's flips of one direction for its annotation:
// the assertions and floors that flipped, in order, and the case's own flip
// only when nothing more specific flipped (the title already names the case).
func subjectFirst(flips []baseline.Flip) []baseline.Flip {
	var out []baseline.Flip
	for _, f := range flips {
		if f.Subject != baseline.SubjectCase {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return flips
	}
	return out
}

// failureText says why a case failed, as the text report does, on the
// one line an annotation gives it: each check it failed (caseProblems),
// then its evidence, separated by semicolons.
func failureText(c *report.CaseResult) string {
	var parts []string
	for _, p := range caseProblems(c) {
		for _, l := range p.TextLines() {
			parts = append(parts, strings.TrimSpace(l))
		}
	}
	if len(parts) == 0 {
		return "the case failed"
	}
	return strings.Join(parts, "; ")
}

// maxFailureLines bounds the lines of a failing case's row in the job
// summary; the rest are in the text and HTML reports.
const maxFailureLines = 16

// failureMarkdown is failureText for a table cell: each check on a line
// of its own, its evidence indented under it (caseProblems, as the text
// and HTML reports show them), every line escaped.
func failureMarkdown(c *report.CaseResult) string {
	var lines []string
	for _, p := range caseProblems(c) {
		for i, l := range p.TextLines() {
			if i > 0 {
				l = "&emsp;" + Text(strings.TrimLeft(l, " "), 300)
			} else {
				l = Text(l, 300)
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "the case failed"
	}
	if len(lines) > maxFailureLines {
		lines = append(lines[:maxFailureLines], fmt.Sprintf("… %d more lines in the text and HTML reports", len(lines)-maxFailureLines))
	}
	return strings.Join(lines, "<br>")
}

// flatten makes text one line of at most n runes: invisible characters
// dropped, controls shown as escapes (the workflow-command escaping is
// go-githubactions' job).
func flatten(s string, n int) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	s = strings.Map(func(r rune) rune {
		if isInvisible(r) {
			return -1
		}
		return r
	}, s)
	return clip(Clean(s), n)
}

// EmitAnnotations writes the annotations through go-githubactions, which
// escapes % CR LF in messages and also : and , in properties. At most
// AnnotationsPerKind of each level are written; when some are left, the
// last notice slot says how many more are in the job summary. It returns
// how many were written and how many left out.
func EmitAnnotations(a *githubactions.Action, list []Annotation) (written, dropped int) {
	budget := map[string]int{"error": AnnotationsPerKind, "warning": AnnotationsPerKind, "notice": AnnotationsPerKind}
	// Count first what does not fit, so the summary line has its slot.
	over := map[string]int{}
	for _, an := range list {
		over[an.Level]++
	}
	for k, n := range over {
		dropped += max(0, n-budget[k])
	}
	if dropped > 0 && over["notice"] >= budget["notice"] {
		budget["notice"]--
		dropped++
	}
	for _, an := range list {
		if budget[an.Level] == 0 {
			continue
		}
		budget[an.Level]--
		fields := map[string]string{"title": an.Title}
		if an.File != "" {
			fields["file"] = an.File
			if an.Line > 0 {
				fields["line"] = strconv.Itoa(an.Line)
			}
			if an.Col > 0 {
				fields["col"] = strconv.Itoa(an.Col)
			}
		}
		w := a.WithFieldsMap(fields)
		switch an.Level {
		case "error":
			w.Errorf("%s", an.Message)
		case "warning":
			w.Warningf("%s", an.Message)
		default:
			w.Noticef("%s", an.Message)
		}
		written++
	}
	if dropped > 0 {
		a.WithFieldsMap(map[string]string{"title": "mcptest"}).Noticef("%d more annotations are in the job summary (the runner keeps %d of each level per step)", dropped, AnnotationsPerKind)
	}
	return written, dropped
}

// block is a cuttable part of a markdown document: a head, rows and a
// tail that closes what the head opened.
type block struct {
	head string
	rows []string
	tail string
}

// renderBlocks joins blocks under limit characters, cutting rows in priority
// order (the order of the blocks, then of their rows): a block whose head
// does not fit is dropped, and a block is always closed. What was cut is
// said at the end.
func renderBlocks(blocks []block, limit int) string {
	const noteRoom = 200
	var b strings.Builder
	cut := 0
	for i, bl := range blocks {
		if cut > 0 {
			cut += len(bl.rows)
			continue
		}
		if b.Len()+len(bl.head)+len(bl.tail)+noteRoom > limit {
			cut += len(bl.rows)
			if len(bl.rows) == 0 {
				cut++
			}
			continue
		}
		b.WriteString(bl.head)
		for j, row := range bl.rows {
			if b.Len()+len(row)+len(bl.tail)+noteRoom > limit {
				cut += len(bl.rows) - j
				for _, rest := range blocks[i+1:] {
					cut += len(rest.rows)
				}
				break
			}
			b.WriteString(row)
		}
		b.WriteString(bl.tail)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "\n_%d more rows were cut to stay under GitHub's size limit; the full report is the run envelope (the `report-path` output)._\n", cut)
	}
	return b.String()
}

// Summary renders the job summary: verdict, baseline, floor flips (both
// directions), failing cases, then the other changes, cut under limit.
func Summary(r ActionReport, serverURL, repo string, limit int) string {
	return renderBlocks(r.blocks(serverURL, repo, r.trendBlocks()...), limit)
}

// CommentMarker is the hidden marker that finds the sticky comment of a
// suite on a pull request.
func CommentMarker(suite string) string {
	return "<!-- mcptest:summary key=" + MarkerKey(suite) + " -->"
}

// HasMarker reports whether body is the comment or issue that marker
// names: its first line is the marker, exactly (a CR before the line feed
// allowed, as the web editor saves it). A marker anywhere else in a body,
// quoted by a person or planted in recorded text, does not count.
func HasMarker(body, marker string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return strings.TrimSuffix(first, "\r") == marker
}

// DriftMarker is the hidden marker of the drift tracking issue of a suite.
func DriftMarker(suite string) string {
	return "<!-- mcptest:drift key=" + MarkerKey(suite) + " -->"
}

// Comment renders the sticky PR comment: the marker, then the summary
// under the comment limit.
func Comment(r ActionReport, serverURL, repo string) string {
	key := r.CommentKey
	if key == "" {
		key = r.Suite
	}
	m := CommentMarker(key) + "\n"
	return m + renderBlocks(r.blocks(serverURL, repo), CommentLimit-len(m))
}

// DriftIssue renders the title and body of the drift tracking issue.
func DriftIssue(r ActionReport, serverURL, repo string) (title, body string) {
	s := r.Cmp.Summary
	title = fmt.Sprintf("mcptest drift: %s, %s in %s", pluralize(s.Regressions, "regression", "regressions"), pluralize(s.Fixes, "fix", "fixes"), clip(MarkerKey(r.Suite), 100))
	m := DriftMarker(r.Suite) + "\n"
	intro := "This issue is kept up to date by the scheduled mcptest drift run: it lists the floor flips of the default branch against its last baseline, and is closed when none are left.\n\n"
	bl := append([]block{{head: intro}}, r.blocks(serverURL, repo)...)
	return title, m + renderBlocks(bl, CommentLimit-len(m))
}

// DriftResolved is the body a drift issue gets when it is closed.
func DriftResolved(r ActionReport) string {
	return DriftMarker(r.Suite) + "\nThe scheduled mcptest run shows no floor flip against the baseline any more: closing.\n"
}

// blocks are the parts of the summary, comment and drift issue, in the
// order they are shown and cut: the headline, the run's summary and
// reliability against the baseline, then one table per block.
//
// trend (the summary's compact history, bounded at MaxTrendFloors and
// MaxTrendCases rows) goes right after the floor flips, so a long list of
// failing cases cannot cut it.
func (r ActionReport) blocks(serverURL, repo string, trend ...block) []block {
	out := []block{{head: r.headline(serverURL, repo)}}
	if bl, ok := r.slideBlock(); ok {
		out = append(out, bl)
	}
	if sm := summaryMarkdown(r.Env); sm != "" {
		out = append(out, block{head: sm})
	}
	if r.Cmp != nil {
		if rd := reliabilityDeltaMarkdown(r.Cmp.Reliability); rd != "" {
			out = append(out, block{head: rd})
		}
	}
	if bl, ok := r.flipsBlock(); ok {
		out = append(out, bl)
	}
	out = append(out, trend...)
	for _, table := range []func() (block, bool){r.failingBlock, r.restrictedBlock, r.otherChangesBlock, r.allCasesBlock} {
		if bl, ok := table(); ok {
			out = append(out, bl)
		}
	}
	return out
}

// headline is the verdict, the totals and the gate, what the run is
// compared with, and the notes and warnings of the comparison.
func (r ActionReport) headline(serverURL, repo string) string {
	word := "PASS"
	if r.Gate.Failed {
		word = "FAIL"
	}
	var h strings.Builder
	fmt.Fprintf(&h, "### mcptest: %s — %s\n\n", word, Text(r.Suite, 200))
	t := r.Env.Totals
	fmt.Fprintf(&h, "**%d passed, %d failed, %d inconclusive** (%d %s). Gate `fail-on: %s`: **%s**", t.Passed, t.Failed, t.Inconclusive, t.Total, pluralWord(t.Total, "case", "cases"), r.Gate.FailOn, strings.ToLower(word))
	if len(r.Gate.Reasons) > 0 {
		fmt.Fprintf(&h, " (%s)", strings.Join(r.Gate.Reasons, "; "))
	}
	h.WriteString(".\n\n")
	h.WriteString(r.baselineLine(serverURL, repo))
	if r.Cmp != nil {
		fmt.Fprintf(&h, " %s.", r.Cmp.Headline())
	}
	h.WriteString("\n\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&h, "> **Note:** %s\n\n", n)
	}
	if r.Cmp != nil {
		if r.Cmp.NotComparable != "" {
			fmt.Fprintf(&h, "> **Not comparable:** %s\n\n", Text(r.Cmp.NotComparable, 1000))
		}
		for _, w := range r.Cmp.Warnings {
			fmt.Fprintf(&h, "> **Warning:** %s\n\n", Text(w, 1000))
		}
	}
	return h.String()
}

// baselineLine says what the run is compared with.
func (r ActionReport) baselineLine(serverURL, repo string) string {
	switch {
	case r.BaselineFile != "":
		return fmt.Sprintf("Baseline: the file %s.", Text(r.BaselineFile, 200))
	case r.Cmp != nil && r.BaselineRunID != 0:
		link := fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimSuffix(serverURL, "/"), repo, r.BaselineRunID)
		return fmt.Sprintf("Baseline: [run %d](%s) of the default branch.", r.BaselineRunID, link)
	case r.IsBaseline && r.Gate.Failed:
		return "This run is not the baseline: the step fails, and a baseline is taken only from a successful run, so later runs stay compared with the previous one. Its envelope is still written for inspection."
	case r.IsBaseline:
		return "This run is the baseline: its envelope is what later runs are compared with."
	}
	return fmt.Sprintf("**No baseline**: %s. Every case is shown as new.", Text(r.Missing, 1000))
}

// flipMarks label a floor flip's row by its change.
var flipMarks = map[baseline.Change]string{baseline.Regression: "🔴 **regression**", baseline.Fix: "🟢 fix", baseline.Noise: "⚪ noise"}

// flipRow is one row of the floor flips table.
func flipRow(caseName string, f baseline.Flip) string {
	what := flipWhat(f, func(s string) string { return Text(s, 200) })
	if f.Subject == baseline.SubjectAssertion {
		what = strings.Replace(what, "#", "#&#8203;", 1)
	}
	return fmt.Sprintf("| %s | %s | %s | %s → %s | %s |\n", flipMarks[f.Change], caseName, what, f.From, f.To, Text(f.Message, 0))
}

// flipsBlock is the floor flips against the baseline, regressions first.
func (r ActionReport) flipsBlock() (block, bool) {
	if r.Cmp == nil {
		return block{}, false
	}
	var reg, fix []string
	add := func(caseName string, f baseline.Flip) {
		if f.Change == baseline.Regression {
			reg = append(reg, flipRow(caseName, f))
		} else {
			fix = append(fix, flipRow(caseName, f))
		}
	}
	for _, d := range r.Cmp.Cases {
		for _, f := range d.Flips {
			add(Text(d.Name, 0), f)
		}
	}
	for _, f := range r.Cmp.Floors {
		add("(suite)", f)
	}
	if len(reg)+len(fix) == 0 {
		return block{}, false
	}
	return block{head: "#### Floor flips\n\n| | case | what | verdict | message |\n| --- | --- | --- | --- | --- |\n", rows: append(reg, fix...), tail: "\n"}, true
}

// failingBlock is the failing cases with where and why: each check the
// case failed, once, with its evidence under it (a floor's FLOOR lines
// among it).
func (r ActionReport) failingBlock() (block, bool) {
	var failing []string
	for _, c := range r.Env.Cases {
		if c.Verdict != report.Fail {
			continue
		}
		failing = append(failing, fmt.Sprintf("| %s | %s | %s |\n", Text(c.Name, 0), Text(c.Position.String(), 200), failureMarkdown(c)))
	}
	if len(failing) == 0 {
		return block{}, false
	}
	return block{head: "#### Failing cases\n\n| case | where | why |\n| --- | --- | --- |\n", rows: failing, tail: "\n"}, true
}

// restrictedBlock is the passing cases that called a restricted tool,
// one row each with where the case is and the calls its runs made.
func (r ActionReport) restrictedBlock() (block, bool) {
	var rows []string
	for _, c := range r.Env.Cases {
		if fs := restrictedOnPass(c); len(fs) > 0 {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |\n", Text(c.Name, 0), Text(c.Position.String(), 200), Text(restrictedText(fs), 600)))
		}
	}
	if len(rows) == 0 {
		return block{}, false
	}
	return block{head: "#### Restricted tool calls in passing cases\n\n| case | where | calls |\n| --- | --- | --- |\n", rows: rows, tail: "\n"}, true
}

// otherChangesBlock is the cases that changed against the baseline
// without a floor flip: new, removed, not comparable, target moves.
func (r ActionReport) otherChangesBlock() (block, bool) {
	if r.Cmp == nil {
		return block{}, false
	}
	var rows []string
	for _, d := range r.Cmp.Cases {
		if !d.Changed() || len(d.Flips) > 0 {
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |\n", Text(d.Name, 0), changeStatus(d), verdictWords(d, "→"), strings.Join(changeTargets(d), "<br>")))
	}
	if len(rows) == 0 {
		return block{}, false
	}
	return block{head: "<details><summary>Other changes (" + strconv.Itoa(len(rows)) + ")</summary>\n\n| case | status | verdict | targets |\n| --- | --- | --- | --- |\n", rows: rows, tail: "\n</details>\n\n"}, true
}

// changeStatus is a changed case's status with its reasons.
func changeStatus(d baseline.CaseDelta) string {
	status := strings.ReplaceAll(string(d.Status), "_", " ")
	if len(d.Reasons) > 0 {
		rs := make([]string, len(d.Reasons))
		for i, x := range d.Reasons {
			rs[i] = Text(x, 0)
		}
		status += ": " + strings.Join(rs, "; ")
	}
	return status
}

// changeTargets are a changed case's target moves and label changes.
func changeTargets(d baseline.CaseDelta) []string {
	var ts []string
	for _, t := range d.Targets {
		if s, ok := targetWords(t, "→"); ok && d.Status != baseline.Removed {
			ts = append(ts, Text(t.Name, 100)+" "+s)
		}
	}
	return append(ts, changedLabels(d, "→", func(s string) string { return Text(s, 100) })...)
}

// allCasesBlock is every case with its verdict and targets.
func (r ActionReport) allCasesBlock() (block, bool) {
	var all []string
	for _, c := range r.Env.Cases {
		all = append(all, fmt.Sprintf("| %s | %s | %s |\n", Text(c.Name, 0), c.Verdict, Text(targetsLabel(c, true), 400)))
	}
	if len(all) == 0 {
		return block{}, false
	}
	return block{head: "<details><summary>All cases (" + strconv.Itoa(len(all)) + ")</summary>\n\n| case | verdict | targets |\n| --- | --- | --- |\n", rows: all, tail: "\n</details>\n"}, true
}

func pluralize(n int, one, many string) string {
	return strconv.Itoa(n) + " " + pluralWord(n, one, many)
}
