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

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/report"
)

// HTML writes the auditor view of a run: one self-contained page (inline
// CSS and script, a Content-Security-Policy of default-src 'none', no URL
// of any other host) that leads with three blocks: "Audit this run" (the
// run's provenance), "Review first" (the failing and inconclusive cases
// and why; absent when every case passed) and the full case table with
// every case's figures, expandable to its assertions, floors, findings and
// runs. A footer says what the file is. With a Comparison (mcptest report
// RUN.json --compare BASELINE.json --format html) the table gains a column
// against the baseline and a section lists the floor flips and deltas.
// Every recorded string goes through html/template's escaping, so nothing
// from a suite, a cassette or a baseline can run script.
type HTML struct {
	Comparison *baseline.Comparison
	// Snapshot, when set, is a same-origin link to the run's snapshot
	// viewer ("/snapshot#z=..."), shown in the footer (mcptest view).
	Snapshot string
}

//go:embed html/report.tmpl
var htmlTemplate string

//go:embed html/report.css
var htmlCSS string

//go:embed html/report.js
var htmlJS string

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower": strings.ToLower,
}).Parse(htmlTemplate))

// htmlCSP is the page's Content-Security-Policy: nothing may load from
// anywhere; only the page's own style and its one script (by hash) apply.
var htmlCSP = func() string {
	sum := sha256.Sum256([]byte(htmlJS))
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
}()

type htmlData struct {
	Title, Verdict, CSP string
	CSS                 template.CSS
	JS                  template.JS
	Totals              report.Totals
	Shard               string
	Provenance          [][2]string
	Servers             [][3]string
	Review              []htmlCase
	Cases               []htmlCase
	Coverage            *htmlCoverage
	Reliability         *htmlReliability
	Compared            bool
	Comparison          *htmlComparison
	Footer              htmlFooter
	Snapshot            string
}

// htmlCoverage is the run's tool coverage; nil when the run knows no tool.
type htmlCoverage struct {
	Covered, Known int
	Percent        int64
	Uncovered      []string
	Rows           []htmlCoverageRow
}

type htmlCoverageRow struct {
	ID                                  string
	Calls                               int64
	Cases, Passed, Failed, Inconclusive int
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
	hc := &htmlCoverage{Covered: tc.Covered, Known: tc.Known, Percent: *tc.Percent}
	for _, u := range tc.Uncovered {
		hc.Uncovered = append(hc.Uncovered, id(u.Server, u.Tool))
	}
	for _, r := range tc.Tools {
		hc.Rows = append(hc.Rows, htmlCoverageRow{id(r.Server, r.Tool), r.Calls, r.Cases, r.Passed, r.Failed, r.Inconclusive})
	}
	return hc
}

// htmlReliability is the run's reliability summary and suite floors; nil
// when there is nothing to show (showSummary).
type htmlReliability struct {
	Head   string
	Table  [3][]string
	Floors []htmlSuiteFloor
}

type htmlSuiteFloor struct {
	Passed, Deferred bool
	Position, Words  string
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
}

type htmlCase struct {
	Index              int
	Name, Kind         string
	Verdict            string
	Position           string
	Runs               int
	RunsDeclared       int
	Figures            [][2]string
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
	d := htmlData{
		Title:       fmt.Sprintf("mcptest %s: %s", strings.ToUpper(string(env.Verdict)), env.Suite.Path),
		Verdict:     string(env.Verdict),
		CSP:         htmlCSP,
		CSS:         template.CSS(htmlCSS),
		JS:          template.JS(htmlJS),
		Totals:      env.Totals,
		Shard:       env.Run.Shard,
		Provenance:  cleanPairs(provenance(env)),
		Coverage:    coverageOf(env),
		Reliability: reliabilityOf(env),
		Snapshot:    h.Snapshot,
		Footer: htmlFooter{
			Tool: Clean(env.Tool.Name + " " + env.Tool.Version), RunID: Clean(orNotRecorded(env.Run.ID)),
			Schema: fmt.Sprint(env.SchemaVersion), Suite: Clean(env.Suite.Path),
		},
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
	}
	for i, c := range env.Cases {
		hc := htmlCaseOf(i, c)
		if d.Compared {
			if cd, ok := deltas[c.Name]; ok {
				hc.Baseline, hc.BaselineClass = caseLabel(cd), strings.ToLower(strings.ReplaceAll(caseLabel(cd), " ", "-"))
				if !cd.Changed() {
					hc.Baseline, hc.BaselineClass = "unchanged", "unchanged"
				}
				var ts []string
				for _, t := range cd.Targets {
					if s, ok := targetWords(t, "→"); ok {
						ts = append(ts, t.Name+" "+s)
					}
				}
				ts = append(ts, changedLabels(cd, "→", func(s string) string { return s })...)
				hc.Delta = Clean(strings.Join(ts, "; "))
			}
		}
		d.Cases = append(d.Cases, hc)
		if c.Verdict != report.Pass {
			d.Review = append(d.Review, hc)
		}
	}
	var buf bytes.Buffer
	if err := htmlPage.Execute(&buf, d); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func htmlCaseOf(i int, c *report.CaseResult) htmlCase {
	hc := htmlCase{
		Index: i + 1, Name: Clean(c.Name), Kind: Clean(string(c.Kind)), Verdict: string(c.Verdict),
		Position: Clean(c.Position.String()), Runs: c.Runs, RunsDeclared: c.RunsDeclared,
	}
	for _, f := range c.Floors {
		f.Name, f.Message, f.Lines = Clean(f.Name), Clean(f.Message), cleanAll(f.Lines)
		hc.Floors = append(hc.Floors, f)
	}
	for _, f := range c.Findings {
		f.Level, f.Gate, f.Message = Clean(f.Level), Clean(f.Gate), Clean(f.Message)
		hc.Findings = append(hc.Findings, f)
	}
	for _, f := range figurePairs(c) {
		hc.Figures = append(hc.Figures, [2]string{Clean(f[0]), Clean(f[1])})
	}
	keys := make([]string, 0, len(c.Counts))
	for k := range c.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		hc.Counts = append(hc.Counts, [2]string{Clean(k), fmt.Sprint(c.Counts[k])})
	}
	for _, p := range caseProblems(c) {
		hc.Problems = append(hc.Problems, htmlProblem{Kind: p.Kind, Position: Clean(p.Pos.String()), Message: Clean(p.Message), Actual: Clean(p.Actual), Lines: cleanAll(p.Lines)})
	}
	for _, a := range c.Assertions {
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
		hc.Assertions = append(hc.Assertions, ha)
	}
	if ts := c.ToolSelection; ts != nil {
		for _, r := range ts.Runs {
			hc.RunRows = append(hc.RunRows, htmlRun{Name: Clean(r.Name), Words: Clean(runRowWords(ts, r)), Passed: r.PassK})
		}
	}
	if r := c.Reliability; r != nil {
		hc.Reliability = Clean(reliabilityWords(r))
		if c.ToolSelection == nil {
			rows, more := shownRuns(c)
			for _, row := range rows {
				words := "passed every per-run check"
				if !row.Passed {
					words = runWords(row)
				}
				hc.RunRows = append(hc.RunRows, htmlRun{Name: Clean(report.RunName(c.Name, row.Run)), Words: Clean(words), Passed: row.Passed})
			}
			hc.MoreRuns = more
		}
	}
	hc.Worlds, hc.MoreWorlds = worldsOf(c)
	if cs := c.Cassettes; cs != nil {
		hc.Cassettes = Clean(fmt.Sprintf("%d file(s), sha256 %s", cs.Files, cs.SHA256))
	}
	if dd := c.Distractors; dd != nil {
		hc.DistractorInjected = Clean(fmt.Sprintf("%s, %d injected: %s", dd.Source, dd.Count, strings.Join(dd.Injected, ", ")))
	}
	return hc
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

func cleanPairs(ps [][2]string) [][2]string {
	out := make([][2]string, len(ps))
	for i, p := range ps {
		out[i] = [2]string{Clean(p[0]), Clean(p[1])}
	}
	return out
}
