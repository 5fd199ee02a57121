//go:build linux

package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// The Action rows of TestProcess: `mcptest action` as action.yml's last
// step runs it, in a workspace holding examples/baseline, against the
// GitHub API stand-in. What they assert is what the stand-in was asked
// and what it holds after: the baseline fetched, the comment kept, the
// issue opened.

// processToken is the token the runner hands the step.
const processToken = "ghs_process_token"

// actionStep is one runner's step: the workspace, the runner's files and
// the environment the step gets.
type actionStep struct {
	t   *testing.T
	srv *ghapitest.Server
	ws  string
	env map[string]string
}

// actionInputs is the INPUT_* environment action.yml's last step gives
// `mcptest action` when the workflow sets no input: each variable its
// env: lists (hyphens kept), holding the default of the input it names.
func actionInputs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Runs.Steps) == 0 {
		t.Fatalf("action.yml: %v", err)
	}
	step := doc.Runs.Steps[len(doc.Runs.Steps)-1]
	if !strings.Contains(step.Run, `/mcptest" action`) {
		t.Fatalf("action.yml's last step runs %q, not mcptest action", step.Run)
	}
	env := map[string]string{}
	for key, value := range step.Env {
		name, ok := strings.CutPrefix(value, "${{ inputs.")
		name, ok2 := strings.CutSuffix(name, " }}")
		if !strings.HasPrefix(key, "INPUT_") || !ok || !ok2 {
			continue
		}
		in, declared := doc.Inputs[name]
		if !declared || key != "INPUT_"+strings.ToUpper(name) {
			t.Fatalf("action.yml: %s: ${{ inputs.%s }}", key, name)
		}
		env[key] = in.Default
	}
	if len(env) < 15 {
		t.Fatalf("action.yml's last step forwards only %d inputs", len(env))
	}
	if env["INPUT_GITHUB-TOKEN"] != "${{ github.token }}" {
		t.Fatalf("input github-token defaults to %q", env["INPUT_GITHUB-TOKEN"])
	}
	env["INPUT_GITHUB-TOKEN"] = processToken
	return env
}

// newActionStep lays out a runner for event: a workspace holding
// examples/baseline (its suite.yml is the config input's default), the
// event file, and the GITHUB_* variables a runner sets, the API at srv.
func newActionStep(t *testing.T, srv *ghapitest.Server, event string, payload any) *actionStep {
	t.Helper()
	ws, runner := t.TempDir(), t.TempDir()
	copyTree(t, "../../examples/baseline", ws)
	data, _ := json.Marshal(payload)
	writeFile(t, filepath.Join(runner, "event.json"), string(data))
	env := actionInputs(t)
	for k, v := range map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux", "RUNNER_TEMP": t.TempDir(),
		"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": filepath.Join(runner, "event.json"),
		"GITHUB_REPOSITORY": srv.Full(), "GITHUB_REPOSITORY_OWNER": srv.Owner,
		"GITHUB_API_URL": srv.URL, "GITHUB_SERVER_URL": "https://github.example.com",
		"GITHUB_OUTPUT": filepath.Join(runner, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(runner, "summary.md"),
		"GITHUB_WORKSPACE": ws, "GITHUB_RUN_ID": "5150", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_SHA": "cafe0000",
		"GITHUB_REF": "refs/heads/main", "GITHUB_WORKFLOW": "mcptest", "GITHUB_JOB": "mcptest", "GITHUB_ACTOR": "octocat",
	} {
		env[k] = v
	}
	return &actionStep{t: t, srv: srv, ws: ws, env: env}
}

// stepResult is what one step left: its exit code, streams, outputs and
// job summary.
type stepResult struct {
	code           int
	stdout, stderr string
	outputs        map[string]string
	summary        string
	requests       []string // the stand-in's operations served during the step
}

// run runs the step once, as the runner does: in the workspace, the
// output and summary files fresh.
func (s *actionStep) run() stepResult {
	s.t.Helper()
	_ = os.Remove(s.env["GITHUB_OUTPUT"])
	_ = os.Remove(s.env["GITHUB_STEP_SUMMARY"])
	env := make([]string, 0, len(s.env))
	for k, v := range s.env {
		env = append(env, k+"="+v)
	}
	s.srv.Lock()
	before := len(s.srv.Log)
	s.srv.Unlock()
	stdout, stderr, code := runProc(s.t, procSpec{args: []string{"action"}, dir: s.ws, env: env})
	res := stepResult{code: code, stdout: stdout, stderr: stderr, outputs: map[string]string{}}
	if data, err := os.ReadFile(s.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = readOutputs(s.t, string(data))
	}
	if data, err := os.ReadFile(s.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(data)
	}
	s.srv.Lock()
	res.requests = slices.Clone(s.srv.Log[before:])
	s.srv.Unlock()
	if strings.Contains(stdout+stderr, processToken) {
		s.t.Errorf("the step printed the token")
	}
	return res
}

// String reports what the step did.
func (r stepResult) String() string {
	return "exit " + strconv.Itoa(r.code) + "\nAPI requests: " + strings.Join(r.requests, ", ") + "\nstdout:\n" + r.stdout + "stderr:\n" + r.stderr
}

// wantRequests fails unless the stand-in served every operation in want
// during the step.
func (r stepResult) wantRequests(t *testing.T, want ...string) {
	t.Helper()
	for _, op := range want {
		if !slices.Contains(r.requests, op) {
			t.Errorf("the API stand-in was never asked %s\n%s", op, r)
		}
	}
}

// readOutputs reads GITHUB_OUTPUT as the runner does: name<<DELIM
// heredocs.
func readOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i+2 < len(lines); i += 3 {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok || lines[i+2] != delim {
			t.Fatalf("GITHUB_OUTPUT is not heredocs at line %d:\n%s", i+1, s)
		}
		out[name] = lines[i+1]
	}
	return out
}

// artifactZip is an artifact holding the envelope file as report-path's
// default names it.
func artifactZip(t *testing.T, envelope string) []byte {
	t.Helper()
	data, err := os.ReadFile(envelope)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("mcptest-report.json")
	_, _ = w.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// baselineRun is a successful run of the baseline workflow on the default
// branch at sha, its artifact examples/baseline/baseline.json.
func baselineRun(t *testing.T, srv *ghapitest.Server, id int64, sha string) *ghapitest.Run {
	return &ghapitest.Run{ID: id, Workflow: "mcptest-baseline.yml", Event: "push", HeadBranch: "main", HeadRepo: srv.Full(),
		HeadSHA: sha, Status: "completed", Conclusion: "success",
		Artifacts: []*ghapitest.Artifact{{ID: id * 10, Name: "mcptest-baseline", Zip: artifactZip(t, "../../examples/baseline/baseline.json")}}}
}

func pullRequestEvent(repo string, number int, head, base string) map[string]any {
	return map[string]any{"number": number, "pull_request": map[string]any{"number": number,
		"head": map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": repo}},
		"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": repo}}}}
}

// processActionCheck: on a pull request the step reads the repository,
// lists the baseline workflow's runs and the run's artifacts, downloads
// the baseline, fails on its regression, and creates the sticky comment;
// a later push with a newer baseline edits that comment in place.
func processActionCheck(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	srv.Runs = []*ghapitest.Run{baselineRun(t, srv, 41, "base0001")}
	s := newActionStep(t, srv, "pull_request", pullRequestEvent(srv.Full(), 7, "head0001", "base0001"))
	res := s.run()
	if res.code != ExitFail {
		t.Fatalf("want exit 1 for the baseline's regression\n%s", res)
	}
	res.wantRequests(t, "repos/get", "actions/list-workflow-runs", "actions/list-workflow-run-artifacts", "actions/download-artifact",
		"issues/list-comments", "issues/create-comment")
	for k, v := range map[string]string{"verdict": "fail", "regressions": "1", "baseline-found": "true", "baseline-run-id": "41",
		"report-path": "mcptest-report.json"} {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q\n%s", k, res.outputs[k], v, res)
		}
	}
	srv.Lock()
	comments := slices.Clone(srv.Comments)
	srv.Unlock()
	if len(comments) != 1 || comments[0].Issue != 7 || !strings.HasPrefix(comments[0].Body, annotate.CommentMarker("suite.yml")) {
		t.Fatalf("the stand-in holds the comments %+v, want one sticky comment on #7", comments)
	}
	bot := comments[0]
	if res.outputs["comment-id"] != strconv.FormatInt(bot.ID, 10) || !strings.Contains(bot.Body, "Baseline: [run 41]") {
		t.Errorf("comment-id %q for comment %d; body:\n%s", res.outputs["comment-id"], bot.ID, bot.Body)
	}
	if _, err := os.Stat(filepath.Join(s.ws, "mcptest-report.json")); err != nil {
		t.Errorf("no envelope in the workspace: %v", err)
	}
	if !strings.Contains(res.summary, "mcptest") {
		t.Errorf("job summary:\n%s", res.summary)
	}

	// A push to the PR after a newer baseline: the comment is edited.
	first := bot.Body
	srv.Lock()
	srv.Runs = append(srv.Runs, baselineRun(t, srv, 43, "base0002"))
	srv.Unlock()
	data, _ := json.Marshal(pullRequestEvent(srv.Full(), 7, "head0002", "base0002"))
	writeFile(t, s.env["GITHUB_EVENT_PATH"], string(data))
	res = s.run()
	res.wantRequests(t, "issues/list-comments", "issues/update-comment")
	srv.Lock()
	defer srv.Unlock()
	if res.code != ExitFail || res.outputs["baseline-run-id"] != "43" || len(srv.Comments) != 1 || srv.Comments[0].Body == first || !strings.Contains(srv.Comments[0].Body, "Baseline: [run 43]") ||
		res.outputs["comment-id"] != strconv.FormatInt(bot.ID, 10) || slices.Contains(res.requests, "issues/create-comment") {
		t.Errorf("second run: want the comment %d edited in place against baseline run 43; outputs %v\n%s", bot.ID, res.outputs, res)
	}
}

// processActionBaseline: on a push the step runs the suite and writes the
// envelope the baseline artifact uploads, passing though cases fail.
func processActionBaseline(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	s := newActionStep(t, srv, "push", map[string]any{"ref": "refs/heads/main", "after": "cafe0000"})
	res := s.run()
	if res.code != ExitOK || res.outputs["verdict"] != "pass" || res.outputs["failed"] != "2" || res.outputs["report-path"] != "mcptest-report.json" {
		t.Fatalf("outputs %v\n%s", res.outputs, res)
	}
	data, err := os.ReadFile(filepath.Join(s.ws, "mcptest-report.json"))
	if err != nil || !bytes.Contains(data, []byte(`"schema_version": 1`)) {
		t.Fatalf("the envelope for the baseline artifact: %v", err)
	}
	if !strings.Contains(res.summary, "### mcptest: PASS") {
		t.Errorf("job summary:\n%s", res.summary)
	}
	if len(res.requests) != 0 {
		t.Errorf("a baseline run asked the API %v", res.requests)
	}
}

// processActionComment: the fork-safe comment step finds the pull request
// of the workflow run, downloads the PR run's envelope and comments on it.
func processActionComment(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	srv.Runs = []*ghapitest.Run{baselineRun(t, srv, 41, "base0001"),
		{ID: 77, Workflow: "mcptest-pr.yml", Event: "pull_request", HeadBranch: "feature", HeadRepo: "mallory/agents", HeadSHA: "forkhead",
			Status: "completed", Conclusion: "failure", Artifacts: []*ghapitest.Artifact{{ID: 770, Name: "mcptest-pr",
				Zip: artifactZip(t, "../../examples/baseline/baseline.json")}}}}
	srv.PRs = []*ghapitest.PR{{Number: 13, HeadRef: "feature", HeadSHA: "forkhead", HeadRepo: "mallory/agents", BaseSHA: "base0001"}}
	event := map[string]any{"workflow_run": map[string]any{"id": 77, "event": "pull_request", "head_sha": "forkhead", "head_branch": "feature",
		"conclusion": "failure", "head_repository": map[string]any{"full_name": "mallory/agents", "owner": map[string]any{"login": "mallory"}}}}
	s := newActionStep(t, srv, "workflow_run", event)
	res := s.run()
	if res.code != ExitOK {
		t.Fatalf("want exit 0\n%s", res)
	}
	res.wantRequests(t, "pulls/list", "actions/list-workflow-run-artifacts", "actions/download-artifact", "issues/create-comment")
	srv.Lock()
	defer srv.Unlock()
	if len(srv.Comments) != 1 || srv.Comments[0].Issue != 13 || !strings.HasPrefix(srv.Comments[0].Body, annotate.CommentMarker("suite.yml")) {
		t.Errorf("the stand-in holds the comments %+v, want the sticky comment on #13\n%s", srv.Comments, res)
	}
}

// processActionDrift: the scheduled step compares the default branch with
// its baseline and opens the labelled tracking issue.
func processActionDrift(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	srv.Runs = []*ghapitest.Run{baselineRun(t, srv, 41, "cafe0000")}
	s := newActionStep(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	res := s.run()
	if res.code != ExitFail {
		t.Fatalf("want exit 1 for the drift's regression\n%s", res)
	}
	res.wantRequests(t, "actions/list-workflow-runs", "actions/download-artifact", "issues/list-for-repo", "issues/create")
	srv.Lock()
	if len(srv.Issues) != 1 || srv.Issues[0].State != "open" || !slices.Contains(srv.Issues[0].Labels, "mcptest-drift") ||
		!strings.HasPrefix(srv.Issues[0].Body, annotate.DriftMarker("suite.yml")) {
		t.Fatalf("the stand-in holds the issues %+v, want one open mcptest-drift issue\n%s", srv.Issues, res)
	}
	issue := srv.Issues[0]
	first := issue.Body
	// The next night, against a newer baseline: the same issue is updated.
	srv.Runs = append(srv.Runs, baselineRun(t, srv, 42, "cafe0001"))
	srv.Unlock()
	res = s.run()
	res.wantRequests(t, "issues/list-for-repo", "issues/update")
	srv.Lock()
	defer srv.Unlock()
	if len(srv.Issues) != 1 || issue.Body == first || !strings.Contains(issue.Body, "run 42") || slices.Contains(res.requests, "issues/create") {
		t.Errorf("second night: want issue #%d updated against baseline run 42, the stand-in holds %+v\n%s", issue.Number, srv.Issues, res)
	}
}
