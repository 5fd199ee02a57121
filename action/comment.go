package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// postComment creates or updates the sticky comment; on 403/404 (a fork's
// read-only token) it degrades to a note. It returns the comment's id.
func (r *run) postComment(ctx context.Context, number int, rep annotate.ActionReport) int64 {
	gh, err := r.github()
	if err != nil {
		r.notes = append(r.notes, "No PR comment: no `github-token` was given.")
		return 0
	}
	id, err := r.upsertComment(ctx, gh, number, rep)
	if err != nil {
		why := "the comment could not be written: " + annotate.Text(err.Error(), 300)
		var te *baseline.TimeoutError
		if errors.As(err, &te) {
			why = te.Error()
		} else if baseline.Forbidden(err) {
			why = "the token may not write comments here (a pull request from a fork gets a read-only token; use the two-workflow recipe under Forks in docs/action.md, with `mode: comment` on `workflow_run`)"
		}
		r.notes = append(r.notes, "No PR comment: "+why+". The annotations and this summary carry the result.")
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no PR comment"}).Warningf("%s", "no PR comment: "+flatLine(err.Error()))
		return 0
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: comment %d on pull request #%d\n", id, number)
	return id
}

// upsertComment writes the sticky comment within the API budget.
func (r *run) upsertComment(ctx context.Context, gh *baseline.GitHub, number int, rep annotate.ActionReport) (int64, error) {
	var id int64
	err := baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		var err error
		id, err = upsertComment(ctx, gh, r.owner, r.repo, number, annotate.CommentMarker(r.in.commentKey), r.in.commentAuthor,
			annotate.Comment(rep, r.ctx.ServerURL, r.ctx.Repository))
		return err
	})
	return id, err
}

// commentMode is `mode: comment` on workflow_run: it downloads the PR
// run's envelope as data, verifies which pull request it belongs to and
// posts the sticky comment. It never runs the PR's code.
func (r *run) commentMode(ctx context.Context) error {
	if r.ev.workflowRun == nil {
		return diag.Input("mode comment runs on a workflow_run event; this is %q", r.ctx.EventName)
	}
	wr := r.ev.workflowRun.GetWorkflowRun()
	if ev := wr.GetEvent(); ev != "pull_request" {
		fmt.Fprintf(r.env.Stdout, "mcptest: the triggering run is a %q run, not a pull_request one: nothing to comment\n", annotate.Clean(ev))
		return nil
	}
	if c := wr.GetConclusion(); c == "cancelled" || c == "skipped" {
		fmt.Fprintf(r.env.Stdout, "mcptest: the triggering run was %s: nothing to comment\n", c)
		return nil
	}
	gh, err := r.github()
	if err != nil {
		return err
	}
	pr, err := r.findPR(ctx, gh, wr)
	if pr == nil || err != nil {
		return err
	}
	env, err := r.runEnvelope(ctx, gh, wr.GetID())
	if err != nil {
		return err
	}
	found, missing, err := r.baseline(ctx, pr.GetBase().GetSHA(), wr.GetHeadSHA())
	if err != nil {
		return err
	}
	rep := r.compare(env, found, missing)
	number := pr.GetNumber()
	id, err := r.upsertComment(ctx, gh, number, rep)
	if err != nil {
		return fmt.Errorf("post the comment on pull request #%d: %w", number, err)
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: comment %d on pull request #%d\n", id, number)
	r.summary(rep)
	r.setOutputs(rep, found != nil, id)
	return r.writeOutputs()
}

// findPR finds the open pull request of the triggering run within the API
// budget; nil (and a line on the log) when there is none.
func (r *run) findPR(ctx context.Context, gh *baseline.GitHub, wr *github.WorkflowRun) (*github.PullRequest, error) {
	head := wr.GetHeadRepository()
	var pr *github.PullRequest
	err := baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		var err error
		pr, err = findPR(ctx, gh, r.owner, r.repo, head.GetOwner().GetLogin(), wr.GetHeadBranch(), wr.GetHeadSHA(), head.GetFullName())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find the pull request of run %d: %w", wr.GetID(), err)
	}
	if pr == nil {
		fmt.Fprintf(r.env.Stdout, "mcptest: no open pull request has head %s at %s: nothing to comment\n", annotate.Clean(head.GetFullName()), annotate.Clean(wr.GetHeadSHA()))
	}
	return pr, nil
}

// runEnvelope downloads the envelope the pull request run uploaded (the
// pr-artifact input) and reads it as data.
func (r *run) runEnvelope(ctx context.Context, gh *baseline.GitHub, runID int64) (*report.Envelope, error) {
	var data []byte
	var why string
	err := baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		var err error
		data, why, err = gh.RunArtifact(ctx, r.owner, r.repo, runID, r.in.prArtifact, path.Base(r.in.reportPath), r.in.maxBytes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("download the envelope of run %d: %w", runID, err)
	}
	if why != "" {
		return nil, diag.Input("run %d has no usable %q artifact: %s", runID, r.in.prArtifact, why)
	}
	env, err := report.Read(bytes.NewReader(data), "the envelope of run "+strconv.FormatInt(runID, 10))
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	for i, cs := range env.Cases {
		if cs == nil {
			return nil, diag.Input("the envelope of run %d: cases[%d] is null", runID, i)
		}
	}
	env.Tally()
	return env, nil
}

// drift opens, updates or closes the one tracking issue of the suite.
func (r *run) drift(ctx context.Context, rep annotate.ActionReport) error {
	gh, err := r.github()
	if err != nil {
		return err
	}
	err = baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		return syncDriftIssue(ctx, gh, r.owner, r.repo, r.in.driftLabel, rep, r.ctx.ServerURL, r.ctx.Repository, r.env.Stdout)
	})
	var te *baseline.TimeoutError
	if errors.As(err, &te) {
		r.notes = append(r.notes, "No drift issue: "+te.Error()+".")
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no drift issue"}).Warningf("%s", "no drift issue: "+te.Error())
		return nil
	}
	if err != nil && baseline.Forbidden(err) {
		r.notes = append(r.notes, "No drift issue: the token may not write issues (give the workflow `issues: write`).")
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no drift issue"}).Warningf("%s", "no drift issue: "+flatLine(err.Error()))
		return nil
	}
	if err != nil {
		return fmt.Errorf("drift issue: %w", err)
	}
	return nil
}

// flatLine puts a message on one line.
func flatLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
