package annotate

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// HTML writes the auditor view of a run: one self-contained page (inline
// CSS and script, a Content-Security-Policy of default-src 'none', no URL
// of any other host) for a reviewer deciding whether to trust a run. Its
// first screen is a summary strip (the verdict, the counts, the run's
// reliability, the worst figure against its threshold and, with a
// Comparison, the floor flips against the baseline) and "Review first"
// (each failing or inconclusive case, failed suite floor, and passing case
// that called a restricted tool, with its file:line:col). Then every case, its figures grouped by gate against
// their thresholds, expandable to the full width: assertions, floors,
// findings, and each recorded run as a timeline of turns and calls with
// arguments, result excerpts and the marks of the gates that counted a
// call. Tool coverage, the comparison in full and the audit block (run
// id, versions, digests, environment; folded) close the page. The page
// reads without JavaScript; its one script adds the filters and keyboard
// navigation. Every recorded string goes through html/template's
// escaping, so nothing from a suite, a cassette or a baseline can run
// script.
type HTML struct {
	Comparison *baseline.Comparison
	// Snapshot, when set, is a same-origin link to the run's snapshot
	// viewer ("/snapshot#z=..."), shown in the footer (mcptest view).
	Snapshot string
	// Viewer, when set, is the address prefix of `mcptest view`'s pages
	// ("/"), so the report links a case's history and the runs whose
	// evidence the page leaves out; a report written to a file says which
	// command shows them instead.
	Viewer string
	// Recorded, when set, reads again the evidence of a case whose
	// envelope carries none (a passing case carries only the reference to
	// its recordings: engine.RecordedEvidence), or says in a note why it
	// cannot; the page shows the note.
	Recorded Recorded

	// snapshot renders the page a snapshot address carries, within the
	// snapshot's limits (snapshotEvidence).
	snapshot bool
}

// Recorded reads a case's evidence from its recordings, the case's
// envelope naming the suite at suitePath; note says why there is none.
type Recorded func(suitePath string, c *report.CaseResult) (evidence []report.RunEvidence, note string)

//go:embed html/report.tmpl
var htmlTemplate string

//go:embed html/evidence.tmpl
var evidenceTemplate string

//go:embed html/report.css
var htmlCSS string

//go:embed html/report.js
var htmlJS string

// htmlPage is the report page's template, parsed the first time a page is
// rendered rather than whenever mcptest starts.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(template.New("report").Funcs(template.FuncMap{
		"lower": strings.ToLower,
		"ticks": ticks,
	}).Parse(htmlTemplate)).Parse(evidenceTemplate))
})

// htmlCSP is the page's Content-Security-Policy: nothing may load from
// anywhere; only the page's own style and its one script (by hash) apply.
// Computed on first use, by a page.
var htmlCSP = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(htmlJS))
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
})

type htmlData struct {
	Title, Verdict, CSP string
	CSS                 template.CSS
	JS                  template.JS
	Suite               string
	Totals              report.Totals
	Shard               string
	Strip               htmlStrip
	Audit               [][2]string
	Servers             [][3]string
	Review              []htmlCase
	SuiteFloorsFailed   []htmlSuiteFloor
	Cases               []htmlCase
	Coverage            *htmlCoverage
	Reliability         *htmlReliability
	Compared            bool
	Comparison          *htmlComparison
	Footer              htmlFooter
	Snapshot            string
	Viewer              string
	// InSnapshot is set when the page is the body of a snapshot address
	// (SnapshotFragment) rather than a file.
	InSnapshot bool
	// Packs are the page's compressed pieces (htmlpack.go).
	Packs []htmlPack
}

// htmlStrip is the summary strip: what a reviewer decides from.
type htmlStrip struct {
	PassRate, PassHat string
	Worst             *worstFloor
	Headline          string
	Flips             []htmlFlip
	MoreFlips         int
}

// htmlCoverage is the run's tool coverage; nil when the run knows no tool.
type htmlCoverage struct {
	Covered, Known int
	Percent        int64
	Uncovered      []string
	// Injected are the distractors: tools that were offered to test the
	// agent, whose being left alone is the point.
	Injected []string
	Rows     []htmlCoverageRow
}

type htmlCoverageRow struct {
	ID                                  string
	Calls                               int64
	Cases, Passed, Failed, Inconclusive int
	Injected                            bool
}

// coverageOf renders the envelope's tool coverage, tools as server.tool.
func coverageOf(env *report.Envelope) *htmlCoverage {
	tc := env.ToolCoverage()
	if tc.Percent == nil {
		return nil
	}
	id := func(server, tool string) string {
		if server == "" {
			return Clean(tool)
		}
		return Clean(server + "." + tool)
	}
	injected := map[string]bool{}
	for _, c := range env.Cases {
		if d := c.Distractors; d != nil {
			for _, n := range d.Injected {
				injected[n] = true
			}
		}
	}
	hc := &htmlCoverage{Covered: tc.Covered, Known: tc.Known, Percent: *tc.Percent}
	for _, u := range tc.Uncovered {
		if injected[u.Tool] {
			hc.Injected = append(hc.Injected, id(u.Server, u.Tool))
			continue
		}
		hc.Uncovered = append(hc.Uncovered, id(u.Server, u.Tool))
	}
	for _, r := range tc.Tools {
		hc.Rows = append(hc.Rows, htmlCoverageRow{id(r.Server, r.Tool), r.Calls, r.Cases, r.Passed, r.Failed, r.Inconclusive, injected[r.Tool]})
	}
	return hc
}

// htmlReliability is the run's reliability summary and suite floors; nil
// when there is nothing to show (showSummary).
type htmlReliability struct {
	Head   string
	Table  [4][]string
	Floors []htmlSuiteFloor
}

type htmlSuiteFloor struct {
	Passed, Deferred bool
	Position, Words  string
}

// failedSuiteFloors are the suite floors that failed, for Review first.
func failedSuiteFloors(env *report.Envelope) []htmlSuiteFloor {
	var out []htmlSuiteFloor
	for _, f := range env.Floors {
		if !f.Passed && !f.Deferred {
			out = append(out, htmlSuiteFloor{Position: Clean(f.Position.String()), Words: Clean(floorWords(f))})
		}
	}
	return out
}

func reliabilityOf(env *report.Envelope) *htmlReliability {
	if !showSummary(env) {
		return nil
	}
	hr := &htmlReliability{}
	if s := env.Summary; s != nil {
		hr.Head, hr.Table = summaryHead(s), summaryTable(s)
	}
	for _, f := range env.Floors {
		hr.Floors = append(hr.Floors, htmlSuiteFloor{Passed: f.Passed, Deferred: f.Deferred, Position: Clean(f.Position.String()), Words: Clean(floorWords(f))})
	}
	return hr
}

type htmlFooter struct {
	Tool, RunID, Schema, Suite string
	// EnvelopeSHA256 is the sha256 of the run's canonical envelope, which
	// a snapshot address names instead of carrying it.
	EnvelopeSHA256 string
}

type htmlCase struct {
	Index              int
	Name, Kind         string
	Verdict            string
	Position           string
	Runs               int
	RunsDeclared       int
	Gates              []htmlGate
	Held               []htmlFigure
	Counts             [][2]string
	Problems           []htmlProblem
	Assertions         []htmlAssertion
	Floors             []report.Floor
	Findings           []report.Finding
	RunRows            []htmlRun
	Baseline, Delta    string
	BaselineClass      string
	Cassettes          string
	DistractorInjected string
	Reliability        string
	MoreRuns           int
	Worlds             []htmlWorld
	MoreWorlds         int
	Evidence           []htmlRunEvidence
	// EvidenceLeft counts the recorded runs whose timeline the page
	// leaves out (the envelope keeps up to 10; mcptest view shows
	// them); EvidenceSkipped is set when the page's budget left this
	// case's timelines out altogether.
	EvidenceLeft    int
	EvidenceSkipped bool
	// EvidenceNote says where the timelines of a case whose envelope
	// carries none came from: its recordings, read again, or why they
	// were not at hand.
	EvidenceNote string
	Search       string
	// URLName is the case's name as recorded, for the viewer's address of
	// its history (html/template escapes it for the URL).
	URLName string
	// Viewer is HTML.Viewer, for the detail's link to the case's history.
	Viewer string
	// Detail is the case's rendered detail, or the note that stands for
	// it when it is packed, and Pack then its place among the page's
	// packs ("chunk.item"); ProblemsHTML and ProblemsPack are the same
	// for its list of problems under Review first (htmlpack.go).
	Detail, ProblemsHTML template.HTML
	Pack, ProblemsPack   string
}

type htmlProblem struct {
	Kind, Position, Message, Actual string
	Lines                           []string
}

type htmlAssertion struct {
	Passed                                 bool
	Label, Position, Message, Actual, Runs string
	Matcher                                string
	Default                                bool
	FailedRuns                             int
}

type htmlRun struct {
	Name, Words string
	Passed      bool
}

type htmlComparison struct {
	Headline, Gate string
	GateFailed     bool
	NotComparable  string
	Warnings       []string
	Flips          []htmlFlip
	Changed        []htmlChanged
	// Reliability lists the summary figures that moved.
	Reliability []string
}

type htmlFlip struct {
	Change, Case, What, From, To, Position, Message string
}

type htmlChanged struct {
	Label, Case, Verdicts string
	Reasons, Targets      []string
}

// Report implements Reporter.
func (h HTML) Report(w io.Writer, env *report.Envelope) error {
	d, err := h.model(env)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := htmlPage().Execute(&buf, d); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// model builds the page's view model from the envelope: what the report
// file and the snapshot viewer both render, with the same templates.
func (h HTML) model(env *report.Envelope) (htmlData, error) {
	d := htmlData{
		Title:       fmt.Sprintf("mcptest %s: %s", strings.ToUpper(string(env.Verdict)), env.Suite.Path),
		Verdict:     string(env.Verdict),
		CSP:         htmlCSP(),
		CSS:         template.CSS(htmlCSS),
		JS:          template.JS(htmlJS),
		Suite:       Clean(env.Suite.Path),
		Totals:      env.Totals,
		Shard:       env.Run.Shard,
		Strip:       stripOf(env),
		Audit:       auditRows(env),
		Coverage:    coverageOf(env),
		Reliability: reliabilityOf(env),
		Snapshot:    h.Snapshot,
		Viewer:      h.Viewer,
		Footer: htmlFooter{
			Tool: Clean(env.Tool.Name + " " + env.Tool.Version), RunID: Clean(orNotRecorded(env.Run.ID)),
			Schema: fmt.Sprint(env.SchemaVersion), Suite: Clean(env.Suite.Path),
		},
		SuiteFloorsFailed: failedSuiteFloors(env),
	}
	for _, s := range env.Servers {
		t, a := serverWords(s)
		d.Servers = append(d.Servers, [3]string{Clean(s.Name), Clean(t), Clean(a)})
	}
	deltas := map[string]baseline.CaseDelta{}
	if c := h.Comparison; c != nil {
		d.Compared = true
		for _, cd := range c.Cases {
			deltas[cd.Name] = cd
		}
		d.Comparison = htmlCompare(c)
		d.Strip.Headline = d.Comparison.Headline
		d.Strip.Flips = d.Comparison.Flips
		if len(d.Strip.Flips) > maxStripFlips {
			d.Strip.Flips, d.Strip.MoreFlips = d.Strip.Flips[:maxStripFlips], len(d.Strip.Flips)-maxStripFlips
		}
	}
	recorded, budget := h.Recorded, htmlEvidenceBudget
	if h.snapshot {
		env, recorded, budget = snapshotEvidence(env, h.Recorded)
	}
	shown, reread := evidenceBudget(env, recorded, budget)
	var review []int
	for i, c := range env.Cases {
		rr, again := reread[i]
		if again && rr.evidence != nil {
			withEv := *c
			withEv.Evidence = rr.evidence
			c = &withEv
		}
		hc := htmlCaseOf(i, c, shown[i])
		if again {
			hc.EvidenceNote = Clean(rr.note)
		}
		hc.Viewer = h.Viewer
		if cd, ok := deltas[c.Name]; ok && d.Compared {
			hc.Baseline, hc.BaselineClass, hc.Delta = baselineWords(cd)
		}
		d.Cases = append(d.Cases, hc)
		if c.Verdict != report.Pass || len(restrictedOnPass(c)) > 0 {
			review = append(review, i)
		}
	}
	if err := packPage(&d, review); err != nil {
		return d, err
	}
	for _, i := range review {
		d.Review = append(d.Review, d.Cases[i])
	}
	return d, nil
}

// maxStripFlips is how many floor flips the summary strip lists; the
// comparison section lists them all.
const maxStripFlips = 5

// stripOf is the summary strip's figures: the run's reliability where
// recorded and the worst figure against its threshold.
func stripOf(env *report.Envelope) htmlStrip {
	st := htmlStrip{Worst: worstFloorOf(env)}
	if s := env.Summary; s != nil {
		st.PassRate = fmt.Sprintf("%.1f%% of %d runs over %d %s", s.PassRate.Value, s.Runs, s.Cases, pluralWord(int(s.Cases), "case", "cases"))
		var hats []string
		for _, p := range s.PassHat {
			if p.K == 1 || p.K == s.PassHat[len(s.PassHat)-1].K || len(s.PassHat) <= 3 {
				hats = append(hats, fmt.Sprintf("pass^%d %.1f%%", p.K, p.Value))
			}
		}
		st.PassHat = strings.Join(hats, ", ")
		if n := len(s.PassAt); n > 1 {
			st.PassHat += fmt.Sprintf(", pass@%d %.1f%%", s.PassAt[n-1].K, s.PassAt[n-1].Value)
		}
	}
	return st
}

// auditRows is the run's provenance with the rows that hold no value
// left out: the audit block lists what is known.
func auditRows(env *report.Envelope) [][2]string {
	var out [][2]string
	for _, p := range provenance(env) {
		v := p[1]
		if v == "" || strings.HasPrefix(v, "not recorded") || strings.HasPrefix(v, "none recorded") {
			continue
		}
		out = append(out, [2]string{Clean(p[0]), Clean(v)})
	}
	return out
}

// baselineWords is a case's standing against the baseline: the label,
// its CSS class and the deltas of its targets.
func baselineWords(cd baseline.CaseDelta) (label, class, delta string) {
	if !cd.Changed() {
		return "unchanged", "unchanged", ""
	}
	label = caseLabel(cd)
	var ts []string
	for _, t := range cd.Targets {
		if s, ok := targetWords(t, "→"); ok {
			ts = append(ts, t.Name+" "+s)
		}
	}
	ts = append(ts, changedLabels(cd, "→", func(s string) string { return s })...)
	return label, strings.ToLower(strings.ReplaceAll(label, " ", "-")), Clean(strings.Join(ts, "; "))
}

func htmlCaseOf(i int, c *report.CaseResult, withEvidence bool) htmlCase {
	hc := htmlCase{
		Index: i + 1, Name: Clean(c.Name), Kind: Clean(string(c.Kind)), Verdict: string(c.Verdict),
		Position: Clean(c.Position.String()), Runs: c.Runs, RunsDeclared: c.RunsDeclared, URLName: c.Name,
	}
	for _, f := range shownFloors(c) {
		f.Name, f.Message, f.Lines = Clean(f.Name), Clean(f.Message), cleanAll(f.Lines)
		hc.Floors = append(hc.Floors, f)
	}
	for _, f := range c.Findings {
		f.Level, f.Gate, f.Message = Clean(f.Level), Clean(f.Gate), Clean(f.Message)
		if f.Position != nil {
			pos := *f.Position
			pos.File = Clean(pos.File)
			f.Position = &pos
		}
		hc.Findings = append(hc.Findings, f)
	}
	hc.Gates = figuresOf(c)
	hc.Held = heldFigures(hc.Gates)
	search := []string{strings.ToLower(hc.Name), hc.Kind}
	for _, g := range hc.Gates {
		search = append(search, g.Name)
	}
	for _, f := range hc.Held {
		search = append(search, f.Name)
	}
	hc.Search = strings.Join(search, " ")
	hc.Counts = countPairs(c.Counts)
	for _, p := range caseProblems(c) {
		hc.Problems = append(hc.Problems, htmlProblem{Kind: p.Kind, Position: Clean(p.Pos.String()), Message: Clean(p.Message), Actual: Clean(p.Actual), Lines: cleanAll(p.Lines)})
	}
	// A passing case's restricted calls are what Review first lists it for.
	for _, f := range restrictedOnPass(c) {
		hc.Problems = append(hc.Problems, htmlProblem{Kind: "restricted", Position: Clean(c.Position.String()), Message: Clean(f.Message)})
	}
	for _, a := range c.Assertions {
		hc.Assertions = append(hc.Assertions, assertionOf(a))
	}
	hc.RunRows, hc.MoreRuns, hc.Reliability = runRowsOf(c)
	hc.Worlds, hc.MoreWorlds = worldsOf(c)
	if cs := c.Cassettes; cs != nil {
		hc.Cassettes = Clean(fmt.Sprintf("%d file(s), sha256 %s", cs.Files, cs.SHA256))
	}
	if dd := c.Distractors; dd != nil {
		hc.DistractorInjected = Clean(fmt.Sprintf("%s, %d injected: %s", dd.Source, dd.Count, strings.Join(dd.Injected, ", ")))
	}
	if withEvidence {
		hc.Evidence = evidenceOf(c)
	} else if len(c.Evidence) > 0 {
		hc.EvidenceSkipped = true
	}
	hc.EvidenceLeft = c.Runs - len(hc.Evidence)
	if len(c.Evidence) == 0 {
		hc.EvidenceLeft = 0
	}
	return hc
}

func countPairs(counts map[string]int64) [][2]string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, [2]string{Clean(k), fmt.Sprint(counts[k])})
	}
	return out
}

func assertionOf(a report.AssertionResult) htmlAssertion {
	ha := htmlAssertion{Passed: a.Passed, Position: Clean(a.Position.String()), Message: Clean(a.Message), Matcher: Clean(literal(a.Matcher)), Default: a.Default, FailedRuns: a.FailedRuns}
	ha.Label = Clean(fmt.Sprintf("#%d %s", a.Index, a.Target))
	if a.Block != "" {
		ha.Label += " (" + Clean(a.Block) + ")"
	}
	if a.Actual != nil {
		ha.Actual = Clean(clip(literal(a.Actual), 400))
	}
	if a.Run > 0 {
		ha.Runs = fmt.Sprintf("first failing run %d, %d run(s) failed", a.Run, a.FailedRuns)
	}
	return ha
}

// runRowsOf is a case's per-run verdict rows: tool_selection's rows when
// the case has them, else its reliability rows.
func runRowsOf(c *report.CaseResult) (rows []htmlRun, more int, words string) {
	if ts := c.ToolSelection; ts != nil {
		for _, r := range ts.Runs {
			rows = append(rows, htmlRun{Name: Clean(r.Name), Words: Clean(runRowWords(ts, r)), Passed: r.PassK})
		}
	}
	r := c.Reliability
	if r == nil {
		return rows, 0, ""
	}
	words = Clean(reliabilityWords(r))
	if c.ToolSelection != nil {
		return rows, 0, words
	}
	if r.PassedRuns == r.Runs {
		// Every run passed: the reliability line says so.
		return nil, 0, words
	}
	shown, more := shownRuns(c)
	for _, row := range shown {
		w := "passed every per-run check"
		if !row.Passed {
			// Which checks it failed is said once, under each check.
			w = fmt.Sprintf("failed %d %s (above)", len(row.Failed), pluralWord(len(row.Failed), "check", "checks"))
		}
		rows = append(rows, htmlRun{Name: Clean(report.RunName(c.Name, row.Run)), Words: Clean(w), Passed: row.Passed})
	}
	return rows, more, words
}

func htmlCompare(c *baseline.Comparison) *htmlComparison {
	hc := &htmlComparison{Headline: Clean(c.Headline()), NotComparable: Clean(c.NotComparable), Warnings: cleanAll(c.Warnings), GateFailed: c.Gate.Failed}
	hc.Gate = "--fail-on " + string(c.Gate.FailOn) + ": pass"
	if c.Gate.Failed {
		hc.Gate = "--fail-on " + string(c.Gate.FailOn) + ": fail"
	}
	if len(c.Gate.Reasons) > 0 {
		hc.Gate += " (" + Clean(strings.Join(c.Gate.Reasons, "; ")) + ")"
	}
	for _, d := range c.Cases {
		for _, f := range d.Flips {
			hf := htmlFlip{Change: string(f.Change), Case: Clean(d.Name), What: Clean(f.Label()), From: string(f.From), To: string(f.To), Message: Clean(f.Message)}
			if f.Position != nil {
				hf.Position = Clean(f.Position.String())
			}
			hc.Flips = append(hc.Flips, hf)
		}
		if !d.Changed() {
			continue
		}
		ch := htmlChanged{Label: caseLabel(d), Case: Clean(d.Name), Verdicts: Clean(verdictWords(d, "→")), Reasons: cleanAll(d.Reasons)}
		for _, t := range d.Targets {
			if s, ok := targetWords(t, "→"); ok && d.Status != baseline.Removed {
				ch.Targets = append(ch.Targets, Clean(t.Name+" "+s))
			}
		}
		ch.Targets = append(ch.Targets, changedLabels(d, "→", Clean)...)
		hc.Changed = append(hc.Changed, ch)
	}
	for _, f := range c.Floors {
		hf := htmlFlip{Change: string(f.Change), Case: "(suite)", What: Clean(f.Label()), From: string(f.From), To: string(f.To), Message: Clean(f.Message)}
		if f.Position != nil {
			hf.Position = Clean(f.Position.String())
		}
		hc.Flips = append(hc.Flips, hf)
	}
	hc.Reliability = cleanAll(summaryDeltaWords(c.Reliability, "→"))
	return hc
}

// cleanAll applies Clean to each string: in a page as on a terminal,
// control and bidi-override characters of recorded text show as visible
// escapes instead of hiding or reordering what a reviewer reads.
func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Clean(s)
	}
	return out
}
