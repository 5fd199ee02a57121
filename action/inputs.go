package action

import (
	"flag"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// The modes of the Action (input mode).
const (
	modeCheck    = "check"
	modeBaseline = "baseline"
	modeComment  = "comment"
	modeDrift    = "drift"
	// modeShard runs one shard (args: --shard i/n) and only writes its
	// envelope, for the merge job.
	modeShard = "shard"
	// modeMerge merges the shard envelopes (input shards) into the
	// envelope of the whole run, then goes on as the event's mode would.
	modeMerge = "merge"
)

// inputs are the Action's inputs (action.yml), read from INPUT_* with
// hyphens kept.
type inputs struct {
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
	// shards names the shard envelopes mode merge merges: a directory (its
	// *.json files) or a glob.
	shards string
	// then is the mode that judges the run envelope: mode itself, or for
	// mode merge the event's mode (check on a workflow_run).
	then string
	// history is how many of the default branch's last baselines the
	// trend reads (0: none); historyThreshold the fall in points of a
	// floor's figure over them that fails the step when sustained (0:
	// never).
	history          int
	historyThreshold float64
}

// maxAPITimeout is the largest api-timeout accepted.
const maxAPITimeout = time.Hour

// readInputs reads the INPUT_* variables; apiTimeout (Options.APITimeout)
// wins over the input when given.
func readInputs(a *githubactions.Action, event, apiTimeout string) (inputs, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(a.GetInput(name)); v != "" {
			return v
		}
		return def
	}
	in := inputs{
		mode:             get("mode", ""),
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
		shards:           get("shards", ""),
	}
	in.commentKey = get("comment-key", in.config)
	if apiTimeout == "" {
		apiTimeout = get("api-timeout", "120")
	}
	for _, step := range []func() error{
		func() error { return in.readRunArgs(get("args", "")) },
		func() error { return in.readReports(get("reports", "")) },
		func() error { return in.pickMode(event) },
		func() error { return in.readPolicy(get("fail-on", string(baseline.FailOnRegressions))) },
		in.checkOnMissing,
		func() error { return in.readComment(get("comment", "true"), a.GetInput("comment")) },
		func() error { return in.readMaxBytes(get("max-artifact-bytes", strconv.Itoa(64<<20))) },
		func() (err error) { in.apiTimeout, err = parseAPITimeout(apiTimeout); return err },
		func() error { return in.readHistory(get("history", "0"), get("history-threshold", "0")) },
		in.checkLineBreaks,
	} {
		if err := step(); err != nil {
			return in, err
		}
	}
	return in, nil
}

// pickMode checks the mode input, or picks the mode from the event when it
// is empty (a run of one shard, args: --shard i/n, is mode shard), and
// checks that the mode goes with --shard and the shards input: a shard is
// never compared with the whole suite's baseline, and only mode merge reads
// shard envelopes.
func (in *inputs) pickMode(event string) error {
	sharded := in.run.Shard != (report.Shard{})
	if in.mode == "" {
		in.mode = defaultMode(event)
		if sharded && in.mode != modeComment {
			in.mode = modeShard
		}
	}
	in.then = in.mode
	switch in.mode {
	case modeCheck, modeBaseline, modeDrift, modeShard, modeComment:
	case modeMerge:
		if in.then = defaultMode(event); in.then == modeComment {
			in.then = modeCheck
		}
	default:
		return diag.Input("input mode %q: expected one of check, baseline, comment, drift, shard, merge", in.mode)
	}
	switch {
	case in.mode == modeShard && !sharded:
		return diag.Input("mode shard runs one shard of the suite: expected args: --shard i/n (the matrix job's shard, such as --shard ${{ matrix.shard }}/4)")
	case sharded && in.mode != modeShard && in.mode != modeComment:
		return diag.Input("input args: --shard %s with mode %s: one shard compared with the whole suite's baseline reads the other shards' cases as removed; expected mode: shard in the matrix jobs and mode: merge in one job after them (see Sharded suites in docs/action.md)", in.run.Shard, in.mode)
	case in.mode == modeMerge && in.shards == "":
		return diag.Input("mode merge merges the shard envelopes: expected the input shards, a directory or glob naming the envelopes the mode: shard jobs wrote (such as mcptest-shards/*.json)")
	case in.mode != modeMerge && in.shards != "":
		return diag.Input("input shards %q goes with mode: merge; this is mode %s", in.shards, in.mode)
	}
	return nil
}

// readPolicy reads the fail-on input.
func (in *inputs) readPolicy(s string) error {
	p, err := baseline.ParsePolicy(s)
	if err != nil {
		return diag.Input("input fail-on: %v", strings.TrimPrefix(err.Error(), "--fail-on "))
	}
	in.failOn = p
	return nil
}

// checkOnMissing checks the on-missing-baseline input.
func (in *inputs) checkOnMissing() error {
	switch in.onMissing {
	case "warn", "fail", "ignore":
		return nil
	}
	return diag.Input("input on-missing-baseline %q: expected one of warn, fail, ignore", in.onMissing)
}

// readComment reads the comment input (s, trimmed; raw, as given).
func (in *inputs) readComment(s, raw string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return diag.Input("input comment %q: expected true or false", raw)
	}
	in.comment = b
	return nil
}

// readMaxBytes reads the max-artifact-bytes input.
func (in *inputs) readMaxBytes(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > baseline.MaxEnvelopeBytes {
		return diag.Input("input max-artifact-bytes %q: expected a number of bytes from 1 to %d", s, baseline.MaxEnvelopeBytes)
	}
	in.maxBytes = n
	return nil
}

// readHistory reads the history input (a number of baselines, 0 to
// baseline.MaxHistory) and history-threshold (points, 0 or more; it needs
// a history).
func (in *inputs) readHistory(n, threshold string) error {
	h, err := strconv.Atoi(n)
	if err != nil || h < 0 || h > baseline.MaxHistory {
		return diag.Input("input history %q: expected a number of baselines from 0 (no history) to %d", n, baseline.MaxHistory)
	}
	t, err := strconv.ParseFloat(threshold, 64)
	if err != nil || t < 0 || math.IsInf(t, 0) || math.IsNaN(t) {
		return diag.Input("input history-threshold %q: expected a number of points, 0 (never fail) or more, such as 3", threshold)
	}
	if t > 0 && h < history.MinSustained-1 {
		return diag.Input("input history-threshold %s needs a history of at least %d baselines (input history is %d): a slide is sustained over %d runs or more", threshold, history.MinSustained-1, h, history.MinSustained)
	}
	in.history, in.historyThreshold = h, t
	return nil
}

// historyPage is where the history page is written: beside report-path,
// mcptest-report.json -> mcptest-report.history.html.
func (in inputs) historyPage() string {
	return strings.TrimSuffix(in.reportPath, ".json") + ".history.html"
}

// checkLineBreaks refuses a line break in the inputs that end up in API
// requests, file names and outputs.
func (in *inputs) checkLineBreaks() error {
	for _, v := range []struct{ name, val string }{{"baseline-artifact", in.baselineArtifact}, {"pr-artifact", in.prArtifact}, {"baseline-workflow", in.baselineWorkflow}, {"report-path", in.reportPath}, {"shards", in.shards}} {
		if strings.ContainsAny(v.val, "\r\n\x00") {
			return diag.Input("input %s holds a line break", v.name)
		}
	}
	return nil
}

// parseAPITimeout reads api-timeout: whole seconds ("120") or a Go
// duration ("90s", "1m30s"), from 1 s to an hour.
func parseAPITimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if n, nerr := strconv.Atoi(s); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < time.Second || d > maxAPITimeout {
		return 0, diag.Input("input api-timeout %q: expected a number of seconds from 1 to %d (or a duration such as 90s)", s, int(maxAPITimeout.Seconds()))
	}
	return d, nil
}

// filterList is the repeatable --filter of the args input.
type filterList []string

func (s *filterList) String() string     { return strings.Join(*s, ",") }
func (s *filterList) Set(v string) error { *s = append(*s, v); return nil }

// readRunArgs reads the args input: the `mcptest run` flags that choose
// what runs (--filter, --shard, --cassette-dir), split as a shell would on
// spaces, with '...' and "..." quoting.
func (in *inputs) readRunArgs(args string) error {
	words, err := cli.SplitWords(args)
	if err != nil {
		return diag.Input("input args: %v", err)
	}
	fs := flag.NewFlagSet("args", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var filters filterList
	fs.Var(&filters, "filter", "")
	shard := fs.String("shard", "", "")
	cassetteDir := fs.String("cassette-dir", in.cassetteDir, "")
	if err := fs.Parse(words); err != nil {
		return diag.Input("input args: %v; expected --filter NAME, --shard i/n or --cassette-dir DIR", err)
	}
	if fs.NArg() > 0 {
		return diag.Input("input args: unexpected %q; expected --filter NAME, --shard i/n or --cassette-dir DIR", fs.Arg(0))
	}
	in.run.Filter, in.cassetteDir = filters, *cassetteDir
	if *shard != "" {
		if in.run.Shard, err = report.ParseShard(*shard); err != nil {
			return diag.Input("input args: --shard: %v", err)
		}
	}
	return nil
}

// extraReports are the formats the reports input takes, with the suffix
// that replaces report-path's .json.
var extraReports = map[string]string{"html": ".html", "junit": ".junit.xml", "sarif": ".sarif"}

// readReports reads the reports input: a comma-separated list of html,
// junit and sarif.
func (in *inputs) readReports(list string) error {
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if extraReports[f] == "" {
			return diag.Input("input reports %q: expected a comma-separated list of html, junit, sarif", f)
		}
		if !slices.Contains(in.reports, f) {
			in.reports = append(in.reports, f)
		}
	}
	return nil
}

// reportFile is where the extra report format goes: beside report-path,
// mcptest-report.json -> mcptest-report.html, .junit.xml or .sarif.
func (in inputs) reportFile(format string) string {
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
