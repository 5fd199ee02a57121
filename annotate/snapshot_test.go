package annotate

import (
	"bytes"
	"compress/flate"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// snapshotDictFile is the viewer's preset dictionary, which -update
// rewrites from the sample run's snapshot document. Rewriting it changes
// its id, so addresses written before read only in the viewer page of the
// mcptest that wrote them (the viewer says so): rewrite it only when the
// report's markup has changed enough to matter.
const snapshotDictFile = "html/snapshot.dict"

// dictionaryRun is the run the dictionary is rendered from: the sample
// run and a passing agent case of several runs with the figures most runs
// have (reliability, tool selection, tool edges) and a recording's
// reference.
func dictionaryRun() *report.Envelope {
	env := sample()
	pos := diag.Pos{File: "suite.yml", Line: 60, Col: 5}
	c := &report.CaseResult{
		Name: "agent case over its recorded runs", Kind: report.KindAgent, Verdict: report.Pass, Position: pos, Runs: 3, RunsDeclared: 3,
		Cassettes: &report.CassetteSet{Files: 1, SHA256: strings.Repeat("0", 64), Paths: []string{"cassettes/run.json"}},
		Targets: map[string]float64{
			"reliability.certified_lower": 36, "reliability.pass_at_1": 100, "reliability.pass_at_2": 100, "reliability.pass_at_3": 100,
			"reliability.pass_hat_1": 100, "reliability.pass_hat_2": 100, "reliability.pass_hat_3": 100, "reliability.pass_rate": 100,
			"tool_selection.f1": 100, "tool_selection.precision": 100, "tool_selection.recall": 100,
			"edges.allowed_pct": 100, "edges.gate_passed": 1, "edges.restricted_attempts": 0,
		},
		Counts: map[string]int64{"reliability.passed_runs": 3, "reliability.runs": 3, "tool_selection.tp": 3, "tool_selection.fp": 0, "tool_selection.fn": 0,
			"edges.allowed": 2, "edges.calls": 3, "edges.undeclared_calls": 0},
		Labels: map[string]string{"reliability.class": "stable_pass"},
		Assertions: []report.AssertionResult{
			{Index: 0, Block: "equal_function_sets", Target: "tool_selection.f1", Matcher: map[string]any{">=": 80.0}, Actual: 100.0, Passed: true, Message: "assertion #0 (`tool_selection.f1`) passed", Position: pos},
			{Index: 0, Target: "tool_names", Matcher: map[string]any{"contains": "search"}, Actual: []any{"search"}, Passed: true, Message: "assertion #0 (`tool_names`) passed", Position: pos},
		},
		Floors: []report.Floor{}, Findings: []report.Finding{},
		Reliability: &report.ReliabilityDetail{Runs: 3, PassedRuns: 3, Class: "stable_pass", Confidence: 95, Rows: []report.RunVerdict{{Run: 1, Passed: true}, {Run: 2, Passed: true}, {Run: 3, Passed: true}}},
	}
	env.Cases = append(env.Cases, c)
	env.Totals.Total++
	env.Totals.Passed++
	return env
}

// TestSnapshotDictionary: the dictionary is at most the deflate window
// (32 KiB), valid UTF-8, and earns its place: the sample run's address is
// at most two thirds of what it is without it.
func TestSnapshotDictionary(t *testing.T) {
	doc, err := snapshotDoc(dictionaryRun(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		dict := doc
		if len(dict) > 32<<10 {
			dict = dict[len(dict)-32<<10:]
		}
		for !utf8.Valid(dict) {
			dict = dict[1:]
		}
		if err := os.WriteFile(snapshotDictFile, dict, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("rewrote " + snapshotDictFile + ": rebuild and run again")
	}
	if len(snapshotDict) > 32<<10 || !utf8.ValidString(snapshotDict) {
		t.Fatalf("the dictionary is %d bytes (at most 32 KiB) or not UTF-8", len(snapshotDict))
	}
	deflated := func(dict []byte) int {
		var z bytes.Buffer
		w, _ := flate.NewWriterDict(&z, flate.BestCompression, dict)
		w.Write(doc)
		w.Close()
		return z.Len()
	}
	if with, without := deflated([]byte(snapshotDict)), deflated(nil); with*3 > without*2 {
		t.Errorf("the sample's snapshot deflates to %d bytes with the dictionary, %d without", with, without)
	}
}

// drawnEvidenceRun is a run nobody wrote: cases of drawn verdicts, each
// with up to 6 recorded runs of 1 or 2 turns of up to 2 calls (a quarter
// of them up to 5 turns of up to 8 calls), texts of
// up to 1,000 drawn characters (the envelope's clip), some of them
// non-ASCII or markup.
func drawnEvidenceRun(r *rand.Rand) *report.Envelope {
	env := sample()
	env.Cases = nil
	words := []string{"search", "fetch", "<b>x</b>", "résumé", "数据", "\"q\"", "`code`", "\u202e", "{\"k\":1}", "line\nbreak"}
	text := func() string {
		var b strings.Builder
		for n := r.IntN(1000); b.Len() < n; {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	n := 1 + r.IntN(12)
	env.Totals = report.Totals{Total: n}
	for i := range n {
		c := &report.CaseResult{Name: fmt.Sprintf("drawn case %d", i), Kind: report.KindAgent, Verdict: report.Pass, Runs: 1 + r.IntN(6),
			Targets: map[string]float64{}, Counts: map[string]int64{}, Assertions: []report.AssertionResult{}, Floors: []report.Floor{}, Findings: []report.Finding{},
			Position: diag.Pos{File: "suite.yml", Line: 3 + i, Col: 5}}
		if r.IntN(2) == 0 {
			c.Verdict = report.Fail
			env.Totals.Failed++
			c.Reliability = &report.ReliabilityDetail{Runs: int64(c.Runs)}
		} else {
			env.Totals.Passed++
		}
		for run := 1; run <= c.Runs; run++ {
			ev := report.RunEvidence{Run: run, Model: "m"}
			turns, calls := 1+r.IntN(2), 3
			if r.IntN(4) == 0 {
				turns, calls = 1+r.IntN(5), 9
			}
			for range turns {
				t := report.TurnEvidence{FinalResponse: text()}
				for range r.IntN(calls) {
					t.Calls = append(t.Calls, report.CallEvidence{Tool: "search", Arguments: text(), Result: text()})
				}
				ev.Turns = append(ev.Turns, t)
			}
			c.Evidence = append(c.Evidence, ev)
			if c.Reliability != nil {
				c.Reliability.Rows = append(c.Reliability.Rows, report.RunVerdict{Run: run, Passed: r.IntN(2) == 0})
			}
		}
		env.Cases = append(env.Cases, c)
	}
	if env.Totals.Failed > 0 {
		env.Verdict = report.Fail
	} else {
		env.Verdict = report.Pass
	}
	return env
}

// TestSnapshotEvidenceShareGenerated: over drawn runs, a snapshot's page
// shows at most one run a case, the first failing run where the case has
// one, every recorded text at most snapshotText characters and none behind
// a "full" toggle, timelines within the snapshot's budget, and the
// envelope it renders is left as it was.
func TestSnapshotEvidenceShareGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	shown := 0
	for draw := range 60 {
		env := drawnEvidenceRun(r)
		var before bytes.Buffer
		if err := (JSON{}).Report(&before, env); err != nil {
			t.Fatal(err)
		}
		frag, err := SnapshotFragment(env, nil)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := ReadSnapshotFragment(frag)
		if err != nil {
			t.Fatalf("draw %d: %v", draw, err)
		}
		var after bytes.Buffer
		if err := (JSON{}).Report(&after, env); err != nil || !bytes.Equal(before.Bytes(), after.Bytes()) {
			t.Fatalf("draw %d: the snapshot changed the envelope it renders (%v)", draw, err)
		}
		if strings.Contains(snap.Page, `<details class="full">`) {
			t.Errorf("draw %d: a text behind a full toggle", draw)
		}
		cut, _, budget := snapshotEvidence(env, nil)
		spent := 0
		for i, c := range env.Cases {
			at := strings.Index(snap.Page, fmt.Sprintf(`id="case-%d"`, i+1))
			end := strings.Index(snap.Page[at+1:], `<li class="case `)
			body := snap.Page[at:]
			if end >= 0 {
				body = snap.Page[at : at+1+end]
			}
			runs := regexp.MustCompile(`aria-label="run (\d+)"`).FindAllStringSubmatch(body, -1)
			if len(runs) > 1 { // one run a case, as documented
				t.Errorf("draw %d case %d: %d runs shown", draw, i, len(runs))
			}
			if len(runs) > 0 {
				shown++
			}
			if len(runs) == 1 {
				spent += evidenceSize(cut.Cases[i].Evidence)
				if want := pickRuns(c, 1)[0].Run; runs[0][1] != fmt.Sprint(want) {
					t.Errorf("draw %d case %d: run %s shown, want run %d (its first failing run, else its first)", draw, i, runs[0][1], want)
				}
			}
			for _, m := range regexp.MustCompile(`(?s)<code>([^<]*)</code>`).FindAllStringSubmatch(body, -1) {
				// A control or bidi character reads as its visible escape
				// (Clean), one recorded character.
				shown := regexp.MustCompile(`\\u\{?[0-9a-fA-F]{2,6}\}?`).ReplaceAllString(html.UnescapeString(m[1]), "?")
				if n := utf8.RuneCountInString(shown); n > snapshotText+1 {
					t.Errorf("draw %d case %d: a text of %d characters", draw, i, n)
				}
			}
		}
		if spent > budget {
			t.Errorf("draw %d: timelines of %d bytes, over the budget %d", draw, spent, budget)
		}
	}
	if shown < 30 {
		t.Errorf("only %d drawn cases showed a timeline: the draws do not exercise the share", shown)
	}
}
