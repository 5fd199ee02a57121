package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/report"
)

// TestViewServes runs `mcptest view` until its context ends: it serves the
// report, the envelope and the snapshot viewer on loopback, refuses other
// Host names and methods, and prints the snapshot address, whose fragment
// decodes to the very envelope.
func TestViewServes(t *testing.T) {
	run := savedRun(t, "../../examples/distractor-floor-fails/suite.yml")
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan string, 1)
	origContext, origListening := viewContext, viewListening
	viewContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	viewListening = func(base string) { listening <- base }
	defer func() {
		viewContext, viewListening = origContext, origListening
		cancel()
	}()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	c := &Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	go func() { done <- c.Main([]string{"view", run}) }()
	base := <-listening

	get := func(path, host string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, page := get("/", "")
	if code != 200 || !strings.Contains(page, "Audit this run") || !strings.Contains(page, `id="snapshot-link" href="/snapshot#z=`) {
		t.Errorf("/: %d\n%.300s", code, page)
	}
	saved, _ := os.ReadFile(run)
	if code, body := get("/run.json", ""); code != 200 || body != string(saved) {
		t.Errorf("/run.json: %d, differs from the saved envelope", code)
	}
	if code, body := get("/snapshot", ""); code != 200 || body != string(annotate.SnapshotPage()) {
		t.Errorf("/snapshot: %d", code)
	}
	if code, _ := get("/", "attacker.example"); code != http.StatusForbidden {
		t.Errorf("a foreign Host: %d, want 403", code)
	}
	if code, _ := get("/nope", ""); code != http.StatusNotFound {
		t.Errorf("/nope: %d, want 404", code)
	}
	if resp, err := http.Post(base+"/", "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", resp.StatusCode, err)
	}

	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d\n%s", code, errb.String())
	}
	var snap string
	for _, l := range strings.Split(out.String(), "\n") {
		if s, ok := strings.CutPrefix(l, "snapshot: "); ok {
			snap = s
		}
	}
	_, frag, _ := strings.Cut(snap, "#")
	env, err := annotate.ReadSnapshotFragment(frag)
	if err != nil {
		t.Fatalf("snapshot address %q: %v", snap, err)
	}
	var again bytes.Buffer
	if err := (annotate.JSON{}).Report(&again, env); err != nil || again.String() != string(saved) {
		t.Errorf("the snapshot does not carry the envelope (%v)", err)
	}
}

func TestViewInputErrors(t *testing.T) {
	run := savedRun(t, "../../examples/quickstart/suite.yml")
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"view"}, "no stored run in"},
		{[]string{"view", run, run}, "view takes one run envelope"},
		{[]string{"view", "--run", "../../../etc/passwd"}, "expected a run id"},
		{[]string{"view", "--run", "01JDCQ5W6X8Y9Z0A1B2C3D4E5F"}, "no such run in"},
		{[]string{"view", run, "--latest"}, "give one of RUN.json, --latest and --run ID"},
		{[]string{"view", "testdata/nope.json"}, "no such file"},
		{[]string{"view", run, "--addr", "0.0.0.0:0"}, "loopback address only"},
		{[]string{"view", run, "--no-serve"}, "--no-serve goes with --snapshot FILE"},
	} {
		_, stderr, code := mcptest(t, nil, tt.args...)
		if code != ExitInput || !strings.Contains(stderr, tt.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.err)
		}
	}
}

// TestViewSnapshotInChromium opens a snapshot address (the viewer page
// from disk, the envelope in the fragment) in headless Chromium: the page
// renders the three blocks in order from the address alone, lists exactly
// the failing and inconclusive cases under Review first, shows the hostile
// fixture's markup as text and requests nothing.
func TestViewSnapshotInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	var hits atomic.Int64
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the snapshot made a request: %s %s", r.Method, r.URL)
	}))
	defer probe.Close()
	data, err := os.ReadFile("testdata/reports/hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "hostile.json")
	if err := os.WriteFile(run, bytes.ReplaceAll(data, []byte("PROBE"), []byte(probe.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := mcptest(t, nil, "view", run, "--snapshot", filepath.Join(dir, "viewer.html"), "--no-serve")
	addr, ok := strings.CutPrefix(strings.TrimSpace(stdout), "snapshot: file://")
	if code != ExitOK || !ok {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	env := readEnvelope(t, run)
	dom := runChromium(t, chromium, "--virtual-time-budget=5000", "--dump-dom", "file://"+addr)
	last := -1
	for _, id := range []string{`id="audit"`, `id="review"`, `id="cases"`, `id="footer"`} {
		i := strings.Index(dom, id)
		if i < 0 || i < last {
			t.Fatalf("block %s missing or out of order in the snapshot:\n%.2000s", id, dom)
		}
		last = i
	}
	var want, got []string
	for _, c := range env.Cases {
		if c.Verdict != report.Pass {
			want = append(want, c.Name)
		}
	}
	review := dom[strings.Index(dom, `id="review"`):strings.Index(dom, `id="cases"`)]
	for _, m := range dataCase.FindAllStringSubmatch(review, -1) {
		got = append(got, html.UnescapeString(m[1]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Review first lists %q, want %q", got, want)
	}
	if !strings.Contains(dom, fmt.Sprintf("%d of %d cases shown", len(env.Cases), len(env.Cases))) {
		t.Error("the case filter did not run")
	}
	for _, tag := range []string{"<img", "<iframe", "<svg", "<object", "<link", "<b>", "<a href"} {
		if strings.Contains(strings.ToLower(dom), tag) {
			t.Errorf("recorded text became an element: %s", tag)
		}
	}
	if !strings.Contains(dom, "&lt;img src=") {
		t.Error("the hostile case name is not shown as text")
	}
	out, _ := filepath.Abs("testdata/out")
	if err := os.MkdirAll(out, 0o755); err == nil {
		shot := filepath.Join(out, "snapshot-fail.png")
		runChromium(t, chromium, "--virtual-time-budget=5000", "--screenshot="+shot, "--window-size=1280,1600", "file://"+addr)
		t.Logf("screenshot: %s", shot)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the snapshot made %d request(s)", n)
	}
}

// TestViewLatest: with no RUN.json, view serves the newest run of the
// workspace store; --run ID serves that one; --open opens the browser on
// the served address.
func TestViewLatest(t *testing.T) {
	store := t.TempDir()
	env := map[string]string{storeEnv: store}
	for _, suite := range []string{"../../examples/quickstart/suite.yml", "../../examples/baseline/suite.yml"} {
		mcptest(t, env, "run", "--config", suite, "--reporter", "json", "--output", filepath.Join(t.TempDir(), "r.json"))
		time.Sleep(2 * time.Millisecond) // run ids sort by their millisecond
	}
	entries, _ := os.ReadDir(filepath.Join(store, "runs"))
	if len(entries) != 2 {
		t.Fatalf("%d stored runs, want 2", len(entries))
	}
	first := strings.TrimSuffix(entries[0].Name(), ".json")
	newest := strings.TrimSuffix(entries[1].Name(), ".json")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opened := make(chan string, 1)
	origContext, origListening, origOpen := viewContext, viewListening, openBrowser
	viewContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	viewListening = func(string) {}
	openBrowser = func(u string) error { opened <- u; cancel(); return nil }
	defer func() { viewContext, viewListening, openBrowser = origContext, origListening, origOpen }()

	_, stderr, code := mcptest(t, env, "view", "--open")
	if code != ExitOK || !strings.Contains(stderr, "the newest stored run, "+newest) || !strings.Contains(stderr, filepath.Join("runs", newest+".json")) {
		t.Errorf("view: exit %d, stderr %q; want the newest run %s", code, stderr, newest)
	}
	if u := <-opened; !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Errorf("--open opened %q", u)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	viewContext = func() (context.Context, context.CancelFunc) { return ctx2, cancel2 }
	openBrowser = func(u string) error { opened <- u; cancel2(); return nil }
	_, stderr, code = mcptest(t, env, "view", "--run", first, "--open")
	<-opened
	if code != ExitOK || !strings.Contains(stderr, filepath.Join("runs", first+".json")) {
		t.Errorf("view --run %s: exit %d, stderr %q", first, code, stderr)
	}
}

// TestOutputDash: --output - writes to stdout, not to a file named "-";
// --reporter html on a terminal without --output writes the page under
// the workspace store and prints its path.
func TestOutputDash(t *testing.T) {
	suite, _ := filepath.Abs("../../examples/quickstart/suite.yml")
	t.Chdir(t.TempDir())
	stdout, _, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "json", "--output", "-")
	if code != ExitOK || !strings.Contains(stdout, `"schema_version": 1`) {
		t.Errorf("run --output -: exit %d, stdout %.80q", code, stdout)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("run --output - wrote a file named -")
	}
	store := t.TempDir()
	orig := stdoutTerminal
	stdoutTerminal = func(io.Writer) bool { return true }
	defer func() { stdoutTerminal = orig }()
	stdout, stderr, code := mcptest(t, map[string]string{storeEnv: store}, "run", "--config", suite, "--reporter", "html")
	m := regexp.MustCompile(`report written to (\S+\.html)`).FindStringSubmatch(stderr)
	if code != ExitOK || stdout != "" || m == nil || !strings.HasPrefix(m[1], filepath.Join(store, "reports")) {
		t.Fatalf("run --reporter html on a terminal: exit %d, stdout %.80q, stderr %q", code, stdout, stderr)
	}
	if page, err := os.ReadFile(m[1]); err != nil || !strings.Contains(string(page), "<!DOCTYPE html>") {
		t.Errorf("%s: %v", m[1], err)
	}
}
