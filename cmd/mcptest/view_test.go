package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	b := startBrowser(t, chromium)
	b.open("file://"+addr, 1280, 1600)
	var dom string
	for range 50 {
		b.eval("document.documentElement.outerHTML", &dom)
		// The page decodes its envelope asynchronously: wait for the last
		// block and the first.
		if strings.Contains(dom, "cases shown") && strings.Contains(dom, `id="audit"`) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
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
	shot := filepath.Join(t.TempDir(), "snapshot-fail.png")
	b.screenshot(shot, false)
	keepScreenshot(t, shot)
	for _, p := range b.problems("file://" + addr) {
		t.Errorf("the snapshot logged or requested: %s", p)
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

// TestViewStoredRuns: the viewer lists the stored runs newest first with
// a comparison picker, serves any stored run's report, compares any two,
// and shows a case's history across the stored runs with its verdict in
// each; unknown ids are 404s.
func TestViewStoredRuns(t *testing.T) {
	store := t.TempDir()
	env := map[string]string{storeEnv: store}
	for _, suite := range []string{"../../examples/baseline/earlier/suite.yml", "../../examples/baseline/suite.yml"} {
		mcptest(t, env, "run", "--config", suite, "--reporter", "json", "--output", filepath.Join(t.TempDir(), "r.json"))
		time.Sleep(2 * time.Millisecond) // run ids sort by their millisecond
	}
	entries, _ := os.ReadDir(filepath.Join(store, "runs"))
	if len(entries) != 2 {
		t.Fatalf("%d stored runs, want 2", len(entries))
	}
	older := strings.TrimSuffix(entries[0].Name(), ".json")
	newer := strings.TrimSuffix(entries[1].Name(), ".json")
	base, stop := serveView(t, env)
	defer stop()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, page := get("/")
	if code != 200 || !strings.Contains(page, `<a class="to-runs" href="/runs">`) {
		t.Errorf("/: %d, no link to the stored runs", code)
	}
	code, page = get("/runs")
	if i, j := strings.Index(page, newer), strings.Index(page, older); code != 200 || i < 0 || j < 0 || i > j {
		t.Errorf("/runs: %d, want %s listed before %s", code, newer, older)
	}
	if !strings.Contains(page, `<form method="get" action="/compare"`) || !strings.Contains(page, "form-action &#39;self&#39;") {
		t.Error("/runs: no comparison picker under a CSP that admits it")
	}
	if code, page = get("/run/" + older); code != 200 || !strings.Contains(page, `id="run-verdict"`) {
		t.Errorf("/run/%s: %d", older, code)
	}
	code, page = get("/compare?base=" + older + "&head=" + newer)
	if code != 200 || !strings.Contains(page, `id="comparison"`) || !strings.Contains(page, `class="badge regression"`) {
		t.Errorf("/compare: %d, no comparison with a regression", code)
	}
	cur := readEnvelope(t, filepath.Join(store, "runs", newer+".json"))
	name := cur.Cases[0].Name
	code, page = get("/case?name=" + url.QueryEscape(name))
	if code != 200 || strings.Count(page, `<a class="to-run" href="/run/`) != 2 || !strings.Contains(page, html.EscapeString(name)) {
		t.Errorf("/case: %d, want the history of %q over 2 runs\n%s", code, name, page)
	}
	for _, p := range []string{"/run/NOTANID", "/run/01AAAAAAAAAAAAAAAAAAAAAAAA", "/compare?base=x&head=y", "/case"} {
		if code, _ := get(p); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}

// serveView starts `mcptest view` over the newest stored run and returns
// its address and a function that stops it.
func serveView(t *testing.T, env map[string]string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan string, 1)
	origContext, origListening := viewContext, viewListening
	viewContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	viewListening = func(base string) { listening <- base }
	done := make(chan int, 1)
	go func() {
		_, _, code := mcptest(t, env, "view")
		done <- code
	}()
	base := <-listening
	return base, func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("view: exit %d", code)
		}
		viewContext, viewListening = origContext, origListening
	}
}

// TestViewPagesInChromium opens the viewer's pages (the served report, the
// run list, a comparison, a case's history) in headless Chromium at 1400
// and 390 px: no console error, no request to another address, nothing
// wider than the viewport, and no serious or critical axe-core violation.
func TestViewPagesInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	axe := axeSource(t)
	store := t.TempDir()
	env := map[string]string{storeEnv: store}
	for _, suite := range []string{"../../examples/baseline/earlier/suite.yml", "../../examples/baseline/suite.yml"} {
		mcptest(t, env, "run", "--config", suite, "--reporter", "json", "--output", filepath.Join(t.TempDir(), "r.json"))
		time.Sleep(2 * time.Millisecond)
	}
	entries, _ := os.ReadDir(filepath.Join(store, "runs"))
	older, newer := strings.TrimSuffix(entries[0].Name(), ".json"), strings.TrimSuffix(entries[1].Name(), ".json")
	name := readEnvelope(t, filepath.Join(store, "runs", newer+".json")).Cases[0].Name
	base, stop := serveView(t, env)
	defer stop()
	b := startBrowser(t, chromium)
	shots := t.TempDir()
	for _, page := range []string{"/", "/runs", "/compare?base=" + older + "&head=" + newer, "/case?name=" + url.QueryEscape(name)} {
		for _, vp := range viewports {
			t.Run(strings.Trim(strings.SplitN(page, "?", 2)[0], "/")+"/"+vp.name, func(t *testing.T) {
				b.t = t
				b.open(base+page, vp.width, vp.height)
				var scrollWidth float64
				b.eval("document.documentElement.scrollWidth", &scrollWidth)
				if scrollWidth > float64(vp.width) {
					t.Errorf("%s is %.0f px wide at a %d px viewport", page, scrollWidth, vp.width)
				}
				shot := filepath.Join(shots, strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(page)+"-"+vp.name+".png")
				b.screenshot(shot, false)
				keepScreenshot(t, shot)
				for _, p := range b.problems(base + page) {
					t.Errorf("%s logged or requested: %s", page, p)
				}
				runAxe(t, b, axe)
			})
		}
	}
}
