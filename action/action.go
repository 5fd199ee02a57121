package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/stamp"
)

// Env is the process the Action runs in: its environment (the INPUT_* and
// GITHUB_* variables) and its streams.
type Env struct {
	Getenv func(string) string
	// Stdout and Stderr take the Action's log lines, which may carry
	// recorded or fetched text: under a runner they are an
	// annotate.RunnerLog.
	Stdout, Stderr io.Writer
	// Commands takes the workflow commands the Action emits (annotations,
	// notices); nil means Stdout.
	Commands io.Writer
	// Version is mcptest's version, for the envelope and the API's
	// User-Agent.
	Version string
}

// Options are the flags of `mcptest action`.
type Options struct {
	// APITimeout overrides the api-timeout input when not empty.
	APITimeout string
	// RetryDelay is the first back-off of API retries (default 1 s) and
	// RequestTimeout bounds each attempt (default 30 s); tests shorten
	// them.
	RetryDelay, RequestTimeout time.Duration
}

// withDefaults fills in the options left zero: a first back-off of 1 s and
// 30 s an attempt; a value given is kept.
func (o Options) withDefaults() Options {
	if o.RetryDelay == 0 {
		o.RetryDelay = time.Second
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 30 * time.Second
	}
	return o
}

// Run is one run of the Action: it reads its inputs and the runner's
// context from env, runs the mode, and writes the outputs. See the package
// doc for what its errors mean.
func Run(ctx context.Context, env Env, opt Options) error {
	if env.Commands == nil {
		env.Commands = env.Stdout
	}
	opt = opt.withDefaults()
	a := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(env.Commands))
	gctx, ev, err := readContext(env.Getenv)
	if err != nil {
		return err
	}
	in, err := readInputs(a, gctx.EventName, opt.APITimeout)
	if err != nil {
		return err
	}
	r := &run{env: env, opt: opt, a: a, ctx: gctx, ev: ev, in: in, out: map[string]string{}}
	r.owner, r.repo = gctx.Repo()
	return r.main(ctx)
}

// run is one run of the Action.
type run struct {
	env         Env
	opt         Options
	a           *githubactions.Action
	ctx         *githubactions.GitHubContext
	ev          event
	in          inputs
	owner, repo string
	gh          *baseline.GitHub
	out         map[string]string
	notes       []string
}

// github is the API client, made on first use; an error when there is no
// token.
func (r *run) github() (*baseline.GitHub, error) {
	if r.gh != nil {
		return r.gh, nil
	}
	if r.in.token == "" {
		return nil, errors.New("no github-token")
	}
	gh, err := baseline.NewGitHub(baseline.GitHubOptions{APIURL: r.ctx.APIURL, Token: r.in.token, RetryDelay: r.opt.RetryDelay,
		Timeout: r.opt.RequestTimeout, UserAgent: "mcptest/" + r.env.Version})
	if err != nil {
		return nil, diag.Input("%v", err)
	}
	r.gh = gh
	return gh, nil
}

func (r *run) main(ctx context.Context) error {
	if r.in.mode == modeComment {
		return r.commentMode(ctx)
	}
	env, err := r.envelope()
	if err != nil {
		r.annotateInputErrors(err)
		return err
	}
	if err := r.writeEnvelope(env); err != nil {
		return err
	}
	switch r.in.then {
	case modeShard:
		return r.shardMode(env)
	case modeBaseline:
		return r.baselineMode(ctx, env)
	}
	base, head := r.ev.baseHead()
	found, missing, err := r.baseline(ctx, base, head)
	if err != nil {
		return err
	}
	rep := r.compare(env, found, missing)
	rep.Trend, rep.HistoryPage = r.history(ctx, env, false)
	r.slideGate(&rep)
	rep.Notes = r.notes
	annotate.EmitAnnotations(r.a, annotate.Annotations(rep))
	r.missingNotice(rep)

	commentID := int64(0)
	switch r.in.then {
	case modeCheck:
		if n := r.ev.prNumber(); n > 0 && r.in.comment {
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
		return ErrFailed
	}
	return nil
}

// baselineMode ends a baseline run (mode baseline): the envelope is
// written; its gate, notice, summary and outputs follow.
func (r *run) baselineMode(ctx context.Context, env *report.Envelope) error {
	rep := annotate.ActionReport{Env: env, Suite: r.in.config, IsBaseline: true}
	rep.Gate = r.baselineGate(env)
	r.baselineNote(env, rep.Gate.Failed)
	rep.Trend, rep.HistoryPage = r.history(ctx, env, !rep.Gate.Failed)
	r.slideGate(&rep)
	r.summary(rep)
	r.setOutputs(rep, false, 0)
	if err := r.writeOutputs(); err != nil {
		return err
	}
	if rep.Gate.Failed {
		return ErrFailed
	}
	return nil
}

// annotateInputErrors puts the positioned errors of an invalid suite or
// cassette on their lines, so a broken suite shows in the PR's files.
func (r *run) annotateInputErrors(err error) {
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

// envelope is the run's envelope: the shards merged (mode merge), or the
// suite run.
func (r *run) envelope() (*report.Envelope, error) {
	if r.in.mode == modeMerge {
		return r.mergeShards()
	}
	return r.runSuite()
}

// runSuite runs the suite offline, as `mcptest run` does.
func (r *run) runSuite() (*report.Envelope, error) {
	start := time.Now()
	suite, err := engine.LoadSuite(r.in.config)
	if err != nil {
		return nil, err
	}
	opts := r.in.run
	opts.CassetteDir, opts.Version = r.in.cassetteDir, r.env.Version
	env, err := engine.Run(suite, opts)
	if err != nil {
		return nil, err
	}
	stamp.Run(env, start)
	env.Source = stamp.Source(r.env.Getenv)
	return env, nil
}

// writeEnvelope writes the full run envelope to report-path, whatever
// happens next.
func (r *run) writeEnvelope(env *report.Envelope) error {
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
	fmt.Fprintf(r.env.Stdout, "mcptest: %s: %d passed, %d failed, %d inconclusive; run envelope written to %s\n",
		env.Verdict, env.Totals.Passed, env.Totals.Failed, env.Totals.Inconclusive, r.in.reportPath)
	for _, f := range r.in.reports {
		if err := r.writeReport(env, f); err != nil {
			return err
		}
	}
	return nil
}

// writeReport renders the envelope in one of the reports input's formats
// beside report-path, as `mcptest run --output FORMAT=FILE` renders it
// (annotate.Render).
func (r *run) writeReport(env *report.Envelope, format string) error {
	data, err := annotate.Render(format, env, annotate.Options{})
	if err != nil {
		return err
	}
	file := r.in.reportFile(format)
	// By rename: a symlink planted at the path is replaced, never followed.
	if err := safefile.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("write the %s report: %w", format, err)
	}
	fmt.Fprintf(r.env.Stdout, "mcptest: %s report written to %s\n", format, file)
	return nil
}

// summary appends the job summary; a summary that cannot be written is
// said on the log, not fatal.
func (r *run) summary(rep annotate.ActionReport) {
	rep.Notes = r.notes
	r.addSummary(func() string { return annotate.Summary(rep, r.ctx.ServerURL, r.ctx.Repository, annotate.SummaryLimit) })
}

// addSummary appends the markdown md renders to the job summary, when the
// runner gives one; a summary that cannot be written is said on the log,
// not fatal.
func (r *run) addSummary(md func() string) {
	if r.env.Getenv("GITHUB_STEP_SUMMARY") == "" {
		return
	}
	defer func() {
		if e := recover(); e != nil {
			fmt.Fprintf(r.env.Stderr, "mcptest: the job summary could not be written: %v\n", e)
		}
	}()
	r.a.AddStepSummary(md())
}
