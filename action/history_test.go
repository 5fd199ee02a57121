package action

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline/ghapitest"
	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/report"
)

// historyEnvelope is a run with one case called name, its certified lower
// bound lower, passing when pass.
func historyEnvelope(name string, lower float64, pass bool) *report.Envelope {
	v := report.Fail
	if pass {
		v = report.Pass
	}
	return &report.Envelope{SchemaVersion: report.SchemaVersion, Verdict: v, Totals: report.Totals{Total: 1},
		Cases: []*report.CaseResult{{Name: name, Verdict: v, Targets: map[string]float64{"reliability.certified_lower": lower}}}}
}

// slidingCase is the example suite's case with a certified lower bound;
// this run computes 13 for it.
const slidingCase = "support agent answers from the knowledge base"

// historyRun is a good baseline run whose envelope is the baseline
// example's with the sliding case's certified lower bound set to lower.
func historyRun(t *testing.T, id int64, lower float64) *ghapitest.Run {
	t.Helper()
	data, err := os.ReadFile("../examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	for _, c := range env["cases"].([]any) {
		if c := c.(map[string]any); c["name"] == slidingCase {
			c["targets"].(map[string]any)["reliability.certified_lower"] = lower
		}
	}
	out, _ := json.Marshal(env)
	r := goodRun(t, id, fmt.Sprintf("sha%04d", id))
	r.Artifacts[0].Zip = zipOf(t, map[string][]byte{"mcptest-report.json": out})
	return r
}

// slidingServer holds eight baselines whose sliding case falls 40, 38 ..
// 26, and between them an expired, a fork's and a forged one, each with
// a figure (77.25) that would show if it were read.
func slidingServer(t *testing.T) *ghapitest.Server {
	srv := newServer(t)
	for i := int64(0); i < 8; i++ {
		srv.Runs = append(srv.Runs, historyRun(t, 40+i*2, float64(40-2*i)))
		switch i {
		case 2:
			r := historyRun(t, 40+i*2+1, 77.25)
			r.Artifacts[0].Expired = true
			srv.Runs = append(srv.Runs, r)
		case 4:
			r := historyRun(t, 40+i*2+1, 77.25)
			r.HeadRepo = "fork/agents"
			srv.Runs = append(srv.Runs, r)
		case 6:
			r := historyRun(t, 40+i*2+1, 77.25)
			r.Artifacts[0].Digest = "sha256:" + strings.Repeat("0", 64)
			srv.Runs = append(srv.Runs, r)
		}
	}
	return srv
}

// TestActionHistory: with history 10 a check reads the eight good
// baselines (the expired, the fork's and the forged one skipped with the
// baseline fetch's reasons), and: the comment carries the line of the
// floor that fell over the window although no floor flipped on it; the
// summary the trend block (the floor's last figures, the case that flips);
// the history page is written beside report-path and named by the
// history-path output. With history-threshold 5 the same run fails the
// step with an error annotation and a line naming the floor and the
// window; with fail-on none and no threshold it passes.
func TestActionHistory(t *testing.T) {
	floor := annotate.Text("certified_lower of "+slidingCase, 200)
	want := floor + ": 40 -> 13 over 9 runs (8 baselines and this run)"
	for _, c := range []struct {
		name, threshold string
		code            int
	}{{"no threshold", "0", ExitOK}, {"threshold 5", "5", ExitFail}, {"threshold 30", "30", ExitOK}} {
		t.Run(c.name, func(t *testing.T) {
			srv := slidingServer(t)
			r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
			r.env["INPUT_FAIL-ON"] = "none"
			r.env["INPUT_HISTORY"] = "10"
			r.env["INPUT_HISTORY-THRESHOLD"] = c.threshold
			r.env["RUNNER_TEMP"] = t.TempDir()
			res := r.run()
			if res.code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", res.code, c.code, res.stdout, res.stderr)
			}
			for _, s := range []string{"run 45: artifact \"mcptest-baseline\" expired", "run 49: its head repository \"fork/agents\" is not acme/agents",
				"run 53: artifact \"mcptest-baseline\": its download does not match its digest"} {
				if !strings.Contains(res.stdout, "mcptest: history: skipped "+s) {
					t.Errorf("the log does not skip %q\n%s", s, res.stdout)
				}
			}
			srv.Lock()
			comments := srv.Comments
			srv.Unlock()
			if len(comments) != 1 || !strings.Contains(comments[0].Body, "- "+want+"\n") {
				t.Fatalf("comment lacks the sliding floor's line %q:\n%v", want, comments)
			}
			if !strings.Contains(res.summary, "#### History: the last 9 runs (8 baselines and this run)") ||
				!strings.Contains(res.summary, "| "+floor+" | 40 · 38 · 36 · 34 · 32 · 30 · 28 · 26 · 13 | -27 |") {
				t.Errorf("the summary lacks the trend block:\n%s", res.summary)
			}
			if strings.Contains(res.summary, "77.25") {
				t.Errorf("a refused baseline's figure is in the summary:\n%s", res.summary)
			}
			page := res.outputs["history-path"]
			data, err := os.ReadFile(page)
			if page != strings.TrimSuffix(r.env["INPUT_REPORT-PATH"], ".json")+".history.html" || err != nil ||
				!strings.Contains(string(data), "<svg") || !strings.Contains(string(data), slidingCase) {
				t.Errorf("history page %q: %v, %d bytes", page, err, len(data))
			}
			entries, _ := os.ReadDir(r.env["RUNNER_TEMP"])
			if len(entries) != 0 {
				t.Errorf("the fetched baselines are left in RUNNER_TEMP: %v", entries)
			}
			line := "sustained slide: certified_lower of support agent answers from the knowledge base fell 27 points, 40 -> 13 over 9 runs (8 baselines and this run), past history-threshold 5"
			if got := strings.Contains(res.stdout, "mcptest: "+line+"\n"); got != (c.code == ExitFail) {
				t.Errorf("the log has the slide's line: %v, want %v\n%s", got, c.code == ExitFail, res.stdout)
			}
			if got := strings.Contains(res.annotations, "::error title=mcptest%3A sustained slide::"+line+"\n"); got != (c.code == ExitFail) {
				t.Errorf("error annotation: %v\n%s", got, res.annotations)
			}
			if c.code == ExitFail && res.outputs["verdict"] != "fail" {
				t.Errorf("verdict %q", res.outputs["verdict"])
			}
		})
	}
}

// TestActionHistoryDriftAndBaseline: the drift and baseline modes write
// the page and the trend block too; a baseline run over a sustained slide
// warns instead of failing, so it still becomes a baseline.
func TestActionHistoryDriftAndBaseline(t *testing.T) {
	for _, c := range []struct {
		event   string
		payload any
		level   string
	}{
		{"schedule", map[string]any{"schedule": "0 6 * * *"}, "error"},
		{"push", map[string]any{"ref": "refs/heads/main"}, "warning"},
	} {
		t.Run(c.event, func(t *testing.T) {
			srv := slidingServer(t)
			r := newRunner(t, srv, c.event, c.payload)
			r.env["INPUT_HISTORY"] = "3"
			r.env["INPUT_HISTORY-THRESHOLD"] = "2"
			res := r.run()
			if !strings.Contains(res.summary, "#### History: the last 4 ") {
				t.Errorf("no trend block:\n%s", res.summary)
			}
			if _, err := os.Stat(res.outputs["history-path"]); err != nil {
				t.Errorf("no history page: %v", err)
			}
			if !strings.Contains(res.annotations, "::"+c.level+" title=mcptest%3A sustained slide::sustained slide: certified_lower of "+slidingCase+" fell 17 points, 30 -> 13 over 4") {
				t.Errorf("no %s for the slide:\n%s", c.level, res.annotations)
			}
			if c.event == "push" && res.code != ExitOK {
				t.Errorf("a baseline run over a slide: exit %d, want 0\n%s", res.code, res.stdout)
			}
		})
	}
}

// TestActionHistoryNone: no baseline run at all is a note, not a failure.
func TestActionHistoryNone(t *testing.T) {
	srv := newServer(t)
	r := newRunner(t, srv, "push", map[string]any{"ref": "refs/heads/main"})
	r.env["INPUT_HISTORY"] = "5"
	res := r.run()
	if res.code != ExitOK || !strings.Contains(res.summary, "No history: "+annotate.Text("workflow mcptest-baseline.yml has no successful run on main yet (first run?)", 1000)+".") {
		t.Errorf("exit %d, summary:\n%s", res.code, res.summary)
	}
	if res.outputs["history-path"] != "" {
		t.Errorf("history-path %q without a history", res.outputs["history-path"])
	}
}

// TestActionHistoryInputs: history and history-threshold refuse what they
// cannot mean, naming the input.
func TestActionHistoryInputs(t *testing.T) {
	for _, c := range []struct{ history, threshold, want string }{
		{"-1", "0", "input history"}, {"101", "0", "input history"}, {"x", "0", "input history"},
		{"10", "-2", "input history-threshold"}, {"10", "NaN", "input history-threshold"}, {"1", "3", "needs a history of at least 2"},
	} {
		in := inputs{}
		err := in.readHistory(c.history, c.threshold)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("history %q threshold %q: %v, want %q", c.history, c.threshold, err, c.want)
		}
	}
	in := inputs{}
	if err := in.readHistory("10", "2.5"); err != nil || in.history != 10 || in.historyThreshold != 2.5 {
		t.Errorf("%+v %v", in, err)
	}
}

// TestSlideLinesEscaped is a generator test: floors and cases named with
// every kind of hostile text (markdown, HTML, mentions, refs, line breaks,
// pipes, backticks, workflow-command characters) never break out of the
// comment's line, the summary's table cell or the page's element.
func TestSlideLinesEscaped(t *testing.T) {
	pieces := []string{"|", "<script>", "@octocat", "#12", "\n", "\r", "`", "%", "::", "*", "_", "[x](y)", "\u202e", "&amp;", "<!--"}
	for i := 0; i < 200; i++ {
		name := "case"
		for j := 0; j < 1+i%5; j++ {
			name += pieces[(i*7+j*3)%len(pieces)]
		}
		b := history.NewBuilder(history.Options{})
		for k := 0; k < 3; k++ {
			s, err := history.SnapshotOf(historyEnvelope(name, float64(50-k), k%2 == 0), fmt.Sprintf("run %d", k))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		tr := b.History().Trend(true)
		rep := annotate.ActionReport{Env: historyEnvelope(name, 10, true), Suite: "suite.yml", Trend: tr}
		md := annotate.Summary(rep, "https://github.com", "acme/agents", annotate.SummaryLimit)
		_, hist, ok := strings.Cut(md, "#### History")
		if !ok {
			t.Fatalf("%q: no trend block:\n%s", name, md)
		}
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "| ") && strings.Contains(hist, l) && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 4 {
				t.Fatalf("%q: a table row with a broken cell: %q", name, l)
			}
			for _, bad := range []string{"<script", "@octocat", "<!--", "\r"} {
				if strings.Contains(l, bad) {
					t.Fatalf("%q: %q in the summary: %q", name, bad, l)
				}
			}
		}
	}
}

// TestBinaryHistory runs the built `mcptest action` as a process, as the
// runner's step does, in drift mode against the API stand-in's sliding
// baselines: the history page is written and named by the output, the log
// carries the trend and the skipped runs, and the sustained slide fails
// the step with exit 1 and the line naming the floor and the window.
func TestBinaryHistory(t *testing.T) {
	srv := slidingServer(t)
	r := newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
	r.env["INPUT_FAIL-ON"] = "none"
	r.env["INPUT_HISTORY"] = "10"
	r.env["INPUT_HISTORY-THRESHOLD"] = "5"
	res := r.runBinary()
	if res.code != ExitFail {
		t.Fatalf("exit %d, want 1\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"mcptest: history: skipped run 53: artifact \"mcptest-baseline\": its download does not match its digest",
		"mcptest: history: 9 runs (8 baselines and this run)\n",
		"mcptest: history: certified_lower of " + slidingCase + ": 40 · 38 · 36 · 34 · 32 · 30 · 28 · 26 · 13 (-27)\n",
		"::error title=mcptest%3A sustained slide::sustained slide: certified_lower of " + slidingCase + " fell 27 points, 40 -> 13 over 9 runs (8 baselines and this run), past history-threshold 5\n",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the step's log lacks %q\n%s", want, res.stdout)
		}
	}
	if data, err := os.ReadFile(res.outputs["history-path"]); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("history page %q: %v", res.outputs["history-path"], err)
	}
	if !strings.Contains(res.summary, "#### History: the last 9 runs (8 baselines and this run)") {
		t.Errorf("no trend block in the summary:\n%s", res.summary)
	}
}
