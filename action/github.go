package action

import (
	"context"
	"fmt"
	"io"

	"github.com/google/go-github/v62/github"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
)

// maxPages bounds every paginated listing.
const maxPages = 50

// upsertComment keeps one comment per pull request and suite: the comment
// whose first line is marker and written by author ("" for anyone), found across every
// page, is edited in place; an unchanged body is not posted again; without
// one a comment is created. It returns the comment's id.
func upsertComment(ctx context.Context, gh *baseline.GitHub, owner, repo string, number int, marker, author, body string) (int64, error) {
	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxPages; page++ {
		comments, resp, err := gh.Client.Issues.ListComments(ctx, owner, repo, number, opt)
		if err != nil {
			return 0, fmt.Errorf("list the comments of #%d: %w", number, err)
		}
		for _, cm := range comments {
			if !annotate.HasMarker(cm.GetBody(), marker) || (author != "" && cm.GetUser().GetLogin() != author) {
				continue
			}
			if cm.GetBody() == body {
				return cm.GetID(), nil
			}
			ed, _, err := gh.Client.Issues.EditComment(ctx, owner, repo, cm.GetID(), &github.IssueComment{Body: github.String(body)})
			if err != nil {
				return 0, fmt.Errorf("update comment %d: %w", cm.GetID(), err)
			}
			return ed.GetID(), nil
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	cm, _, err := gh.Client.Issues.CreateComment(ctx, owner, repo, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return 0, fmt.Errorf("create a comment on #%d: %w", number, err)
	}
	return cm.GetID(), nil
}

// findPR finds the open pull request of a workflow run: its head branch
// lives in headRepo, and it must point at headSHA from headRepo exactly,
// into this repository. The artifact's word is never taken for it.
func findPR(ctx context.Context, gh *baseline.GitHub, owner, repo, headOwner, headBranch, headSHA, headRepo string) (*github.PullRequest, error) {
	if headOwner == "" || headBranch == "" || headSHA == "" || headRepo == "" {
		return nil, fmt.Errorf("the workflow_run event lacks its head repository, branch or commit")
	}
	prs, _, err := gh.Client.PullRequests.List(ctx, owner, repo, &github.PullRequestListOptions{
		State: "open", Head: headOwner + ":" + headBranch, ListOptions: github.ListOptions{PerPage: 100},
	})
	if err != nil {
		return nil, err
	}
	for _, pr := range prs {
		if pr.GetHead().GetSHA() != headSHA || pr.GetHead().GetRepo().GetFullName() != headRepo ||
			pr.GetBase().GetRepo().GetFullName() != owner+"/"+repo {
			continue
		}
		return pr, nil
	}
	return nil, nil
}

// syncDriftIssue opens, updates or closes the suite's drift issue: the
// open issue with the label and the suite's marker. It lists the labelled
// issues rather than using the search API, whose index lags behind: an
// issue opened by the previous run could be missed and opened twice.
func syncDriftIssue(ctx context.Context, gh *baseline.GitHub, owner, repo, label string, rep annotate.ActionReport, serverURL, fullRepo string, log io.Writer) error {
	marker := annotate.DriftMarker(rep.Suite)
	var found *github.Issue
	opt := &github.IssueListByRepoOptions{State: "open", Labels: []string{label}, ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxPages && found == nil; page++ {
		issues, resp, err := gh.Client.Issues.ListByRepo(ctx, owner, repo, opt)
		if err != nil {
			return fmt.Errorf("list the %s issues: %w", label, err)
		}
		for _, is := range issues {
			if is.PullRequestLinks == nil && annotate.HasMarker(is.GetBody(), marker) {
				found = is
				break
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if rep.Cmp.Summary.Flips == 0 {
		if found == nil {
			fmt.Fprintln(log, "mcptest: drift: no floor flip and no open drift issue")
			return nil
		}
		_, _, err := gh.Client.Issues.Edit(ctx, owner, repo, found.GetNumber(), &github.IssueRequest{
			Body: github.String(annotate.DriftResolved(rep)), State: github.String("closed"), StateReason: github.String("completed"),
		})
		if err == nil {
			fmt.Fprintf(log, "mcptest: drift: closed issue #%d\n", found.GetNumber())
		}
		return err
	}
	title, body := annotate.DriftIssue(rep, serverURL, fullRepo)
	if found == nil {
		is, _, err := gh.Client.Issues.Create(ctx, owner, repo, &github.IssueRequest{Title: github.String(title), Body: github.String(body), Labels: &[]string{label}})
		if err == nil {
			fmt.Fprintf(log, "mcptest: drift: opened issue #%d\n", is.GetNumber())
		}
		return err
	}
	if found.GetBody() == body && found.GetTitle() == title {
		fmt.Fprintf(log, "mcptest: drift: issue #%d is up to date\n", found.GetNumber())
		return nil
	}
	_, _, err := gh.Client.Issues.Edit(ctx, owner, repo, found.GetNumber(), &github.IssueRequest{Title: github.String(title), Body: github.String(body)})
	if err == nil {
		fmt.Fprintf(log, "mcptest: drift: updated issue #%d\n", found.GetNumber())
	}
	return err
}
