package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/internal/prices"
	"github.com/mcptest/mcptest/report"
)

// TestCaseVerdictRule is the one rule that gives a replayed case its
// verdict, fresh or cached: fail on a failed assertion (unless a
// reliability block judges the case and the assertion counts failed
// runs), on a failed floor, or on an error finding of the case itself,
// its scenario or expect_state (unless judged and the finding has a
// gate); pass otherwise.
func TestCaseVerdictRule(t *testing.T) {
	failedA := report.AssertionResult{Passed: false}
	failedRuns := report.AssertionResult{Passed: false, FailedRuns: 2}
	passedA := report.AssertionResult{Passed: true}
	finding := func(level, gate string) report.Finding { return report.Finding{Level: level, Gate: gate} }
	for _, tc := range []struct {
		name   string
		res    report.CaseResult
		judged bool
		want   report.Verdict
	}{
		{"nothing failed", report.CaseResult{Assertions: []report.AssertionResult{passedA}, Floors: []report.Floor{{Passed: true}}}, false, report.Pass},
		{"an assertion failed", report.CaseResult{Assertions: []report.AssertionResult{passedA, failedA}}, false, report.Fail},
		{"an assertion failed, judged", report.CaseResult{Assertions: []report.AssertionResult{failedA}}, true, report.Fail},
		{"failed runs, not judged", report.CaseResult{Assertions: []report.AssertionResult{failedRuns}}, false, report.Fail},
		{"failed runs, judged: the floor decides", report.CaseResult{Assertions: []report.AssertionResult{failedRuns}, Floors: []report.Floor{{Passed: true}}}, true, report.Pass},
		{"a floor failed", report.CaseResult{Floors: []report.Floor{{Passed: true}, {Passed: false}}}, false, report.Fail},
		{"a floor failed, judged", report.CaseResult{Assertions: []report.AssertionResult{failedRuns}, Floors: []report.Floor{{Passed: false}}}, true, report.Fail},
		{"an error of the case", report.CaseResult{Findings: []report.Finding{finding("error", "")}}, false, report.Fail},
		{"an error of the case, judged", report.CaseResult{Findings: []report.Finding{finding("error", "")}}, true, report.Fail},
		{"a scenario error", report.CaseResult{Findings: []report.Finding{finding("error", "scenario")}}, false, report.Fail},
		{"an expect_state error", report.CaseResult{Findings: []report.Finding{finding("error", "expect_state")}}, false, report.Fail},
		{"a scenario error, judged", report.CaseResult{Findings: []report.Finding{finding("error", "scenario")}}, true, report.Pass},
		{"a gate's error finding", report.CaseResult{Findings: []report.Finding{finding("error", "selection")}}, false, report.Pass},
		{"a warning of the case", report.CaseResult{Findings: []report.Finding{finding("warning", "")}}, false, report.Pass},
	} {
		if got := caseVerdict(&tc.res, tc.judged); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestCacheKeyFields: a cached result is served only to the same build or
// version, suite path, case definition, cassette content and price table;
// changing any one of them recomputes the case it touches.
func TestCacheKeyFields(t *testing.T) {
	table, err := prices.Parse("p.json", []byte(`{"m-1": {"input_cost_per_token": 1, "output_cost_per_token": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(s *Suite, opt *Options) *Suite
		served int
	}{
		{"nothing", func(s *Suite, _ *Options) *Suite { return s }, 2},
		{"version", func(s *Suite, opt *Options) *Suite { opt.Version = "test-2"; return s }, 0},
		{"build", func(s *Suite, opt *Options) *Suite { opt.Build = "dev-b"; return s }, 0},
		{"price table", func(s *Suite, opt *Options) *Suite { opt.Prices = table; return s }, 0},
		{"suite path", func(s *Suite, _ *Options) *Suite { return failingCacheSuite(t) }, 0},
		{"an agent's cassette", func(s *Suite, _ *Options) *Suite {
			f := filepath.Join(filepath.Dir(s.Path), "c.json")
			if err := os.WriteFile(f, []byte(cassetteJSON(runJSON("y", "w.get_weather"))), 0o644); err != nil {
				t.Fatal(err)
			}
			return reload(t, s)
		}, 1},
		{"an agent's definition", func(s *Suite, _ *Options) *Suite {
			data, _ := os.ReadFile(s.Path)
			data = append([]byte("# a comment above every case\n"), data...)
			if err := os.WriteFile(s.Path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return reload(t, s)
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := failingCacheSuite(t)
			cache := DirCache{Dir: t.TempDir()}
			opt := Options{Version: "test", Cache: cache}
			run(t, s, opt)
			s = tc.change(s, &opt)
			if env := run(t, s, opt); env.Run.Cached != tc.served {
				t.Errorf("%d cases served from the cache, want %d", env.Run.Cached, tc.served)
			}
		})
	}
}

func reload(t *testing.T, s *Suite) *Suite {
	t.Helper()
	s2, err := LoadSuite(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	return s2
}
