package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// history folds the last in.history baselines and this run (the history
// input) into one history.History, the model both the summary's trend
// and the page are drawn from: the baselines are fetched through the API
// with the baseline fetch's checks (baseline.FetchHistory) into a
// temporary directory and read one at a time (history.ReadFile), oldest
// first as the default branch made them, this run last; the page is
// written beside report-path. The fold's slide threshold is
// history-threshold, so the trend's sustained slides are history's. No
// usable history is a note, never a failure: the trend is then nil.
// isBaseline says this run is itself a baseline.
func (r *run) history(ctx context.Context, env *report.Envelope, isBaseline bool) (*annotate.Trend, string) {
	if r.in.history == 0 {
		return nil, ""
	}
	fetched, err := r.fetchHistory(ctx)
	if err != nil {
		r.notes = append(r.notes, "No history: "+annotate.Text(err.Error(), 1000)+".")
		fmt.Fprintf(r.env.Stdout, "mcptest: history: none: %s\n", annotate.Clean(err.Error()))
		return nil, ""
	}
	defer os.RemoveAll(fetched.Dir)
	for _, s := range fetched.Skipped {
		fmt.Fprintf(r.env.Stdout, "mcptest: history: skipped %s\n", annotate.Clean(s))
	}
	b := history.NewBuilder(history.Options{SlideThreshold: r.in.historyThreshold})
	for _, f := range fetched.Runs {
		s, err := history.ReadFile(f.File, fmt.Sprintf("run %d", f.RunID))
		if err == nil {
			// The baselines are this suite's, as the comparison takes
			// them, wherever the baseline job found its file.
			s.Run.Suite = env.Suite.Path
			err = b.Add(s)
		}
		if err != nil {
			r.notes = append(r.notes, "No history: "+annotate.Text(err.Error(), 1000)+".")
			return nil, ""
		}
	}
	s, err := history.SnapshotOf(env, "this run")
	if err == nil {
		err = b.Add(s)
	}
	if err != nil {
		r.notes = append(r.notes, "No history: "+annotate.Text(err.Error(), 1000)+".")
		return nil, ""
	}
	h := b.History()
	trend := h.Trend(isBaseline)
	fmt.Fprintf(r.env.Stdout, "mcptest: history: %s\n", annotate.TrendWindow(trend))
	for _, l := range annotate.TrendText(trend) {
		fmt.Fprintf(r.env.Stdout, "mcptest: history: %s\n", l)
	}
	return trend, r.writePage(h)
}

// fetchHistory fetches the baselines of the history into a temporary
// directory under RUNNER_TEMP.
func (r *run) fetchHistory(ctx context.Context) (*baseline.FetchedHistory, error) {
	gh, err := r.github()
	if err != nil {
		return nil, fmt.Errorf("the baselines cannot be fetched (%w)", err)
	}
	dir, err := baseline.TempHistoryDir(r.env.Getenv("RUNNER_TEMP"))
	if err != nil {
		return nil, fmt.Errorf("no temporary directory for the baselines: %w", err)
	}
	h, err := gh.FetchHistory(ctx, baseline.FetchOptions{Owner: r.owner, Repo: r.repo, Workflow: r.in.baselineWorkflow,
		Artifact: r.in.baselineArtifact, Entry: path.Base(r.in.reportPath), MaxBytes: r.in.maxBytes, Budget: r.in.apiTimeout}, r.in.history, dir)
	if err != nil {
		os.RemoveAll(dir)
		var m *baseline.Missing
		if errors.As(err, &m) {
			r.skippedHistory(m.Skipped)
			return nil, errors.New(m.Reason)
		}
		return nil, fmt.Errorf("the GitHub API could not be read (%w)", err)
	}
	return h, nil
}

func (r *run) skippedHistory(list []string) {
	for _, s := range list {
		fmt.Fprintf(r.env.Stdout, "mcptest: history: skipped %s\n", annotate.Clean(s))
	}
}

// writePage writes the history page beside report-path, by rename: the
// page of `mcptest history --format html` (package history) over the
// window the trend was drawn from. It returns the page's path; a page
// that cannot be written is a note and "".
func (r *run) writePage(h *history.History) string {
	file := r.in.historyPage()
	err := safefile.Write(file, 0o644, func(w io.Writer) error { return history.HTML(w, h) })
	if err != nil {
		r.notes = append(r.notes, "No history page: "+annotate.Text(err.Error(), 500)+".")
		return ""
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: history page written to %s\n", file)
	r.out["history-path"] = file
	return file
}

// slideGate applies history-threshold: each floor that slid past it over
// the window by history's rule (Trend.Sustained, history.Sustained) gets an error annotation
// and a line naming the floor and the window, and fails the gate (check
// and drift) or warns (baseline: failing it would keep the run from
// becoming a baseline, so the window could never move on).
func (r *run) slideGate(rep *annotate.ActionReport) {
	if rep.Trend == nil {
		return
	}
	for _, s := range rep.Trend.Sustained {
		line := fmt.Sprintf("sustained slide: %s fell %s points, %s -> %s over %s, past history-threshold %s",
			s.Floor, annotate.TrendFigure(s.Fall()), annotate.TrendFigure(s.First), annotate.TrendFigure(s.Last),
			annotate.TrendWindow(rep.Trend), annotate.TrendFigure(r.in.historyThreshold))
		fmt.Fprintf(r.env.Stdout, "mcptest: %s\n", annotate.Clean(line))
		w := r.a.WithFieldsMap(map[string]string{"title": "mcptest: sustained slide"})
		if rep.IsBaseline {
			w.Warningf("%s", flatLine(line))
			continue
		}
		w.Errorf("%s", flatLine(line))
		rep.Gate.Failed = true
		rep.Gate.Reasons = append(rep.Gate.Reasons, annotate.Text(line, 1000))
	}
}
