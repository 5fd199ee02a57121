package action

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// withUserInfo puts user:password in an http URL, as a GITHUB_API_URL
// pointing at a proxy with basic authentication would carry them.
func withUserInfo(u, userinfo string) string {
	return strings.Replace(u, "://", "://"+userinfo+"@", 1)
}

// everything is what a run leaves for anyone to read: its streams, the
// summary, the outputs file and what the API stand-in holds.
func everything(r *runner, res result, srv *ghapitest.Server) string {
	out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
	all := res.stdout + res.stderr + res.summary + string(out)
	if srv != nil {
		srv.Lock()
		for _, c := range srv.Comments {
			all += c.Body
		}
		for _, is := range srv.Issues {
			all += is.Title + is.Body
		}
		srv.Unlock()
	}
	return all
}

// TestActionAPIURLNeverPrinted: the user-info of GITHUB_API_URL (and the
// signed query of an artifact download) appears in no stream, summary,
// output or comment, whether the API is unreachable, answers 500, refuses
// the comment, answers well, or the URL itself is not usable.
func TestActionAPIURLNeverPrinted(t *testing.T) {
	const userinfo = "secret-user:secret-pass"
	for _, c := range []struct {
		name  string
		setup func(srv *ghapitest.Server)
		url   func(srv *ghapitest.Server) string
		mode  string
	}{
		{name: "connection refused", url: func(*ghapitest.Server) string { return withUserInfo("http://127.0.0.1:1", userinfo) }},
		{name: "not an http URL", url: func(*ghapitest.Server) string { return withUserInfo("ftp://127.0.0.1:1/x?token=secret-q", userinfo) }},
		{name: "answers 500", setup: func(srv *ghapitest.Server) {
			for _, op := range []string{"repos/get", "issues/list-comments"} {
				srv.Fail5xx[op] = 1000
			}
		}},
		{name: "comment refused", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.ForbidWrites = true
		}},
		{name: "answers", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
		}},
		{name: "download 500", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.Fail5xx["actions/download-artifact"] = 1000
		}},
		{name: "drift issue 500", mode: "schedule", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.Fail5xx["issues/list-for-repo"] = 1000
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t)
			if c.setup != nil {
				c.setup(srv)
			}
			var r *runner
			if c.mode == "schedule" {
				r = newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
			} else {
				r = newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
			}
			r.env["GITHUB_API_URL"] = withUserInfo(srv.URL, userinfo)
			r.env["GITHUB_SERVER_URL"] = withUserInfo("https://github.example.com/?token=secret-q#secret-f", userinfo)
			if c.url != nil {
				r.env["GITHUB_API_URL"] = c.url(srv)
			}
			res := r.run()
			all := everything(r, res, srv)
			for _, bad := range []string{"secret", "SECRET-SIGNATURE"} {
				if i := strings.Index(all, bad); i >= 0 {
					t.Errorf("%q is printed: ...%s...", bad, all[max(0, i-120):min(len(all), i+60)])
				}
			}
			if res.code == ExitOK { // the suite fails: never a pass
				t.Errorf("exit 0\n%s%s", res.stdout, res.stderr)
			}
		})
	}
}

// TestActionAPIBudget: an API that takes 30 s over each answer does not
// hold the step. With api-timeout 2 (the input, or the flag, which wins)
// the baseline fetch stops after 2 s and says so ("no baseline: the API
// did not answer within 2 s"), the comment gets its own 2 s and is left
// out with a note, and the exit code is the run's own verdict: a slow API
// turns neither a pass into a fail nor a fail into a pass. Each attempt's
// own timeout (a minute here) is cut to what is left of the budget.
func TestActionAPIBudget(t *testing.T) {
	for _, c := range []struct {
		suite, verdict string
		code           int
		flags          []string
	}{
		{"../examples/quickstart/suite.yml", "pass", ExitOK, nil},
		{actionSuite, "fail", ExitFail, []string{"--api-timeout", "2"}},
	} {
		t.Run(c.verdict, func(t *testing.T) {
			srv := newServer(t)
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.Delay = 30 * time.Second
			r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
			r.opt.RequestTimeout = time.Minute
			r.env["INPUT_CONFIG"] = c.suite
			r.env["INPUT_API-TIMEOUT"] = "2"
			if c.flags != nil {
				r.env["INPUT_API-TIMEOUT"] = "600" // the flag wins
			}
			start := time.Now()
			res := r.run(c.flags...)
			took := time.Since(start)
			if res.code != c.code || res.outputs["verdict"] != c.verdict || res.outputs["baseline-found"] != "false" || res.outputs["comment-id"] != "" {
				t.Errorf("exit %d, outputs %v; want exit %d, verdict %s, no baseline, no comment\n%s%s", res.code, res.outputs, c.code, c.verdict, res.stdout, res.stderr)
			}
			if !strings.Contains(res.annotations, "::warning title=mcptest%3A no baseline::no baseline: the API did not answer within 2 s\n") {
				t.Errorf("no timed-out baseline warning:\n%s", res.annotations)
			}
			if !strings.Contains(res.summary, "**No baseline**: the API did not answer within 2 s") ||
				!strings.Contains(res.summary, "No PR comment: the API did not answer within 2 s") {
				t.Errorf("the summary does not say the API did not answer:\n%s", res.summary)
			}
			if !strings.Contains(res.annotations, "::warning title=mcptest%3A no PR comment::no PR comment: the API did not answer within 2 s") {
				t.Errorf("no timed-out comment warning:\n%s", res.annotations)
			}
			// Two budgets of 2 s; one delayed answer alone would be 30 s.
			if took > 20*time.Second {
				t.Errorf("the step took %s with a 2 s budget", took)
			}
		})
	}
}

// TestActionAPIBudgetWrites: the drift issue and comment mode's lookups
// are bounded by api-timeout too. A drift issue the API does not write in
// time is a note and a warning, and the verdict stands (exit 1, not 3);
// in comment mode, where the comment is the job, the step fails (exit 3)
// saying the API did not answer.
func TestActionAPIBudgetWrites(t *testing.T) {
	srv := newServer(t)
	srv.Runs = []*ghapitest.Run{goodRun(t, 41, "a"), {ID: 77, Workflow: "pr.yml", Event: "pull_request", HeadBranch: "feature",
		HeadRepo: "mallory/agents", HeadSHA: "forkhead", Status: "completed", Conclusion: "success"}}
	srv.Hang["issues/list-for-repo"], srv.Hang["pulls/list"], srv.Hold = 1000, 1000, 30*time.Second
	r := newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	r.env["INPUT_API-TIMEOUT"] = "1"
	res := r.run()
	if res.code != ExitFail || !strings.Contains(res.summary, "No drift issue: the API did not answer within 1 s.") ||
		!strings.Contains(res.annotations, "::warning title=mcptest%3A no drift issue::no drift issue: the API did not answer within 1 s") {
		t.Errorf("drift: exit %d\nsummary:\n%s\nstdout:\n%s\nstderr:\n%s", res.code, res.summary, res.stdout, res.stderr)
	}
	r = newRunner(t, srv, "workflow_run", map[string]any{"workflow_run": map[string]any{"id": 77, "event": "pull_request",
		"head_sha": "forkhead", "head_branch": "feature", "conclusion": "success",
		"head_repository": map[string]any{"full_name": "mallory/agents", "owner": map[string]any{"login": "mallory"}}}})
	r.env["INPUT_API-TIMEOUT"] = "1"
	res = r.run()
	if res.code != ExitError || !strings.Contains(res.stderr, "find the pull request of run 77: the API did not answer within 1 s") {
		t.Errorf("comment mode: exit %d, stderr %q; want 3 and the API not answering", res.code, res.stderr)
	}
}

// TestActionEventPayloadBounded: the event payload (GITHUB_EVENT_PATH) is
// read bounded: a FIFO is refused at once instead of waiting for a writer,
// and a payload over the cap is refused from its size, before it is read.
func TestActionEventPayloadBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "event.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	big := filepath.Join(dir, "event.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil || os.Truncate(big, 1<<30) != nil {
		t.Fatal("cannot make a sparse payload")
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "not a regular file"},
		{big, "over the 32 MiB limit"},
	} {
		r := newRunner(t, nil, "pull_request", prEvent(1, "acme/agents", "h"))
		r.env["GITHUB_EVENT_PATH"] = c.path
		done := make(chan result, 1)
		go func() { done <- r.run() }()
		select {
		case res := <-done:
			if res.code != ExitInput || !strings.Contains(res.stderr, c.want) {
				t.Errorf("%s: exit %d, stderr %q; want 2 and %q", filepath.Base(c.path), res.code, res.stderr, c.want)
			}
		case <-time.After(10 * time.Second):
			// Let the blocked reader go before failing.
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			<-done
			t.Errorf("%s: still reading the event payload after 10 s", filepath.Base(c.path))
		}
	}
}

// bombZip is an artifact zip whose entry inflates to size bytes of zeros
// while its headers declare declared bytes.
func bombZip(t *testing.T, size, declared int) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	zeros := make([]byte, size)
	_, _ = fw.Write(zeros)
	_ = fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "mcptest-report.json", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(zeros),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(declared)})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestActionArtifactBounded: an artifact is bounded before and while it is
// read. Under max-artifact-bytes 1 MiB: a download whose listed size lies
// is refused from its Content-Length, or stopped at the cap while read
// when it has none; a zip bomb is refused from its declared size, or
// stopped at the cap while inflating when the declared size lies. The
// good run behind them is then used.
func TestActionArtifactBounded(t *testing.T) {
	noise := make([]byte, 2<<20) // does not compress
	_, _ = rand.NewChaCha8([32]byte{1}).Read(noise)
	big := zipOf(t, map[string][]byte{"mcptest-report.json": noise})
	srv := newServer(t)
	lying, chunked, bomb, liar := goodRun(t, 20, "lying"), goodRun(t, 21, "chunked"), goodRun(t, 22, "bomb"), goodRun(t, 23, "liar")
	lying.Artifacts[0].Zip, lying.Artifacts[0].Size = big, 100
	chunked.Artifacts[0].Zip, chunked.Artifacts[0].Size, chunked.Artifacts[0].Chunked = big, 100, true
	bomb.Artifacts[0].Zip = bombZip(t, 50<<20, 50<<20)
	liar.Artifacts[0].Zip = bombZip(t, 50<<20, 10)
	srv.Runs = []*ghapitest.Run{goodRun(t, 19, "good"), lying, chunked, bomb, liar}
	r := newRunner(t, srv, "pull_request", prEvent(8, "acme/agents", "h"))
	r.env["INPUT_COMMENT"] = "false"
	r.env["INPUT_MAX-ARTIFACT-BYTES"] = "1048576"
	res := r.run()
	if res.outputs["baseline-run-id"] != "19" {
		t.Fatalf("baseline-run-id %q, want 19\n%s%s", res.outputs["baseline-run-id"], res.stdout, res.stderr)
	}
	for _, want := range []string{
		fmt.Sprintf("run 20: artifact 200's download is %d bytes, over the 1048576-byte cap", len(big)),
		"run 21: artifact 210's download is over the 1048576-byte cap",
		`run 22: artifact: entry "mcptest-report.json" declares 52428800 bytes, over the 1048576-byte cap`,
		`run 23: artifact: entry "mcptest-report.json" inflates past the 10 bytes its header states`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q\n%s", want, res.stdout)
		}
	}
}

// craftedBaseline is a baseline envelope against which the run of
// actionSuite gives every output a value of its own: 1 regression, 3
// fixes, 8 flips, 4 passed, 2 failed.
func craftedBaseline(t *testing.T) []byte {
	t.Helper()
	cur := filepath.Join(t.TempDir(), "cur.json")
	runEnvelope(t, actionSuite, cur)
	data, err := os.ReadFile(cur)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	// What the baseline says of each case: the research agent passed (a
	// regression now), three cases failed (fixes now); the rest as now.
	was := map[string]bool{"research-agent picks search then fetch": true, "triage agent never deletes a repository": false,
		"summarizer searches then fetches": false, "summarizer stays on its allowed tools": false}
	for _, c := range env["cases"].([]any) {
		cs := c.(map[string]any)
		pass, ok := was[cs["name"].(string)]
		if !ok {
			continue
		}
		cs["verdict"] = map[bool]string{true: "pass", false: "fail"}[pass]
		for _, a := range cs["assertions"].([]any) {
			a.(map[string]any)["passed"] = pass
		}
	}
	crafted, _ := json.Marshal(env)
	return crafted
}

// TestActionOutputsDistinct: a baseline crafted so that every output has
// a value of its own (1 regression, 3 fixes, 8 flips, 4 passed, 2 failed,
// run 41, the comment's id), so an output written under another's name is
// caught.
func TestActionOutputsDistinct(t *testing.T) {
	crafted := craftedBaseline(t)
	srv := newServer(t)
	run := goodRun(t, 41, "base0001")
	run.Artifacts[0].Zip = zipOf(t, map[string][]byte{"mcptest-report.json": crafted})
	srv.Runs = []*ghapitest.Run{run}
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
	res := r.run()
	if res.code != ExitFail || len(srv.Comments) != 1 {
		t.Fatalf("exit %d, %d comments\n%s%s", res.code, len(srv.Comments), res.stdout, res.stderr)
	}
	want := map[string]string{"verdict": "fail", "passed": "4", "failed": "2", "flips": "8", "regressions": "1", "fixes": "3",
		"baseline-found": "true", "baseline-run-id": "41", "report-path": r.env["INPUT_REPORT-PATH"],
		"comment-id": strconv.FormatInt(srv.Comments[0].ID, 10)}
	seen := map[string]string{}
	for _, name := range outputNames {
		if res.outputs[name] != want[name] {
			t.Errorf("output %s = %q, want %q", name, res.outputs[name], want[name])
		}
		if other, dup := seen[want[name]]; dup {
			t.Errorf("outputs %s and %s both want %q: the fixture does not tell them apart", other, name, want[name])
		}
		seen[want[name]] = name
	}
	if len(res.outputs) != len(outputNames) {
		t.Errorf("%d outputs written, want %d: %v", len(res.outputs), len(outputNames), res.outputs)
	}
}

// TestActionBaselineFileFIFO: a baseline-file that names a FIFO is refused
// at once (exit 2) instead of waiting for a writer.
func TestActionBaselineFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "baseline.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	r := newRunner(t, nil, "pull_request", prEvent(1, "acme/agents", "h"))
	r.env["INPUT_BASELINE-FILE"] = fifo
	r.env["INPUT_COMMENT"] = "false"
	done := make(chan result, 1)
	go func() { done <- r.run() }()
	select {
	case res := <-done:
		if res.code != ExitInput || !strings.Contains(res.stderr, "not a regular file") {
			t.Errorf("exit %d, stderr %q; want 2 and the FIFO refused", res.code, res.stderr)
		}
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Error("still opening the baseline-file after 10 s")
	}
}
