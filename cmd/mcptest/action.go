package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcptest/mcptest/engine/report"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
)

// The modes of `mcptest action`.
const (
	modeCheck    = "check"
	modeBaseline = "baseline"
	modeComment  = "comment"
	modeDrift    = "drift"
)

// actionInputs are the Action's inputs (action.yml), read from INPUT_*
// with hyphens kept.
type actionInputs struct {
	mode, config, cassetteDir, reportPath string
	failOn                                baseline.Policy
	baselineFile, baselineWorkflow        string
	baselineArtifact, prArtifact          string
	onMissing                             string
	comment                               bool
	token, commentAuthor, driftLabel      string
	maxBytes                              int64
	// apiTimeout bounds each use of the GitHub API: the baseline fetch,
	// the comment, the drift issue, comment mode's pull request lookup.
	apiTimeout time.Duration
	// run holds the args input: run's --filter, --shard and --cassette-dir.
	run engine.Options
	// reports are the extra formats written beside reportPath.
	reports []string
	// commentKey keys the sticky comment (default: config).
	commentKey string
}

// maxAPITimeout is the largest api-timeout accepted.
const maxAPITimeout = time.Hour

// actionRetryDelay is the first back-off of API retries and actionTimeout
// bounds each attempt; tests shorten them.
var (
	actionRetryDelay = time.Second
	actionTimeout    = 30 * time.Second
)

// action is `mcptest action`: the GitHub Action's entrypoint. It reads its
// inputs and the runner's context from the environment.
func (c *Command) action(args []string) error {
	fs := c.newFlags("action", "mcptest action [--api-timeout SECONDS]   (the GitHub Action's entrypoint: inputs come from INPUT_* variables, see action.yml)")
	apiTimeout := fs.String("api-timeout", "", "seconds each use of the GitHub API may take (overrides INPUT_API-TIMEOUT; default 120)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return inputErr("action takes no arguments: its inputs are the INPUT_* variables the runner sets (see action.yml)")
	}
	a := githubactions.New(githubactions.WithGetenv(c.Getenv), githubactions.WithWriter(c.workflow()))
	gctx, err := actionContext(c.Getenv)
	if err != nil {
		return err
	}
	gctx.ServerURL = serverURL(gctx.ServerURL)
	in, err := readInputs(a, gctx.EventName, *apiTimeout)
	if err != nil {
		return err
	}
	r := &actionRun{c: c, a: a, ctx: gctx, in: in, out: map[string]string{}}
	r.owner, r.repo = gctx.Repo()
	return r.main(context.Background())
}

// maxEventBytes bounds the event payload; GitHub caps webhook payloads at
// 25 MB.
const maxEventBytes = 32 << 20

// actionContext reads the runner's context from the environment, and the
// event payload (GITHUB_EVENT_PATH) bounded: a regular file of at most
// maxEventBytes, opened without blocking, refused from its size before it
// is read. A payload file that does not exist is no payload, as the
// runner's own library has it.
func actionContext(getenv func(string) string) (*githubactions.GitHubContext, error) {
	noEvent := func(k string) string {
		if k == "GITHUB_EVENT_PATH" {
			return ""
		}
		return getenv(k)
	}
	gctx, err := githubactions.New(githubactions.WithGetenv(noEvent)).Context()
	if err != nil {
		return nil, inputErr("read the GitHub Actions context: %v", err)
	}
	p := getenv("GITHUB_EVENT_PATH")
	if p == "" {
		return gctx, nil
	}
	gctx.EventPath = p
	data, err := safefile.ReadFile(p, maxEventBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return gctx, nil
	}
	if err != nil {
		return nil, inputErr("read the GitHub Actions context: the event payload (GITHUB_EVENT_PATH) %v", err)
	}
	if err := json.Unmarshal(data, &gctx.Event); err != nil {
		return nil, inputErr("read the GitHub Actions context: failed to unmarshal event payload: %v", err)
	}
	return gctx, nil
}

// serverURL is GITHUB_SERVER_URL for the links of the summary, comment
// and issue: without user-info, query or fragment, so the links never
// carry credentials; "" (relative links) when it does not parse.
func serverURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return baseline.RedactURL(u)
}

// readInputs reads the INPUT_* variables; apiTimeout is the --api-timeout
// flag, which wins over the input when given.
func readInputs(a *githubactions.Action, event, apiTimeout string) (actionInputs, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(a.GetInput(name)); v != "" {
			return v
		}
		return def
	}
	in := actionInputs{
		mode:             get("mode", defaultMode(event)),
		config:           get("config", "suite.yml"),
		cassetteDir:      get("cassette-dir", ""),
		reportPath:       get("report-path", "mcptest-report.json"),
		baselineFile:     get("baseline-file", ""),
		baselineWorkflow: get("baseline-workflow", "mcptest-baseline.yml"),
		baselineArtifact: get("baseline-artifact", "mcptest-baseline"),
		prArtifact:       get("pr-artifact", "mcptest-pr"),
		onMissing:        get("on-missing-baseline", "warn"),
		token:            get("github-token", a.Getenv("GITHUB_TOKEN")),
		commentAuthor:    get("comment-author", "github-actions[bot]"),
		driftLabel:       get("drift-label", "mcptest-drift"),
	}
	in.commentKey = get("comment-key", in.config)
	if err := in.readRunArgs(get("args", "")); err != nil {
		return in, err
	}
	if err := in.readReports(get("reports", "")); err != nil {
		return in, err
	}
	switch in.mode {
	case modeCheck, modeBaseline, modeComment, modeDrift:
	default:
		return in, inputErr("input mode %q: expected one of check, baseline, comment, drift", in.mode)
	}
	p, err := baseline.ParsePolicy(get("fail-on", string(baseline.FailOnRegressions)))
	if err != nil {
		return in, inputErr("input fail-on: %v", strings.TrimPrefix(err.Error(), "--fail-on "))
	}
	in.failOn = p
	switch in.onMissing {
	case "warn", "fail", "ignore":
	default:
		return in, inputErr("input on-missing-baseline %q: expected one of warn, fail, ignore", in.onMissing)
	}
	b, err := strconv.ParseBool(get("comment", "true"))
	if err != nil {
		return in, inputErr("input comment %q: expected true or false", a.GetInput("comment"))
	}
	in.comment = b
	mb := get("max-artifact-bytes", strconv.Itoa(64<<20))
	n, err := strconv.ParseInt(mb, 10, 64)
	if err != nil || n <= 0 || n > baseline.MaxEnvelopeBytes {
		return in, inputErr("input max-artifact-bytes %q: expected a number of bytes from 1 to %d", mb, baseline.MaxEnvelopeBytes)
	}
	in.maxBytes = n
	if apiTimeout == "" {
		apiTimeout = get("api-timeout", "120")
	}
	if in.apiTimeout, err = parseAPITimeout(apiTimeout); err != nil {
		return in, err
	}
	for _, v := range []struct{ name, val string }{{"baseline-artifact", in.baselineArtifact}, {"pr-artifact", in.prArtifact}, {"baseline-workflow", in.baselineWorkflow}, {"report-path", in.reportPath}} {
		if strings.ContainsAny(v.val, "\r\n\x00") {
			return in, inputErr("input %s holds a line break", v.name)
		}
	}
	return in, nil
}

// parseAPITimeout reads api-timeout: whole seconds ("120") or a Go
// duration ("90s", "1m30s"), from 1 s to an hour.
func parseAPITimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.Atoi(s); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < time.Second || d > maxAPITimeout {
		return 0, inputErr("input api-timeout %q: expected a number of seconds from 1 to %d (or a duration such as 90s)", s, int(maxAPITimeout.Seconds()))
	}
	return d, nil
}

// readRunArgs reads the args input: the `mcptest run` flags that choose
// what runs (--filter, --shard, --cassette-dir), split as a shell would on
// spaces, with '...' and "..." quoting.
func (in *actionInputs) readRunArgs(args string) error {
	words, err := splitWords(args)
	if err != nil {
		return inputErr("input args: %v", err)
	}
	fs := flag.NewFlagSet("args", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var filters stringList
	fs.Var(&filters, "filter", "")
	shard := fs.String("shard", "", "")
	cassetteDir := fs.String("cassette-dir", in.cassetteDir, "")
	if err := fs.Parse(words); err != nil {
		return inputErr("input args: %v; expected --filter NAME, --shard i/n or --cassette-dir DIR", err)
	}
	if fs.NArg() > 0 {
		return inputErr("input args: unexpected %q; expected --filter NAME, --shard i/n or --cassette-dir DIR", fs.Arg(0))
	}
	in.run.Filter, in.cassetteDir = filters, *cassetteDir
	if *shard != "" {
		if in.run.Shard, err = report.ParseShard(*shard); err != nil {
			return inputErr("input args: --shard: %v", err)
		}
	}
	return nil
}

// splitWords splits s on spaces, keeping what '...' or "..." quotes whole.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// extraReports are the formats the reports input takes, with the suffix
// that replaces report-path's .json.
var extraReports = map[string]string{"html": ".html", "junit": ".junit.xml", "sarif": ".sarif"}

// readReports reads the reports input: a comma-separated list of html,
// junit and sarif.
func (in *actionInputs) readReports(list string) error {
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if extraReports[f] == "" {
			return inputErr("input reports %q: expected a comma-separated list of html, junit, sarif", f)
		}
		if !slices.Contains(in.reports, f) {
			in.reports = append(in.reports, f)
		}
	}
	return nil
}

// reportFile is where the extra report format goes: beside report-path,
// mcptest-report.json -> mcptest-report.html, .junit.xml or .sarif.
func (in actionInputs) reportFile(format string) string {
	return strings.TrimSuffix(in.reportPath, ".json") + extraReports[format]
}

// defaultMode picks the mode for the event that started the workflow.
func defaultMode(event string) string {
	switch event {
	case "push", "workflow_dispatch":
		return modeBaseline
	case "schedule":
		return modeDrift
	case "workflow_run":
		return modeComment
	}
	return modeCheck
}

// actionRun is one run of the Action.
type actionRun struct {
	c           *Command
	a           *githubactions.Action
	ctx         *githubactions.GitHubContext
	in          actionInputs
	owner, repo string
	gh          *baseline.GitHub
	out         map[string]string
	notes       []string
}

func (r *actionRun) github() (*baseline.GitHub, error) {
	if r.gh != nil {
		return r.gh, nil
	}
	if r.in.token == "" {
		return nil, errors.New("no github-token")
	}
	gh, err := baseline.NewGitHub(baseline.GitHubOptions{APIURL: r.ctx.APIURL, Token: r.in.token, RetryDelay: actionRetryDelay, Timeout: actionTimeout, UserAgent: "mcptest/" + version})
	if err != nil {
		return nil, inputErr("%v", err)
	}
	r.gh = gh
	return gh, nil
}

func (r *actionRun) main(ctx context.Context) error {
	if r.in.mode == modeComment {
		return r.commentMode(ctx)
	}
	env, err := r.runSuite()
	if err != nil {
		r.annotateInputErrors(err)
		return err
	}
	if err := r.writeEnvelope(env); err != nil {
		return err
	}
	rep := annotate.ActionReport{Env: env, Suite: r.in.config}
	if r.in.mode == modeBaseline {
		rep.Gate = r.baselineGate(env)
		rep.IsBaseline = true
		r.baselineNote(env, rep.Gate.Failed)
		r.summary(rep)
		r.setOutputs(rep, false, 0)
		if err := r.writeOutputs(); err != nil {
			return err
		}
		if rep.Gate.Failed {
			return errFailed
		}
		return nil
	}

	var head, base string
	if pr, ok := r.ctx.Event["pull_request"].(map[string]any); ok {
		base, head = str(pr, "base", "sha"), str(pr, "head", "sha")
	} else if mg, ok := r.ctx.Event["merge_group"].(map[string]any); ok {
		base, head = str(mg, "base_sha"), str(mg, "head_sha")
	}
	found, missing, err := r.baseline(ctx, base, head)
	if err != nil {
		return err
	}
	rep = r.compare(env, found, missing)
	annotate.EmitAnnotations(r.a, annotate.Annotations(rep))
	r.missingNotice(rep)

	commentID := int64(0)
	switch r.in.mode {
	case modeCheck:
		if n := prNumber(r.ctx.Event); n > 0 && r.in.comment {
			commentID = r.postComment(ctx, n, rep)
		}
	case modeDrift:
		if rep.Cmp != nil {
			if err := r.drift(ctx, rep); err != nil {
				r.summary(rep)
				r.setOutputs(rep, found != nil, 0)
				_ = r.writeOutputs()
				return err
			}
		}
	}
	r.summary(rep)
	r.setOutputs(rep, found != nil, commentID)
	if err := r.writeOutputs(); err != nil {
		return err
	}
	if rep.Gate.Failed || (found == nil && r.in.onMissing == "fail") {
		return errFailed
	}
	return nil
}

// annotateInputErrors puts the positioned errors of an invalid suite or
// cassette on their lines, so a broken suite shows in the PR's files.
func (r *actionRun) annotateInputErrors(err error) {
	var l diag.List
	var d *diag.Error
	switch {
	case errors.As(err, &l):
	case errors.As(err, &d):
		l = diag.List{d}
	default:
		return
	}
	var list []annotate.Annotation
	for _, e := range l {
		list = append(list, annotate.Annotation{Level: "error", File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col,
			Title: "mcptest: invalid input", Message: annotate.Clean(e.Message)})
	}
	annotate.EmitAnnotations(r.a, list)
}

// runSuite runs the suite offline, as `mcptest run` does.
func (r *actionRun) runSuite() (*report.Envelope, error) {
	start := time.Now()
	suite, err := engine.LoadSuite(r.in.config)
	if err != nil {
		return nil, err
	}
	opts := r.in.run
	opts.CassetteDir, opts.Version = r.in.cassetteDir, version
	env, err := engine.Run(suite, opts)
	if err != nil {
		return nil, err
	}
	env.Run.ID = newRunID(start)
	env.Run.StartedAt = start.UTC().Format(time.RFC3339)
	env.Run.DurationMS = time.Since(start).Milliseconds()
	env.Source = r.c.source()
	return env, nil
}

// writeEnvelope writes the full run envelope to report-path, whatever
// happens next.
func (r *actionRun) writeEnvelope(env *report.Envelope) error {
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		return err
	}
	if dir := path.Dir(r.in.reportPath); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write the run envelope: %w", err)
		}
	}
	// By rename, as every report of the Action: the path is in the
	// checkout, and a symlink planted there is replaced, never followed.
	if err := safefile.WriteFile(r.in.reportPath, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the run envelope: %w", err)
	}
	fmt.Fprintf(r.c.Stdout, "mcptest: %s: %d passed, %d failed, %d inconclusive; run envelope written to %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, r.in.reportPath)
	for _, f := range r.in.reports {
		if err := r.writeReport(env, f); err != nil {
			return err
		}
	}
	return nil
}

// writeReport renders the envelope in one of the reports input's formats
// beside report-path.
func (r *actionRun) writeReport(env *report.Envelope, format string) error {
	rep, err := annotate.New(format, annotate.Options{})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := rep.Report(&buf, env); err != nil {
		return err
	}
	file := r.in.reportFile(format)
	// By rename: a symlink planted at the path is replaced, never followed.
	if err := safefile.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the %s report: %w", format, err)
	}
	fmt.Fprintf(r.c.Stdout, "mcptest: %s report written to %s\n", format, file)
	return nil
}

// baseline reads baseline-file (a regular file, bounded) or fetches the default branch's baseline.
// missing says why there is none; err is wrong input (a bad
// baseline-file). An unreachable API is a missing baseline, not an error.
func (r *actionRun) baseline(ctx context.Context, base, head string) (*baseline.Found, string, error) {
	if r.in.baselineFile != "" {
		f, rd, err := safefile.Open(r.in.baselineFile, baseline.MaxEnvelopeBytes)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, "", inputErr("input baseline-file %s: no such file", r.in.baselineFile)
		case safefile.IsLimit(err):
			return nil, "", inputErr("input baseline-file %v", err)
		case err != nil:
			return nil, "", fmt.Errorf("open baseline-file: %w", err)
		}
		defer f.Close()
		env, err := baseline.ReadBaseline(rd, r.in.baselineFile)
		if err != nil {
			return nil, "", &exitError{code: ExitInput, err: err}
		}
		return &baseline.Found{Envelope: env}, "", nil
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
		for _, s := range m.Skipped {
			fmt.Fprintf(r.c.Stdout, "mcptest: baseline: skipped %s\n", annotate.Clean(s))
		}
		return nil, m.Reason, nil
	case err != nil:
		return nil, fmt.Sprintf("the GitHub API could not be read (%v)", err), nil
	}
	for _, s := range found.Skipped {
		fmt.Fprintf(r.c.Stdout, "mcptest: baseline: skipped %s\n", annotate.Clean(s))
	}
	fmt.Fprintf(r.c.Stdout, "mcptest: baseline: run %d\n", found.RunID)
	return found, "", nil
}

// baselineGate is a baseline run's gate: it fails, like the step, only
// under fail-on: failures with a failing case, so the summary's verdict, the
// verdict output and the exit code agree.
func (r *actionRun) baselineGate(env *report.Envelope) baseline.Gate {
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
func (r *actionRun) baselineNote(env *report.Envelope, failed bool) {
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

func (r *actionRun) compare(env *report.Envelope, found *baseline.Found, missing string) annotate.ActionReport {
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

func (r *actionRun) missingNotice(rep annotate.ActionReport) {
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

// summary appends the job summary; a summary that cannot be written is
// said on the log, not fatal.
func (r *actionRun) summary(rep annotate.ActionReport) {
	rep.Notes = r.notes
	if r.c.Getenv("GITHUB_STEP_SUMMARY") == "" {
		return
	}
	defer func() {
		if e := recover(); e != nil {
			fmt.Fprintf(r.c.Stderr, "mcptest: the job summary could not be written: %v\n", e)
		}
	}()
	r.a.AddStepSummary(annotate.Summary(rep, r.ctx.ServerURL, r.ctx.Repository, annotate.SummaryLimit))
}

// postComment creates or updates the sticky comment; on 403/404 (a fork's
// read-only token) it degrades to a note. It returns the comment's id.
func (r *actionRun) postComment(ctx context.Context, number int, rep annotate.ActionReport) int64 {
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
			why = "the token may not write comments here (a pull request from a fork gets a read-only token; use the two-workflow recipe of the README, with `mode: comment` on `workflow_run`)"
		}
		r.notes = append(r.notes, "No PR comment: "+why+". The annotations and this summary carry the result.")
		r.a.WithFieldsMap(map[string]string{"title": "mcptest: no PR comment"}).Warningf("%s", "no PR comment: "+flatLine(err.Error()))
		return 0
	}
	return id
}

// upsertComment writes the sticky comment within the API budget.
func (r *actionRun) upsertComment(ctx context.Context, gh *baseline.GitHub, number int, rep annotate.ActionReport) (int64, error) {
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
func (r *actionRun) commentMode(ctx context.Context) error {
	wr, _ := r.ctx.Event["workflow_run"].(map[string]any)
	if wr == nil {
		return inputErr("mode comment runs on a workflow_run event; this is %q", r.ctx.EventName)
	}
	if ev := str(wr, "event"); ev != "pull_request" {
		fmt.Fprintf(r.c.Stdout, "mcptest: the triggering run is a %q run, not a pull_request one: nothing to comment\n", annotate.Clean(ev))
		return nil
	}
	if c := str(wr, "conclusion"); c == "cancelled" || c == "skipped" {
		fmt.Fprintf(r.c.Stdout, "mcptest: the triggering run was %s: nothing to comment\n", c)
		return nil
	}
	runID := int64(num(wr, "id"))
	headSHA, headRepo := str(wr, "head_sha"), str(wr, "head_repository", "full_name")
	headBranch, headOwner := str(wr, "head_branch"), str(wr, "head_repository", "owner", "login")
	gh, err := r.github()
	if err != nil {
		return err
	}
	var pr map[string]any
	err = baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		pr, err = findPR(ctx, gh, r.owner, r.repo, headOwner, headBranch, headSHA, headRepo)
		return err
	})
	if err != nil {
		return fmt.Errorf("find the pull request of run %d: %w", runID, err)
	}
	if pr == nil {
		fmt.Fprintf(r.c.Stdout, "mcptest: no open pull request has head %s at %s: nothing to comment\n", annotate.Clean(headRepo), annotate.Clean(headSHA))
		return nil
	}
	var data []byte
	var why string
	err = baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		data, why, err = gh.RunArtifact(ctx, r.owner, r.repo, runID, r.in.prArtifact, path.Base(r.in.reportPath), r.in.maxBytes)
		return err
	})
	if err != nil {
		return fmt.Errorf("download the envelope of run %d: %w", runID, err)
	}
	if why != "" {
		return &exitError{code: ExitInput, err: fmt.Errorf("run %d has no usable %q artifact: %s", runID, r.in.prArtifact, why)}
	}
	env, err := report.Read(bytes.NewReader(data), "the envelope of run "+strconv.FormatInt(runID, 10))
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	for i, cs := range env.Cases {
		if cs == nil {
			return inputErr("the envelope of run %d: cases[%d] is null", runID, i)
		}
	}
	env.Tally()
	found, missing, err := r.baseline(ctx, str(pr, "base", "sha"), headSHA)
	if err != nil {
		return err
	}
	rep := r.compare(env, found, missing)
	number := int(num(pr, "number"))
	id, err := r.upsertComment(ctx, gh, number, rep)
	if err != nil {
		return fmt.Errorf("post the comment on pull request #%d: %w", number, err)
	}
	fmt.Fprintf(r.c.Stdout, "mcptest: comment %d on pull request #%d\n", id, number)
	r.summary(rep)
	r.setOutputs(rep, found != nil, id)
	return r.writeOutputs()
}

// drift opens, updates or closes the one tracking issue of the suite.
func (r *actionRun) drift(ctx context.Context, rep annotate.ActionReport) error {
	gh, err := r.github()
	if err != nil {
		return err
	}
	err = baseline.Budgeted(ctx, r.in.apiTimeout, func(ctx context.Context) error {
		return syncDriftIssue(ctx, gh, r.owner, r.repo, r.in.driftLabel, rep, r.ctx.ServerURL, r.ctx.Repository, r.c.Stdout)
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

func (r *actionRun) setOutputs(rep annotate.ActionReport, found bool, commentID int64) {
	verdict := "pass"
	if rep.Gate.Failed {
		verdict = "fail"
	}
	o := r.out
	o["verdict"] = verdict
	o["passed"] = strconv.Itoa(rep.Env.Totals.Passed)
	o["failed"] = strconv.Itoa(rep.Env.Totals.Failed)
	o["flips"], o["regressions"], o["fixes"] = "0", "0", "0"
	if rep.Cmp != nil {
		s := rep.Cmp.Summary
		o["flips"], o["regressions"], o["fixes"] = strconv.Itoa(s.Flips), strconv.Itoa(s.Regressions), strconv.Itoa(s.Fixes)
	}
	o["baseline-found"] = strconv.FormatBool(found)
	o["baseline-run-id"] = ""
	if rep.BaselineRunID != 0 {
		o["baseline-run-id"] = strconv.FormatInt(rep.BaselineRunID, 10)
	}
	o["report-path"] = r.in.reportPath
	o["comment-id"] = ""
	if commentID != 0 {
		o["comment-id"] = strconv.FormatInt(commentID, 10)
	}
}

// outputNames is the order outputs are written in.
var outputNames = []string{"verdict", "passed", "failed", "flips", "regressions", "fixes", "baseline-found", "baseline-run-id", "report-path", "comment-id"}

// writeOutputs appends the outputs to GITHUB_OUTPUT. go-githubactions
// writes a fixed delimiter, which a value could forge (action.md): here
// each value goes in a heredoc with a random delimiter, and a value that
// holds a line break or the delimiter is refused.
func (r *actionRun) writeOutputs() error {
	file := r.c.Getenv("GITHUB_OUTPUT")
	if file == "" {
		return nil
	}
	var b strings.Builder
	if err := formatOutputs(&b, r.out, randomDelimiter()); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("write outputs: %w", err)
	}
	return f.Close()
}

func randomDelimiter() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "ghadelimiter_" + hex.EncodeToString(b[:])
}

// formatOutputs writes name<<DELIM / value / DELIM for each output.
func formatOutputs(b *strings.Builder, out map[string]string, delim string) error {
	for _, k := range outputNames {
		v, ok := out[k]
		if !ok {
			continue
		}
		if strings.ContainsAny(v, "\r\n") || strings.Contains(v, delim) {
			return fmt.Errorf("output %s: a value with a line break or the delimiter is refused", k)
		}
		fmt.Fprintf(b, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}
	return nil
}

func flatLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// str reads a string at a path of keys in an event payload.
func str(m map[string]any, keys ...string) string {
	v := dig(m, keys...)
	s, _ := v.(string)
	return s
}

func num(m map[string]any, keys ...string) float64 {
	v := dig(m, keys...)
	f, _ := v.(float64)
	return f
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// prNumber is the pull request of a pull_request event, or 0.
func prNumber(ev map[string]any) int {
	if pr, ok := ev["pull_request"].(map[string]any); ok {
		return int(num(pr, "number"))
	}
	return 0
}
