package main

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate"
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
	if code != 200 || !strings.Contains(page, "Audit this run") || !strings.Contains(page, `id="snapshot-link" href="/snapshot#d`) {
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
	got, err := annotate.ReadSnapshotFragment(frag)
	if err != nil {
		t.Fatalf("snapshot address %q: %v", snap, err)
	}
	sum := sha256.Sum256(saved)
	if got.EnvelopeSHA256 != hex.EncodeToString(sum[:]) || !strings.Contains(got.Page, "Audit this run") {
		t.Errorf("the snapshot names envelope %s, the saved one is %x", got.EnvelopeSHA256, sum)
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

// TestViewSnapshotInChromium opens snapshot addresses (the viewer page
// the built binary writes, from disk, the run in the fragment) in headless
// Chromium with the checks the report has, at 1400 and 390 px: the page
// in the address is the report's (the same blocks in the same order,
// exactly the failing and inconclusive cases under Review first, figures
// against their thresholds, names in backticks as code, the case list
// laid out as the report's), the hostile fixture's markup shown as text,
// cases open and the keys work, nothing requested, and a link within the
// page keeps the run in the address.
func TestViewSnapshotInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	bin := mcptestBin(t)
	b := startBrowser(t, chromium)
	shots := t.TempDir()
	for _, p := range browserPages(t) {
		viewer := filepath.Join(t.TempDir(), "viewer.html")
		out, err := exec.Command(bin, "view", p.run, "--snapshot", viewer, "--no-serve").Output()
		addr, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "snapshot: ")
		if err != nil || !ok {
			t.Fatalf("%s: mcptest view --snapshot: %v, stdout %q", p.name, err, out)
		}
		for _, vp := range viewports {
			t.Run(p.name+"/"+vp.name, func(t *testing.T) {
				b.t = t
				b.open("file://"+p.path, vp.width, vp.height)
				var file map[string]string
				b.eval(pageText, &file)
				b.open(addr, vp.width, vp.height)
				waitSnapshot(t, b)
				checkPageDOM(t, b, p)
				checkSnapshotMatchesReport(t, b, file)
				checkLayout(t, b, vp.width, vp.height)
				checkExpand(t, b, p, vp.width)
				checkKeyboard(t, b, len(p.env.Cases))
				checkLinkKeepsAddress(t, b, addr)
				shot := filepath.Join(shots, "snapshot-"+p.name+"-"+vp.name+".png")
				b.screenshot(shot, false)
				keepScreenshot(t, shot)
				for _, problem := range b.problems(addr) {
					t.Errorf("the snapshot logged or requested: %s", problem)
				}
				checkCSPHolds(t, b)
			})
		}
	}
}

// waitSnapshot waits for the viewer to decode its address and show the
// run's page.
func waitSnapshot(t *testing.T, b *browser) {
	t.Helper()
	for range 100 {
		var st struct{ Loaded bool }
		b.eval(`({Loaded:!!document.getElementById("case-list")&&!document.getElementById("snapshot")})`, &st)
		if st.Loaded {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	var status string
	b.eval(`(document.getElementById("snapshot-status")||{}).textContent||""`, &status)
	t.Fatalf("the snapshot did not show its run: %q", status)
}

// pageText is the text of the summary strip, Review first and the case
// list, with the number of elements and of code elements in each; the
// case list's without its run timelines (a snapshot keeps fewer runs,
// clipped), which "timelines" counts instead: the cases that show one,
// and the most runs a case shows.
const pageText = `(function(){var o={};["#summary .strip","#review","#cases .case-list"].forEach(function(s){var e=document.querySelector(s);
if(e){e=e.cloneNode(true);e.querySelectorAll(".evidence,.more-ev,.ev-note").forEach(function(x){var h=x.previousElementSibling;if(x.className==="evidence"&&h&&h.tagName==="H4"){h.remove();}x.remove();});}
o[s]=e?e.textContent.replace(/\s+/g," ")+"|"+e.querySelectorAll("*").length+"|"+e.querySelectorAll("code").length:"";});
var n=0,most=0;document.querySelectorAll("#cases .case").forEach(function(c){var r=c.querySelectorAll(".run-ev").length;if(r){n++;}if(r>most){most=r;}});
o.timelines=n+" "+most;return o;})()`

// checkSnapshotMatchesReport compares what the snapshot shows with what
// the report file of the same run showed (file, pageText's): the same
// text in the summary strip, Review first and the case list (so figures
// carry their thresholds and backticks are code), and the same elements;
// where the report shows run timelines the snapshot shows one run of a
// case at most (the snapshot's share), and at least one case's.
func checkSnapshotMatchesReport(t *testing.T, b *browser, file map[string]string) {
	t.Helper()
	var snap map[string]string
	b.eval(pageText, &snap)
	for k, v := range file {
		if k == "timelines" {
			var fileCases, snapCases, snapMost int
			fmt.Sscan(v, &fileCases)
			fmt.Sscan(snap[k], &snapCases, &snapMost)
			if fileCases > 0 && snapCases == 0 || snapMost > 1 {
				t.Errorf("timelines: the report shows %q (cases, most runs), the snapshot %q", v, snap[k])
			}
			continue
		}
		if snap[k] != v {
			at := 0
			for at < len(v) && at < len(snap[k]) && v[at] == snap[k][at] {
				at++
			}
			from := max(at-120, 0)
			t.Errorf("the snapshot's %s differs from the report's at byte %d:\nsnapshot %.400q\nreport   %.400q", k, at, snap[k][from:], v[from:])
		}
	}
}

// checkLinkKeepsAddress follows the first link to a case: the page scrolls
// to it and the address still ends in the run (#d...=).
func checkLinkKeepsAddress(t *testing.T, b *browser, addr string) {
	t.Helper()
	var href string
	b.eval(`(function(){var a=document.querySelector('a[href^="#case-"]')||document.querySelector("a.skip");a.click();return location.href;})()`, &href)
	if href != addr {
		t.Errorf("a link within the snapshot changed its address to %.120q", href)
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

// TestSnapshotForgedInChromium opens the viewer the built binary writes
// with a forged address: its page holds markup no template writes (an
// image, a style, a handler, a link to another host, a form, a pack with
// the same), which the viewer's import leaves out, so the page requests
// nothing and runs nothing.
func TestSnapshotForgedInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the forged snapshot made a request: %s %s", r.Method, r.URL)
	}))
	defer probe.Close()
	viewer := filepath.Join(t.TempDir(), "viewer.html")
	run := savedRun(t, "../../examples/quickstart/suite.yml")
	if out, err := exec.Command(mcptestBin(t), "view", run, "--snapshot", viewer, "--no-serve").CombinedOutput(); err != nil {
		t.Fatalf("mcptest view --snapshot: %v\n%s", err, out)
	}
	bad := `<img src="PROBE/img"><style>body{display:none}</style><a id="x" href="PROBE/a">x</a><form action="PROBE/f"><input type="submit"></form>` +
		`<div id="h" onclick="document.title='pwned'" style="color:red" data-x="1">h</div><script>document.title='pwned'</script><iframe src="PROBE/i"></iframe>`
	bad = strings.ReplaceAll(bad, "PROBE", probe.URL)
	var piece bytes.Buffer
	zw := gzip.NewWriter(&piece)
	json.NewEncoder(zw).Encode([]string{bad})
	zw.Close()
	page := `<header id="summary"><div class="strip"></div></header><main><section id="cases"><ol class="case-list" id="case-list">` +
		`<li class="case fail" id="case-1" data-verdict="fail" data-search="x"><details><summary class="row">x</summary><div class="detail packed" data-pk="0.0"></div></details></li></ol></section>` +
		bad + `</main><template class="pk" id="pk-0">` + base64.URLEncoding.EncodeToString(piece.Bytes()) + `</template>`
	doc, _ := json.Marshal(map[string]string{"title": "forged", "verdict": "fail\" onload=\"x", "page": page})
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	fw.Write(doc)
	fw.Close()
	packed, err := annotate.PackSnapshot(doc)
	if err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, chromium)
	// The address as an earlier mcptest wrote it (z=, no dictionary) and
	// as this one does (against the viewer's dictionary).
	for _, frag := range []string{"z=" + base64.RawURLEncoding.EncodeToString(z.Bytes()), packed} {
		addr := "file://" + viewer + "#" + frag
		b.open("about:blank", 1400, 900) // a new document: only the fragment differs
		b.open(addr, 1400, 900)
		waitSnapshot(t, b)
		b.eval(`document.querySelector("#case-1 summary").click()`, nil)
		var st struct {
			State, Title, Body, HRef string
			Bad                      int
			Handler, Style, Data     bool
		}
		for range 100 {
			b.eval(`(function(){var d=document.querySelector("#case-1 .detail"),h=document.querySelectorAll("#h");
	return {State:d.getAttribute("data-pk-state")||"",Title:document.title,Body:document.body.className,
	Bad:document.querySelectorAll("img,style:not(head style),form,iframe,script:not(:last-of-type),a[href^='http']").length,
	Handler:Array.prototype.some.call(h,function(e){return e.hasAttribute("onclick");}),
	Style:Array.prototype.some.call(h,function(e){return e.hasAttribute("style");}),
	Data:Array.prototype.some.call(h,function(e){return e.hasAttribute("data-x");})};})()`, &st)
			if st.State == "done" || st.State == "failed" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st.State != "done" {
			t.Errorf("the forged pack: %q", st.State)
		}
		if st.Bad != 0 || st.Handler || st.Style || st.Data || st.Title != "forged" || st.Body != "" {
			t.Errorf("the forged page's markup got in: %+v", st)
		}
		for _, p := range b.problems(addr) {
			// Parsing the forged page (DOMParser) meets its handlers, which
			// the policy refuses before the import leaves them out.
			if strings.Contains(p, "Executing inline event handler violates the following Content Security Policy") {
				continue
			}
			t.Errorf("the forged snapshot logged or requested: %s", p)
		}
	}
	// A bomb: a few hundred kilobytes of address that inflate past the
	// viewer's 256 MiB are refused, not read to the end.
	var bomb bytes.Buffer
	bw, _ := flate.NewWriter(&bomb, flate.BestCompression)
	bw.Write([]byte(`{"title":"bomb","verdict":"fail","page":"`))
	zeros := make([]byte, 1<<20)
	for range 257 {
		bw.Write(zeros)
	}
	bw.Close()
	b.open("about:blank", 1400, 900)
	b.open("file://"+viewer+"#z="+base64.RawURLEncoding.EncodeToString(bomb.Bytes()), 1400, 900)
	var status string
	for range 200 {
		b.eval(`(document.getElementById("snapshot-status")||{}).textContent||""`, &status)
		if strings.Contains(status, "damaged") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(status, "over 256 MiB decompressed") {
		t.Errorf("a deflate bomb: the viewer says %q", status)
	}
}
