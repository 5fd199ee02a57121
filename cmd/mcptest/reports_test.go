package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate/htmltest"
	"github.com/mcptest/mcptest/report"
)

// The examples whose envelopes are rendered to every report format, with
// golden files in testdata/golden/reports/.
var reportExamples = []string{"auditor-view", "quickstart", "selection-f1", "distractor-floor-fails", "agent-multi-run-tool-selection", "scenario-world-failing"}

var reportFormats = []struct{ name, ext string }{
	{"junit", ".junit.xml"},
	{"sarif", ".sarif"},
	{"html", ".html"},
}

// savedRun runs a suite with the json reporter and saves its envelope,
// normalised (run id, start time, duration, platform), so every format
// rendered from it is deterministic.
func savedRun(t *testing.T, suite string) string {
	t.Helper()
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "json")
	if code != ExitOK && code != ExitFail {
		t.Fatalf("run %s: exit %d\n%s", suite, code, stderr)
	}
	p := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(p, []byte(normalize(stdout)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportInputs names every envelope the report tests render: the examples'
// runs and the hostile fixture (recorded text that tries to be markup, a
// failing multi-run case with per-run rows, an inconclusive case).
func reportInputs(t *testing.T) map[string]string {
	in := map[string]string{"hostile": "testdata/reports/hostile.json"}
	for _, name := range reportExamples {
		in[name] = savedRun(t, filepath.Join("../../examples", name, "suite.yml"))
	}
	return in
}

func readEnvelope(t *testing.T, path string) *report.Envelope {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env report.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	return &env
}

// TestReportGolden renders every input to JUnit, SARIF and HTML with
// `mcptest report --format X` and compares with the golden files; the
// same formats from `mcptest run --reporter X` exit as the run does.
func TestReportGolden(t *testing.T) {
	for name, path := range reportInputs(t) {
		env := readEnvelope(t, path)
		for _, f := range reportFormats {
			stdout, stderr, code := mcptest(t, nil, "report", path, "--format", f.name)
			if code != verdictExit(env) {
				t.Errorf("%s --format %s: exit %d\n%s", name, f.name, code, stderr)
			}
			if f.name == "html" && name != "hostile" {
				// One full HTML golden (the hostile fixture's) pins the
				// page; the others are checked by their structure.
				htmltest.CheckStructure(t, name, env, stdout)
			} else {
				golden(t, filepath.Join("testdata", "golden", "reports", name+f.ext), stdout)
			}
			if f.name == "junit" {
				var doc struct{}
				if err := xml.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Errorf("%s: junit is not well-formed XML: %v", name, err)
				}
			}
		}
		if name == "hostile" {
			continue
		}
		for _, f := range reportFormats {
			out := filepath.Join(t.TempDir(), "report"+f.ext)
			_, stderr, code := mcptest(t, nil, "run", "--config", filepath.Join("../../examples", name, "suite.yml"), "--reporter", f.name, "--output", out)
			want := map[report.Verdict]int{report.Pass: ExitOK, report.Fail: ExitFail}[env.Verdict]
			if code != want {
				t.Errorf("run %s --reporter %s: exit %d, want %d\n%s", name, f.name, code, want, stderr)
			}
			if st, err := os.Stat(out); err != nil || st.Size() == 0 {
				t.Errorf("run %s --reporter %s --output: no report written (%v)", name, f.name, err)
			}
		}
	}
}

// TestReportCompareHTML: with --compare, the HTML report shows the floor
// flips and deltas and exits per --fail-on like every comparison format.
func TestReportCompareHTML(t *testing.T) {
	cur := savedRun(t, "../../examples/baseline/suite.yml")
	stdout, stderr, code := mcptest(t, nil, "report", cur, "--compare", "../../examples/baseline/baseline.json", "--format", "html")
	if code != ExitFail {
		t.Errorf("exit %d, want %d (the example has a regression)\n%s", code, ExitFail, stderr)
	}
	for _, want := range []string{`id="comparison"`, `id="vs-baseline"`, "Floor flips", "regression", "fix", "<span>vs baseline</span>", "100 → 50 (-50)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the comparison report lacks %q", want)
		}
	}
	if i, j := strings.Index(stdout, `id="vs-baseline"`), strings.Index(stdout, `id="cases"`); i < 0 || i > j || !strings.Contains(stdout[i:j], `class="badge regression"`) {
		t.Error("the summary strip does not list the regression flip before the cases")
	}
	htmltest.CheckStructure(t, "compare", readEnvelope(t, cur), stdout)
}

// checker finds an external program a test runs (headless Chromium, a
// pinned npm tool). Locally a missing checker skips the test with the
// command that installs it; under CI=true it fails the test, so CI cannot
// pass by skipping.
func checker(t testing.TB, what, path, install string) string {
	t.Helper()
	if !filepath.IsAbs(path) && !strings.Contains(path, "/") {
		if p, err := exec.LookPath(path); err == nil {
			return p
		}
	} else if _, err := os.Stat(path); err == nil {
		return path
	}
	msg := fmt.Sprintf("%s not found at %s; install it with: %s", what, path, install)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: .ci/run installs it, so its absence is a failure)")
	}
	t.Skip(msg)
	return ""
}

const nodeReports = "../../.ci/node-reports/node_modules"

// renderAll writes every input rendered to format ext into a directory.
func renderAll(t *testing.T, format, ext string) map[string]string {
	dir := t.TempDir()
	out := map[string]string{}
	for name, path := range reportInputs(t) {
		stdout, stderr, code := mcptest(t, nil, "report", path, "--format", format)
		if code != verdictExit(readEnvelope(t, path)) {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		p := filepath.Join(dir, name+ext)
		if err := os.WriteFile(p, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

// junitWant is a testcase the JUnit report must hold.
type junitWant struct {
	name, class string
	fail, skip  bool
	texts       []string
}

// junitWants lists the testcases of an envelope's JUnit report: one per
// case, then one per run (tool_selection's rows where the case has them,
// else the reliability rows of every multi-run case).
func junitWants(env *report.Envelope) []junitWant {
	var wants []junitWant
	for _, c := range env.Cases {
		w := junitWant{name: c.Name, class: env.Suite.Path, fail: c.Verdict == report.Fail, skip: c.Verdict == report.Inconclusive}
		for _, a := range c.Assertions {
			if !a.Passed {
				w.texts = append(w.texts, a.Message)
			}
		}
		wants = append(wants, w)
		if c.ToolSelection != nil {
			for _, r := range c.ToolSelection.Runs {
				wants = append(wants, junitWant{name: r.Name, class: c.Name, fail: !r.PassK})
			}
		} else if c.Reliability != nil {
			for _, r := range c.Reliability.Rows {
				wants = append(wants, junitWant{name: report.RunName(c.Name, r.Run), class: c.Name, fail: !r.Passed})
			}
		}
	}
	return wants
}

// TestJUnitIndependentReader parses the JUnit output with junit2json (npm,
// pinned in .ci/node-reports) and checks that another reader sees one
// testcase per case plus one per run row, the failures and the skips the
// envelope holds, and each failed assertion's text.
func TestJUnitIndependentReader(t *testing.T) {
	node := checker(t, "node", "node", "apt-get install -y nodejs npm")
	cli := checker(t, "junit2json", filepath.Join(nodeReports, "junit2json/dist/esm/cli.js"), "npm ci --prefix .ci/node-reports")
	inputs := reportInputs(t)
	for name, xmlPath := range renderAll(t, "junit", ".junit.xml") {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(node, cli, xmlPath).Output()
			if err != nil {
				t.Fatalf("junit2json: %v", err)
			}
			var doc struct {
				Tests, Failures, Skipped int
				Testsuite                []struct {
					Tests    int
					Testcase []struct {
						Name, Classname string
						Failure         []struct{ Message, Inner string }
						Skipped         []struct{ Message string }
					}
				}
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("junit2json output: %v\n%s", err, out)
			}
			wants := junitWants(readEnvelope(t, inputs[name]))
			if len(doc.Testsuite) != 1 {
				t.Fatalf("%d testsuites, want 1", len(doc.Testsuite))
			}
			got := doc.Testsuite[0].Testcase
			if len(got) != len(wants) || doc.Tests != len(wants) {
				t.Fatalf("%d testcases (tests=%d), want %d", len(got), doc.Tests, len(wants))
			}
			failures, skipped := 0, 0
			for i, w := range wants {
				g := got[i]
				if g.Name != strings.ToValidUTF8(w.name, "") || g.Classname != w.class {
					t.Errorf("testcase %d = %q (%q), want %q (%q)", i, g.Name, g.Classname, w.name, w.class)
				}
				if (len(g.Failure) > 0) != w.fail || (len(g.Skipped) > 0) != w.skip {
					t.Errorf("testcase %q: failure %v skipped %v, want %v %v", w.name, g.Failure, g.Skipped, w.fail, w.skip)
				}
				if w.fail {
					failures++
				}
				if w.skip {
					skipped++
				}
				for _, text := range w.texts {
					if len(g.Failure) == 0 || !strings.Contains(g.Failure[0].Inner, text) {
						t.Errorf("testcase %q: the failure does not carry the assertion text %q", w.name, text)
					}
				}
			}
			if doc.Failures != failures || doc.Skipped != skipped {
				t.Errorf("failures=%d skipped=%d, want %d %d", doc.Failures, doc.Skipped, failures, skipped)
			}
		})
	}
}

// TestSARIFMultitool validates the SARIF output with Microsoft's SARIF
// multitool (npm @microsoft/sarif-multitool, pinned in .ci/node-reports):
// no error and no warning.
func TestSARIFMultitool(t *testing.T) {
	tool := checker(t, "the SARIF multitool", filepath.Join(nodeReports, "@microsoft/sarif-multitool-linux/Sarif.Multitool"), "npm ci --prefix .ci/node-reports (linux only)")
	for name, path := range renderAll(t, "sarif", ".sarif") {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, tool, "validate", path)
		cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: multitool: %v\n%s", name, err, out)
		}
		if !strings.Contains(string(out), "Analysis completed successfully") {
			t.Errorf("%s: multitool did not complete:\n%s", name, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, ": error ") || strings.Contains(line, ": warning ") {
				t.Errorf("%s: %s", name, line)
			}
		}
	}
}

var (
	remoteRef = regexp.MustCompile(`(?i)\b(?:src|href|action|data|srcset|poster)\s*=\s*["']?\s*(?:https?:|//)`)
	dataCase  = regexp.MustCompile(`data-case="([^"]*)"`)
)

// The two widths the report is checked at: a desktop and a phone.
var viewports = []struct {
	name          string
	width, height int
}{{"desktop", 1400, 900}, {"phone", 390, 844}}

// htmlPage is a report rendered for the browser tests.
type htmlPage struct {
	name, path string
	// run is the envelope the page renders.
	run string
	env *report.Envelope
}

// hostileWithProbe copies the hostile fixture with every injected address
// pointed at a loopback server that fails the test on any request.
func hostileWithProbe(t *testing.T) string {
	t.Helper()
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the report made a request: %s %s", r.Method, r.URL)
	}))
	t.Cleanup(probe.Close)
	data, err := os.ReadFile("testdata/reports/hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(hostile, bytes.ReplaceAll(data, []byte("PROBE"), []byte(probe.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	return hostile
}

// browserPages renders the envelopes the browser tests open: the hostile
// fixture (a failing, an inconclusive and a passing case, recorded text
// that tries to be markup), an all-pass run, a run with distractors and a
// tool-selection floor, and a failing scenario.
func browserPages(t *testing.T) []htmlPage {
	t.Helper()
	envs := []struct{ name, path string }{
		{"hostile", hostileWithProbe(t)},
		{"pass", savedRun(t, "../../examples/quickstart/suite.yml")},
		{"distractors", savedRun(t, "../../examples/distractor-floor-fails/suite.yml")},
		{"scenario", savedRun(t, "../../examples/scenario-world-failing/suite.yml")},
	}
	var pages []htmlPage
	for _, e := range envs {
		page := filepath.Join(t.TempDir(), e.name+".html")
		if _, stderr, code := mcptest(t, nil, "report", e.path, "--format", "html", "--output", page); code != verdictExit(readEnvelope(t, e.path)) {
			t.Fatalf("%s: exit %d\n%s", e.name, code, stderr)
		}
		src, _ := os.ReadFile(page)
		if m := remoteRef.Find(src); m != nil {
			t.Errorf("%s: the page refers to another host: %s", e.name, m)
		}
		pages = append(pages, htmlPage{name: e.name, path: page, run: e.path, env: readEnvelope(t, e.path)})
	}
	return pages
}

// TestHTMLInChromium opens the HTML report in headless Chromium (Debian
// chromium, driven over the DevTools protocol) at 1400 and 390 px: no
// console error, no request but the page itself, the Content-Security-
// Policy holds, the summary strip is inside the first viewport, "Review
// first" lists exactly the failing and inconclusive cases (and is absent
// on an all-pass run), the blocks come in order, hostile recorded text
// shows as text, expanding a case shows its runs at the full width, and
// j, k and Enter move between and open cases. Each page is also opened
// with scripts off (every case listed and openable, no dead filter) and
// laid out for print. Screenshots are written under the test's temp dir
// (and to $MCPTEST_SCREENSHOTS when set) and checked by element boxes.
func TestHTMLInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	b := startBrowser(t, chromium)
	shots := t.TempDir()
	for _, p := range browserPages(t) {
		for _, vp := range viewports {
			t.Run(p.name+"/"+vp.name, func(t *testing.T) {
				b.t = t
				url := "file://" + p.path
				b.open(url, vp.width, vp.height)
				checkPageDOM(t, b, p)
				checkLayout(t, b, vp.width, vp.height)
				checkExpand(t, b, p, vp.width)
				checkKeyboard(t, b, len(p.env.Cases))
				shot := filepath.Join(shots, p.name+"-"+vp.name+".png")
				b.screenshot(shot, false)
				keepScreenshot(t, shot)
				for _, problem := range b.problems(url) {
					t.Errorf("the page logged or requested: %s", problem)
				}
				checkCSPHolds(t, b)
			})
		}
		t.Run(p.name+"/no-script", func(t *testing.T) {
			b.t = t
			checkWithoutScript(t, b, "file://"+p.path)
		})
		t.Run(p.name+"/print", func(t *testing.T) {
			b.t = t
			checkPrint(t, b, "file://"+p.path)
		})
	}
}

// checkPrint lays the page out for print: the filter is left out, and a
// case the filter hid is printed.
func checkPrint(t *testing.T, b *browser, url string) {
	t.Helper()
	b.open(url, 1400, 900)
	b.call("Emulation.setEmulatedMedia", map[string]any{"media": "print"}, nil)
	defer b.call("Emulation.setEmulatedMedia", map[string]any{"media": ""}, nil)
	var st struct{ FilterShown, HiddenCaseShown bool }
	b.eval(`(function(){var li=document.querySelector("li.case");li.classList.add("hide");
var r={FilterShown:getComputedStyle(document.querySelector(".filters")).display!=="none",HiddenCaseShown:getComputedStyle(li).display!=="none"};
li.classList.remove("hide");return r;})()`, &st)
	if st.FilterShown {
		t.Error("the filter is printed")
	}
	if !st.HiddenCaseShown {
		t.Error("a case the filter hid is left out of the print")
	}
}

// checkWithoutScript opens the page with JavaScript off: every case is
// listed, the filter (which needs the script) stays hidden, and a case
// opens by the browser's own disclosure control.
func checkWithoutScript(t *testing.T, b *browser, url string) {
	t.Helper()
	b.call("Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, nil)
	defer b.call("Emulation.setScriptExecutionDisabled", map[string]any{"value": false}, nil)
	b.open(url, 1400, 900)
	var st struct {
		Cases, Shown   int
		FilterHidden   bool
		Opened, Counts bool
	}
	// Runtime.evaluate runs even with the page's scripts off.
	b.eval(`(function(){var rows=document.querySelectorAll("li.case");var s=rows[0].querySelector("summary");s.click();
return {Cases:rows.length,Shown:Array.prototype.filter.call(rows,function(r){return r.offsetParent!==null;}).length,
FilterHidden:document.querySelector(".filters").offsetParent===null,Opened:rows[0].querySelector("details").open,
Counts:document.getElementById("shown").textContent!==""};})()`, &st)
	if st.Shown != st.Cases || st.Cases == 0 {
		t.Errorf("without script %d of %d cases are shown", st.Shown, st.Cases)
	}
	if !st.FilterHidden || st.Counts {
		t.Error("without script the filter shows, though it cannot work")
	}
	if !st.Opened {
		t.Error("without script a case does not open")
	}
}

// checkPageDOM checks the rendered DOM: the CSP meta, the order of the
// blocks, Review first, the script's filter count and, for the hostile
// fixture, that recorded text stayed text.
func checkPageDOM(t *testing.T, b *browser, p htmlPage) {
	t.Helper()
	var dom string
	b.eval("document.documentElement.outerHTML", &dom)
	if !strings.Contains(dom, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("no Content-Security-Policy meta with default-src 'none'")
	}
	order := []string{`id="summary"`, `id="review"`, `id="cases"`, `id="audit"`, `id="footer"`}
	if p.env.Verdict == report.Pass && p.env.Totals.Inconclusive == 0 {
		if strings.Contains(dom, `id="review"`) {
			t.Error("an all-pass run shows a Review first block")
		}
		order = []string{`id="summary"`, `id="cases"`, `id="audit"`, `id="footer"`}
	}
	last := -1
	for _, id := range order {
		i := strings.Index(dom, id)
		if i < 0 || i < last {
			t.Fatalf("block %s missing or out of order (at %d, previous at %d)", id, i, last)
		}
		last = i
	}
	var wantReview, gotReview []string
	for _, c := range p.env.Cases {
		if c.Verdict != report.Pass {
			wantReview = append(wantReview, c.Name)
		}
	}
	if i, j := strings.Index(dom, `id="review"`), strings.Index(dom, `id="cases"`); i >= 0 && j > i {
		for _, m := range dataCase.FindAllStringSubmatch(dom[i:j], -1) {
			gotReview = append(gotReview, html.UnescapeString(m[1]))
		}
	}
	if strings.Join(gotReview, "\n") != strings.Join(wantReview, "\n") {
		t.Errorf("Review first lists %q, want %q", gotReview, wantReview)
	}
	if n := len(p.env.Cases); !strings.Contains(dom, fmt.Sprintf("%d of %d cases shown", n, n)) {
		t.Error("the page's script did not run (the case filter shows no count)")
	}
	if p.name == "hostile" {
		checkHostileText(t, dom)
	}
}

// checkHostileText: the hostile fixture's markup shows as text and its
// script never ran.
func checkHostileText(t *testing.T, dom string) {
	t.Helper()
	lower := strings.ToLower(dom)
	for _, tag := range []string{"<img", "<iframe", "<svg", "<object", "<link", "<b>", "<a href"} {
		if strings.Contains(lower, tag) {
			t.Errorf("recorded text became an element: %s", tag)
		}
	}
	if n := strings.Count(dom, "<script"); n != 1 {
		t.Errorf("%d script elements, want only the page's own", n)
	}
	if title := dom[strings.Index(dom, "<title>"):strings.Index(dom, "</title>")]; strings.Contains(title, "pwned") {
		t.Error("recorded text ran as script (the title changed)")
	}
	for _, text := range []string{"&lt;img src=", "&lt;/script&gt;&lt;script&gt;", "&lt;object data=", `\u001b]8;;`, "&lt;iframe src=", "&lt;svg onload"} {
		if !strings.Contains(dom, text) {
			t.Errorf("the hostile text %q is not shown as text", text)
		}
	}
}

// checkLayout checks the boxes of the first screen: the summary strip
// ends inside the first viewport, the blocks stack top to bottom at the
// same width, the keyboard hint shows on wide screens only, and nothing
// is wider than the viewport.
func checkLayout(t *testing.T, b *browser, width, height int) {
	t.Helper()
	bx := b.boxes("#summary .strip", "#review", "#cases", "#audit", "#footer")
	strip, ok := bx["#summary .strip"]
	if !ok {
		t.Fatal("no summary strip")
	}
	if strip.Y < 0 || strip.Y+strip.H > float64(height) {
		t.Errorf("the summary strip (y %.0f, height %.0f) is not inside the first %d px", strip.Y, strip.H, height)
	}
	prev := strip
	for _, sel := range []string{"#review", "#cases", "#audit", "#footer"} {
		cur, ok := bx[sel]
		if !ok {
			continue
		}
		if cur.Y < prev.Y+prev.H-1 {
			t.Errorf("%s (y %.0f) overlaps the block above it (ends at %.0f)", sel, cur.Y, prev.Y+prev.H)
		}
		if sel != "#footer" && (cur.W < strip.W-2 || cur.W > strip.W+2) {
			t.Errorf("%s is %.0f px wide, the summary strip %.0f", sel, cur.W, strip.W)
		}
		prev = cur
	}
	var keys struct{ Shown, Filter bool }
	b.eval(`(function(){var k=document.querySelector(".filters .keys");return {Filter:!document.querySelector(".filters").hidden,Shown:!!k&&k.offsetParent!==null};})()`, &keys)
	if keys.Filter && keys.Shown != (width > 760) {
		t.Errorf("at %d px the keyboard hint is shown: %v, want it only on wide screens", width, keys.Shown)
	}
	var scrollWidth float64
	b.eval("document.documentElement.scrollWidth", &scrollWidth)
	if scrollWidth > float64(width) {
		t.Errorf("the page is %.0f px wide at a %d px viewport (it scrolls sideways)", scrollWidth, width)
	}
}

// checkExpand opens the first case that has runs by clicking its row:
// its detail opens at the full width of the case list and shows its run
// timelines or its run rows.
func checkExpand(t *testing.T, b *browser, p htmlPage, width int) {
	t.Helper()
	idx := -1
	for i, c := range p.env.Cases {
		if len(c.Evidence) > 0 || c.Reliability != nil {
			idx = i + 1
			break
		}
	}
	if idx < 0 {
		return
	}
	var state struct {
		Open              bool
		Runs, Rows        int
		DetailW, ListW    float64
		SummaryH, DetailY float64
	}
	b.eval(fmt.Sprintf(`(function(){var li=document.getElementById("case-%d");li.querySelector("summary").click();
var d=li.querySelector("details"),det=li.querySelector(".detail"),r=det.getBoundingClientRect();
return {Open:d.open,Runs:det.querySelectorAll(".run-ev").length,Rows:det.querySelectorAll("ul.runs li").length,
DetailW:r.width,ListW:document.getElementById("case-list").getBoundingClientRect().width};})()`, idx), &state)
	if !state.Open {
		t.Fatalf("clicking case %d did not open it", idx)
	}
	if state.Runs+state.Rows == 0 {
		t.Errorf("case %d opened shows no run", idx)
	}
	if len(p.env.Cases[idx-1].Evidence) > 0 && state.Runs == 0 {
		t.Errorf("case %d has recorded evidence and shows no run timeline", idx)
	}
	if state.DetailW < 0.9*state.ListW {
		t.Errorf("the opened case is %.0f px wide in a %.0f px list (at %d px): it should take the full width", state.DetailW, state.ListW, width)
	}
}

// checkKeyboard moves between cases with real key presses: j goes to the
// next case, k back, and Enter on a case row opens or closes it.
func checkKeyboard(t *testing.T, b *browser, cases int) {
	t.Helper()
	if cases < 2 {
		return
	}
	press := func(key, code string, vk int) {
		for _, typ := range []string{"keyDown", "keyUp"} {
			ev := map[string]any{"type": typ, "key": key, "code": code, "windowsVirtualKeyCode": vk}
			if typ == "keyDown" && key != "Enter" {
				ev["text"] = key
			} else if typ == "keyDown" {
				ev["text"] = "\r"
			}
			b.call("Input.dispatchKeyEvent", ev, nil)
		}
	}
	focused := func() (id string, open bool) {
		var st struct {
			ID   string
			Open bool
		}
		b.eval(`(function(){var li=document.activeElement.closest("li.case");return li?{ID:li.id,Open:li.querySelector("details").open}:{};})()`, &st)
		return st.ID, st.Open
	}
	b.eval(`document.querySelector("#case-1 summary").focus()`, nil)
	press("j", "KeyJ", 74)
	if id, _ := focused(); id != "case-2" {
		t.Errorf("j from case 1 focused %q, want case-2", id)
	}
	press("k", "KeyK", 75)
	id, wasOpen := focused()
	if id != "case-1" {
		t.Errorf("k from case 2 focused %q, want case-1", id)
	}
	press("Enter", "Enter", 13)
	if _, open := focused(); open == wasOpen {
		t.Errorf("Enter on case 1 did not open or close it (open %v before and after)", open)
	}
}

// checkCSPHolds adds an inline script to the page and checks it does not
// run: the policy admits only the page's own script, by hash.
func checkCSPHolds(t *testing.T, b *browser) {
	t.Helper()
	var ran bool
	b.eval(`(function(){var s=document.createElement("script");s.textContent="window.__injected=true";document.body.appendChild(s);return window.__injected===true;})()`, &ran)
	if ran {
		t.Error("an inline script added to the page ran: the Content-Security-Policy does not hold")
	}
}

// keepScreenshot checks a screenshot was written and copies it to
// $MCPTEST_SCREENSHOTS when that is set, for a person to look at.
func keepScreenshot(t *testing.T, shot string) {
	t.Helper()
	data, err := os.ReadFile(shot)
	if err != nil || len(data) < 1000 || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("no PNG screenshot at %s (%v)", shot, err)
	}
	if dir := os.Getenv("MCPTEST_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(shot)), data, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("screenshot: %s", shot)
}

// TestHTMLAccessibility runs axe-core (npm, pinned in .ci/node-reports)
// over the report in the same browser, with a case opened: no serious or
// critical violation.
func TestHTMLAccessibility(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	axe := axeSource(t)
	b := startBrowser(t, chromium)
	for _, p := range browserPages(t) {
		for _, vp := range viewports {
			t.Run(p.name+"/"+vp.name, func(t *testing.T) {
				b.t = t
				b.open("file://"+p.path, vp.width, vp.height)
				b.eval(`document.querySelectorAll("li.case details").forEach(function(d,i){if(i<3){d.open=true;}});document.getElementById("audit").open=true`, nil)
				runAxe(t, b, axe)
			})
		}
	}
}

// axeSource reads axe-core from .ci/node-reports.
func axeSource(t *testing.T) []byte {
	t.Helper()
	path := checker(t, "axe-core", filepath.Join(nodeReports, "axe-core/axe.min.js"), "npm ci --prefix .ci/node-reports")
	axe, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return axe
}

// runAxe runs axe-core over the open page: no serious or critical
// violation.
func runAxe(t *testing.T, b *browser, axe []byte) {
	t.Helper()
	b.eval(string(axe), nil)
	var violations []struct {
		ID, Impact, Help string
		Nodes            []struct{ Target []string }
	}
	b.eval(`axe.run(document,{resultTypes:["violations"]}).then(function(r){return r.violations;})`, &violations)
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe %s (%s): %s, %d node(s), first %v", v.ID, v.Impact, v.Help, len(v.Nodes), v.Nodes[0].Target)
		}
	}
}
