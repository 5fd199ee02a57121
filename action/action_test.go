package action

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline/ghapitest"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/stamp"
)

const actionSuite = "../examples/baseline/suite.yml"

// The exit codes `mcptest action` maps Run's errors to.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitInput = 2
	ExitError = 3
)

// runner is a simulated GitHub Actions runner: an event payload, the
// file-command files and the INPUT_* variables, against the API stand-in.
type runner struct {
	t   *testing.T
	dir string
	env map[string]string
	srv *ghapitest.Server
	// opt are the Action's options; the API retries and times out fast.
	opt Options
}

func newRunner(t *testing.T, srv *ghapitest.Server, event string, payload any) *runner {
	t.Helper()
	dir := t.TempDir()
	data, _ := json.Marshal(payload)
	write(t, filepath.Join(dir, "event.json"), data)
	r := &runner{t: t, dir: dir, srv: srv, opt: Options{RetryDelay: time.Millisecond, RequestTimeout: 2 * time.Second}, env: map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   event,
		"GITHUB_EVENT_PATH":   filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY":   "acme/agents",
		"GITHUB_SERVER_URL":   "https://github.example.com",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_SHA":          "cafe0000",
		"INPUT_CONFIG":        actionSuite,
		"INPUT_REPORT-PATH":   filepath.Join(dir, "out", "mcptest-report.json"),
		"INPUT_GITHUB-TOKEN":  "ghs_test_token",
	}}
	if srv != nil {
		r.env["GITHUB_API_URL"] = srv.URL
	}
	return r
}

type result struct {
	stdout, stderr string
	code           int
	outputs        map[string]string
	summary        string
	annotations    string
}

// runAction runs the Action as `mcptest action` does under a runner: its
// output behind annotate.RunnerLog (the API URL's user-info redacted), its
// own workflow commands through Commands, and its error printed and mapped
// to the exit code. flags are `mcptest action`'s: --api-timeout SECONDS.
func runAction(env map[string]string, opt Options, flags ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	getenv := func(k string) string { return env[k] }
	redact := annotate.APIURLRedactor(getenv("GITHUB_API_URL"))
	o, e := annotate.NewRunnerLog(&out, redact), annotate.NewRunnerLog(&errb, redact)
	for i := 0; i+1 < len(flags); i += 2 {
		if flags[i] == "--api-timeout" {
			opt.APITimeout = flags[i+1]
		}
	}
	err := Run(context.Background(), Env{Getenv: getenv, Stdout: o, Stderr: e, Commands: o.Commands(), Version: testVersion}, opt)
	code = exitCode(err)
	if err != nil && !errors.Is(err, ErrFailed) {
		fmt.Fprintf(e, "mcptest: %s\n", err)
	}
	_, _ = o.Flush(), e.Flush()
	return out.String(), errb.String(), code
}

// exitCode is the exit code of Run's error (see the package doc).
func exitCode(err error) int {
	var ie *diag.InputError
	var l diag.List
	var d *diag.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrFailed):
		return ExitFail
	case errors.As(err, &ie), errors.As(err, &l), errors.As(err, &d):
		return ExitInput
	}
	return ExitError
}

// run runs `mcptest action` with the flags given.
func (r *runner) run(flags ...string) result {
	r.t.Helper()
	_ = os.Remove(r.env["GITHUB_OUTPUT"])
	_ = os.Remove(r.env["GITHUB_STEP_SUMMARY"])
	stdout, stderr, code := runAction(r.env, r.opt, flags...)
	res := result{stdout: stdout, stderr: stderr, code: code, outputs: map[string]string{}}
	if data, err := os.ReadFile(r.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = parseOutputs(r.t, string(data))
	}
	if data, err := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(data)
	}
	var ann []string
	for _, l := range strings.SplitAfter(stdout, "\n") {
		if strings.HasPrefix(l, "::") {
			ann = append(ann, l)
		}
	}
	res.annotations = strings.Join(ann, "")
	return res
}

// parseOutputs reads GITHUB_OUTPUT as the runner does: name<<DELIM
// heredocs; anything else fails the test.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok || i+2 >= len(lines) || lines[i+2] != delim {
			t.Fatalf("GITHUB_OUTPUT line %d is not a single-line heredoc: %q", i+1, s)
		}
		if _, dup := out[name]; dup {
			t.Fatalf("output %s written twice", name)
		}
		out[name] = lines[i+1]
		i += 2
	}
	return out
}

func write(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// zipOf builds an artifact zip holding the files.
func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func baselineZip(t *testing.T, envelopeFile string) []byte {
	t.Helper()
	data, err := os.ReadFile(envelopeFile)
	if err != nil {
		t.Fatal(err)
	}
	return zipOf(t, map[string][]byte{"mcptest-report.json": data})
}

func goodRun(t *testing.T, id int64, sha string) *ghapitest.Run {
	return &ghapitest.Run{ID: id, Workflow: "mcptest-baseline.yml", Event: "push", HeadBranch: "main", HeadRepo: "acme/agents",
		HeadSHA: sha, Status: "completed", Conclusion: "success",
		Artifacts: []*ghapitest.Artifact{{ID: id * 10, Name: "mcptest-baseline", Zip: baselineZip(t, "../examples/baseline/baseline.json")}}}
}

func prEvent(number int, headRepo, headSHA string) map[string]any {
	return map[string]any{"number": number, "pull_request": map[string]any{"number": number,
		"head": map[string]any{"sha": headSHA, "ref": "feature", "repo": map[string]any{"full_name": headRepo}},
		"base": map[string]any{"sha": "base0001", "ref": "main", "repo": map[string]any{"full_name": "acme/agents"}}}}
}

// stable blanks what differs between runs: temp dirs and run ids.
func stable(r *runner, s string) string {
	s = strings.ReplaceAll(s, r.dir, "$DIR")
	return normalize(s)
}

func newServer(t *testing.T) *ghapitest.Server {
	return ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
}

// TestActionCheckPR: a same-repository PR gets annotations, a summary, one
// sticky comment that is updated in place (never duplicated, never
// re-posted unchanged), and exit 1 for the regression.
func TestActionCheckPR(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001"), goodRun(t, 42, "newer")}
	// A page and a half of other comments, so the marker is looked for on
	// every page; one of them forges the marker but is not the bot's.
	for i := 0; i < 130; i++ {
		srv.Comments = append(srv.Comments, &ghapitest.Comment{ID: int64(100 + i), Issue: 7, Body: "lgtm", User: "octocat"})
	}
	srv.Comments[5].Body = annotate.CommentMarker(actionSuite) + " forged"
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))

	res := r.run()
	if res.code != ExitFail {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]string{"verdict": "fail", "passed": "4", "failed": "2", "flips": "4", "regressions": "1", "fixes": "1",
		"baseline-found": "true", "baseline-run-id": "41", "report-path": r.env["INPUT_REPORT-PATH"]}
	for k, v := range want {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, res.outputs[k], v)
		}
	}
	if _, err := os.Stat(r.env["INPUT_REPORT-PATH"]); err != nil {
		t.Errorf("the run envelope was not written: %v", err)
	}
	if n := srv.Count("issues/create-comment"); n != 1 {
		t.Fatalf("%d comments created, want 1", n)
	}
	bot := srv.Comments[len(srv.Comments)-1]
	botID := strconv.FormatInt(bot.ID, 10)
	if res.outputs["comment-id"] != botID || !strings.HasPrefix(bot.Body, annotate.CommentMarker(actionSuite)) {
		t.Errorf("comment-id %q, want the stand-in's comment %s; comment body %q", res.outputs["comment-id"], botID, bot.Body[:min(80, len(bot.Body))])
	}
	golden(t, "testdata/golden/action/check.summary.md", stable(r, res.summary))
	golden(t, "testdata/golden/action/check.comment.md", stable(r, bot.Body))
	golden(t, "testdata/golden/action/check.annotations", stable(r, res.annotations))

	// The same run again: found across pages, unchanged, not re-posted.
	res = r.run()
	if srv.Count("issues/create-comment") != 1 || srv.Count("issues/update-comment") != 0 {
		t.Errorf("second run: %d creates, %d updates; want 1, 0", srv.Count("issues/create-comment"), srv.Count("issues/update-comment"))
	}
	if res.outputs["comment-id"] != botID {
		t.Errorf("second run: comment-id %q, want the same comment %s", res.outputs["comment-id"], botID)
	}
	firstBody := bot.Body
	// A newer baseline run: the body changes and is edited in place.
	srv.Runs = append(srv.Runs, goodRun(t, 43, "newest"))
	r.env["GITHUB_EVENT_PATH"] = filepath.Join(r.dir, "event2.json")
	ev := prEvent(7, "acme/agents", "head0002")
	ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = "newest"
	data, _ := json.Marshal(ev)
	write(t, r.env["GITHUB_EVENT_PATH"], data)
	res = r.run()
	if srv.Count("issues/create-comment") != 1 || srv.Count("issues/update-comment") != 1 {
		t.Errorf("third run: %d creates, %d updates; want 1, 1", srv.Count("issues/create-comment"), srv.Count("issues/update-comment"))
	}
	if res.outputs["baseline-run-id"] != "43" {
		t.Errorf("third run: baseline-run-id %q (want the merge base's run 43)", res.outputs["baseline-run-id"])
	}
	if res.outputs["comment-id"] != botID || srv.Comments[len(srv.Comments)-1] != bot || bot.Body == firstBody {
		t.Errorf("third run: comment-id %q, want the comment %s edited in place", res.outputs["comment-id"], botID)
	}
	if srv.Comments[5].Body != annotate.CommentMarker(actionSuite)+" forged" {
		t.Error("the forged marker comment of another user was edited")
	}
	// A second job over the same suite with its own comment-key keeps its
	// own comment beside the first.
	r.env["INPUT_COMMENT-KEY"] = "suite on server B"
	res = r.run()
	if srv.Count("issues/create-comment") != 2 || srv.Count("issues/update-comment") != 1 {
		t.Errorf("comment-key: %d creates, %d updates; want a second comment (2, 1)", srv.Count("issues/create-comment"), srv.Count("issues/update-comment"))
	}
	if last := srv.Comments[len(srv.Comments)-1]; !strings.HasPrefix(last.Body, annotate.CommentMarker("suite on server B")) {
		t.Errorf("comment-key: the new comment starts %q", last.Body[:min(80, len(last.Body))])
	}
}

// TestActionBaselineFilters: every run or artifact that may not supply a
// baseline is passed over, and the one that may is used.
func TestActionBaselineFilters(t *testing.T) {
	srv := newServer(t)
	good := goodRun(t, 10, "old")
	fork := goodRun(t, 11, "fork")
	fork.HeadRepo = "mallory/agents" // a fork's branch named main
	prRun := goodRun(t, 12, "pr")
	prRun.Event = "pull_request"
	other := goodRun(t, 13, "branch")
	other.HeadBranch = "main-ish"
	expired := goodRun(t, 14, "expired")
	expired.Artifacts[0].Expired = true
	gone := goodRun(t, 15, "gone")
	gone.Artifacts[0].Gone = true
	big := goodRun(t, 16, "big")
	big.Artifacts[0].Size = 1 << 40
	wrongName := goodRun(t, 17, "name")
	wrongName.Artifacts[0].Name = "something-else"
	evil := goodRun(t, 18, "evil")
	evil.Artifacts[0].Zip = zipOf(t, map[string][]byte{"../mcptest-report.json": []byte("{}"), "mcptest-report.json": []byte("{}")})
	srv.Runs = []*ghapitest.Run{good, fork, prRun, other, expired, gone, big, wrongName, evil}
	srv.Fail5xx["repos/get"] = 2                                        // retried
	srv.RateLimit["actions/list-workflow-run-artifacts"] = 1            // a secondary rate limit, waited out
	srv.Hang["actions/list-workflow-runs"], srv.Hold = 1, 5*time.Second // a timeout, tried again
	r := newRunner(t, srv, "pull_request", prEvent(8, "acme/agents", "h"))
	r.env["INPUT_COMMENT"] = "false"
	res := r.run()
	if res.outputs["baseline-run-id"] != "10" {
		t.Fatalf("baseline-run-id %q, want 10\nstdout:\n%s\nstderr:\n%s", res.outputs["baseline-run-id"], res.stdout, res.stderr)
	}
	for _, want := range []string{
		`run 11: its head repository "mallory/agents" is not acme/agents`,
		`run 12: event "pull_request"`,
		`run 14: artifact "mcptest-baseline" expired`,
		`run 15: artifact 150 expired (410 Gone)`,
		`run 16: artifact "mcptest-baseline" is 1099511627776 bytes, over`,
		`run 17: no artifact named "mcptest-baseline"`,
		`run 18: artifact: entry "../mcptest-report.json" climbs out`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if strings.Contains(res.stdout+res.stderr, "SECRET-SIGNATURE") {
		t.Error("the signed URL was logged")
	}
	if srv.Count("issues/create-comment") != 0 {
		t.Error("comment: false still commented")
	}
}

// TestActionMissingBaseline: no baseline in each on-missing-baseline mode.
func TestActionMissingBaseline(t *testing.T) {
	for _, c := range []struct {
		mode, suite string
		code        int
		warning     bool
	}{
		{"warn", "../examples/quickstart/suite.yml", ExitOK, true},
		{"ignore", "../examples/quickstart/suite.yml", ExitOK, false},
		{"fail", "../examples/quickstart/suite.yml", ExitFail, false},
		{"warn", actionSuite, ExitFail, true}, // failing cases nobody vouches for
	} {
		t.Run(c.mode+"/"+filepath.Base(filepath.Dir(c.suite)), func(t *testing.T) {
			srv := newServer(t)
			r := newRunner(t, srv, "pull_request", prEvent(9, "acme/agents", "h"))
			r.env["INPUT_ON-MISSING-BASELINE"] = c.mode
			r.env["INPUT_CONFIG"] = c.suite
			res := r.run()
			if res.code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", res.code, c.code, res.stdout, res.stderr)
			}
			if res.outputs["baseline-found"] != "false" || res.outputs["baseline-run-id"] != "" {
				t.Errorf("outputs %v", res.outputs)
			}
			if got := strings.Contains(res.annotations, "::warning title=mcptest%3A no baseline::"); got != c.warning {
				t.Errorf("no-baseline warning %v, want %v:\n%s", got, c.warning, res.annotations)
			}
			if !strings.Contains(res.summary, "**No baseline**: workflow mcptest\\-baseline\\.yml has no successful run on main yet") {
				t.Errorf("summary does not say why there is no baseline:\n%s", res.summary)
			}
			if c.mode == "fail" && !strings.Contains(res.annotations, "::error title=mcptest%3A no baseline::") {
				t.Errorf("on-missing-baseline: fail without an error annotation:\n%s", res.annotations)
			}
		})
	}
}

// TestActionForkPR: a fork's read-only token gets 403 on the comment; the
// check degrades to annotations and summary with a note, and keeps the
// real verdict.
func TestActionForkPR(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
	srv.ForbidWrites = true
	r := newRunner(t, srv, "pull_request", prEvent(11, "mallory/agents", "forkhead"))
	res := r.run()
	if res.code != ExitFail {
		t.Fatalf("exit %d, want the real verdict 1\n%s%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.summary, "No PR comment: the token may not write comments here") {
		t.Errorf("the summary does not say why there is no comment:\n%s", res.summary)
	}
	if !strings.Contains(res.annotations, "::warning title=mcptest%3A no PR comment::") || !strings.Contains(res.annotations, "::error ") {
		t.Errorf("annotations:\n%s", res.annotations)
	}
	if res.outputs["comment-id"] != "" {
		t.Errorf("comment-id %q", res.outputs["comment-id"])
	}
}

// hostileEnvelope is a run envelope whose recorded strings try every
// injection of action.md.
func hostileEnvelope(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	cases := env["cases"].([]any)
	evil := "::error::pwned\n::set-output name=verdict::pass\n_GitHubActionsFileCommandDelimeter_\nverdict<<EOF\n@octocat #1 <script>alert(1)</script> | cell | ```` ``` ` [x](javascript:alert(1)) \u202e\u200b<!-- -->"
	c0 := cases[0].(map[string]any)
	c0["name"] = "research-agent picks search then fetch " + evil // keep the name comparable? no: a new, failing case
	c0["verdict"] = "fail"
	c0["assertions"].([]any)[0].(map[string]any)["passed"] = false
	c0["assertions"].([]any)[0].(map[string]any)["message"] = evil
	out, _ := json.Marshal(env)
	return out
}

// TestActionCommentMode: the fork recipe. The workflow_run job downloads
// the PR run's envelope as data, checks the PR's head SHA and head
// repository, and posts the sticky comment, escaping everything.
func TestActionCommentMode(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001"),
		{ID: 77, Workflow: "pr.yml", Event: "pull_request", HeadBranch: "main", HeadRepo: "mallory/agents", HeadSHA: "forkhead",
			Status: "completed", Conclusion: "failure", Artifacts: []*ghapitest.Artifact{{ID: 770, Name: "mcptest-pr",
				Zip: zipOf(t, map[string][]byte{"mcptest-report.json": hostileEnvelope(t)})}}}}
	srv.PRs = []*ghapitest.PR{
		{Number: 12, HeadRef: "main", HeadSHA: "stale", HeadRepo: "mallory/agents", BaseSHA: "base0001"}, // same branch, other commit
		{Number: 13, HeadRef: "main", HeadSHA: "forkhead", HeadRepo: "mallory/agents", BaseSHA: "base0001"},
	}
	wr := func(sha string) map[string]any {
		return map[string]any{"workflow_run": map[string]any{"id": 77, "event": "pull_request", "head_sha": sha, "head_branch": "main",
			"conclusion": "failure", "head_repository": map[string]any{"full_name": "mallory/agents", "owner": map[string]any{"login": "mallory"}}}}
	}
	r := newRunner(t, srv, "workflow_run", wr("forkhead"))
	delete(r.env, "INPUT_CONFIG") // the default: suite.yml; nothing is run
	res := r.run()
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if len(srv.Comments) != 1 || srv.Comments[0].Issue != 13 {
		t.Fatalf("comments %+v, want one on #13 (head SHA and repository verified)", srv.Comments)
	}
	body := srv.Comments[0].Body
	golden(t, "testdata/golden/action/comment-hostile.md", body)
	for _, bad := range []string{"<script>", "@octocat", "#1 ", "<!-- -->", "[x](javascript", "\u202e", "\u200b", "\n::error::"} {
		if strings.Contains(body, bad) {
			t.Errorf("the comment holds %q", bad)
		}
	}
	if strings.Count(body, "<!--") != 1 {
		t.Errorf("the comment holds %d HTML comments, want only the marker", strings.Count(body, "<!--"))
	}
	checkTableRows(t, body)

	// A run whose head moved on: no PR matches, nothing is posted.
	r2 := newRunner(t, srv, "workflow_run", wr("someothersha"))
	delete(r2.env, "INPUT_CONFIG")
	res = r2.run()
	if res.code != ExitOK || len(srv.Comments) != 1 || !strings.Contains(res.stdout, "no open pull request") {
		t.Errorf("exit %d, %d comments; stdout:\n%s", res.code, len(srv.Comments), res.stdout)
	}
}

// checkTableRows checks that every table row has as many cells as its
// header: no recorded pipe opened a cell.
func checkTableRows(t *testing.T, md string) {
	t.Helper()
	cells := regexp.MustCompile(`(^|[^\\])\|`)
	want := 0
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = 0
			continue
		}
		n := len(cells.FindAllString(l, -1))
		if want == 0 {
			want = n
		} else if n != want {
			t.Errorf("table row with %d cells, header has %d: %q", n, want, l)
		}
	}
}

// TestActionDrift: the scheduled run opens the tracking issue, leaves it
// alone when nothing changed, updates it, and closes it once no flip is
// left.
func TestActionDrift(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "a")}
	r := newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	res := r.run()
	if res.code != ExitFail || len(srv.Issues) != 1 || srv.Issues[0].State != "open" {
		t.Fatalf("exit %d, issues %+v\n%s%s", res.code, srv.Issues, res.stdout, res.stderr)
	}
	is := srv.Issues[0]
	if !strings.HasPrefix(is.Body, annotate.DriftMarker(actionSuite)) || !contains(is.Labels, "mcptest-drift") {
		t.Errorf("issue %+v", is)
	}
	golden(t, "testdata/golden/action/drift-issue.md", is.Title+"\n\n"+is.Body)
	res = r.run()
	if srv.Count("issues/create") != 1 || srv.Count("issues/update") != 0 {
		t.Errorf("unchanged drift: %d creates, %d updates", srv.Count("issues/create"), srv.Count("issues/update"))
	}
	srv.Runs = append(srv.Runs, goodRun(t, 42, "b"))
	res = r.run()
	if srv.Count("issues/create") != 1 || srv.Count("issues/update") != 1 {
		t.Errorf("new baseline: %d creates, %d updates", srv.Count("issues/create"), srv.Count("issues/update"))
	}
	// The default branch now matches its baseline: the issue is closed.
	cur := filepath.Join(r.dir, "cur.json")
	runEnvelope(t, actionSuite, cur)
	same := goodRun(t, 44, "c")
	same.Artifacts[0].Zip = baselineZip(t, cur)
	srv.Runs = append(srv.Runs, same)
	res = r.run()
	if is.State != "closed" || srv.Count("issues/create") != 1 {
		t.Errorf("issue state %q after a clean run\n%s", is.State, res.stdout)
	}
	if res.code != ExitOK {
		t.Errorf("exit %d for a drift run without regressions (the failures were already in the baseline)", res.code)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestActionBaselineMode writes the envelope for upload and exits 0 even
// when cases fail (a baseline must come from a successful run).
func TestActionBaselineMode(t *testing.T) {
	r := newRunner(t, nil, "push", map[string]any{"ref": "refs/heads/main"})
	res := r.run()
	if res.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	data, err := os.ReadFile(r.env["INPUT_REPORT-PATH"])
	if err != nil || !bytes.Contains(data, []byte(`"schema_version": 1`)) {
		t.Fatalf("envelope: %v", err)
	}
	// The step passes (fail-on: regressions), so the verdict output and the
	// summary's verdict line say pass, and one notice says how many fail.
	if res.outputs["verdict"] != "pass" || res.outputs["failed"] != "2" {
		t.Errorf("outputs %v", res.outputs)
	}
	if !strings.Contains(res.summary, "### mcptest: PASS") || strings.Contains(res.summary, "FAIL") {
		t.Errorf("the summary's verdict disagrees with exit 0:\n%s", res.summary)
	}
	if n := strings.Count(res.annotations, "\n"); n != 1 || !strings.HasPrefix(res.annotations, "::notice") || !strings.Contains(res.annotations, "baseline recorded with 2 cases failing") {
		t.Errorf("want one notice saying 2 cases fail, got:\n%s", res.annotations)
	}
	r.env["INPUT_FAIL-ON"] = "failures"
	res = r.run()
	if res.code != ExitFail || res.outputs["verdict"] != "fail" || !strings.Contains(res.summary, "### mcptest: FAIL") || strings.Contains(res.annotations, "::notice") {
		t.Errorf("fail-on: failures: exit %d, outputs %v, annotations %q\n%s", res.code, res.outputs, res.annotations, res.summary)
	}
	// The step fails, so the run is not taken as a baseline (the fetch
	// takes only successful runs): one warning and the summary say so,
	// and the envelope is still written for inspection.
	if n := strings.Count(res.annotations, "\n"); n != 1 || !strings.HasPrefix(res.annotations, "::warning") || !strings.Contains(res.annotations, "baseline not recorded: 2 cases fail") {
		t.Errorf("fail-on: failures: want one warning saying the baseline is not recorded, got:\n%s", res.annotations)
	}
	if strings.Contains(res.summary, "This run is the baseline") || !strings.Contains(res.summary, "This run is not the baseline") {
		t.Errorf("fail-on: failures: the summary claims a failing step records the baseline:\n%s", res.summary)
	}
	if _, err := os.Stat(r.env["INPUT_REPORT-PATH"]); err != nil {
		t.Errorf("fail-on: failures: the envelope is not written: %v", err)
	}
}

// TestActionRunInputs: args narrows the run (--filter, --shard), reports
// writes HTML, JUnit and SARIF beside report-path, comment-key keys the
// sticky comment, and a wrong value of any is exit 2.
func TestActionRunInputs(t *testing.T) {
	r := newRunner(t, nil, "push", map[string]any{"ref": "refs/heads/main"})
	r.env["INPUT_ARGS"] = `--filter "triage agent never deletes" --filter summarizer`
	r.env["INPUT_REPORTS"] = "html, junit,sarif"
	res := r.run()
	if res.code != ExitOK || res.outputs["passed"] != "3" || res.outputs["failed"] != "0" {
		t.Fatalf("--filter: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	base := strings.TrimSuffix(r.env["INPUT_REPORT-PATH"], ".json")
	for ext, want := range map[string]string{".html": "<html", ".junit.xml": "<testsuites", ".sarif": `"version": "2.1.0"`} {
		data, err := os.ReadFile(base + ext)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("reports: %s%s: %v, lacks %q", base, ext, err, want)
		}
	}
	r.env["INPUT_ARGS"] = "--shard 1/2"
	r.env["INPUT_REPORTS"] = ""
	one := r.run()
	r.env["INPUT_ARGS"] = "--shard 2/2"
	two := r.run()
	p1, _ := strconv.Atoi(one.outputs["passed"])
	f1, _ := strconv.Atoi(one.outputs["failed"])
	p2, _ := strconv.Atoi(two.outputs["passed"])
	f2, _ := strconv.Atoi(two.outputs["failed"])
	r.env["INPUT_ARGS"] = ""
	all := r.run()
	pa, _ := strconv.Atoi(all.outputs["passed"])
	fa, _ := strconv.Atoi(all.outputs["failed"])
	if p1+f1 == 0 || p2+f2 == 0 || p1+p2 != pa || f1+f2 != fa {
		t.Errorf("--shard: 1/2 ran %d+%d, 2/2 ran %d+%d; want the %d+%d cases split", p1, f1, p2, f2, pa, fa)
	}
	for input, val := range map[string]string{"INPUT_ARGS": "--reporter json", "INPUT_REPORTS": "pdf"} {
		r2 := newRunner(t, nil, "push", map[string]any{"ref": "refs/heads/main"})
		r2.env[input] = val
		if res := r2.run(); res.code != ExitInput || !strings.Contains(res.stderr, "input "+strings.ToLower(strings.TrimPrefix(input, "INPUT_"))) {
			t.Errorf("%s=%q: exit %d, stderr %q; want exit 2 naming the input", input, val, res.code, res.stderr)
		}
	}
}

// TestActionBaselineFile: a local baseline-file overrides the fetch (no
// API call at all), and an API that is unreachable is a missing baseline.
func TestActionBaselineFile(t *testing.T) {
	r := newRunner(t, nil, "pull_request", prEvent(1, "acme/agents", "h"))
	r.env["GITHUB_API_URL"] = "http://127.0.0.1:1" // nothing listens
	r.env["INPUT_BASELINE-FILE"] = "../examples/baseline/baseline.json"
	r.env["INPUT_COMMENT"] = "false"
	res := r.run()
	if res.code != ExitFail || res.outputs["baseline-found"] != "true" || res.outputs["regressions"] != "1" {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	delete(r.env, "INPUT_BASELINE-FILE")
	res = r.run()
	if res.outputs["baseline-found"] != "false" || !strings.Contains(res.summary, "GitHub API could not be read") {
		t.Errorf("unreachable API: outputs %v\n%s", res.outputs, res.summary)
	}
	if _, err := os.Stat(r.env["INPUT_REPORT-PATH"]); err != nil {
		t.Error("no envelope written when the API is unreachable")
	}
	r.env["INPUT_BASELINE-FILE"] = "nope.json"
	if res = r.run(); res.code != ExitInput {
		t.Errorf("a missing baseline-file: exit %d, want 2", res.code)
	}
}

func TestActionInputErrors(t *testing.T) {
	for input, val := range map[string]string{"INPUT_MODE": "chek", "INPUT_FAIL-ON": "sometimes", "INPUT_ON-MISSING-BASELINE": "shrug", "INPUT_COMMENT": "maybe", "INPUT_API-TIMEOUT": "soon"} {
		r := newRunner(t, nil, "pull_request", prEvent(1, "acme/agents", "h"))
		r.env[input] = val
		if res := r.run(); res.code != ExitInput || !strings.Contains(res.stderr, val) {
			t.Errorf("%s=%s: exit %d, stderr %q", input, val, res.code, res.stderr)
		}
	}
}

// TestOutputsRefuseInjection: a value holding the delimiter or a line
// break cannot add another output.
func TestOutputsRefuseInjection(t *testing.T) {
	var b strings.Builder
	if err := formatOutputs(&b, map[string]string{"report-path": "a\nverdict=pass"}, "D"); err == nil {
		t.Error("a line break was accepted")
	}
	if err := formatOutputs(&b, map[string]string{"report-path": "xDx"}, "D"); err == nil {
		t.Error("the delimiter was accepted")
	}
	if d1, d2 := randomDelimiter(), randomDelimiter(); d1 == d2 || len(d1) < 30 {
		t.Errorf("delimiters %q %q", d1, d2)
	}
}

// TestActionCommentModeForbidden: in comment mode the comment is the job,
// so a token that may not write it fails the step (exit 3).
func TestActionCommentModeForbidden(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{{ID: 77, Workflow: "pr.yml", Event: "pull_request", HeadBranch: "feature", HeadRepo: "mallory/agents",
		HeadSHA: "forkhead", Status: "completed", Conclusion: "success", Artifacts: []*ghapitest.Artifact{{ID: 770, Name: "mcptest-pr",
			Zip: baselineZip(t, "../examples/baseline/baseline.json")}}}}
	srv.PRs = []*ghapitest.PR{{Number: 13, HeadRef: "feature", HeadSHA: "forkhead", HeadRepo: "mallory/agents", BaseSHA: "b"}}
	srv.ForbidWrites = true
	r := newRunner(t, srv, "workflow_run", map[string]any{"workflow_run": map[string]any{"id": 77, "event": "pull_request",
		"head_sha": "forkhead", "head_branch": "feature", "conclusion": "success",
		"head_repository": map[string]any{"full_name": "mallory/agents", "owner": map[string]any{"login": "mallory"}}}})
	res := r.run()
	if res.code != ExitError || !strings.Contains(res.stderr, "403") {
		t.Errorf("exit %d, stderr %q; want 3 and the 403", res.code, res.stderr)
	}
	// A cancelled PR run leaves nothing to comment on.
	r = newRunner(t, srv, "workflow_run", map[string]any{"workflow_run": map[string]any{"id": 77, "event": "pull_request", "conclusion": "cancelled"}})
	if res := r.run(); res.code != ExitOK || !strings.Contains(res.stdout, "was cancelled") {
		t.Errorf("cancelled run: exit %d, stdout %q", res.code, res.stdout)
	}
}

// TestActionDriftForbidden: a token without issues: write degrades to a
// note and a warning; the verdict stands.
func TestActionDriftForbidden(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "a")}
	srv.ForbidWrites = true
	r := newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	res := r.run()
	if res.code != ExitFail || !strings.Contains(res.summary, "No drift issue: the token may not write issues") ||
		!strings.Contains(res.annotations, "::warning title=mcptest%3A no drift issue::") {
		t.Errorf("exit %d\nsummary:\n%s\nannotations:\n%s", res.code, res.summary, res.annotations)
	}
}

// TestActionMergeGroup: a merge queue run is checked against the merge
// base's baseline and comments on nothing.
func TestActionMergeGroup(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "mgbase"), goodRun(t, 42, "newer")}
	r := newRunner(t, srv, "merge_group", map[string]any{"merge_group": map[string]any{"base_sha": "mgbase", "head_sha": "mghead",
		"head_ref": "refs/heads/gh-readonly-queue/main/pr-1-abc", "base_ref": "refs/heads/main"}})
	res := r.run()
	if res.code != ExitFail || res.outputs["baseline-run-id"] != "41" || len(srv.Comments) != 0 {
		t.Errorf("exit %d, outputs %v, %d comments\n%s%s", res.code, res.outputs, len(srv.Comments), res.stdout, res.stderr)
	}
}

// TestActionInvalidSuite: a broken suite exits 2 with its errors
// annotated on their lines.
func TestActionInvalidSuite(t *testing.T) {
	r := newRunner(t, nil, "pull_request", prEvent(1, "acme/agents", "h"))
	r.env["INPUT_CONFIG"] = filepath.Join(r.dir, "suite.yml")
	write(t, r.env["INPUT_CONFIG"], []byte("tests:\n  not a list\n"))
	res := r.run()
	if res.code != ExitInput || !strings.Contains(res.annotations, "::error ") || !strings.Contains(res.annotations, "title=mcptest%3A invalid input") ||
		!strings.Contains(res.annotations, "line=") {
		t.Errorf("exit %d, annotations:\n%s\nstderr:\n%s", res.code, res.annotations, res.stderr)
	}
}

// TestActionGHES: on GitHub Enterprise Server every call goes under
// GITHUB_API_URL (with its /api/v3 prefix) and links use GITHUB_SERVER_URL.
func TestActionGHES(t *testing.T) {
	srv := newServer(t)
	srv.Prefix = "/api/v3"
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "h"))
	r.env["GITHUB_API_URL"] = srv.URL + "/api/v3"
	r.env["GITHUB_SERVER_URL"] = "https://ghe.example.com"
	res := r.run()
	if res.code != ExitFail || res.outputs["baseline-run-id"] != "41" || len(srv.Comments) != 1 {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if !strings.Contains(srv.Comments[0].Body, "(https://ghe.example.com/acme/agents/actions/runs/41)") {
		t.Errorf("the baseline link does not use GITHUB_SERVER_URL")
	}
}

// TestActionYAML: action.yml declares exactly the inputs the command reads
// and the outputs it writes, and carries the README's exit-code table.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Description string                    `yaml:"description"`
		Inputs      map[string]map[string]any `yaml:"inputs"`
		Outputs     map[string]any            `yaml:"outputs"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("inputs.go")
	read := regexp.MustCompile(`get\("([a-z-]+)"`).FindAllStringSubmatch(string(src), -1)
	names := map[string]bool{}
	for _, m := range read {
		names[m[1]] = true
		if meta.Inputs[m[1]] == nil {
			t.Errorf("input %s is read but not declared in action.yml", m[1])
		}
	}
	for k := range meta.Inputs {
		if !names[k] && !compositeOnly[k] {
			t.Errorf("action.yml declares input %s, which the command never reads", k)
		}
	}
	if len(meta.Outputs) != len(outputNames) {
		t.Errorf("action.yml has %d outputs, the command writes %d", len(meta.Outputs), len(outputNames))
	}
	for _, k := range outputNames {
		if meta.Outputs[k] == nil {
			t.Errorf("output %s is written but not declared", k)
		}
	}
	readme, _ := os.ReadFile("../README.md")
	rows := regexp.MustCompile(`(?m)^\| [0-3] \|.*\|$`).FindAllString(string(readme), -1)
	if len(rows) < 4 {
		t.Fatalf("found %d exit-code rows in the README", len(rows))
	}
	for _, row := range rows {
		if !strings.Contains(meta.Description, row) {
			t.Errorf("action.yml's description lacks the README's exit-code row %q", row)
		}
	}
	checkCompositeForwards(t, data, meta.Inputs)
}

// checkCompositeForwards: the Action is composite, and its `mcptest action`
// step passes every input the command reads as INPUT_<NAME>, so an input
// declared in action.yml cannot be silently dropped on the way.
func checkCompositeForwards(t *testing.T, data []byte, inputs map[string]map[string]any) {
	t.Helper()
	var meta struct {
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q, want composite", meta.Runs.Using)
	}
	for _, st := range meta.Runs.Steps {
		if st.ID != "run" {
			continue
		}
		for name := range inputs {
			if compositeOnly[name] {
				continue
			}
			key := "INPUT_" + strings.ToUpper(name)
			if want := "${{ inputs." + name + " }}"; st.Env[key] != want {
				t.Errorf("the run step passes %s=%q, want %q", key, st.Env[key], want)
			}
		}
		if !strings.Contains(st.Run, "mcptest\" action") {
			t.Errorf("the run step does not run mcptest action: %q", st.Run)
		}
		return
	}
	t.Error("action.yml has no step with id run")
}

// compositeOnly are the inputs action.yml's own steps read, not the command.
var compositeOnly = map[string]bool{"version": true}

// TestActionReportsWrittenByRename: the Action writes the run envelope at
// report-path and each report of the reports input by rename, so a report
// path the checked-out repository planted as a symlink (to a workflow
// file, a dotfile) is replaced by the report and the file it pointed to is
// left as it was.
func TestActionReportsWrittenByRename(t *testing.T) {
	r := newRunner(t, nil, "push", map[string]any{"ref": "refs/heads/main"})
	r.env["INPUT_REPORTS"] = "html"
	base := strings.TrimSuffix(r.env["INPUT_REPORT-PATH"], ".json")
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		t.Fatal(err)
	}
	victims := map[string]string{}
	for _, ext := range []string{".json", ".html"} {
		victim := filepath.Join(t.TempDir(), "victim"+ext)
		write(t, victim, []byte("keep me\n"))
		if err := os.Symlink(victim, base+ext); err != nil {
			t.Skip("symlink:", err)
		}
		victims[base+ext] = victim
	}
	if res := r.run(); res.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for report, victim := range victims {
		if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
			t.Errorf("%s was written through the planted symlink (%d bytes)", report, len(data))
		}
		if fi, err := os.Lstat(report); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not the report file: %v", report, err)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files")

// volatile are the fields that differ between two runs over the same
// inputs: the run id, the start time and durations.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"id": "[0-9A-Z]{26}"`), `"id": "RUN-ID"`},
	{regexp.MustCompile(`"started_at": "[^"]*"`), `"started_at": "TIME"`},
	{regexp.MustCompile(`"duration_ms":( ?)\d+`), `"duration_ms":${1}0`},
	{regexp.MustCompile(`duration_ms=\d+`), `duration_ms=0`},
	{regexp.MustCompile(`<code>duration_ms</code> \d+`), `<code>duration_ms</code> 0`},
}

// normalize blanks the volatile fields.
func normalize(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./action -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./action -update rewrites it)\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// runEnvelope runs the suite as `mcptest run --reporter json --output
// file` does and writes its envelope to file; the suite's cases fail.
func runEnvelope(t *testing.T, suite, file string) {
	t.Helper()
	s, err := engine.LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	env, err := engine.Run(s, engine.Options{Version: testVersion})
	if err != nil {
		t.Fatal(err)
	}
	stamp.Run(env, start)
	env.Environment = stamp.Environment(func(string) string { return "" })
	if env.Verdict != report.Fail {
		t.Fatalf("%s: verdict %s, want fail", suite, env.Verdict)
	}
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		t.Fatal(err)
	}
	write(t, file, buf.Bytes())
}

// testVersion is the version the Action runs as: the source tree's, which
// examples/baseline/baseline.json was written by, so no version warning.
const testVersion = "0.1.0"
