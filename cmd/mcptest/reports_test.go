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
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine/report"
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
			if code != ExitOK {
				t.Errorf("%s --format %s: exit %d\n%s", name, f.name, code, stderr)
			}
			golden(t, filepath.Join("testdata", "golden", "reports", name+f.ext), stdout)
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
	for _, want := range []string{`id="comparison"`, "Floor flips", "regression", "fix", "<th>vs baseline</th>", "100 → 50 (-50)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the comparison report lacks %q", want)
		}
	}
	golden(t, "testdata/golden/reports/compare-baseline.html", stdout)
}

// checker finds an external program a test runs (headless Chromium, a
// pinned npm tool). Locally a missing checker skips the test with the
// command that installs it; under CI=true it fails the test, so CI cannot
// pass by skipping.
func checker(t *testing.T, what, path, install string) string {
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
		if code != ExitOK {
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
			env := readEnvelope(t, inputs[name])
			type want struct {
				name, class string
				fail, skip  bool
				texts       []string
			}
			var wants []want
			for _, c := range env.Cases {
				w := want{name: c.Name, class: env.Suite.Path, fail: c.Verdict == report.Fail, skip: c.Verdict == report.Inconclusive}
				for _, a := range c.Assertions {
					if !a.Passed {
						w.texts = append(w.texts, a.Message)
					}
				}
				wants = append(wants, w)
				// One testcase per run: tool_selection's rows where the
				// case has them, else the reliability rows of every
				// multi-run case.
				if c.ToolSelection != nil {
					for _, r := range c.ToolSelection.Runs {
						wants = append(wants, want{name: r.Name, class: c.Name, fail: !r.PassK})
					}
				} else if c.Reliability != nil {
					for _, r := range c.Reliability.Rows {
						wants = append(wants, want{name: report.RunName(c.Name, r.Run), class: c.Name, fail: !r.Passed})
					}
				}
			}
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

// TestHTMLInChromium opens the HTML report in headless Chromium (Debian
// chromium): the three trust blocks render in order, "Review first" lists
// exactly the failing and inconclusive cases and is absent on an all-pass
// run, hostile recorded text shows as text, the page's own script runs
// under its Content-Security-Policy, and the page makes no request: the
// hostile fixture points every injected src/href at a loopback server that
// must see nothing. Screenshots of an all-pass and a failing report are
// kept in testdata/out/ (not committed).
func TestHTMLInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	var hits atomic.Int64
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the report made a request: %s %s", r.Method, r.URL)
	}))
	defer probe.Close()

	data, err := os.ReadFile("testdata/reports/hostile.json")
	if err != nil {
		t.Fatal(err)
	}
	hostile := filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(hostile, bytes.ReplaceAll(data, []byte("PROBE"), []byte(probe.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	pass := savedRun(t, "../../examples/quickstart/suite.yml")
	outDir, _ := filepath.Abs("testdata/out")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct{ name, envelope string }{{"fail", hostile}, {"pass", pass}} {
		t.Run(tc.name, func(t *testing.T) {
			env := readEnvelope(t, tc.envelope)
			page := filepath.Join(t.TempDir(), "run.html")
			if _, stderr, code := mcptest(t, nil, "report", tc.envelope, "--format", "html", "--output", page); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			src, _ := os.ReadFile(page)
			if m := remoteRef.Find(src); m != nil {
				t.Errorf("the page refers to another host: %s", m)
			}

			dom := runChromium(t, chromium, "--dump-dom", "file://"+page)
			if !strings.Contains(dom, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
				t.Error("no Content-Security-Policy meta with default-src 'none'")
			}
			order := []string{`id="audit"`, `id="review"`, `id="cases"`, `id="footer"`}
			if env.Verdict == report.Pass && env.Totals.Inconclusive == 0 {
				if strings.Contains(dom, `id="review"`) {
					t.Error("an all-pass run shows a Review first block")
				}
				order = []string{`id="audit"`, `id="cases"`, `id="footer"`}
			}
			last := -1
			for _, id := range order {
				i := strings.Index(dom, id)
				if i < 0 || i < last {
					t.Fatalf("block %s missing or out of order (at %d, previous at %d)", id, i, last)
				}
				last = i
			}
			for _, h := range []string{">Audit this run<", ">All cases<", "This file is an <strong>mcptest run report</strong>"} {
				if !strings.Contains(dom, h) {
					t.Errorf("the page does not show %q", h)
				}
			}

			var wantReview, gotReview []string
			for _, c := range env.Cases {
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

			if !strings.Contains(dom, fmt.Sprintf("%d of %d cases shown", len(env.Cases), len(env.Cases))) {
				t.Error("the page's script did not run (the case filter shows no count)")
			}
			if tc.name == "fail" {
				for _, tag := range []string{"<img", "<iframe", "<svg", "<object", "<link", "<b>", "<a href"} {
					if strings.Contains(strings.ToLower(dom), tag) {
						t.Errorf("recorded text became an element: %s", tag)
					}
				}
				if n := strings.Count(dom, "<script"); n != 1 {
					t.Errorf("%d script elements, want only the page's own", n)
				}
				if title := dom[strings.Index(dom, "<title>"):strings.Index(dom, "</title>")]; strings.Contains(title, "pwned") {
					t.Error("recorded text ran as script (the title changed)")
				}
				for _, text := range []string{"&lt;img src=", "&lt;/script&gt;&lt;script&gt;", "&lt;object data=", `\u001b]8;;`} {
					if !strings.Contains(dom, text) {
						t.Errorf("the hostile text %q is not shown as text", text)
					}
				}
			}

			shot := filepath.Join(outDir, "report-"+tc.name+".png")
			runChromium(t, chromium, "--screenshot="+shot, "--window-size=1280,1600", "file://"+page)
			if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
				t.Errorf("no screenshot at %s (%v)", shot, err)
			}
			t.Logf("screenshot: %s", shot)
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the reports made %d request(s) to the probe server", n)
	}
}

// runChromium runs headless Chromium with a fresh profile and no
// background networking, returning what it printed to stdout.
func runChromium(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
