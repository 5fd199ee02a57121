package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// shardCount is the split of the sharded tests: examples/baseline's six
// cases over four shards leave shard 1/4 empty, which must merge too.
const shardCount = 4

// shardPath is where the matrix job of shard i writes its envelope: a
// name of its own, so the shards' artifacts download into one directory.
func shardPath(dir string, i int) string {
	return filepath.Join(dir, "mcptest-shards", fmt.Sprintf("mcptest-shard-%d.json", i))
}

// runShards runs the matrix jobs (mode shard, args --shard i/n) of r's
// suite, each writing its envelope under dir/mcptest-shards, and checks
// each leaves what a shard job must: exit 0 whatever its cases, its counts
// and report-path as outputs, no annotation of a case and no API call.
func runShards(t *testing.T, r *runner, srv *ghapitest.Server, n int) string {
	t.Helper()
	saved := map[string]string{}
	for _, k := range []string{"INPUT_MODE", "INPUT_ARGS", "INPUT_REPORT-PATH"} {
		saved[k] = r.env[k]
	}
	defer func() {
		for k, v := range saved {
			r.env[k] = v
		}
	}()
	before := len(srv.Log)
	for i := 1; i <= n; i++ {
		r.env["INPUT_MODE"], r.env["INPUT_ARGS"], r.env["INPUT_REPORT-PATH"] = "shard", fmt.Sprintf("--shard %d/%d", i, n), shardPath(r.dir, i)
		res := r.run()
		if res.code != ExitOK || res.annotations != "" || res.outputs["report-path"] != shardPath(r.dir, i) || res.outputs["verdict"] != "" {
			t.Fatalf("shard %d/%d: exit %d (want 0), annotations %q, outputs %v\n%s%s", i, n, res.code, res.annotations, res.outputs, res.stdout, res.stderr)
		}
		if !strings.Contains(res.summary, fmt.Sprintf("mcptest shard %d/%d of ", i, n)) {
			t.Errorf("shard %d/%d: summary %q", i, n, res.summary)
		}
	}
	if len(srv.Log) != before {
		t.Errorf("the shard jobs called the API: %v", srv.Log[before:])
	}
	return filepath.Join(r.dir, "mcptest-shards")
}

// TestActionShardedEqualsUnsharded: four shard jobs and one merge job over
// a suite leave what one unsharded check leaves, byte for byte once run
// ids and durations are blanked: the verdict and exit code, the outputs,
// the job summary, the annotations, the sticky comment (one, kept once)
// and the envelope written at report-path; the baseline is fetched once.
// On a push the merge job is the baseline run of the whole suite, as the
// unsharded one is.
func TestActionShardedEqualsUnsharded(t *testing.T) {
	for _, c := range []struct {
		name, event string
		payload     map[string]any
	}{
		{"pull_request", "pull_request", prEvent(7, "acme/agents", "head0001")},
		{"push", "push", map[string]any{"ref": "refs/heads/main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole, merged := newServer(t), newServer(t)
			for _, srv := range []*ghapitest.Server{whole, merged} {
				srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			}
			r := newRunner(t, whole, c.event, c.payload)
			want := r.run()
			wantEnv := readNormalized(t, r, r.env["INPUT_REPORT-PATH"])
			if err := os.Remove(r.env["INPUT_REPORT-PATH"]); err != nil {
				t.Fatal(err)
			}

			r.env["GITHUB_API_URL"] = merged.URL
			r.env["INPUT_SHARDS"] = runShards(t, r, merged, shardCount)
			r.env["INPUT_MODE"] = "merge"
			got := r.run()
			if !strings.Contains(got.stdout, "mcptest: merged 4 shard envelopes: 1/4 ") {
				t.Errorf("the merge job does not say what it merged:\n%s", got.stdout)
			}
			if got.code != want.code {
				t.Errorf("exit %d, the unsharded run's %d\n%s%s", got.code, want.code, got.stdout, got.stderr)
			}
			for k, v := range want.outputs {
				if got.outputs[k] != v {
					t.Errorf("output %s = %q, the unsharded run's %q", k, got.outputs[k], v)
				}
			}
			if len(got.outputs) != len(want.outputs) {
				t.Errorf("outputs %v, the unsharded run's %v", got.outputs, want.outputs)
			}
			sameText(t, "job summary", stable(r, got.summary), stable(r, want.summary))
			sameText(t, "annotations", stable(r, got.annotations), stable(r, want.annotations))
			sameText(t, "run envelope", readNormalized(t, r, r.env["INPUT_REPORT-PATH"]), wantEnv)
			if len(merged.Comments) != len(whole.Comments) {
				t.Fatalf("%d comments, the unsharded run left %d", len(merged.Comments), len(whole.Comments))
			}
			for i := range whole.Comments {
				sameText(t, "comment", stable(r, merged.Comments[i].Body), stable(r, whole.Comments[i].Body))
			}
			for _, op := range []string{"actions/download-artifact", "issues/create-comment", "issues/update-comment"} {
				if g, w := merged.Count(op), whole.Count(op); g != w {
					t.Errorf("%s served %d times, for the unsharded run %d", op, g, w)
				}
			}
			if c.event == "pull_request" && (want.code != ExitFail || len(whole.Comments) != 1 || merged.Count("actions/download-artifact") != 1) {
				t.Errorf("the unsharded check: exit %d, %d comments, %d downloads; want 1, 1, 1 (a regression, one comment, the baseline fetched once)",
					want.code, len(whole.Comments), merged.Count("actions/download-artifact"))
			}
		})
	}
}

// readNormalized reads an envelope the Action wrote, run ids, times and
// durations blanked.
func readNormalized(t *testing.T, r *runner, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return stable(r, string(data))
}

// sameText fails with both texts when they differ.
func sameText(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s differs from the unsharded run's\n--- sharded and merged\n%s\n--- unsharded\n%s", what, got, want)
	}
}

// TestActionShardErrors: what cannot be a sharded run is exit 2, saying
// what was wrong and what was expected, before any API call: a shard job
// without --shard, a check of one shard, a merge without shards or of a
// missing, doubled or foreign shard, a file that is no shard, a link, and
// envelopes over max-artifact-bytes.
func TestActionShardErrors(t *testing.T) {
	quick := func(t *testing.T, r *runner) string {
		dir := filepath.Join(r.dir, "quick")
		r2 := newRunner(t, nil, "pull_request", prEvent(7, "acme/agents", "h"))
		r2.env["INPUT_CONFIG"], r2.env["INPUT_MODE"] = "../examples/quickstart/suite.yml", "shard"
		r2.env["INPUT_ARGS"], r2.env["INPUT_REPORT-PATH"] = "--shard 2/4", filepath.Join(dir, "q.json")
		if res := r2.run(); res.code != ExitOK {
			t.Fatalf("quickstart shard: exit %d\n%s%s", res.code, res.stdout, res.stderr)
		}
		return filepath.Join(dir, "q.json")
	}
	for _, c := range []struct {
		name  string
		env   map[string]string
		setup func(t *testing.T, r *runner, shards string)
		want  string
	}{
		{name: "shard without --shard", env: map[string]string{"INPUT_MODE": "shard"}, want: "mode shard runs one shard of the suite: expected args: --shard i/n"},
		{name: "check of one shard", env: map[string]string{"INPUT_MODE": "check", "INPUT_ARGS": "--shard 1/4"}, want: "input args: --shard 1/4 with mode check: one shard compared with the whole suite's baseline reads the other shards' cases as removed; expected mode: shard"},
		{name: "baseline of one shard", env: map[string]string{"INPUT_MODE": "baseline", "INPUT_ARGS": "--shard 1/4"}, want: "--shard 1/4 with mode baseline"},
		{name: "merge without shards", env: map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS": ""}, want: "mode merge merges the shard envelopes: expected the input shards"},
		{name: "shards without merge", env: map[string]string{"INPUT_MODE": "check"}, want: "goes with mode: merge; this is mode check"},
		{name: "a shard of the merge", env: map[string]string{"INPUT_MODE": "merge", "INPUT_ARGS": "--shard 1/4"}, want: "--shard 1/4 with mode merge"},
		{name: "nothing there", env: map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS": "nowhere/*.json"}, want: `input shards "nowhere/*.json": no shard envelope there: expected the files the mode: shard jobs wrote`},
		{name: "bad glob", env: map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS": "[x"}, want: `input shards "[x": syntax error in pattern; expected a directory or a glob`},
		{name: "missing shard", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			_ = os.Remove(shardPath(r.dir, 3))
		}, want: "input shards: incomplete: shard 3/4 missing (every shard 1/4 .. 4/4 is needed)"},
		{name: "shard twice", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			data, _ := os.ReadFile(shardPath(r.dir, 2))
			write(t, filepath.Join(shards, "mcptest-shard-2-again.json"), data)
		}, want: "input shards: shard 2/4 is given twice ("},
		{name: "another split", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			retag(t, shardPath(r.dir, 1), "1/4", "1/5")
		}, want: "is one of 5 shards: merge the shards of one split"},
		{name: "another suite", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			q := quick(t, r)
			data, _ := os.ReadFile(q)
			write(t, shardPath(r.dir, 2), data)
		}, want: "are not shards of one run: suite sha256 "},
		{name: "another config", env: map[string]string{"INPUT_MODE": "merge", "INPUT_CONFIG": "../examples/quickstart/suite.yml"}, want: "input shards: the shards ran the suite ../examples/baseline/suite.yml but config is ../examples/quickstart/suite.yml: expected the config the shard jobs were given"},
		{name: "not a shard", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			retag(t, shardPath(r.dir, 4), `"shard": "4/4"`, `"shard": ""`)
		}, want: "mcptest-shard-4.json is not a shard envelope (it has no run.shard): expected only the envelopes the mode: shard jobs wrote"},
		{name: "not an envelope", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			write(t, filepath.Join(shards, "notes.json"), []byte(`{"hello": 1}`))
		}, want: "notes.json"},
		{name: "a link", env: map[string]string{"INPUT_MODE": "merge"}, setup: func(t *testing.T, r *runner, shards string) {
			if err := os.Symlink("/etc/hostname", filepath.Join(shards, "zz.json")); err != nil {
				t.Skip(err)
			}
		}, want: "zz.json is a symbolic link, not a regular file: expected the shard envelopes themselves"},
		{name: "over max-artifact-bytes", env: map[string]string{"INPUT_MODE": "merge", "INPUT_MAX-ARTIFACT-BYTES": "6000"}, want: "input shards: the 4 shard envelopes hold more than max-artifact-bytes (6000 bytes) together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t)
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
			shards := runShards(t, r, srv, shardCount)
			r.env["INPUT_SHARDS"] = shards
			for k, v := range c.env {
				r.env[k] = v
			}
			if c.setup != nil {
				c.setup(t, r, shards)
			}
			res := r.run()
			if res.code != ExitInput || !strings.Contains(res.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", res.code, res.stderr, c.want)
			}
			if len(srv.Log) != 0 {
				t.Errorf("the API was called: %v", srv.Log)
			}
		})
	}
}

// retag rewrites one string of a shard envelope.
func retag(t *testing.T, file, from, to string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), from) {
		t.Fatalf("%s: %v, or it lacks %q", file, err, from)
	}
	write(t, file, []byte(strings.Replace(string(data), from, to, 1)))
}

// TestActionShardFromArgs: an empty mode with --shard in args is a shard
// job on any event but workflow_run: its failing cases do not fail the
// step, it makes no API call, and a glob names the shards as well as
// their directory does.
func TestActionShardFromArgs(t *testing.T) {
	srv := newServer(t)
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
	for i := 1; i <= 2; i++ {
		r.env["INPUT_ARGS"], r.env["INPUT_REPORT-PATH"] = fmt.Sprintf("--shard %d/2", i), shardPath(r.dir, i)
		res := r.run()
		if res.code != ExitOK || res.annotations != "" {
			t.Fatalf("shard %d/2: exit %d, annotations %q\n%s%s", i, res.code, res.annotations, res.stdout, res.stderr)
		}
		var env struct {
			Run struct{ Shard string }
		}
		data, _ := os.ReadFile(shardPath(r.dir, i))
		if err := json.Unmarshal(data, &env); err != nil || env.Run.Shard != strconv.Itoa(i)+"/2" {
			t.Errorf("shard %d/2: envelope run.shard %q (%v)", i, env.Run.Shard, err)
		}
	}
	if len(srv.Log) != 0 {
		t.Errorf("the shard jobs called the API: %v", srv.Log)
	}
	r.env["INPUT_ARGS"], r.env["INPUT_MODE"], r.env["INPUT_COMMENT"] = "", "merge", "false"
	r.env["INPUT_REPORT-PATH"] = filepath.Join(r.dir, "mcptest-shards", "mcptest-report.json")
	r.env["INPUT_SHARDS"] = filepath.Join(r.dir, "mcptest-shards", "*.json")
	res := r.run()
	// The merged envelope lands beside the shards; a second merge leaves
	// it out of the glob.
	for run := 1; run <= 2; run++ {
		if res.code != ExitFail || res.outputs["passed"] != "4" || res.outputs["failed"] != "2" {
			t.Fatalf("merge %d: exit %d, outputs %v\n%s%s", run, res.code, res.outputs, res.stdout, res.stderr)
		}
		res = r.run()
	}
}
