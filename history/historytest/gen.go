// Package historytest generates windows of run envelopes with known
// trends, for the tests of package history and of `mcptest history`.
package historytest

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// Spec is a generated window. Over Runs envelopes (run i started on day i
// of 2026, commit Commit(i)), the suite Suite holds:
//
//   - "slide": an agent case of 10 runs, all passing, whose
//     reliability.certified_lower slides by one point a run, 90 - i;
//   - "flaky": a one-run case that fails when i%3 == 1 and passes
//     otherwise;
//   - "surface": a tool-selection case whose tool-surface tokens creep
//     by 5 a run (1000 + 5i), its cost by $0.001 a run (0.01 + 0.001i),
//     its selection F1 100 and its median tokens 500;
//   - "added": a passing case present from run Runs/2 on;
//   - "removed": a passing case present before run Runs/2 only;
//   - a suite floor on summary.pass_hat_10 (100 in every run);
//   - Steady more passing cases ("case-0000", ...) whose certified_lower
//     is 60 when Wobble is false, else a value that moves every run.
//
// With Evidence, every case carries a run of recorded evidence (which
// history never reads).
type Spec struct {
	Runs     int
	Suite    string
	Steady   int
	Wobble   bool
	Evidence bool
}

// Commit is the commit of run i.
func Commit(i int) string {
	return fmt.Sprintf("%x", sha1.Sum([]byte("commit "+strconv.Itoa(i))))
}

// StartedAt is the start of run i.
func StartedAt(i int) string {
	return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.RFC3339)
}

// FlakyFails reports whether the flaky case fails in run i.
func FlakyFails(i int) bool { return i%3 == 1 }

// Envelope is run i of the window.
func Envelope(spec Spec, i int) *report.Envelope {
	env := &report.Envelope{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.ToolInfo{Name: "mcptest", Version: "0.0.0-test"},
		Run:           report.RunInfo{ID: fmt.Sprintf("01JHISTORY%016d", i), Mode: "replay", StartedAt: StartedAt(i), DurationMS: 1000},
		Source:        &report.Source{Repo: "acme/agents", Branch: "main", Commit: Commit(i)},
		Suite:         report.SuiteInfo{Path: spec.Suite, SHA256: fmt.Sprintf("%064x", 1)},
	}
	add := func(c *report.CaseResult) {
		c.Position = diag.Pos{File: spec.Suite, Line: len(env.Cases) + 1, Col: 3}
		c.DefinitionSHA256 = fmt.Sprintf("%064x", len(env.Cases)+2)
		if c.Targets == nil {
			c.Targets = map[string]float64{}
		}
		if c.Counts == nil {
			c.Counts = map[string]int64{}
		}
		c.Assertions, c.Floors, c.Findings = []report.AssertionResult{}, []report.Floor{}, []report.Finding{}
		if spec.Evidence {
			c.Evidence = []report.RunEvidence{{Run: 1, Turns: []report.TurnEvidence{{Calls: []report.CallEvidence{{Tool: "search", Arguments: `{"q":"weather in Paris"}`, Result: "Sunny, 21 degrees, light wind from the west."}}, FinalResponse: "It is sunny in Paris."}}}}
		}
		env.Cases = append(env.Cases, c)
	}
	verdict := func(pass bool) report.Verdict {
		if pass {
			return report.Pass
		}
		return report.Fail
	}
	add(&report.CaseResult{Name: "slide", Kind: report.KindAgent, Verdict: report.Pass, Runs: 10,
		Targets: map[string]float64{"reliability.pass_rate": 100, "reliability.pass_hat_10": 100, "reliability.certified_lower": float64(90 - i)},
		Counts:  map[string]int64{"reliability.runs": 10, "reliability.passed_runs": 10},
		Labels:  map[string]string{"reliability.class": "stable_pass"}})
	add(&report.CaseResult{Name: "flaky", Kind: report.KindAgent, Verdict: verdict(!FlakyFails(i)), Runs: 1})
	add(&report.CaseResult{Name: "surface", Kind: report.KindAgent, Verdict: report.Pass, Runs: 1,
		Targets: map[string]float64{"tool_selection.f1": 100, "tool_selection.tokens_median": 500,
			"token_efficiency.tool_surface_tokens": float64(1000 + 5*i), "token_efficiency.cost": Cost(i)},
		Counts: map[string]int64{"tool_selection.tp": 2, "tool_selection.fp": 0, "tool_selection.fn": 0}})
	if i >= spec.Runs/2 {
		add(&report.CaseResult{Name: "added", Kind: report.KindTool, Verdict: report.Pass, Runs: 1})
	}
	if i < spec.Runs/2 {
		add(&report.CaseResult{Name: "removed", Kind: report.KindTool, Verdict: report.Pass, Runs: 1})
	}
	for c := range spec.Steady {
		lower := 60.0
		if spec.Wobble {
			lower = float64(40 + (i*7+c*13)%41)
		}
		add(&report.CaseResult{Name: fmt.Sprintf("case-%04d", c), Kind: report.KindAgent, Verdict: report.Pass, Runs: 1,
			Targets: map[string]float64{"reliability.certified_lower": lower}})
	}
	env.Summarize(nil)
	if s := env.Summary; s != nil && len(s.PassHat) >= 10 {
		v := s.PassHat[9].Value
		env.Floors = []report.SuiteFloor{{Target: "summary.pass_hat_10", Matcher: map[string]any{">=": 90.0}, Actual: v, Passed: v >= 90,
			Message: fmt.Sprintf("summary.pass_hat_10 = %g", v), Position: diag.Pos{File: spec.Suite, Line: 1, Col: 1}}}
	}
	env.Tally()
	return env
}

// Cost is the surface case's cost in run i, in USD.
func Cost(i int) float64 { return math.Round((0.01+0.001*float64(i))*1e6) / 1e6 }

// FileName is the file run i is written to: names sort newest first, so a
// reader that orders by name and not by run time gets the window backwards.
func FileName(spec Spec, i int) string { return fmt.Sprintf("run-%04d.json", spec.Runs-1-i) }

// Write writes the window's envelopes into dir, one file a run (FileName),
// one envelope in memory at a time, and returns their paths oldest first.
func Write(dir string, spec Spec) ([]string, error) {
	var paths []string
	for i := range spec.Runs {
		p := filepath.Join(dir, FileName(spec, i))
		data, err := json.Marshal(Envelope(spec, i))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
