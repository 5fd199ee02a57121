package annotate

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/mcptest/mcptest/report"
)

// The pages `mcptest view` serves beside a run's report, from the runs
// stored in the workspace (.mcptest/runs/): the run list with a
// comparison picker (RunList) and a case's history across the stored runs
// (CaseHistory). Like the report they load nothing from any host and run
// no script; their one form (the picker) submits to the viewer itself.

//go:embed html/viewer.tmpl
var viewerTemplate string

// viewerPages are the viewer's templates, parsed the first time a page is
// served rather than whenever mcptest starts.
var viewerPages = sync.OnceValue(func() *template.Template {
	return template.Must(template.Must(template.New("viewer").Funcs(template.FuncMap{"ticks": ticks}).Parse(viewerTemplate)).Parse(evidenceTemplate))
})

// viewerCSP is the viewer pages' Content-Security-Policy: no script at
// all, and forms only to the viewer's own address.
const viewerCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'self'; base-uri 'none'"

// ViewerRun is one stored run in the viewer's list.
type ViewerRun struct {
	ID, Started, Suite, Verdict string
	Totals                      report.Totals
}

// ViewerRunOf summarizes a stored run for the viewer's list.
func ViewerRunOf(env *report.Envelope) ViewerRun {
	return ViewerRun{ID: Clean(env.Run.ID), Started: Clean(env.Run.StartedAt), Suite: Clean(env.Suite.Path), Verdict: string(env.Verdict), Totals: env.Totals}
}

// CaseInRun is a case as one stored run recorded it; Case is nil when
// the run does not hold the case.
type CaseInRun struct {
	Run  ViewerRun
	Case *report.CaseResult
}

type viewerData struct {
	Title, CSP string
	CSS        template.CSS
	Page       string
	Runs       []ViewerRun
	Case       string
	History    []historyRow
	Evidence   []htmlRunEvidence
	RunID      string
}

// historyRow is a case in one stored run: its verdict, its main figure
// and how its runs went.
type historyRow struct {
	Run                  ViewerRun
	Verdict, Figure      string
	FigureOutcome, Runs  string
	Present, Reliability bool
}

// RunList writes the viewer's list of stored runs, newest first as given,
// with a picker that compares any two of them.
func RunList(w io.Writer, runs []ViewerRun) error {
	return renderViewer(w, viewerData{Title: "mcptest: stored runs", CSP: viewerCSP, CSS: template.CSS(htmlCSS), Page: "runs", Runs: runs})
}

// CaseHistory writes a case's history across the stored runs, newest
// first as given: in each run its verdict, its main figure (the figure
// furthest below its threshold, else its pass rate) and how many of its
// runs passed, so a reviewer sees when the case became flaky. The newest
// run that holds the case shows every run timeline the envelope kept.
func CaseHistory(w io.Writer, name string, runs []CaseInRun) error {
	d := viewerData{Title: "mcptest: " + Clean(name), CSP: viewerCSP, CSS: template.CSS(htmlCSS), Page: "case", Case: Clean(name)}
	for _, r := range runs {
		row := historyRow{Run: r.Run}
		if c := r.Case; c != nil {
			row.Present, row.Verdict = true, string(c.Verdict)
			row.Figure, row.FigureOutcome = mainFigure(c)
			row.Runs = fmt.Sprintf("%d %s", c.Runs, pluralWord(c.Runs, "run", "runs"))
			if rel := c.Reliability; rel != nil {
				row.Reliability, row.Runs = true, Clean(reliabilityWords(rel))
			}
			if d.Evidence == nil && len(c.Evidence) > 0 {
				d.RunID = row.Run.ID
				d.Evidence = allEvidence(c)
			}
		}
		d.History = append(d.History, row)
	}
	return renderViewer(w, d)
}

// mainFigure is the figure a history row shows: the case's held figure
// furthest below its threshold (heldFigures puts failing ones first),
// else its pass rate, else its number of runs.
func mainFigure(c *report.CaseResult) (words, outcome string) {
	if held := heldFigures(figuresOf(c)); len(held) > 0 {
		f := held[0]
		return strings.TrimSpace(f.Name + " " + f.Value + " " + f.Against), f.Outcome
	}
	if v, ok := c.Targets["reliability.pass_rate"]; ok {
		return "reliability.pass_rate " + compact(v), ""
	}
	return fmt.Sprintf("%d runs", c.Runs), ""
}

// allEvidence renders every run timeline the envelope kept for a case.
func allEvidence(c *report.CaseResult) []htmlRunEvidence {
	return timelines(c, c.Evidence)
}

func renderViewer(w io.Writer, d viewerData) error {
	var buf bytes.Buffer
	if err := viewerPages().Execute(&buf, d); err != nil {
		return fmt.Errorf("render viewer page: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
