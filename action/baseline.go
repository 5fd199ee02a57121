package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// baseline reads baseline-file (a regular file, bounded) or fetches the
// default branch's baseline. missing says why there is none; err is wrong
// input (a bad baseline-file). An unreachable API is a missing baseline,
// not an error.
func (r *run) baseline(ctx context.Context, base, head string) (*baseline.Found, string, error) {
	if r.in.baselineFile != "" {
		found, err := r.baselineFile()
		return found, "", err
	}
	gh, err := r.github()
	if err != nil {
		return nil, fmt.Sprintf("it cannot be fetched (%v)", err), nil
	}
	found, err := gh.FetchBaseline(ctx, baseline.FetchOptions{Owner: r.owner, Repo: r.repo, Workflow: r.in.baselineWorkflow,
		Artifact: r.in.baselineArtifact, Entry: path.Base(r.in.reportPath), MaxBytes: r.in.maxBytes, Base: base, Head: head, Budget: r.in.apiTimeout})
	var m *baseline.Missing
	switch {
	case errors.As(err, &m):
		r.skipped(m.Skipped)
		return nil, m.Reason, nil
	case err != nil:
		return nil, fmt.Sprintf("the GitHub API could not be read (%v)", err), nil
	}
	r.skipped(found.Skipped)
	fmt.Fprintf(r.env.Stdout, "mcptest: baseline: run %d\n", found.RunID)
	return found, "", nil
}

// skipped logs the runs the baseline fetch passed over, and why.
func (r *run) skipped(list []string) {
	for _, s := range list {
		fmt.Fprintf(r.env.Stdout, "mcptest: baseline: skipped %s\n", annotate.Clean(s))
	}
}

// baselineFile reads the baseline-file input: a regular file, bounded.
func (r *run) baselineFile() (*baseline.Found, error) {
	f, rd, err := safefile.Open(r.in.baselineFile, baseline.MaxEnvelopeBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, diag.Input("input baseline-file %s: no such file", r.in.baselineFile)
	case safefile.IsLimit(err):
		return nil, diag.Input("input baseline-file %v", err)
	case err != nil:
		return nil, fmt.Errorf("open baseline-file: %w", err)
	}
	defer f.Close()
	env, err := baseline.ReadBaseline(rd, r.in.baselineFile)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	return &baseline.Found{Envelope: env}, nil
}

// baselineGate is a baseline run's gate: it fails, like the step, only
// under fail-on: failures with a failing case, so the summary's verdict, the
// verdict output and the exit code agree.
func (r *run) baselineGate(env *report.Envelope) baseline.Gate {
	g := baseline.Compare(emptyBaseline(env), env, baseline.Options{FailOn: r.in.failOn}).Gate
	g.Failed = r.in.failOn == baseline.FailOnFailures && env.Verdict == report.Fail
	if !g.Failed {
		g.Reasons = nil
	}
	return g
}

// baselineNote is a baseline run's one annotation when cases fail: a
// notice that the baseline is recorded all the same when the step passes,
// else a warning that it is not (the fetch takes a baseline only from a
// successful run), although the envelope is still written.
func (r *run) baselineNote(env *report.Envelope, failed bool) {
	n := env.Totals.Failed
	switch {
	case n == 0:
	case failed:
		verb := "fail"
		if n == 1 {
			verb = "fails"
		}
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: baseline not recorded"}).Warningf(
			"baseline not recorded: %s %s and fail-on: %s fails the step; a baseline is taken only from a successful run, so pull requests stay compared with the previous one (the envelope is still written to %s)",
			plural(n, "case"), verb, r.in.failOn, r.in.reportPath)
	default:
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: baseline with failing cases"}).Noticef(
			"baseline recorded with %s failing: the step passes (fail-on: %s fails a baseline run only with failures); pull requests are compared with these verdicts",
			plural(n, "case"), r.in.failOn)
	}
}

// plural is "1 case" or "3 cases".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// emptyBaseline is what a run is compared with when there is no baseline:
// every case is new, so the fail-on policy still applies to the run.
func emptyBaseline(env *report.Envelope) *report.Envelope {
	return &report.Envelope{SchemaVersion: env.SchemaVersion, Tool: env.Tool, Run: report.RunInfo{Mode: env.Run.Mode}}
}

// compare compares the run with the baseline found, or with none.
func (r *run) compare(env *report.Envelope, found *baseline.Found, missing string) annotate.ActionReport {
	rep := annotate.ActionReport{Env: env, Suite: r.in.config, CommentKey: r.in.commentKey, Missing: missing, Notes: r.notes}
	if found == nil {
		rep.Gate = baseline.Compare(emptyBaseline(env), env, baseline.Options{FailOn: r.in.failOn}).Gate
		if r.in.onMissing == "fail" {
			rep.Gate.Failed = true
			rep.Gate.Reasons = append(rep.Gate.Reasons, "no baseline and on-missing-baseline is fail")
		}
		return rep
	}
	rep.Cmp = baseline.Compare(found.Envelope, env, baseline.Options{FailOn: r.in.failOn})
	rep.Gate = rep.Cmp.Gate
	rep.BaselineRunID, rep.BaselineURL, rep.BaselineFile = found.RunID, found.RunURL, r.in.baselineFile
	return rep
}

// missingNotice says there is no baseline, as on-missing-baseline asks.
func (r *run) missingNotice(rep annotate.ActionReport) {
	if rep.Cmp != nil || rep.Missing == "" {
		return
	}
	msg := "no baseline: " + rep.Missing
	switch r.in.onMissing {
	case "warn":
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no baseline"}).Warningf("%s", msg)
	case "fail":
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no baseline"}).Errorf("%s (on-missing-baseline: fail)", msg)
	}
}
