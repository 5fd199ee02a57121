package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// PageFunc renders the history page of a window of run envelopes: files
// holds each baseline's envelope, oldest first, labels names each of
// them, and current is the run at hand (the window's newest point). It is
// how the Action reaches the history page's renderer (Options.HistoryPage).
type PageFunc func(w io.Writer, files, labels []string, current *report.Envelope) error

// history reads the trend of the last in.history baselines and this run
// (the history input): the baselines are fetched through the API with the
// baseline fetch's checks (baseline.FetchHistory) into a temporary
// directory, read back one at a time, and the page is written beside
// report-path. No usable history is a note, never a failure: the trend is
// then nil. isBaseline says this run is itself a baseline.
func (r *run) history(ctx context.Context, env *report.Envelope, isBaseline bool) (*baseline.Trend, string) {
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
	b := baseline.NewTrendBuilder()
	labels := make([]string, 0, len(fetched.Runs))
	for _, f := range fetched.Runs {
		old, err := baseline.ReadFile(f.File, "history", baseline.ReadBaseline)
		if err != nil {
			r.notes = append(r.notes, "No history: "+annotate.Text(err.Error(), 1000)+".")
			return nil, ""
		}
		label := fmt.Sprintf("run %d", f.RunID)
		b.Add(label, old, true)
		labels = append(labels, label)
	}
	b.Add("this run", env, isBaseline)
	trend := b.Trend()
	fmt.Fprintf(r.env.Stdout, "mcptest: history: %s\n", annotate.TrendWindow(trend))
	for _, l := range annotate.TrendText(trend) {
		fmt.Fprintf(r.env.Stdout, "mcptest: history: %s\n", l)
	}
	return trend, r.writePage(fetched.Files(), labels, env, trend)
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

// writePage writes the history page beside report-path, by rename, and
// returns its path ("" when it could not be written, which is a note).
func (r *run) writePage(files, labels []string, env *report.Envelope, trend *baseline.Trend) string {
	var buf bytes.Buffer
	var err error
	if r.opt.HistoryPage != nil {
		err = r.opt.HistoryPage(&buf, files, labels, env)
	} else {
		_, err = buf.Write(annotate.TrendPage(trend, r.in.config))
	}
	file := r.in.historyPage()
	if err == nil {
		err = safefile.WriteFile(file, buf.Bytes(), 0o644)
	}
	if err != nil {
		r.notes = append(r.notes, "No history page: "+annotate.Text(err.Error(), 500)+".")
		return ""
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: history page written to %s\n", file)
	r.out["history-path"] = file
	return file
}

// slideGate applies history-threshold: each floor whose fall over the
// window is sustained and at least the threshold gets an error annotation
// and a line naming the floor and the window, and fails the gate (check
// and drift) or warns (baseline: failing it would keep the run from
// becoming a baseline, so the window could never move on).
func (r *run) slideGate(rep *annotate.ActionReport) {
	if rep.Trend == nil {
		return
	}
	for _, s := range rep.Trend.Sustained(r.in.historyThreshold) {
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
