package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate/runnertest"
	"github.com/mcptest/mcptest/history/historytest"
)

// runHistoryBin runs the built binary in dir with env added and returns its
// output and exit code.
func runHistoryBin(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(mcptestBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestHistoryBinaryKnownTrends: the built binary, over a generated window
// of 12 envelopes whose file names sort newest first, prints the known
// trends in text and JSON, reads the same window from the workspace store
// when given no argument, and refuses a forged envelope with exit 2.
func TestHistoryBinaryKnownTrends(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "store", "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := historytest.Spec{Runs: 12, Suite: "suite.yml", Steady: 4, Evidence: true}
	if _, err := historytest.Write(runs, spec); err != nil {
		t.Fatal(err)
	}
	text, stderr, code := runHistoryBin(t, dir, nil, "history", runs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"mcptest history: 12 runs, oldest first by run.started_at, then run.id",
		"certified_lower of slide: 90 -> 79 over 12 runs (-1 per run)",
		"certified_lower of the suite: 66 -> 63.8 over 12 runs (-0.2 per run)",
		"tool-surface tokens (tokens) 1000 -> 1055, +5 per run",
		"cost (USD)             0.01 -> 0.021, +0.001 per run",
		"flaky: 8 flips",
		"added: added at #7 (" + historytest.Commit(6)[:12] + ")",
		"removed: removed at #7 (" + historytest.Commit(6)[:12] + ")",
		"flip at #2 (" + historytest.Commit(1)[:12] + "): pass -> fail",
		"flaky [agent] PFPPFPPFPPFP",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	// No argument: the workspace store's runs.
	stored, stderr, code := runHistoryBin(t, dir, []string{storeEnv + "=" + filepath.Join(dir, "store")}, "history")
	if code != 0 || stored != text {
		t.Errorf("history of the store: exit %d %s; want the same text as of its directory", code, stderr)
	}
	checkHistoryJSON(t, dir, runs)
	checkHistoryForged(t, dir, runs, spec)
	_, stderr, code = runHistoryBin(t, dir, nil, "history", filepath.Join(dir, "missing"))
	if code != 2 || !strings.Contains(stderr, "no such file") {
		t.Errorf("a missing file: exit %d, %q; want exit 2", code, stderr)
	}
}

// checkHistoryJSON: the JSON of the generated window holds the slide's
// series and slope and the flaky case's flips with their commits.
func checkHistoryJSON(t *testing.T, dir, runs string) {
	t.Helper()
	js, _, code := runHistoryBin(t, dir, nil, "history", runs, "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string
				Figures []struct {
					Figure string
					Values []*float64
					Slope  *float64
				}
				Flips []struct {
					Run    int
					Commit string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Suites[0].Cases {
		switch c.Name {
		case "slide":
			f := c.Figures[len(c.Figures)-1]
			if f.Figure != "certified_lower" || f.Slope == nil || *f.Slope != -1 || len(f.Values) != 12 || *f.Values[11] != 79 {
				t.Errorf("slide's certified_lower in JSON: %+v", f)
			}
		case "flaky":
			if len(c.Flips) != 8 || c.Flips[0].Run != 1 || c.Flips[0].Commit != historytest.Commit(1) {
				t.Errorf("flaky's flips in JSON: %+v", c.Flips)
			}
		}
	}
}

// checkHistoryForged: an envelope with a control character in its commit
// is refused with exit 2, naming the file.
func checkHistoryForged(t *testing.T, dir, runs string, spec historytest.Spec) {
	t.Helper()
	// A forged envelope: a control character in its commit.
	data, err := os.ReadFile(filepath.Join(runs, historytest.FileName(spec, 3)))
	if err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(dir, "forged.json")
	if err := os.WriteFile(forged, bytes.Replace(data, []byte(`"commit":"`), []byte(`"commit":"\u001b]8;;`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runHistoryBin(t, dir, nil, "history", runs, forged)
	if code != 2 || !strings.Contains(stderr, "forged.json") || !strings.Contains(stderr, "control character") {
		t.Errorf("a forged envelope: exit %d, %q; want exit 2 naming the file", code, stderr)
	}
}

// TestHistoryBinaryRealRuns: two real runs of the baseline example (the
// suite as it was, then as it is, from one directory so the suite path is
// the same) stored in the workspace: history names the regression and the
// fix as flips, the case removed and the case added.
func TestHistoryBinaryRealRuns(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	env := []string{storeEnv + "=" + filepath.Join(dir, "store")}
	for _, src := range []string{"../../examples/baseline/earlier", "../../examples/baseline"} {
		if err := os.RemoveAll(app); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(app, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runHistoryBin(t, app, env, "run", "--config", "suite.yml", "--reporter", "json"); code > 1 {
			t.Fatalf("run %s: exit %d: %s", src, code, stderr)
		}
		time.Sleep(1100 * time.Millisecond) // run.started_at is to the second
	}
	text, stderr, code := runHistoryBin(t, dir, env, "history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"2 runs", "removed: legacy agent at #2", "added: fetcher reads the page at #2",
		": pass -> fail", ": fail -> pass",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the history lacks %q:\n%s", want, text)
		}
	}
}

// TestHistoryPageInChromium: the page of a generated window, written by
// the built binary beside the envelopes and a real report of one of them,
// opens in headless Chromium at 1400 and at 390 px with one chart per
// suite figure (each with its line) and one of the suite floor, a small multiple per case, the
// flaky case's flips marked and linked to the run's report, no
// horizontal scroll, nothing logged and nothing requested.
func TestHistoryPageInChromium(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 12, Suite: "suite.yml", Steady: 4, Evidence: true}
	paths, err := historytest.Write(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	// The report of run 2 (index 1), where the flaky case first flips.
	report := strings.TrimSuffix(paths[1], ".json") + ".html"
	if _, stderr, code := runHistoryBin(t, dir, nil, "report", paths[1], "--format", "html", "--output", report); code > 1 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	page := filepath.Join(dir, "history.html")
	if _, stderr, code := runHistoryBin(t, dir, nil, "history", dir, "--format", "html", "--output", page); code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	b := startBrowser(t, chromium)
	for _, width := range []int{1400, 390} {
		b.open("file://"+page, width, 900)
		var got struct {
			Charts, Lines, Cases, Marks, Scroll, Client int
			Figures, Floors                             []string
			Link                                        string
		}
		b.eval(`(function(){var c=document.querySelectorAll("#suite-0 figure.hist-chart[data-figure]");
return {Charts:c.length,Lines:document.querySelectorAll("#suite-0 figure.hist-chart[data-figure] svg polyline.line").length,
Floors:Array.from(document.querySelectorAll("#suite-0 figure.hist-floor")).map(function(f){return f.dataset.floor}),
Cases:document.querySelectorAll("#suite-0 .hist-case").length,Marks:document.querySelectorAll("#suite-0 .hist-case circle.flip-mark").length,
Figures:Array.from(c).map(function(f){return f.dataset.figure}),
Link:(function(a){return a?new URL(a.getAttribute("href"),location.href).href:""})(document.querySelector("#suite-0 .hist-case a")),
Scroll:document.documentElement.scrollWidth,Client:document.documentElement.clientWidth};})()`, &got)
		want := []string{"pass_rate", "pass_hat", "certified_lower", "selection_f1", "tokens", "cost", "tool_surface_tokens"}
		if got.Charts != len(want) || got.Lines != len(want) || fmt.Sprint(got.Figures) != fmt.Sprint(want) {
			t.Errorf("%d px: %d charts (%v) with %d lines, want one per suite figure %v", width, got.Charts, got.Figures, got.Lines, want)
		}
		if fmt.Sprint(got.Floors) != "[summary.pass_hat_10]" {
			t.Errorf("%d px: floor charts %v, want one of summary.pass_hat_10", width, got.Floors)
		}
		if got.Cases != 3+1+1+spec.Steady || got.Marks != 8 {
			t.Errorf("%d px: %d small multiples, %d flip marks; want %d and 8", width, got.Cases, got.Marks, 5+spec.Steady)
		}
		if got.Link != "file://"+report {
			t.Errorf("%d px: the first flip links %q, want the run's report %s", width, got.Link, report)
		}
		if got.Scroll > got.Client {
			t.Errorf("%d px: the page scrolls sideways (%d > %d)", width, got.Scroll, got.Client)
		}
		boxes := b.boxes("#suite-0 figure.hist-chart", "#suite-0 figure.hist-chart svg", "#suite-0 .hist-case svg")
		if c := boxes["#suite-0 figure.hist-chart svg"]; c.W < 250 || c.H < 80 {
			t.Errorf("%d px: the first chart is %vx%v, too small to read", width, c.W, c.H)
		}
		if f := boxes["#suite-0 figure.hist-chart"]; f.X < 0 || f.X+f.W > float64(width) {
			t.Errorf("%d px: the first chart overflows the viewport: %+v", width, f)
		}
		for _, p := range b.problems("file://" + page) {
			t.Errorf("%d px: the page logged or requested: %s", width, p)
		}
		if os.Getenv("MCPTEST_SHOTS") != "" {
			b.screenshot(filepath.Join(os.Getenv("MCPTEST_SHOTS"), fmt.Sprintf("history-%d.png", width)), true)
		}
	}
}

// TestHistoryPageAccessibility: axe-core finds no serious or critical
// violation on the page of a generated window (with hostile case names)
// at 1400 and at 390 px.
func TestHistoryPageAccessibility(t *testing.T) {
	chromium := checker(t, "chromium", "chromium", "apt-get install -y chromium")
	axe := axeSource(t)
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 9, Suite: "suite <b>.yml", Steady: 3}
	if _, err := historytest.Write(dir, spec); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "history.html")
	if _, stderr, code := runHistoryBin(t, dir, nil, "history", dir, "--format", "html", "--output", page); code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	b := startBrowser(t, chromium)
	for _, width := range []int{1400, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			b.t = t
			b.open("file://"+page, width, 900)
			runAxe(t, b, axe)
		})
	}
}

// TestHistoryRunnerLog: under GitHub Actions, the text, markdown and JSON
// of a window whose case names are workflow commands hold no command the
// runner would run.
func TestHistoryRunnerLog(t *testing.T) {
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 4, Suite: "suite.yml", Steady: 2}
	for i := range spec.Runs {
		env := historytest.Envelope(spec, i)
		env.Cases[0].Name = "::error file=x::forged"
		env.Cases[1].Name = "ok\n::add-mask::x\r::stop-commands::y"
		data, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, historytest.FileName(spec, i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"text", "markdown", "json"} {
		out, stderr, code := mcptest(t, map[string]string{"GITHUB_ACTIONS": "true"}, "history", dir, "--format", format)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if cmds := runnertest.Commands(out); len(cmds) > 0 {
			t.Errorf("%s: the runner would run %v", format, cmds)
		}
	}
}

// TestHistoryInputErrors: an empty directory, an empty store, a wrong
// flag value and an unknown format exit 2 with a line that says what was
// expected.
func TestHistoryInputErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"history", empty}, "no run envelope in"},
		{[]string{"history"}, "no stored run in"},
		{[]string{"history", empty, "--flaky", "0"}, "--flaky 1 or more"},
		{[]string{"history", empty, "--last", "-1"}, "0 or more"},
		{[]string{"history", empty, "--format", "htm"}, "did you mean html"},
	} {
		_, stderr, code := mcptest(t, map[string]string{storeEnv: empty}, tc.args...)
		if code != ExitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}

// maxHistoryRSS bounds the peak RSS, in MB, of `mcptest history` over 200
// envelopes of 2,000 cases: one envelope's case at a time plus the series.
const maxHistoryRSS = 150

// TestHistoryAtScale: 200 envelopes of 2,000 cases each, every case's
// figure moving every run, through the built binary: its peak RSS stays
// bounded (it holds one envelope at a time, and 200 envelopes cost little
// more than 50), its CPU time grows about linearly, and the page stays under
// the 5 MB the report promises for 2,000 cases (maxLargeBytes). A long test
// (MCPTEST_LONG=1: writing 200 envelopes of 2,000 cases takes minutes of a
// busy machine).
func TestHistoryAtScale(t *testing.T) {
	longTest(t)
	const cases = 2000
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 200, Suite: "suite.yml", Steady: cases - 4, Wobble: true}
	paths, err := historytest.Write(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	var envBytes int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		envBytes += fi.Size()
	}
	measure := func(paths []string, format, out string) (rssMB float64, cpu time.Duration) {
		// runMeasured starts the binary from a fresh launcher: the peak
		// resident set of this test process, which a child it starts
		// inherits, does not count.
		u := runMeasured(t, ".", nil, append([]string{"history", "--format", format, "--output", out}, paths...)...)
		if u.code != 0 {
			t.Fatalf("history exit %d: %s", u.code, u.out)
		}
		return float64(u.peak) / (1 << 20), u.cpu
	}
	page := filepath.Join(dir, "history.html")
	rss50, cpu50 := measure(paths[:50], "json", filepath.Join(dir, "h50.json"))
	rss200, cpu200 := measure(paths, "json", filepath.Join(dir, "h200.json"))
	rssPage, cpuPage := measure(paths, "html", page)
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("200 envelopes of %d cases (%.1f MB of envelopes): json of 50 runs %.0f MB RSS, %v CPU; of 200 runs %.0f MB RSS, %v CPU; page of 200 runs %.0f MB RSS, %v CPU, %d bytes",
		cases, float64(envBytes)/1e6, rss50, cpu50, rss200, cpu200, rssPage, cpuPage, fi.Size())
	if fi.Size() > maxLargeBytes {
		t.Errorf("the page of %d cases is %d bytes, over the report's %d", cases, fi.Size(), maxLargeBytes)
	}
	if rss200 > maxHistoryRSS || rssPage > maxHistoryRSS {
		t.Errorf("peak RSS %.0f MB (json), %.0f MB (page); want at most %d MB", rss200, rssPage, maxHistoryRSS)
	}
	// Four times the runs: about four times the CPU (six allows for a
	// busy machine), not sixteen.
	if cpu200 > 6*cpu50+2*time.Second {
		t.Errorf("200 runs took %v of CPU against %v for 50: not linear", cpu200, cpu50)
	}
}
