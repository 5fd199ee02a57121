package action

import (
	"path/filepath"
	"strconv"
	"strings"
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
		"baseline-found": "true", "baseline-run-id": "", "report-path": r.env["INPUT_REPORT-PATH"], "comment-id": ""}
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
		"fixes": "3", "baseline-found": "true", "baseline-run-id": "41", "report-path": "out/report.json", "comment-id": "977"})

	r = &run{in: inputs{reportPath: "r.json"}, out: map[string]string{}}
	r.setOutputs(annotate.ActionReport{Env: env}, false, 0)
	checkOutputs(t, r.out, map[string]string{"verdict": "pass", "passed": "4", "failed": "2", "flips": "0", "regressions": "0",
		"fixes": "0", "baseline-found": "false", "baseline-run-id": "", "report-path": "r.json", "comment-id": ""})
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
