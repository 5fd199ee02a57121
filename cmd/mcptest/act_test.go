package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// The Action under a real runner emulator: nektos/act runs the example
// workflows (examples/workflows) on the host, the real action.yml included,
// with local stand-ins for the actions they use (testdata/act/actions), a
// local release of the binary for the Action's resolver, and the GitHub API
// stand-in for everything the binary asks of GitHub. docs/testing.md, "The
// Action under act", says what runs and what act cannot do.

// actVersion is the act release .ci/run installs (go install
// github.com/nektos/act@actVersion).
const actVersion = "v0.2.89"

// actRelease is the version the local release server publishes, under the
// v1 the example workflows use the Action at.
const actRelease = "1.9.0"

// actBinary finds act: MCPTEST_ACT, else act on PATH, else GOPATH/bin/act.
// Missing, the test skips, or fails under CI=true.
func actBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPTEST_ACT"); p != "" {
		return checker(t, "act (MCPTEST_ACT)", p, "go install github.com/nektos/act@"+actVersion)
	}
	if p, err := exec.LookPath("act"); err == nil {
		return p
	}
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "act")
	return checker(t, "act", p, "go install github.com/nektos/act@"+actVersion+" (or set MCPTEST_ACT to its path)")
}

// actFixture is what the act runs share: the fixture repository on a local
// git host, the directories the stand-in actions store into, the Action's
// checkout, the release server and the API stand-in.
type actFixture struct {
	t    *testing.T
	act  string
	root string
	// git is the local git host (MCPTEST_ACT_GIT): acme/agents.git, and
	// fork/agents.git for the fork's pull request.
	git string
	// commits are the fixture repository's commits by name.
	commits map[string]string
	// artifacts, cache: the stores of the upload-artifact and cache
	// stand-ins; actions: act's action and workspace cache.
	artifacts, cache, actions string
	// action is the Action's checkout that mcptest/mcptest@v1 maps to.
	action string
	api    *ghapitest.Server
	rel    *actReleaseServer
}

// actReleaseServer serves a release of mcptest/mcptest as GitHub does to
// the Action's resolver: the releases list under /api and the assets under
// /dl. With NoRelease set it lists none, so the Action builds from source.
type actReleaseServer struct {
	*httptest.Server
	files     map[string][]byte
	NoRelease bool
	Served    []string
}

// newActReleaseServer packs bin as the release actRelease for linux/amd64
// in goreleaser's layout with a checksums.txt, and serves it.
func newActReleaseServer(t *testing.T, bin string) *actReleaseServer {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	name := archiveName(actRelease, runtime.GOOS, runtime.GOARCH)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		body []byte
	}{{"mcptest", 0o755, data}, {"LICENSE", 0o644, []byte("Apache-2.0\n")}, {"README.md", 0o644, []byte("mcptest\n")}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write(f.body)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	r := &actReleaseServer{files: map[string][]byte{name: buf.Bytes(),
		"checksums.txt": fmt.Appendf(nil, "%s  %s\n", sha256Hex(buf.Bytes()), name)}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *actReleaseServer) serve(w http.ResponseWriter, req *http.Request) {
	r.Served = append(r.Served, req.URL.Path)
	switch {
	case req.URL.Path == "/api/repos/mcptest/mcptest/releases":
		if r.NoRelease {
			fmt.Fprint(w, `[]`)
			return
		}
		fmt.Fprintf(w, `[{"tag_name": "v2.0.0"}, {"tag_name": "v%s"}, {"tag_name": "v1.0.0"}]`, actRelease)
	case strings.HasPrefix(req.URL.Path, "/dl/") && req.Header.Get("Authorization") != "":
		http.Error(w, "a token was sent to the download host", http.StatusForbidden)
	case strings.HasPrefix(req.URL.Path, "/dl/mcptest/mcptest/releases/download/v"+actRelease+"/"):
		b, ok := r.files[filepath.Base(req.URL.Path)]
		if !ok {
			http.NotFound(w, req)
			return
		}
		_, _ = w.Write(b)
	default:
		http.NotFound(w, req)
	}
}

// actSource is the source tree the Action's checkout and the released
// binary come from: the working tree's tracked files, or the commit
// MCPTEST_ACT_SOURCE names (to show the test failing on an older main).
func actSource(t *testing.T, dest string) {
	t.Helper()
	if ref := os.Getenv("MCPTEST_ACT_SOURCE"); ref != "" {
		cmd := exec.Command("sh", "-c", `mkdir -p "$DEST" && git -C ../.. archive "$REF" | tar -x -C "$DEST"`)
		cmd.Env = append(os.Environ(), "REF="+ref, "DEST="+dest)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git archive %s: %v\n%s", ref, err, out)
		}
		return
	}
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		from := filepath.Join("../..", name)
		fi, err := os.Lstat(from)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dest, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// newActFixture builds the fixture: the Action's checkout, the binary
// built from it and released, the API stand-in, and the fixture
// repository: main holds examples/baseline/earlier (every case that is in
// both passes), feature's first commit the later suite of
// examples/baseline (the research agent's F1 floor regresses), its second
// the research and support cassettes restored (no case fails).
func newActFixture(t *testing.T) *actFixture {
	t.Helper()
	// What the runs need that may be missing, before the build: a
	// checkout without them skips (fails under CI) at once.
	act, spec := actBinary(t), ghapitest.Require(t)
	root := t.TempDir()
	f := &actFixture{t: t, act: act, root: root, git: filepath.Join(root, "git"), commits: map[string]string{},
		artifacts: filepath.Join(root, "artifacts"), cache: filepath.Join(root, "cache"), actions: filepath.Join(root, "act-cache"),
		action: filepath.Join(root, "action")}
	actSource(t, f.action)
	bin := filepath.Join(root, "bin", "mcptest")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version="+actRelease, "-o", bin, "./cmd/mcptest")
	build.Dir = f.action
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcptest: %v\n%s", err, out)
	}
	f.rel = newActReleaseServer(t, bin)
	f.api = ghapitest.New(t, spec, "acme", "agents")
	f.fixtureRepo()
	return f
}

// fixtureRepo commits the fixture suite's states into a work tree and
// pushes them to the local git host.
func (f *actFixture) fixtureRepo() {
	f.t.Helper()
	work := filepath.Join(f.root, "work")
	ex := "../../examples/baseline"
	f.git1(work, "init", "-q", "-b", "main", ".")
	f.copyTree(filepath.Join(ex, "earlier"), work)
	f.commit(work, "main", "the suite as it was")
	f.git1(work, "checkout", "-q", "-b", "feature")
	f.git1(work, "rm", "-q", "-r", "suite.yml", "cassettes")
	f.copyTree(ex, work, "earlier", "baseline.json")
	f.commit(work, "pr1", "re-record the agents")
	for _, c := range []string{"research.json", "support.json"} {
		f.copyFile(filepath.Join(ex, "earlier/cassettes", c), filepath.Join(work, "cassettes", c))
	}
	f.commit(work, "pr2", "restore the research and support agents")
	// The default branch after the pull request is merged: drift compares
	// it with the baseline uploaded before.
	f.git1(work, "checkout", "-q", "main")
	f.git1(work, "merge", "-q", "--ff-only", "feature~1")
	f.commits["main2"] = strings.TrimSpace(f.git1(work, "rev-parse", "HEAD"))
	f.git1(work, "reset", "-q", "--hard", f.commits["main"])
	for _, repo := range []string{"acme/agents", "fork/agents"} {
		bare := filepath.Join(f.git, repo+".git")
		f.git1(f.root, "init", "-q", "--bare", bare)
		for name, sha := range f.commits {
			f.git1(work, "push", "-q", bare, sha+":refs/heads/"+name)
		}
		// A clone fetches a commit by its id as GitHub allows.
		f.git1(bare, "config", "uploadpack.allowAnySHA1InWant", "true")
	}
}

func (f *actFixture) git1(dir string, args ...string) string {
	f.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=mcptest", "GIT_AUTHOR_EMAIL=mcptest@example.com", "GIT_COMMITTER_NAME=mcptest",
		"GIT_COMMITTER_EMAIL=mcptest@example.com", "GIT_AUTHOR_DATE=2026-11-20T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-20T10:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (f *actFixture) commit(work, name, msg string) {
	f.t.Helper()
	f.git1(work, "add", "-A")
	f.git1(work, "commit", "-q", "-m", msg)
	f.commits[name] = strings.TrimSpace(f.git1(work, "rev-parse", "HEAD"))
}

// copyTree copies the files under from into to, but the top-level skip.
func (f *actFixture) copyTree(from, to string, skip ...string) {
	f.t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if !d.IsDir() {
			f.copyFile(p, filepath.Join(to, rel))
		}
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *actFixture) copyFile(from, to string) {
	f.t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// actRow is one act run of the table: a workflow file run on an event, in
// order, the runs before it having left their artifacts, comments and
// issues with the stand-ins.
type actRow struct {
	name string
	// workflow is the file under examples/workflows; event and payload
	// what started it (payload gets a repository object added).
	workflow, event string
	payload         func(f *actFixture) map[string]any
	// runID is GITHUB_RUN_ID; sha the fixture commit checked out
	// (github.sha); ref is GITHUB_REF.
	runID    int64
	sha, ref string
	// env and inputs are more --env and --input of act.
	env, inputs map[string]string
	// readOutputs appends a step to the job that prints the outputs of the
	// step with this id, as a later step of a user's job reads them.
	readOutputs string
	// noRelease lists no v1 release, so the Action builds from source.
	noRelease bool
	// before prepares the stand-ins (a run and its artifacts to fetch).
	before func(f *actFixture)
	// wantFail: the job fails (act exits non-zero) from the Action's step.
	wantFail bool
	// check asserts on what the run left: its log, the stand-ins.
	check func(t *testing.T, f *actFixture, res actResult)
}

// actResult is an act run: its exit code and its log (see actLog).
type actResult struct {
	code int
	log  string
}

// has reports whether a line of the log contains s.
func (r actResult) has(s string) bool { return strings.Contains(r.log, s) }

// run runs one row through act.
func (f *actFixture) run(t *testing.T, row actRow) actResult {
	t.Helper()
	f.rel.NoRelease = row.noRelease
	if row.before != nil {
		row.before(f)
	}
	dir := filepath.Join(f.root, "runs", row.name)
	workspace := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	payload := row.payload(f)
	payload["repository"] = map[string]any{"full_name": "acme/agents", "name": "agents", "owner": map[string]any{"login": "acme"}, "default_branch": "main"}
	event, _ := json.Marshal(payload)
	eventFile := filepath.Join(dir, "event.json")
	workflow := filepath.Join(dir, row.workflow)
	f.writeWorkflow(t, row, workflow)
	if err := os.WriteFile(eventFile, event, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{row.event, "-W", workflow, "-e", eventFile, "-C", workspace, "--json",
		"-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-skip-checkout", "--pull=false",
		"--no-cache-server", "--action-cache-path", f.actions, "--defaultbranch", "main",
		// One job at a time: on the host every job of a run shares the one
		// workspace, where a runner gives each its own machine. act still
		// starts a matrix's jobs together, so the checkout stand-in takes a
		// lock around its clone.
		"--concurrent-jobs", "1",
		"-s", "GITHUB_TOKEN=ghs_act_token",
		"--local-repository", "mcptest/mcptest@v1=" + f.action}
	for _, a := range []string{"checkout@v4", "cache@v4", "setup-go@v5", "upload-artifact@v4", "download-artifact@v4"} {
		name, _, _ := strings.Cut(a, "@")
		abs, _ := filepath.Abs(filepath.Join("testdata/act/actions", name))
		args = append(args, "--local-repository", "actions/"+a+"="+abs)
	}
	env := map[string]string{
		"GITHUB_API_URL": f.api.URL, "GITHUB_REPOSITORY": "acme/agents", "GITHUB_REPOSITORY_OWNER": "acme",
		"GITHUB_RUN_ID": fmt.Sprint(row.runID), "GITHUB_REF": row.ref, "SHA_REF": f.commits[row.sha],
		"MCPTEST_API_URL": f.rel.URL + "/api", "MCPTEST_DOWNLOAD_URL": f.rel.URL + "/dl",
		"MCPTEST_ACT_GIT": f.git, "MCPTEST_ACT_ARTIFACTS": f.artifacts, "MCPTEST_ACT_CACHE": f.cache,
	}
	for k, v := range row.env {
		env[k] = v
	}
	for k, v := range env {
		args = append(args, "--env", k+"="+v)
	}
	for k, v := range row.inputs {
		args = append(args, "--input", k+"="+v)
	}
	cmd := exec.Command(f.act, args...)
	// act reads no user configuration (an .actrc's flags) from this test's
	// runs; the runner's variables of an enclosing CI job do not leak in.
	cmd.Env = append(actHostEnv(), "XDG_CONFIG_HOME="+filepath.Join(f.root, "xdg"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	res := actResult{log: actLog(out)}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("act: %v", err)
	}
	t.Logf("%s: act exit %d in %s", row.name, res.code, time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(filepath.Join(dir, "act.log"), []byte(res.log), 0o644); err != nil {
		t.Fatal(err)
	}
	return res
}

// actHostEnv is the test's environment without the variables a runner
// sets (GITHUB_*, RUNNER_*, ACTIONS_*, INPUT_*): act sets its own.
func actHostEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "RUNNER_") || strings.HasPrefix(k, "ACTIONS_") ||
			strings.HasPrefix(k, "INPUT_") || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// actLog is the messages of act's JSON log, one a line, a step's result and
// the job's appended, a step's exit code prefixed with the step's ids ("step
// mcptest/run: exit status 1"); a line that is not JSON is kept as it is.
func actLog(out []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Msg        string   `json:"msg"`
			Level      string   `json:"level"`
			Step       string   `json:"step"`
			StepID     []string `json:"stepID"`
			StepResult string   `json:"stepResult"`
			JobResult  string   `json:"jobResult"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			fmt.Fprintln(&b, sc.Text())
			continue
		}
		msg := strings.TrimRight(line.Msg, "\n")
		if line.Level == "error" && strings.HasPrefix(msg, "exit status ") {
			// A step's command exited non-zero: which step, by its ids
			// (an action's step within the job's step).
			msg = "step " + strings.Join(line.StepID, "/") + ": " + msg
		}
		if line.StepResult != "" {
			msg += " [step " + line.Step + ": " + line.StepResult + "]"
		}
		if line.JobResult != "" {
			msg += " [job: " + line.JobResult + "]"
		}
		fmt.Fprintln(&b, msg)
	}
	return b.String()
}

// writeWorkflow copies the example workflow; with readOutputs it appends a
// step to each job that prints that step's outputs, as a user's later step
// reads them.
func (f *actFixture) writeWorkflow(t *testing.T, row actRow, dest string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../examples/workflows", row.workflow))
	if err != nil {
		t.Fatal(err)
	}
	if row.readOutputs != "" {
		data = appendOutputStep(t, data, row.readOutputs)
	}
	if err := os.WriteFile(dest, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// actOutputs are the Action's outputs the appended step prints.
var actOutputs = []string{"verdict", "passed", "failed", "flips", "regressions", "fixes", "baseline-found", "baseline-run-id", "comment-id"}

// appendOutputStep appends to every job of a workflow a step that runs
// always and prints `outputs: NAME=VALUE ...` of the step with id.
func appendOutputStep(t *testing.T, data []byte, id string) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var line []string
	for _, o := range actOutputs {
		line = append(line, fmt.Sprintf("%s=${{ steps.%s.outputs.%s }}", o, id, o))
	}
	step := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range [][2]string{{"name", "read the outputs"}, {"if", "always()"}, {"shell", "bash"}, {"run", "echo \"outputs: " + strings.Join(line, " ") + "\""}} {
		step.Content = append(step.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[0]}, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[1]})
	}
	jobs := mapValue(doc.Content[0], "jobs")
	for i := 1; jobs != nil && i < len(jobs.Content); i += 2 {
		if steps := mapValue(jobs.Content[i], "steps"); steps != nil {
			steps.Content = append(steps.Content, step)
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; m != nil && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// checkCheckout checks the checkout stand-in's work against the workflow's
// checkout step: the row's commit checked out, and the token kept in the
// workspace's .git/config unless the step says persist-credentials: false.
func (f *actFixture) checkCheckout(t *testing.T, row actRow, res actResult) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../examples/workflows", row.workflow))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for _, job := range wf.Jobs {
		for _, st := range job.Steps {
			if !strings.HasPrefix(st.Uses, "actions/checkout@") {
				continue
			}
			kept := "yes"
			if st.With["persist-credentials"] == "false" {
				kept = "no"
			}
			want := fmt.Sprintf("checkout stand-in: acme/agents at %s; token kept in .git/config: %s", f.commits[row.sha], kept)
			if !res.has(want) {
				t.Errorf("the log lacks %q (persist-credentials %q)", want, st.With["persist-credentials"])
			}
		}
	}
}

// uploaded is the artifact run id uploaded under name, zipped as GitHub
// serves it; the test fails when the run uploaded none.
func (f *actFixture) uploaded(runID int64, name string) []byte {
	f.t.Helper()
	dir := filepath.Join(f.artifacts, fmt.Sprint(runID), name)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		n++
		_, err = w.Write(data)
		return err
	})
	if err != nil || n == 0 {
		f.t.Fatalf("run %d uploaded no artifact %s (%v)", runID, name, err)
	}
	if err := zw.Close(); err != nil {
		f.t.Fatal(err)
	}
	return buf.Bytes()
}
