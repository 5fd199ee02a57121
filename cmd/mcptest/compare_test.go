package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const (
	baselineSuite = "../../examples/baseline/suite.yml"
	baselineFile  = "../../examples/baseline/baseline.json"
)

var runIDField = regexp.MustCompile(`"run_id": "[0-9A-Z]{26}"`)

// currentEnvelope runs the baseline example's suite on its current
// cassettes and returns the saved envelope's path.
func currentEnvelope(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "current.json")
	_, stderr, code := mcptest(t, nil, "run", "--config", baselineSuite, "--reporter", "json", "--output", out)
	if code != ExitFail {
		t.Fatalf("run: exit %d, want %d\n%s", code, ExitFail, stderr)
	}
	return out
}

// TestCompareBaselineExample compares the baseline example's current run
// with its committed baseline.json in every format: one floor flips each
// way, one case is new, one removed, two are not comparable.
func TestCompareBaselineExample(t *testing.T) {
	cur := currentEnvelope(t)
	for _, format := range []string{"pretty", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, "report", cur, "--compare", baselineFile, "--format", format)
			if code != ExitFail {
				t.Errorf("exit %d, want %d (a regression and a failing not-comparable case)\n%s", code, ExitFail, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			golden(t, filepath.Join("testdata", "golden", "compare", "baseline."+format), runIDField.ReplaceAllString(stdout, `"run_id": "RUN-ID"`))
		})
	}
	stdout, _, _ := mcptest(t, nil, "report", cur, "--compare", baselineFile, "--format", "json")
	var doc struct {
		Summary map[string]int `json:"summary"`
		Cases   []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"regressions": 1, "fixes": 1, "new": 1, "removed": 1, "not_comparable": 2, "unchanged": 1}
	for k, v := range want {
		if doc.Summary[k] != v {
			t.Errorf("summary.%s = %d, want %d", k, doc.Summary[k], v)
		}
	}
}

// TestCompareFailOn: the exit code of every --fail-on policy on the
// baseline example (a regression, a fix, a failing not-comparable case)
// and on a run compared with itself (failures, but no flip).
func TestCompareFailOn(t *testing.T) {
	cur := currentEnvelope(t)
	tests := []struct {
		current, baseline string
		args              []string
		code              int
		says              string
	}{
		{cur, baselineFile, nil, ExitFail, "--fail-on regressions: fail: 1 regression (pass -> fail); 1 failing case the baseline cannot vouch for"},
		{cur, baselineFile, []string{"--fail-on", "regressions"}, ExitFail, "--fail-on regressions: fail"},
		{cur, baselineFile, []string{"--fail-on", "flips"}, ExitFail, "--fail-on flips: fail: 1 regression (pass -> fail)\n"},
		{cur, baselineFile, []string{"--fail-on", "failures"}, ExitFail, "--fail-on failures: fail: 2 failing cases\n"},
		{cur, baselineFile, []string{"--fail-on", "none"}, ExitOK, "--fail-on none: pass\n"},
		// The same run as its own baseline: failing cases the baseline
		// vouches for do not block, except under failures.
		{cur, cur, nil, ExitOK, "--fail-on regressions: pass\n"},
		{cur, cur, []string{"--fail-on", "flips"}, ExitOK, "--fail-on flips: pass\n"},
		{cur, cur, []string{"--fail-on", "failures"}, ExitFail, "--fail-on failures: fail: 2 failing cases\n"},
		// The baseline's own view of the current run reversed: the fix
		// becomes a regression and the regression a fix.
		{baselineFile, cur, []string{"--fail-on", "flips"}, ExitFail, "1 regression, 1 fix, 1 new, 1 removed, 2 not comparable"},
	}
	for _, tt := range tests {
		name := filepath.Base(tt.current) + " vs " + filepath.Base(tt.baseline) + " " + strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			args := append([]string{"report", tt.current, "--compare", tt.baseline}, tt.args...)
			stdout, stderr, code := mcptest(t, nil, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.says) {
				t.Errorf("stdout does not say %q:\n%s", tt.says, stdout)
			}
		})
	}
}

// TestCompareNotComparableSchema: a baseline of another schema_version is
// read, and every case is reported not comparable; its failing cases are
// not vouched for.
func TestCompareNotComparableSchema(t *testing.T) {
	cur := currentEnvelope(t)
	old := filepath.Join(t.TempDir(), "v0.json")
	if err := os.WriteFile(old, []byte(`{"schema_version": 0, "tool": {"name": "mcptest", "version": "0.0.1"}, "cases": "whatever"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := mcptest(t, nil, "report", cur, "--compare", old)
	if code != ExitFail {
		t.Errorf("exit %d, want %d", code, ExitFail)
	}
	for _, want := range []string{
		"not comparable: the baseline envelope has schema_version 0 and the current one 1",
		"0 regressions, 0 fixes, 0 new, 0 removed, 6 not comparable, 0 unchanged (6 cases)",
		"2 failing cases the baseline cannot vouch for",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout)
		}
	}
}

func TestCompareInputErrors(t *testing.T) {
	cur := currentEnvelope(t)
	notEnv := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(notEnv, []byte(`{"hello": 1}`), 0o644)
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"report", cur, "--compare", "testdata/nope.json"}, ExitInput, "--compare testdata/nope.json: no such file"},
		{[]string{"report", cur, "--compare", notEnv}, ExitInput, "not a run envelope: no schema_version"},
		{[]string{"report", cur, "--compare", baselineFile, "--fail-on", "everything"}, ExitInput, `--fail-on "everything": expected one of regressions, flips, failures, none`},
		{[]string{"report", cur, "--compare", baselineFile, "--format", "junit"}, ExitInput, `unknown format "junit" for a comparison`},
		{[]string{"report", cur, "--fail-on", "none"}, ExitInput, "--fail-on goes with --compare"},
		{[]string{"report", cur, "--format", "markdown"}, ExitInput, `--format markdown renders a comparison: give it with --compare BASELINE.json`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[2:], " "), func(t *testing.T) {
			_, stderr, code := mcptest(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.err)
			}
		})
	}
}

// shardRun writes the envelope of `run --shard` (or the whole run when
// shard is "") of suite into dir.
func shardRun(t *testing.T, suite, dir, shard string) string {
	t.Helper()
	out := filepath.Join(dir, "whole.json")
	args := []string{"run", "--config", suite, "--reporter", "json", "--output"}
	if shard != "" {
		out = filepath.Join(dir, "shard-"+strings.ReplaceAll(shard, "/", "-of-")+".json")
		args = append(args, out, "--shard", shard)
	} else {
		args = append(args, out)
	}
	_, stderr, code := mcptest(t, nil, args...)
	if code > ExitFail {
		t.Fatalf("run %v: exit %d\n%s", args, code, stderr)
	}
	return out
}

// TestShardMerge: the shards of every example, merged, give the envelope of
// the unsharded run, byte for byte apart from run id, start and duration;
// one example a parallel subtest.
func TestShardMerge(t *testing.T) {
	suites, _ := filepath.Glob("../../examples/*/suite.yml")
	counts := []int{1, 2, 3, 5}
	if !long() {
		// Without MCPTEST_LONG (long_test.go) each suite is merged from
		// three shards; the counts 1, 2 and 5 run with it.
		counts = []int{3}
	}
	for _, suite := range suites {
		t.Run(filepath.Base(filepath.Dir(suite)), func(t *testing.T) {
			if text, _ := os.ReadFile(suite); !long() && bytes.Contains(text, []byte("\nservers:")) {
				// A suite that starts a server (conformance's compiles
				// mcptest with go run) takes minutes for its five runs.
				t.Skipf("it starts a live server for each of its runs: %s=1 merges it", longEnv)
			}
			t.Parallel()
			shardMerge(t, suite, counts)
		})
	}
}

// shardMerge runs suite whole and as n shards for each n of counts, and
// holds the merged envelope to the whole run's.
func shardMerge(t *testing.T, suite string, counts []int) {
	for _, n := range counts {
		dir := t.TempDir()
		whole, _ := os.ReadFile(shardRun(t, suite, dir, ""))
		args := []string{"report", "merge"}
		for i := 1; i <= n; i++ {
			args = append(args, shardRun(t, suite, dir, strconv.Itoa(i)+"/"+strconv.Itoa(n)))
		}
		merged := filepath.Join(dir, "merged.json")
		_, stderr, code := mcptest(t, nil, append(args, "--output", merged)...)
		if code != ExitOK || !strings.Contains(stderr, "envelopes merged into") {
			t.Fatalf("%s n=%d: merge exit %d\n%s", suite, n, code, stderr)
		}
		got, _ := os.ReadFile(merged)
		if normalize(string(got)) != normalize(string(whole)) {
			t.Errorf("%s n=%d: merged envelope differs from the unsharded run\n--- merged\n%s\n--- whole\n%s", suite, n, got, whole)
		}
	}
}

// TestMergeErrors: overlapping, incomplete and mismatched shards are
// refused with exit 2 and a message naming the problem.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	a := shardRun(t, baselineSuite, dir, "1/2")
	b := shardRun(t, baselineSuite, dir, "2/2")
	whole := shardRun(t, baselineSuite, dir, "")
	other := shardRun(t, "../../examples/quickstart/suite.yml", t.TempDir(), "2/2")
	third := shardRun(t, baselineSuite, dir, "1/3")
	edit := func(src, name string, f func(map[string]any)) string {
		data, _ := os.ReadFile(src)
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		f(doc)
		out, _ := json.Marshal(doc)
		p := filepath.Join(dir, name)
		os.WriteFile(p, out, 0o644)
		return p
	}
	newer := edit(b, "newer.json", func(d map[string]any) { d["tool"].(map[string]any)["version"] = "9.9.9" })
	v2 := edit(b, "v2.json", func(d map[string]any) { d["schema_version"] = 2 })
	lying := edit(a, "lying.json", func(d map[string]any) { d["run"].(map[string]any)["shard"] = "2/2" })

	tests := []struct {
		name  string
		files []string
		err   string
	}{
		{"same shard twice", []string{a, a, b}, "shard 1/2 is given twice"},
		{"overlapping runs", []string{whole, whole}, "case \"research-agent picks search then fetch\" is in both"},
		{"missing shard", []string{a}, "incomplete: shard 2/2 missing"},
		{"other suite", []string{a, other}, "are not shards of one run: suite sha256"},
		{"other split", []string{a, third}, "is one of 2 shards: merge the shards of one split"},
		{"shard and whole run", []string{a, b, whole}, "is not a shard"},
		{"other mcptest version", []string{a, newer}, "mcptest version mcptest 0.1.0 vs mcptest 9.9.9"},
		{"other schema version", []string{a, v2}, "run envelope schema_version 2, this mcptest reads 1"},
		{"a case in the wrong shard", []string{lying, b}, "which belongs to another shard"},
		{"no files", nil, "report merge takes the shard envelopes to merge"},
		{"missing file", []string{a, "testdata/nope.json"}, "testdata/nope.json: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, append([]string{"report", "merge"}, tt.files...)...)
			if code != ExitInput || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, ExitInput, tt.err)
			}
			if stdout != "" {
				t.Errorf("stdout on error: %s", stdout)
			}
		})
	}
	// A case in a shard it does not belong to.
	wrong := edit(a, "wrong.json", func(d map[string]any) { d["run"].(map[string]any)["shard"] = "1/3" })
	_, stderr, code := mcptest(t, nil, "report", "merge", wrong, shardRun(t, baselineSuite, dir, "2/3"), shardRun(t, baselineSuite, dir, "3/3"))
	if code != ExitInput || !strings.Contains(stderr, "which belongs to another shard") {
		t.Errorf("wrong shard: exit %d, stderr %q", code, stderr)
	}
}

func TestShardFlag(t *testing.T) {
	for _, tt := range []struct {
		shard string
		err   string
	}{
		{"0/2", "the shard number is 1-based"},
		{"3/2", "the shard number is 1-based and at most the number of shards"},
		{"1/0", "the number of shards must be between 1 and"},
		{"-1/2", "the shard number is 1-based"},
		{"a/b", "expected i/n with whole numbers"},
		{"2", "expected i/n, such as 1/4"},
		{"1/100000", "the number of shards must be between 1 and 10000"},
	} {
		_, stderr, code := mcptest(t, nil, "run", "--config", baselineSuite, "--shard", tt.shard)
		if code != ExitInput || !strings.Contains(stderr, "--shard: ") || !strings.Contains(stderr, tt.err) {
			t.Errorf("--shard %s: exit %d, stderr %q; want exit 2 and %q", tt.shard, code, stderr, tt.err)
		}
	}
	stdout, _, _ := mcptest(t, nil, "run", "--config", baselineSuite, "--shard", "1/2", "--reporter", "json")
	if !strings.Contains(stdout, `"shard": "1/2"`) {
		t.Errorf("the envelope does not record its shard:\n%s", stdout)
	}
}

// TestBaselineExampleReproducible: the baseline example's baseline.json is
// what the earlier suite and cassettes give today, so the example keeps
// showing the flips it was written for.
func TestBaselineExampleReproducible(t *testing.T) {
	t.Chdir("../..")
	stdout, _, code := mcptest(t, nil, "run", "--config", "examples/baseline/earlier/suite.yml", "--reporter", "json")
	if code != ExitFail {
		t.Errorf("exit %d, want %d", code, ExitFail)
	}
	saved, err := os.ReadFile("examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	if normalize(stdout) != normalize(string(saved)) {
		t.Errorf("examples/baseline/baseline.json is stale; rewrite it, with no git on the PATH so that it records no source, with\n  go build -o /tmp/mcptest ./cmd/mcptest && PATH=/nonexistent /tmp/mcptest run --config examples/baseline/earlier/suite.yml --format json --output examples/baseline/baseline.json\nthen put back its run header (id 01M84QFR5RWDJ0P7H1J4SAKGPB, started_at, duration_ms), which baseline's and the viewer's tests name")
	}
}
