package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// The fixture's pull requests: 7 from a branch of acme/agents, 8 from the
// fork fork/agents.
const (
	actPR      = 7
	actForkPR  = 8
	actShardPR = 9
)

// actUnshardedComment is the sticky comment the unsharded check of the
// regressing pull request wrote, for the sharded run of the same commit
// to equal.
var actUnshardedComment string

// actPREvent is a pull_request payload of the fixture repository: head at
// the fixture commit head, from headRepo, onto main.
func actPREvent(f *actFixture, number int, headRepo, head string) map[string]any {
	owner, _, _ := strings.Cut(headRepo, "/")
	return map[string]any{"action": "synchronize", "number": number, "pull_request": map[string]any{"number": number,
		"head": map[string]any{"sha": f.commits[head], "ref": "feature", "label": owner + ":feature",
			"repo": map[string]any{"full_name": headRepo, "fork": headRepo != "acme/agents"}},
		"base": map[string]any{"sha": f.commits["main"], "ref": "main", "repo": map[string]any{"full_name": "acme/agents"}}}}
}

// actRun registers with the API stand-in a completed run of workflow that
// uploaded the artifact name (read back from the upload-artifact stand-in's
// store), as GitHub lists a finished run.
func actRun(f *actFixture, id int64, workflow, event, headRepo, branch, sha, conclusion, name string) {
	f.api.Lock()
	defer f.api.Unlock()
	f.api.Runs = append(f.api.Runs, &ghapitest.Run{ID: id, Workflow: workflow, Event: event, HeadBranch: branch, HeadRepo: headRepo,
		HeadSHA: f.commits[sha], Status: "completed", Conclusion: conclusion,
		Artifacts: []*ghapitest.Artifact{{ID: id * 10, Name: name, Zip: f.uploaded(id, name)}}})
}

// actErrorOnLine matches the annotation of the research agent's F1 floor:
// an error workflow command on the assertion's own line of suite.yml.
var actErrorOnLine = regexp.MustCompile(`::error [^:]*file=suite\.yml,line=29,title=mcptest regression%3A research-agent picks search then fetch::assertion #0 \(` + "`tool_selection.f1`" + `\)`)

// actComments are the comments the stand-in holds on issue n.
func actComments(f *actFixture, n int) []*ghapitest.Comment {
	f.api.Lock()
	defer f.api.Unlock()
	var out []*ghapitest.Comment
	for _, c := range f.api.Comments {
		if c.Issue == n {
			out = append(out, c)
		}
	}
	return out
}

// actRows are the runs TestActWorkflows makes, in order: each leaves its
// artifacts, comments and issues with the stand-ins for the next. A new
// workflow (a sharded suite's) is one more row.
var actRows = []actRow{{
	name: "baseline", workflow: "mcptest-baseline.yml", event: "push", runID: 501, sha: "main", ref: "refs/heads/main",
	payload: func(f *actFixture) map[string]any {
		return map[string]any{"ref": "refs/heads/main", "after": f.commits["main"], "deleted": false}
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		for _, want := range []string{"mcptest_" + actRelease + "_", "verified (sha256", "cache stand-in: saved mcptest-mcptest_" + actRelease,
			"upload-artifact stand-in: mcptest-baseline of run 501"} {
			if !res.has(want) {
				t.Errorf("the log lacks %q", want)
			}
		}
		// The baseline this run uploaded is what the API stand-in serves as
		// the default branch's last baseline run.
		actRun(f, 501, "mcptest-baseline.yml", "push", "acme/agents", "main", "main", "success", "mcptest-baseline")
	},
}, {
	name: "pr-regression", workflow: "mcptest-pr.yml", event: "pull_request", runID: 502, sha: "pr1", ref: fmt.Sprintf("refs/pull/%d/merge", actPR),
	payload:     func(f *actFixture) map[string]any { return actPREvent(f, actPR, "acme/agents", "pr1") },
	readOutputs: "mcptest", wantFail: true,
	before: func(f *actFixture) {
		f.api.PRs = append(f.api.PRs, &ghapitest.PR{Number: actPR, HeadRef: "feature", HeadSHA: f.commits["pr1"], HeadRepo: "acme/agents", BaseSHA: f.commits["main"]})
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		if !actErrorOnLine.MatchString(res.log) {
			t.Errorf("no error annotation on suite.yml line 29, the failing assertion's line")
		}
		if !res.has("step mcptest/run: exit status 1") {
			t.Errorf("the Action's step did not fail with exit code 1 (fail-on: regressions, one regression)")
		}
		if !res.has("cache stand-in: restored mcptest-mcptest_" + actRelease) {
			t.Errorf("the second run did not restore the binary from the cache")
		}
		if !res.has("mcptest: baseline: run 501") {
			t.Errorf("the log does not name the baseline run 501")
		}
		for _, op := range []string{"actions/list-workflow-runs", "actions/list-workflow-run-artifacts", "actions/download-artifact", "blob"} {
			if f.api.Count(op) == 0 {
				t.Errorf("the API stand-in saw no %s: the baseline was not fetched", op)
			}
		}
		cs := actComments(f, actPR)
		if len(cs) != 1 || f.api.Count("issues/create-comment") != 1 {
			t.Fatalf("%d comments on #%d, %d created; want the sticky comment created once", len(cs), actPR, f.api.Count("issues/create-comment"))
		}
		want := fmt.Sprintf("outputs: verdict=fail passed=4 failed=2 flips=4 regressions=1 fixes=1 baseline-found=true baseline-run-id=501 comment-id=%d", cs[0].ID)
		if !res.has(want) {
			t.Errorf("the later step did not read the outputs %q", want)
		}
		actUnshardedComment = cs[0].Body
		if _, err := os.Stat(filepath.Join(f.artifacts, "502", "mcptest-pr", "mcptest-report.json")); err != nil {
			t.Errorf("the envelope was not uploaded after the failed step (if: always()): %v", err)
		}
	},
}, {
	name: "pr-fixed", workflow: "mcptest-pr.yml", event: "pull_request", runID: 503, sha: "pr2", ref: fmt.Sprintf("refs/pull/%d/merge", actPR),
	payload:     func(f *actFixture) map[string]any { return actPREvent(f, actPR, "acme/agents", "pr2") },
	readOutputs: "mcptest",
	check: func(t *testing.T, f *actFixture, res actResult) {
		cs := actComments(f, actPR)
		if len(cs) != 1 || f.api.Count("issues/create-comment") != 1 || f.api.Count("issues/update-comment") != 1 {
			t.Fatalf("%d comments on #%d, %d created, %d edited; want the one sticky comment edited", len(cs), actPR,
				f.api.Count("issues/create-comment"), f.api.Count("issues/update-comment"))
		}
		want := fmt.Sprintf("verdict=pass passed=6 failed=0 flips=2 regressions=0 fixes=1 baseline-found=true baseline-run-id=501 comment-id=%d", cs[0].ID)
		if !res.has(want) {
			t.Errorf("the later step did not read the outputs %q", want)
		}
		if actErrorOnLine.MatchString(res.log) {
			t.Errorf("the fixed assertion is still annotated")
		}
		// The step passed, so act printed all it wrote (see docs/testing.md).
		for _, want := range []string{"mcptest: baseline: run 501", fmt.Sprintf("mcptest: comment %d on pull request #%d", cs[0].ID, actPR)} {
			if !res.has(want) {
				t.Errorf("the log lacks %q (the baseline fetched, the comment kept)", want)
			}
		}
		if res.has("exit status") || !res.has("Success - Main mcptest action") {
			t.Errorf("the Action's step did not pass (fail-on: regressions, no regression)")
		}
	},
}, {
	name: "fork-pr", workflow: "mcptest-pr.yml", event: "pull_request", runID: 504, sha: "pr1", ref: fmt.Sprintf("refs/pull/%d/merge", actForkPR),
	payload:     func(f *actFixture) map[string]any { return actPREvent(f, actForkPR, "fork/agents", "pr1") },
	readOutputs: "mcptest", wantFail: true,
	before: func(f *actFixture) {
		f.api.PRs = append(f.api.PRs, &ghapitest.PR{Number: actForkPR, HeadRef: "feature", HeadSHA: f.commits["pr1"], HeadRepo: "fork/agents", BaseSHA: f.commits["main"]})
		// A fork's pull request gets a read-only token.
		f.api.ForbidWrites = true
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		f.api.ForbidWrites = false
		// The create was tried and refused; the job summary says why.
		if n := len(actComments(f, actForkPR)); n != 0 || f.api.Count("issues/create-comment") != 2 ||
			!res.has("No PR comment: the token may not write comments here") {
			t.Errorf("%d comments on the fork's pull request from its own run; want none, and the summary saying why", n)
		}
		if !actErrorOnLine.MatchString(res.log) {
			t.Errorf("no error annotation on suite.yml line 29 on the fork's run")
		}
		actRun(f, 504, "mcptest-pr.yml", "pull_request", "fork/agents", "feature", "pr1", "failure", "mcptest-pr")
	},
}, {
	name: "fork-comment", workflow: "mcptest-fork-comment.yml", event: "workflow_run", runID: 505, sha: "main", ref: "refs/heads/main",
	payload: func(f *actFixture) map[string]any {
		return map[string]any{"action": "completed", "workflow_run": map[string]any{"id": 504, "name": "mcptest PR", "event": "pull_request",
			"status": "completed", "conclusion": "failure", "head_branch": "feature", "head_sha": f.commits["pr1"],
			"head_repository": map[string]any{"full_name": "fork/agents", "name": "agents", "owner": map[string]any{"login": "fork"}},
			"repository":      map[string]any{"full_name": "acme/agents"}}}
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		cs := actComments(f, actForkPR)
		if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, annotate.CommentMarker("suite.yml")) || !strings.Contains(cs[0].Body, `research\-agent picks search then fetch`) {
			t.Fatalf("%d comments on the fork's #%d; want the sticky comment from run 504's envelope", len(cs), actForkPR)
		}
		if !res.has(fmt.Sprintf("mcptest: comment %d on pull request #%d", cs[0].ID, actForkPR)) {
			t.Errorf("the log does not name the comment kept")
		}
		if f.api.Count("pulls/list") == 0 {
			t.Errorf("the pull request of run 504 was not looked up")
		}
	},
}, {
	name: "drift", workflow: "mcptest-drift.yml", event: "schedule", runID: 506, sha: "main2", ref: "refs/heads/main",
	payload: func(f *actFixture) map[string]any { return map[string]any{"schedule": "17 6 * * *"} },
	// The default branch regressed since its baseline: the issue is opened
	// and the step fails, as fail-on: regressions says. Before run 501,
	// three older baselines held the support agent's certified lower bound
	// 30, 25 and 20 points higher, and a forged and an expired one sit
	// among them: the history step reads the four good ones, writes the
	// trend, uploads the page and names the sustained slide.
	noRelease: true, wantFail: true,
	before: actHistoryRuns,
	check: func(t *testing.T, f *actFixture, res actResult) {
		for _, want := range []string{"building from source", "setup-go stand-in: go version", "mcptest built from source",
			"mcptest: baseline: run 501", "Failure - Main mcptest action", ": exit status 1",
			"mcptest: history: skipped run 402: artifact \"mcptest-baseline\": its download does not match its digest",
			"mcptest: history: skipped run 404: artifact \"mcptest-baseline\" expired",
			"mcptest: history: 5 runs (4 baselines and this run)",
			"mcptest: history: certified_lower of support agent answers from the knowledge base: ",
			"mcptest: sustained slide: certified_lower of support agent answers from the knowledge base fell ",
			"over 5 runs (4 baselines and this run), past history-threshold 5",
			"upload-artifact stand-in: mcptest-history of run 506"} {
			if !res.has(want) {
				t.Errorf("the log lacks %q", want)
			}
		}
		page, err := os.ReadFile(filepath.Join(f.artifacts, "506", "mcptest-history", "mcptest-report.history.html"))
		if err != nil || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "support agent answers from the knowledge base") {
			t.Errorf("the uploaded history page: %v, %d bytes", err, len(page))
		}
		f.api.Lock()
		defer f.api.Unlock()
		if len(f.api.Issues) != 1 || f.api.Issues[0].State != "open" || !strings.Contains(f.api.Issues[0].Body, `research\-agent picks search then fetch`) {
			t.Errorf("drift issues %+v; want one open issue listing the research agent's flip", f.api.Issues)
		}
	},
}, {
	// The sharded workflow on the default branch: four shard jobs, and the
	// merge job's envelope of the whole suite uploaded as the baseline.
	name: "sharded-baseline", workflow: "mcptest-sharded.yml", event: "push", runID: 601, sha: "main", ref: "refs/heads/main",
	payload: func(f *actFixture) map[string]any {
		return map[string]any{"ref": "refs/heads/main", "after": f.commits["main"], "deleted": false}
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		for i := 1; i <= 4; i++ {
			if !res.has(fmt.Sprintf("upload-artifact stand-in: mcptest-shard-%d of run 601", i)) {
				t.Errorf("shard %d/4 uploaded no envelope", i)
			}
		}
		if !res.has("upload-artifact stand-in: mcptest-baseline of run 601") {
			t.Errorf("the merge job uploaded no baseline")
		}
		actRun(f, 601, "mcptest-sharded.yml", "push", "acme/agents", "main", "main", "success", "mcptest-baseline")
	},
}, {
	// The regressing pull request through the sharded workflow: the merge
	// job compares once with the sharded baseline and keeps one comment,
	// equal to the unsharded check's, with the same outputs.
	name: "sharded-pr", workflow: "mcptest-sharded.yml", event: "pull_request", runID: 602, sha: "pr1", ref: fmt.Sprintf("refs/pull/%d/merge", actShardPR),
	payload:     func(f *actFixture) map[string]any { return actPREvent(f, actShardPR, "acme/agents", "pr1") },
	readOutputs: "mcptest", wantFail: true,
	before: func(f *actFixture) {
		f.api.PRs = append(f.api.PRs, &ghapitest.PR{Number: actShardPR, HeadRef: "feature", HeadSHA: f.commits["pr1"], HeadRepo: "acme/agents", BaseSHA: f.commits["main"]})
	},
	check: func(t *testing.T, f *actFixture, res actResult) {
		cs := actComments(f, actShardPR)
		if len(cs) != 1 {
			t.Fatalf("%d comments on #%d; want one sticky comment from the merge job, none from the shards", len(cs), actShardPR)
		}
		want := fmt.Sprintf("outputs: verdict=fail passed=4 failed=2 flips=4 regressions=1 fixes=1 baseline-found=true baseline-run-id=601 comment-id=%d", cs[0].ID)
		if !res.has(want) {
			t.Errorf("the merge job's outputs are not the unsharded check's: want %q", want)
		}
		if !actErrorOnLine.MatchString(res.log) {
			t.Errorf("no error annotation on suite.yml line 29 from the merge job")
		}
		if got, want := actRunIDs.ReplaceAllString(cs[0].Body, "RUN"), actRunIDs.ReplaceAllString(actUnshardedComment, "RUN"); got != want {
			t.Errorf("the sharded comment differs from the unsharded one:\n%s\n--- unsharded:\n%s", got, want)
		}
	},
}}

// actHistoryRuns puts before run 501 three older baselines of the default
// branch whose envelope is run 501's with the support agent's certified
// lower bound 30, 25 and 20 points higher, and among them a forged one
// (its digest is not its zip's) and an expired one, as the API lists
// them.
func actHistoryRuns(f *actFixture) {
	data, err := os.ReadFile(filepath.Join(f.artifacts, "501", "mcptest-baseline", "mcptest-report.json"))
	if err != nil {
		f.t.Fatal(err)
	}
	var older []*ghapitest.Run
	for i, up := range []float64{30, 0, 25, 0, 20} {
		var env map[string]any
		if err := json.Unmarshal(data, &env); err != nil {
			f.t.Fatal(err)
		}
		for _, c := range env["cases"].([]any) {
			if c := c.(map[string]any); c["name"] == "support agent answers from the knowledge base" {
				targets := c["targets"].(map[string]any)
				targets["reliability.certified_lower"] = targets["reliability.certified_lower"].(float64) + up
			}
		}
		out, _ := json.Marshal(env)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("mcptest-report.json")
		_, _ = w.Write(out)
		if err := zw.Close(); err != nil {
			f.t.Fatal(err)
		}
		id := int64(401 + i)
		art := &ghapitest.Artifact{ID: id * 10, Name: "mcptest-baseline", Zip: buf.Bytes()}
		switch id {
		case 402:
			art.Digest = "sha256:" + strings.Repeat("0", 64)
		case 404:
			art.Expired = true
		}
		older = append(older, &ghapitest.Run{ID: id, Workflow: "mcptest-baseline.yml", Event: "push", HeadBranch: "main", HeadRepo: "acme/agents",
			HeadSHA: f.commits["main"], Status: "completed", Conclusion: "success", Artifacts: []*ghapitest.Artifact{art}})
	}
	f.api.Lock()
	defer f.api.Unlock()
	f.api.Runs = append(older, f.api.Runs...)
}

// actRunIDs are the run ids a comment names (the baseline's and the
// run's own), which differ between the unsharded and the sharded run.
var actRunIDs = regexp.MustCompile(`\b(50[1-6]|60[1-2])\b|run_id[^\s]*`)

// TestActWorkflows runs the example workflows, the real action.yml with
// them, through nektos/act against the fixture repository, row by row:
// the baseline upload, a pull request that regresses (step fails, error
// annotation on the assertion's line, sticky comment created, outputs read
// by a later step, the baseline fetched through the API) and then passes
// (the comment edited), a fork's pull request and its workflow_run
// comment, and the scheduled drift run that opens the issue (with the
// Action built from source).
func TestActWorkflows(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the act runs take about a minute")
	}
	start := time.Now()
	f := newActFixture(t)
	ran := 0
	for _, row := range actRows {
		ok := t.Run(row.name, func(t *testing.T) {
			res := f.run(t, row)
			ran++
			defer func() {
				if t.Failed() {
					t.Logf("act log:\n%s", res.log)
				}
			}()
			if failed := res.code != 0; failed != row.wantFail {
				t.Errorf("act exit %d, want failure %v", res.code, row.wantFail)
			}
			// Every action comes from a local folder: none is cloned.
			if res.has("LocalRepositoryCache not matched") {
				t.Errorf("act looked an action up outside the local stand-ins")
			}
			f.checkCheckout(t, row, res)
			if row.check != nil {
				row.check(t, f, res)
			}
		})
		if !ok {
			break // the later rows build on this one
		}
	}
	t.Logf("%d act runs in %s", ran, time.Since(start).Round(time.Second))
}
