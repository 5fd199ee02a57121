package annotate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// TestTrendBounded: a trend of 100 runs over 2,000 cases, each with a
// long name and a falling certified lower bound, and every case flipping,
// keeps the summary and the comment under their limits, the comment's
// sliding-floor lines at MaxSlideLines and a note, and the summary's table at
// MaxTrendFloors rows.
func TestTrendBounded(t *testing.T) {
	const runs, cases = 100, 2000
	tr := &Trend{Baselines: runs}
	for k := 0; k < runs; k++ {
		tr.Points = append(tr.Points, fmt.Sprintf("run %d", k))
	}
	last := &report.Envelope{SchemaVersion: report.SchemaVersion}
	for i := 0; i < cases; i++ {
		name := fmt.Sprintf("%04d %s", i, strings.Repeat("|<@x #1 ", 60))
		vals := make([]float64, runs)
		for k := range vals {
			vals[k] = float64(100 - k/2 - i%7)
		}
		tr.Floors = append(tr.Floors, TrendSeries{Name: "certified_lower of " + name, Values: vals})
		tr.Fallen = append(tr.Fallen, TrendSlide{Floor: "certified_lower of " + name, First: vals[0], Last: vals[runs-1], Runs: runs})
		tr.Flips = append(tr.Flips, TrendFlips{Case: name, Flips: runs - 1, Last: "run 99"})
		v := report.Pass
		if i%2 == 0 {
			v = report.Fail
		}
		last.Cases = append(last.Cases, &report.CaseResult{Name: name, Verdict: v,
			Targets: map[string]float64{"reliability.certified_lower": vals[runs-1]}})
	}
	rep := ActionReport{Env: last, Suite: "suite.yml", Trend: tr, Gate: baseline.Gate{FailOn: baseline.FailOnRegressions}}
	sum := Summary(rep, "https://github.com", "acme/agents", SummaryLimit)
	if len(sum) > SummaryLimit {
		t.Errorf("summary %d bytes, over %d", len(sum), SummaryLimit)
	}
	_, hist, ok := strings.Cut(sum, "#### History")
	if !ok {
		t.Errorf("the trend block was cut before the table of all cases")
	} else {
		hist, _, _ = strings.Cut(hist, "#### ")
		if rows := strings.Count(hist, "\n| "); rows > MaxTrendFloors+2+MaxTrendCases+2 {
			t.Errorf("%d rows in the trend block", rows)
		}
	}
	c := Comment(rep, "https://github.com", "acme/agents")
	if len(c) > CommentLimit {
		t.Errorf("comment %d bytes", len(c))
	}
	if n := strings.Count(c, "\n- "); n != MaxSlideLines+1 || !strings.Contains(c, "- _1990 more in the job summary's history_") {
		t.Errorf("%d sliding-floor lines in the comment", n)
	}
}
