package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// trendEnv is an envelope with a suite floor on summary pass_rate at
// floor, a case "slider" whose certified lower bound is lower, a case
// "flaky" passing when pass, and a case "extra" when extra.
func trendEnv(floor, lower float64, pass, extra bool) *report.Envelope {
	v := report.Fail
	if pass {
		v = report.Pass
	}
	env := &report.Envelope{SchemaVersion: report.SchemaVersion,
		Floors: []report.SuiteFloor{{Index: 0, Target: "summary.pass_rate", Actual: floor, Passed: true}},
		Cases: []*report.CaseResult{
			{Name: "slider", Verdict: report.Pass, Targets: map[string]float64{"reliability.certified_lower": lower, "tool_selection.f1": 90}},
			{Name: "flaky", Verdict: v},
		}}
	if extra {
		env.Cases = append(env.Cases, &report.CaseResult{Name: "extra", Verdict: report.Pass, Targets: map[string]float64{"distractors.certified_lower": 40}})
	}
	return env
}

// knownTrend is TestTrendKnown's window and how often its flaky case
// flips in it.
func knownTrend() (*Trend, int) {
	b := NewTrendBuilder()
	var flips int
	prev := true
	for i := 0; i < 11; i++ {
		pass := i%3 != 2
		if i > 0 && pass != prev {
			flips++
		}
		prev = pass
		label := fmt.Sprintf("run %d", i)
		if i == 10 {
			label = "this run"
		}
		b.Add(label, trendEnv(70, float64(84-i), pass, i >= 4 && i < 7), i < 10)
	}
	return b.Trend(), flips
}

// TestTrendKnown: a window of ten baselines and this run with a slow
// slide (84 down a point a run to 74 on the slider's certified lower
// bound), a flat suite floor, a case that flips every third run and a case
// only the middle runs hold gives exactly those series, flips and slides;
// the slide is sustained past 5 points, not past 11.
func TestTrendKnown(t *testing.T) {
	tr, flips := knownTrend()
	if tr.Baselines != 10 || len(tr.Points) != 11 {
		t.Fatalf("%d baselines, %d points", tr.Baselines, len(tr.Points))
	}
	names := []string{}
	for _, s := range tr.Floors {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"suite floor summary.pass_rate", "certified_lower of slider", "distractors.certified_lower of extra"}) {
		t.Fatalf("floors %q", names)
	}
	for i, v := range tr.Floors[1].Values {
		if v != float64(84-i) {
			t.Errorf("slider at %d: %v, want %d", i, v, 84-i)
		}
	}
	for i, v := range tr.Floors[2].Values {
		if held := i >= 4 && i < 7; held == math.IsNaN(v) {
			t.Errorf("extra at %d: %v", i, v)
		}
	}
	if s := tr.Floors[1].Slope(); s != -1 {
		t.Errorf("slope %v, want -1", s)
	}
	if s := tr.Floors[0].Slope(); s != 0 {
		t.Errorf("flat slope %v", s)
	}
	if len(tr.Flips) != 1 || tr.Flips[0].Case != "flaky" || tr.Flips[0].Flips != flips || tr.Flips[0].Last != "run 9" {
		t.Errorf("flips %+v, want flaky %d times, last at run 9", tr.Flips, flips)
	}
	sl := tr.Slides()
	if len(sl) != 1 || sl[0] != (Slide{Floor: "certified_lower of slider", First: 84, Last: 74, Runs: 11}) {
		t.Errorf("slides %+v", sl)
	}
	if got := tr.Sustained(5); len(got) != 1 {
		t.Errorf("sustained past 5: %+v", got)
	}
	if got := tr.Sustained(11); len(got) != 0 {
		t.Errorf("sustained past 11: %+v", got)
	}
	if got := tr.Sustained(0); got != nil {
		t.Errorf("threshold 0: %+v", got)
	}
}

// TestTrendSustainedGenerated is a generator test: random series where
// the invariant is known by construction. A series that falls by d points
// at one run and stays there is a sustained slide past any threshold up
// to d when the fall is before the window's middle; a series that dips and
// comes back to its first figure, or drops only at the last run of a long
// flat window, never is.
func TestTrendSustainedGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for n := 0; n < 300; n++ {
		runs := 4 + rng.IntN(20)
		start := float64(20 + rng.IntN(70))
		d := float64(1 + rng.IntN(15))
		kind := rng.IntN(3)
		at := 1 + rng.IntN(max(1, runs/2-1)) // the step, before the middle
		b := NewTrendBuilder()
		for i := 0; i < runs; i++ {
			v := start
			switch kind {
			case 0: // a step down that stays
				if i >= at {
					v = start - d
				}
			case 1: // a dip that recovers
				if i == at {
					v = start - d
				}
			case 2: // flat, then one bad last run
				if i == runs-1 {
					v = start - d
				}
			}
			b.Add(fmt.Sprint(i), trendEnv(v, 50, true, false), true)
		}
		got := b.Trend().Sustained(d)
		want := kind == 0
		if kind == 2 && runs <= 3 {
			want = true
		}
		if (len(got) == 1) != want {
			t.Fatalf("kind %d, %d runs, step at %d of %v by %v: sustained %+v, want %v", kind, runs, at, start, d, got, want)
		}
	}
}
