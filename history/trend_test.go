package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/report"
)

// trendEnv is an envelope with a suite floor on summary.pass_rate at
// floor, a case "slider" whose certified lower bound is lower, a case
// "flaky" passing when pass, and a case "extra" when extra.
func trendEnv(floor, lower float64, pass, extra bool) *report.Envelope {
	v := report.Fail
	if pass {
		v = report.Pass
	}
	env := &report.Envelope{SchemaVersion: report.SchemaVersion, Verdict: report.Pass,
		Floors: []report.SuiteFloor{{Index: 0, Target: "summary.pass_rate", Actual: floor, Passed: true}},
		Cases: []*report.CaseResult{
			{Name: "slider", Verdict: report.Pass, Targets: map[string]float64{"reliability.certified_lower": lower, "tool_selection.f1": 90}},
			{Name: "flaky", Verdict: v},
		}}
	if extra {
		env.Cases = append(env.Cases, &report.CaseResult{Name: "extra", Verdict: report.Pass, Targets: map[string]float64{"distractors.certified_lower": 40}})
	}
	env.Totals.Total = len(env.Cases)
	return env
}

// addEnv folds env, named name, into b.
func addEnv(t *testing.T, b *Builder, env *report.Envelope, name string) {
	t.Helper()
	s, err := SnapshotOf(env, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(s); err != nil {
		t.Fatal(err)
	}
}

// knownTrend is TestTrendKnown's window, folded at threshold, and how
// often its flaky case flips in it.
func knownTrend(t *testing.T, threshold float64) (*History, int) {
	b := NewBuilder(Options{SlideThreshold: threshold})
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
		addEnv(t, b, trendEnv(70, float64(84-i), pass, i >= 4 && i < 7), label)
	}
	return b.History(), flips
}

// TestTrendKnown: a window of ten baselines and this run with a slow
// slide (84 down a point a run to 74 on the slider's certified lower
// bound), a flat suite floor, a case that flips every third run and a case
// only the middle runs hold gives the Action's trend exactly those
// series, flips and falls; the slide is sustained past 5 points.
func TestTrendKnown(t *testing.T) {
	h, flips := knownTrend(t, 5)
	tr := h.Trend(false)
	if tr.Baselines != 10 || len(tr.Points) != 11 || tr.Points[0] != "run 0" || tr.Points[10] != "this run" {
		t.Fatalf("%d baselines, points %q", tr.Baselines, tr.Points)
	}
	if h.Trend(true).Baselines != 11 {
		t.Errorf("this run as a baseline: %d baselines", h.Trend(true).Baselines)
	}
	names := []string{}
	for _, s := range tr.Floors {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"suite floor summary.pass_rate", "certified_lower of slider", "certified_lower of extra"}) {
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
	if s, _ := Slope(tr.Floors[1].Values); s != -1 {
		t.Errorf("slope %v, want -1", s)
	}
	if s, _ := Slope(tr.Floors[0].Values); s != 0 {
		t.Errorf("flat slope %v", s)
	}
	if len(tr.Flips) != 1 || tr.Flips[0].Case != "flaky" || tr.Flips[0].Flips != flips || tr.Flips[0].Last != "run 9" {
		t.Errorf("flips %+v, want flaky %d times, last at run 9", tr.Flips, flips)
	}
	want := annotate.TrendSlide{Floor: "certified_lower of slider", First: 84, Last: 74, Runs: 11}
	if len(tr.Fallen) != 1 || tr.Fallen[0] != want {
		t.Errorf("fallen %+v", tr.Fallen)
	}
	if len(tr.Sustained) != 1 || tr.Sustained[0] != want {
		t.Errorf("sustained past 5: %+v", tr.Sustained)
	}
}

// TestTrendThresholds: TestTrendKnown's slide is not sustained past 11
// points, and at threshold 0 the Action's trend fails on none while
// `mcptest history` lists it among the floors that slid.
func TestTrendThresholds(t *testing.T) {
	h11, _ := knownTrend(t, 11)
	if got := h11.Trend(false).Sustained; len(got) != 0 {
		t.Errorf("sustained past 11: %+v", got)
	}
	h0, _ := knownTrend(t, 0)
	if got := h0.Trend(false).Sustained; got != nil {
		t.Errorf("threshold 0: %+v", got)
	}
	if sl := h0.Suites[0].Slides; len(sl) == 0 || sl[len(sl)-1].Case != "slider" || sl[len(sl)-1].Figure != CertifiedLower {
		t.Errorf("history's slides at threshold 0: %+v", sl)
	}
}

// TestSustainedGenerated is a generator test of the one slide rule, over
// random series whose answer is known by construction, checked three
// ways: Sustained on the values, the Suite.Slides of `mcptest history
// --slide-threshold`, and the Action trend's Sustained (history-threshold).
// A series that falls by d points at one run and stays there slides past
// any threshold up to d when the fall is before the window's middle; a
// series that dips and comes back to its first figure, or drops only at
// the last run of a long flat window, never does; nor does any fall past
// a threshold above d.
func TestSustainedGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for n := 0; n < 300; n++ {
		runs := 4 + rng.IntN(20)
		start := float64(20 + rng.IntN(70))
		d := float64(1 + rng.IntN(15))
		kind := rng.IntN(3)
		at := 1 + rng.IntN(max(1, runs/2-1)) // the step, before the middle
		threshold := d
		if rng.IntN(4) == 0 {
			threshold = d + 0.5
		}
		b := NewBuilder(Options{SlideThreshold: threshold})
		values := make([]float64, runs)
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
			values[i] = v
			addEnv(t, b, trendEnv(v, 50, true, false), fmt.Sprint(i))
		}
		want := kind == 0 && threshold <= d
		if got := Sustained(values, threshold); got != want {
			t.Fatalf("kind %d, %d runs, step at %d of %v by %v, threshold %v: Sustained %v, want %v", kind, runs, at, start, d, threshold, got, want)
		}
		h := b.History()
		var floorSlides int
		for _, sl := range h.Suites[0].Slides {
			if sl.Target == "summary.pass_rate" {
				floorSlides++
			}
		}
		if got := h.Trend(true).Sustained; (len(got) == 1) != want || (floorSlides == 1) != want {
			t.Fatalf("kind %d, %d runs, step at %d of %v by %v, threshold %v: trend %+v, %d history slides, want %v", kind, runs, at, start, d, threshold, got, floorSlides, want)
		}
	}
}
