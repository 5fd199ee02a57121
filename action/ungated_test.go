package action

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// The tests of this file need nothing installed (no OpenAPI description,
// no API stand-in), so a plain `go test` on a fresh clone still checks
// each output's name and value and the mode each event gets; the tests
// against the API stand-in skip there.

// TestOutputsNoAPI: a pull request checked against a local baseline-file
// (no API call) writes every output, each to its own value: the crafted
// baseline gives 1 regression, 3 fixes, 8 flips, 4 passed, 2 failed.
func TestOutputsNoAPI(t *testing.T) {
	r := newRunner(t, nil, "pull_request", prEvent(7, "acme/agents", "head0001"))
	r.env["GITHUB_API_URL"] = "http://127.0.0.1:1" // nothing listens
	base := filepath.Join(r.dir, "baseline.json")
	write(t, base, craftedBaseline(t))
	r.env["INPUT_BASELINE-FILE"] = base
	r.env["INPUT_COMMENT"] = "false"
	res := r.run()
	want := map[string]string{"verdict": "fail", "passed": "4", "failed": "2", "flips": "8", "regressions": "1", "fixes": "3",
		"baseline-found": "true", "baseline-run-id": "", "report-path": r.env["INPUT_REPORT-PATH"], "comment-id": "", "history-path": ""}
	if res.code != ExitFail {
		t.Errorf("exit %d, want 1 (a regression under fail-on: regressions)\n%s%s", res.code, res.stdout, res.stderr)
	}
	checkOutputs(t, res.outputs, want)
}

// TestSetOutputs: each output from its own field of the report, with
// values no two outputs share; then the outputs of a run with no baseline,
// no comment and a gate that passes.
func TestSetOutputs(t *testing.T) {
	env := &report.Envelope{Totals: report.Totals{Passed: 4, Failed: 2}}
	rep := annotate.ActionReport{Env: env, Gate: baseline.Gate{Failed: true}, BaselineRunID: 41,
		Cmp: &baseline.Comparison{Summary: baseline.Summary{Flips: 8, Regressions: 1, Fixes: 3}}}
	r := &run{in: inputs{reportPath: "out/report.json"}, out: map[string]string{}}
	r.setOutputs(rep, true, 977)
	checkOutputs(t, r.out, map[string]string{"verdict": "fail", "passed": "4", "failed": "2", "flips": "8", "regressions": "1",
		"fixes": "3", "baseline-found": "true", "baseline-run-id": "41", "report-path": "out/report.json", "comment-id": "977", "history-path": ""})

	r = &run{in: inputs{reportPath: "r.json"}, out: map[string]string{}}
	r.setOutputs(annotate.ActionReport{Env: env}, false, 0)
	checkOutputs(t, r.out, map[string]string{"verdict": "pass", "passed": "4", "failed": "2", "flips": "0", "regressions": "0",
		"fixes": "0", "baseline-found": "false", "baseline-run-id": "", "report-path": "r.json", "comment-id": "", "history-path": ""})
}

// checkOutputs holds outputs, written to GITHUB_OUTPUT and read back as
// the runner does, to want, and want's names to outputNames.
func checkOutputs(t *testing.T, outputs, want map[string]string) {
	t.Helper()
	var b strings.Builder
	if err := formatOutputs(&b, outputs, "EOF_D"); err != nil {
		t.Fatal(err)
	}
	got := parseOutputs(t, b.String())
	for _, name := range outputNames {
		if got[name] != want[name] {
			t.Errorf("output %s = %q, want %q", name, got[name], want[name])
		}
	}
	if len(got) != len(want) || len(want) != len(outputNames) {
		t.Errorf("%d outputs written, want %d: %v", len(got), len(want), got)
	}
}

// TestDefaultModes: the mode each event gets when the mode input is empty,
// a sharded run's mode, and the mode that judges a merged run (then).
func TestDefaultModes(t *testing.T) {
	for _, tc := range []struct {
		event, mode, args, shards string
		wantMode, wantThen        string
	}{
		{event: "push", wantMode: modeBaseline, wantThen: modeBaseline},
		{event: "workflow_dispatch", wantMode: modeBaseline, wantThen: modeBaseline},
		{event: "schedule", wantMode: modeDrift, wantThen: modeDrift},
		{event: "workflow_run", wantMode: modeComment, wantThen: modeComment},
		{event: "pull_request", wantMode: modeCheck, wantThen: modeCheck},
		{event: "pull_request_target", wantMode: modeCheck, wantThen: modeCheck},
		{event: "merge_group", wantMode: modeCheck, wantThen: modeCheck},
		{event: "", wantMode: modeCheck, wantThen: modeCheck},
		{event: "pull_request", args: "--shard 1/2", wantMode: modeShard, wantThen: modeShard},
		{event: "push", args: "--shard 2/2", wantMode: modeShard, wantThen: modeShard},
		{event: "workflow_run", args: "--shard 1/2", wantMode: modeComment, wantThen: modeComment},
		{event: "push", mode: "merge", shards: "s/*.json", wantMode: modeMerge, wantThen: modeBaseline},
		{event: "pull_request", mode: "merge", shards: "s", wantMode: modeMerge, wantThen: modeCheck},
		{event: "schedule", mode: "merge", shards: "s", wantMode: modeMerge, wantThen: modeDrift},
		{event: "workflow_run", mode: "merge", shards: "s", wantMode: modeMerge, wantThen: modeCheck},
		{event: "push", mode: "check", wantMode: modeCheck, wantThen: modeCheck},
		{event: "pull_request", mode: "drift", wantMode: modeDrift, wantThen: modeDrift},
	} {
		in := inputs{mode: tc.mode, shards: tc.shards}
		if err := in.readRunArgs(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := in.pickMode(tc.event); err != nil || in.mode != tc.wantMode || in.then != tc.wantThen {
			t.Errorf("event %q, mode %q, args %q: mode %q then %q, %v; want %q then %q", tc.event, tc.mode, tc.args, in.mode, in.then, err, tc.wantMode, tc.wantThen)
		}
	}
}

// TestModeErrors: the mode input is one of the six modes as action.yml
// spells them, and goes with --shard and shards only as the sharded
// workflow uses them.
func TestModeErrors(t *testing.T) {
	for _, tc := range []struct{ event, mode, args, shards, want string }{
		{"push", "Check", "", "", `input mode "Check"`},
		{"push", "shard", "", "", "mode shard runs one shard"},
		{"pull_request", "check", "--shard 1/2", "", "one shard compared with the whole suite's baseline"},
		{"pull_request", "merge", "", "", "expected the input shards"},
		{"pull_request", "check", "", "s/*.json", "goes with mode: merge"},
	} {
		in := inputs{mode: tc.mode, shards: tc.shards}
		if err := in.readRunArgs(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := in.pickMode(tc.event); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("event %s, mode %q, args %q, shards %q: %v; want an error saying %q", tc.event, tc.mode, tc.args, tc.shards, err, tc.want)
		}
	}
}

// TestInputDefaults: what each input is when the workflow leaves it out
// (action.yml's defaults, which `mcptest action` repeats for a run outside
// the composite step).
func TestInputDefaults(t *testing.T) {
	env := map[string]string{"GITHUB_TOKEN": "ghs_env"}
	a := githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }))
	in, err := readInputs(a, "pull_request", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"mode": in.mode, "config": in.config, "cassette-dir": in.cassetteDir, "report-path": in.reportPath,
		"baseline-file": in.baselineFile, "baseline-workflow": in.baselineWorkflow, "baseline-artifact": in.baselineArtifact,
		"pr-artifact": in.prArtifact, "on-missing-baseline": in.onMissing, "github-token": in.token,
		"comment-author": in.commentAuthor, "drift-label": in.driftLabel, "comment-key": in.commentKey, "fail-on": string(in.failOn),
		"comment": strconv.FormatBool(in.comment), "max-artifact-bytes": strconv.FormatInt(in.maxBytes, 10),
		"api-timeout": in.apiTimeout.String(), "shards": in.shards}
	want := map[string]string{"mode": "check", "config": "suite.yml", "cassette-dir": "", "report-path": "mcptest-report.json",
		"baseline-file": "", "baseline-workflow": "mcptest-baseline.yml", "baseline-artifact": "mcptest-baseline",
		"pr-artifact": "mcptest-pr", "on-missing-baseline": "warn", "github-token": "ghs_env",
		"comment-author": "github-actions[bot]", "drift-label": "mcptest-drift", "comment-key": "suite.yml", "fail-on": "regressions",
		"comment": "true", "max-artifact-bytes": strconv.Itoa(64 << 20), "api-timeout": "2m0s", "shards": ""}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("input %s defaults to %q, want %q", k, got[k], w)
		}
	}
}

// TestInputValues: the boundaries of the inputs that take a number, the
// booleans as YAML writes them (capitalised too), and the values refused.
func TestInputValues(t *testing.T) {
	for _, tc := range []struct {
		input, value string
		ok           bool
		check        func(inputs) bool
	}{
		{"comment", "False", true, func(in inputs) bool { return !in.comment }},
		{"comment", "FALSE", true, func(in inputs) bool { return !in.comment }},
		{"comment", "True", true, func(in inputs) bool { return in.comment }},
		{"comment", "no", false, nil},
		{"api-timeout", "1", true, func(in inputs) bool { return in.apiTimeout == time.Second }},
		{"api-timeout", "0", false, nil},
		{"api-timeout", "3600", true, func(in inputs) bool { return in.apiTimeout == time.Hour }},
		{"api-timeout", "3601", false, nil},
		{"api-timeout", "1s", true, func(in inputs) bool { return in.apiTimeout == time.Second }},
		{"api-timeout", "999ms", false, nil},
		{"api-timeout", "1h0m1s", false, nil},
		{"max-artifact-bytes", "1", true, func(in inputs) bool { return in.maxBytes == 1 }},
		{"max-artifact-bytes", "0", false, nil},
		{"max-artifact-bytes", strconv.Itoa(baseline.MaxEnvelopeBytes), true, func(in inputs) bool { return in.maxBytes == baseline.MaxEnvelopeBytes }},
		{"max-artifact-bytes", strconv.Itoa(baseline.MaxEnvelopeBytes + 1), false, nil},
		{"on-missing-baseline", "fail", true, func(in inputs) bool { return in.onMissing == "fail" }},
		{"on-missing-baseline", "ignore", true, func(in inputs) bool { return in.onMissing == "ignore" }},
		{"on-missing-baseline", "Warn", false, nil},
		{"fail-on", "flips", true, func(in inputs) bool { return in.failOn == baseline.FailOnFlips }},
		{"baseline-artifact", "a\nb", false, nil},
		{"report-path", "r\x00.json", false, nil},
		{"comment-key", "agents", true, func(in inputs) bool { return in.commentKey == "agents" && in.config == "suite.yml" }},
	} {
		env := map[string]string{"INPUT_" + strings.ToUpper(tc.input): tc.value}
		a := githubactions.New(githubactions.WithGetenv(func(k string) string { return env[k] }))
		in, err := readInputs(a, "pull_request", "")
		if tc.ok && (err != nil || !tc.check(in)) {
			t.Errorf("%s: %q: %+v, %v; want accepted", tc.input, tc.value, in, err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "input "+tc.input)) {
			t.Errorf("%s: %q: %v; want refused, naming the input", tc.input, tc.value, err)
		}
	}
}

// TestOptionDefaults: the API's first back-off is 1 s and each attempt 30 s
// when `mcptest action` gives none; a value given (the tests' 1 ms) is
// kept.
func TestOptionDefaults(t *testing.T) {
	if got := (Options{}).withDefaults(); got.RetryDelay != time.Second || got.RequestTimeout != 30*time.Second {
		t.Errorf("zero options: retry delay %v, request timeout %v; want 1s, 30s", got.RetryDelay, got.RequestTimeout)
	}
	given := Options{RetryDelay: time.Millisecond, RequestTimeout: 2 * time.Second, APITimeout: "5"}
	if got := given.withDefaults(); got.RetryDelay != given.RetryDelay || got.RequestTimeout != given.RequestTimeout || got.APITimeout != given.APITimeout {
		t.Errorf("given options became %+v, want them kept: %+v", got, given)
	}
}

// apiRecorder is a local HTTP server in place of the GitHub API that
// answers 404 to everything and records the paths asked for, so a test
// that needs nothing installed sees which calls a run makes.
type apiRecorder struct {
	mu    sync.Mutex
	paths []string
}

func newAPIRecorder(t *testing.T) (*apiRecorder, string) {
	rec := &apiRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec.mu.Lock()
		rec.paths = append(rec.paths, req.Method+" "+req.URL.Path)
		rec.mu.Unlock()
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func (rec *apiRecorder) calls() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.paths...)
}

// TestCommentRule: a check run comments on a pull request only when the
// event has one (its number above 0) and the comment input is true: with
// comment: false, or on a push checked in mode check, no API call is made.
func TestCommentRule(t *testing.T) {
	for _, tc := range []struct {
		name, event, mode, comment string
		payload                    any
		want                       string
	}{
		{"pull request, comment: true", "pull_request", "", "true", prEvent(7, "acme/agents", "head0001"), "/repos/acme/agents/issues/7/comments"},
		{"pull request, comment: false", "pull_request", "", "false", prEvent(7, "acme/agents", "head0001"), ""},
		{"push in mode check (no pull request), comment: true", "push", "check", "true", map[string]any{"after": "head0001"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, url := newAPIRecorder(t)
			r := newRunner(t, nil, tc.event, tc.payload)
			r.env["GITHUB_API_URL"] = url
			base := filepath.Join(r.dir, "baseline.json")
			write(t, base, craftedBaseline(t))
			r.env["INPUT_BASELINE-FILE"] = base
			r.env["INPUT_COMMENT"] = tc.comment
			if tc.mode != "" {
				r.env["INPUT_MODE"] = tc.mode
			}
			res := r.run()
			calls := rec.calls()
			if tc.want == "" && len(calls) != 0 {
				t.Errorf("API calls %v, want none", calls)
			}
			if tc.want != "" && !strings.Contains(strings.Join(calls, "\n"), tc.want) {
				t.Errorf("API calls %v, want one to %s", calls, tc.want)
			}
			if res.code != ExitFail || res.outputs["comment-id"] != "" {
				t.Errorf("exit %d, comment-id %q; want 1 (the regression) and none (the API answers 404)\n%s%s", res.code, res.outputs["comment-id"], res.stdout, res.stderr)
			}
		})
	}
}

// TestExitRules: a check run's step fails on a failing gate, or on no
// baseline under on-missing-baseline: fail; a baseline found passes the
// step whatever on-missing-baseline says, and no baseline passes it under
// warn and ignore. (fail-on: none keeps the new failing cases a run
// without baseline has from failing the gate.)
func TestExitRules(t *testing.T) {
	same := filepath.Join(t.TempDir(), "same.json")
	runEnvelope(t, actionSuite, same)
	for _, tc := range []struct {
		name, baselineFile, failOn, onMissing string
		want                                  int
	}{
		{"the same verdicts as the baseline, on-missing-baseline: fail", same, "regressions", "fail", ExitOK},
		{"the same verdicts as the baseline, on-missing-baseline: warn", same, "regressions", "warn", ExitOK},
		{"a regression, fail-on: none, on-missing-baseline: fail", "crafted", "none", "fail", ExitOK},
		{"a regression, fail-on: regressions", "crafted", "regressions", "warn", ExitFail},
		{"no baseline, on-missing-baseline: warn", "", "none", "warn", ExitOK},
		{"no baseline, on-missing-baseline: ignore", "", "none", "ignore", ExitOK},
		{"no baseline, on-missing-baseline: fail", "", "none", "fail", ExitFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(t, nil, "pull_request", prEvent(7, "acme/agents", "head0001"))
			r.env["GITHUB_API_URL"] = "http://127.0.0.1:1" // nothing listens: no baseline
			r.env["INPUT_COMMENT"] = "false"
			r.env["INPUT_FAIL-ON"] = tc.failOn
			r.env["INPUT_ON-MISSING-BASELINE"] = tc.onMissing
			switch tc.baselineFile {
			case "":
			case "crafted":
				r.env["INPUT_BASELINE-FILE"] = filepath.Join(r.dir, "crafted.json")
				write(t, r.env["INPUT_BASELINE-FILE"], craftedBaseline(t))
			default:
				r.env["INPUT_BASELINE-FILE"] = tc.baselineFile
			}
			res := r.run()
			if res.code != tc.want || res.outputs["baseline-found"] != strconv.FormatBool(tc.baselineFile != "") {
				t.Errorf("exit %d, baseline-found %q; want %d\n%s%s", res.code, res.outputs["baseline-found"], tc.want, res.stdout, res.stderr)
			}
		})
	}
}

// TestSummaryNotFatal: a job summary that cannot be written (its path is a
// directory) is said on the log and the run goes on to its outputs and exit
// code; a summary written says nothing of the kind.
func TestSummaryNotFatal(t *testing.T) {
	r := newRunner(t, nil, "pull_request", prEvent(7, "acme/agents", "head0001"))
	r.env["INPUT_BASELINE-FILE"] = filepath.Join(r.dir, "baseline.json")
	write(t, r.env["INPUT_BASELINE-FILE"], craftedBaseline(t))
	r.env["INPUT_COMMENT"] = "false"
	const said = "the job summary could not be written"
	res := r.run()
	if res.code != ExitFail || res.summary == "" || strings.Contains(res.stderr, said) {
		t.Errorf("summary written: exit %d, summary %d bytes, stderr %q; want 1, a summary, nothing said", res.code, len(res.summary), res.stderr)
	}
	// Not empty, so the runner's removal of the old summary leaves it.
	r.env["GITHUB_STEP_SUMMARY"] = t.TempDir()
	write(t, filepath.Join(r.env["GITHUB_STEP_SUMMARY"], "keep"), nil)
	res = r.run()
	if res.code != ExitFail || res.outputs["regressions"] != "1" || !strings.Contains(res.stderr, said) {
		t.Errorf("summary path a directory: exit %d, outputs %v, stderr %q; want 1, the outputs, %q", res.code, res.outputs, res.stderr, said)
	}
}

// TestReadReports: the reports input is a comma-separated list of html,
// junit and sarif, spaces and empty items ignored, each format once; each
// is written beside report-path under its own suffix.
func TestReadReports(t *testing.T) {
	in := inputs{reportPath: "out/mcptest-report.json"}
	if err := in.readReports(" sarif, ,html,sarif,junit,"); err != nil || !slices.Equal(in.reports, []string{"sarif", "html", "junit"}) {
		t.Errorf("reports %q, %v; want sarif, html, junit", in.reports, err)
	}
	for format, want := range map[string]string{"html": "out/mcptest-report.html", "junit": "out/mcptest-report.junit.xml", "sarif": "out/mcptest-report.sarif"} {
		if got := in.reportFile(format); got != want {
			t.Errorf("reportFile(%s) = %q, want %q", format, got, want)
		}
	}
	if err := (&inputs{}).readReports("html,pdf"); err == nil || !strings.Contains(err.Error(), `input reports "pdf"`) {
		t.Errorf("reports: html,pdf: %v; want pdf refused", err)
	}
}
