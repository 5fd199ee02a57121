package action

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

var (
	binDir  string
	binOnce sync.Once
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// mcptestBinary builds cmd/mcptest once per test binary, for the tests
// that run `mcptest action` as the runner does: a process with the
// runner's environment.
func mcptestBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mcptest-action-bin")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mcptest")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/mcptest").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build ../cmd/mcptest: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// runBinary runs `mcptest action` as a process with r's environment and
// nothing of this process's but PATH, HOME and TMPDIR (a real runner's
// GITHUB_* variables, when the tests run on one, never leak in), as the
// runner's run step does, and reads what the step leaves.
func (r *runner) runBinary() result {
	r.t.Helper()
	_ = os.Remove(r.env["GITHUB_OUTPUT"])
	_ = os.Remove(r.env["GITHUB_STEP_SUMMARY"])
	cmd := exec.Command(mcptestBinary(r.t), "action")
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr, cmd.Dir = &out, &errb, "."
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String(), outputs: map[string]string{}}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		r.t.Fatal(err)
	}
	if data, err := os.ReadFile(r.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = parseOutputs(r.t, string(data))
	}
	if data, err := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(data)
	}
	for _, l := range strings.SplitAfter(res.stdout, "\n") {
		if strings.HasPrefix(l, "::") {
			res.annotations += l
		}
	}
	return res
}

// TestBinaryShardedPR: the sharded workflow of examples/workflows as the
// runner runs it on a pull request, through the built binary: four
// matrix jobs (mode shard, args --shard i/4) each write their own
// envelope and make no API call; the merge job (mode merge, shards the
// directory the artifacts were downloaded into) fetches the baseline once,
// keeps one sticky comment (created, then found and left unchanged by a
// re-run), fails the step on the regression and writes the outputs, and
// its comment is the unsharded check's, run ids aside.
func TestBinaryShardedPR(t *testing.T) {
	srv, whole := newServer(t), newServer(t)
	for _, s := range []*ghapitest.Server{srv, whole} {
		s.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
		s.Comments = []*ghapitest.Comment{{ID: 5, Issue: 7, Body: "lgtm", User: "octocat"}}
	}
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
	r.env["RUNNER_OS"], r.env["RUNNER_ARCH"] = "Linux", "X64"
	// The workflow's own inputs, config set to the test suite and the
	// files put under the runner's directory: the shard jobs write their
	// envelopes where download-artifact puts them for the merge job.
	w := readShardedWorkflow(t)
	shardWith, mergeWith := w.step("shard", "mcptest/mcptest"), w.step("merge", "mcptest/mcptest")
	shards := filepath.Join(r.dir, mergeWith["shards"])
	for _, s := range []*ghapitest.Server{srv, whole} {
		s.Runs[0].Workflow = mergeWith["baseline-workflow"] // the push runs of this workflow record the baseline
	}
	runShardJobs(t, r, srv, w, shards)
	for k := range shardWith {
		delete(r.env, "INPUT_"+strings.ToUpper(k))
	}
	for k, v := range mergeWith {
		r.env["INPUT_"+strings.ToUpper(k)] = v
	}
	r.env["INPUT_CONFIG"], r.env["INPUT_SHARDS"] = actionSuite, shards
	r.env["INPUT_REPORT-PATH"] = filepath.Join(r.dir, "mcptest-report.json")
	res := r.runBinary()
	if res.code != ExitFail {
		t.Fatalf("merge: exit %d, want 1 (the regression)\n%s%s", res.code, res.stdout, res.stderr)
	}
	checkMergeJob(t, res, srv)
	id := strconv.FormatInt(srv.Comments[1].ID, 10)
	want := map[string]string{"verdict": "fail", "passed": "4", "failed": "2", "regressions": "1", "baseline-found": "true",
		"baseline-run-id": "41", "comment-id": id, "report-path": r.env["INPUT_REPORT-PATH"]}
	for k, v := range want {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, res.outputs[k], v)
		}
	}
	// A re-run of the merge job finds its comment and leaves it.
	if again := r.runBinary(); again.code != ExitFail || again.outputs["comment-id"] != id ||
		srv.Count("issues/create-comment") != 1 || srv.Count("issues/update-comment") != 0 {
		t.Errorf("re-run: exit %d, comment-id %q, %d creates, %d updates; want 1, %s, 1, 0",
			again.code, again.outputs["comment-id"], srv.Count("issues/create-comment"), srv.Count("issues/update-comment"), id)
	}

	// The unsharded check of the same suite, through the same binary.
	r.env["GITHUB_API_URL"], r.env["INPUT_MODE"], r.env["INPUT_SHARDS"] = whole.URL, "check", ""
	r.env["INPUT_BASELINE-WORKFLOW"] = mergeWith["baseline-workflow"]
	one := r.runBinary()
	if one.code != res.code || len(whole.Comments) != 2 {
		t.Fatalf("unsharded: exit %d, %d comments\n%s%s", one.code, len(whole.Comments), one.stdout, one.stderr)
	}
	sameText(t, "comment", stable(r, srv.Comments[1].Body), stable(r, whole.Comments[1].Body))
	sameText(t, "job summary", stable(r, res.summary), stable(r, one.summary))
	sameText(t, "annotations", stable(r, res.annotations), stable(r, one.annotations))
	for k, v := range one.outputs {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, the unsharded check's %q", k, res.outputs[k], v)
		}
	}
}

// runShardJobs runs the shard jobs of the workflow w as processes, each
// writing its envelope into shards, and checks they exit 0, annotate
// nothing and call no API.
func runShardJobs(t *testing.T, r *runner, srv *ghapitest.Server, w shardedWorkflow, shards string) {
	t.Helper()
	for _, i := range w.Jobs["shard"].Strategy.Matrix["shard"] {
		for k, v := range w.step("shard", "mcptest/mcptest") {
			r.env["INPUT_"+strings.ToUpper(k)] = strings.ReplaceAll(v, "${{ matrix.shard }}", fmt.Sprint(i))
		}
		r.env["INPUT_CONFIG"] = actionSuite
		r.env["INPUT_REPORT-PATH"] = filepath.Join(shards, r.env["INPUT_REPORT-PATH"])
		res := r.runBinary()
		if res.code != ExitOK || res.annotations != "" || res.outputs["report-path"] != r.env["INPUT_REPORT-PATH"] {
			t.Fatalf("shard %v: exit %d, annotations %q, outputs %v\n%s%s", i, res.code, res.annotations, res.outputs, res.stdout, res.stderr)
		}
	}
	if len(srv.Log) != 0 {
		t.Fatalf("the shard jobs called the API: %v", srv.Log)
	}
}

// checkMergeJob checks what the merge job of a pull request leaves: its
// log names the shards and the baseline, the stand-in saw the baseline
// downloaded once and one comment created on the pull request, and the
// regression is annotated.
func checkMergeJob(t *testing.T, res result, srv *ghapitest.Server) {
	t.Helper()
	for _, want := range []string{"mcptest: merged 4 shard envelopes: 1/4 ", "mcptest: baseline: run 41\n"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the merge job's log lacks %q:\n%s", want, res.stdout)
		}
	}
	if n := srv.Count("actions/download-artifact"); n != 1 {
		t.Errorf("the baseline artifact was downloaded %d times, want once", n)
	}
	if n := srv.Count("issues/create-comment"); n != 1 || len(srv.Comments) != 2 || srv.Comments[1].Issue != 7 {
		t.Fatalf("%d comments created (%d on the stand-in), want one on #7", n, len(srv.Comments))
	}
	if !strings.Contains(res.annotations, "::error ") {
		t.Errorf("the merge job annotates no regression:\n%s", res.annotations)
	}
}

// shardedWorkflow is examples/workflows/mcptest-sharded.yml, read as the
// runner reads the parts the sharded run depends on.
type shardedWorkflow struct {
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		If       string
		Strategy struct {
			Matrix map[string][]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// step is the with: of the job's step that uses an action starting with
// uses (nil when there is none).
func (w shardedWorkflow) step(job, uses string) map[string]string {
	for _, st := range w.Jobs[job].Steps {
		if strings.HasPrefix(st.Uses, uses+"@") {
			return st.With
		}
	}
	return nil
}

// readShardedWorkflow reads the example and checks its wiring: every
// checkout without persisted credentials, the inputs it gives the Action
// declared in action.yml, each shard's upload named apart and matched by
// the merge job's download pattern, merged into the directory the shards
// input names.
func readShardedWorkflow(t *testing.T) shardedWorkflow {
	t.Helper()
	data, err := os.ReadFile("../examples/workflows/mcptest-sharded.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w shardedWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	meta, _ := os.ReadFile("../action.yml")
	var decl struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(meta, &decl); err != nil {
		t.Fatal(err)
	}
	for name, job := range w.Jobs {
		for _, st := range job.Steps {
			if strings.HasPrefix(st.Uses, "actions/checkout@") && st.With["persist-credentials"] != "false" {
				t.Errorf("job %s: checkout without persist-credentials: false", name)
			}
			for k := range st.With {
				if strings.HasPrefix(st.Uses, "mcptest/mcptest@") && decl.Inputs[k] == nil {
					t.Errorf("job %s gives mcptest the input %s, which action.yml does not declare", name, k)
				}
			}
		}
	}
	shard, up, down := w.step("shard", "mcptest/mcptest"), w.step("shard", "actions/upload-artifact"), w.step("merge", "actions/download-artifact")
	merge := w.step("merge", "mcptest/mcptest")
	if shard == nil || up == nil || down == nil || merge == nil || len(w.Jobs["shard"].Strategy.Matrix["shard"]) != shardCount {
		t.Fatalf("the workflow lacks a %d-shard matrix job with mcptest and upload-artifact, or a merge job with download-artifact and mcptest", shardCount)
	}
	if fmt.Sprint(w.Jobs["merge"].Needs) != "shard" || !strings.Contains(w.Jobs["merge"].If, "!cancelled()") || down["merge-multiple"] != "true" || merge["shards"] != down["path"] || up["path"] != shard["report-path"] {
		t.Errorf("merge job: needs %v, download %v, mcptest %v; shard upload %v, mcptest %v", w.Jobs["merge"].Needs, down, merge, up, shard)
	}
	for _, i := range w.Jobs["shard"].Strategy.Matrix["shard"] {
		name := strings.ReplaceAll(up["name"], "${{ matrix.shard }}", fmt.Sprint(i))
		if ok, _ := filepath.Match(down["pattern"], name); !ok || name == up["name"] {
			t.Errorf("shard %v uploads %q, which the download pattern %q does not take", i, name, down["pattern"])
		}
	}
	return w
}
