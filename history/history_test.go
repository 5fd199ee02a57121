package history_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/history/historytest"
	"github.com/mcptest/mcptest/report"
)

// build folds the generated window spec through the streaming reader, as
// `mcptest history` reads files.
func build(t *testing.T, spec historytest.Spec) *history.History {
	t.Helper()
	dir := t.TempDir()
	if _, err := historytest.Write(dir, spec); err != nil {
		t.Fatal(err)
	}
	paths, err := history.Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.BuildFiles(paths, history.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func values(s *history.Series) []float64 {
	if s == nil {
		return nil
	}
	return s.Values
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestKnownTrends: a generated window of a slow slide, a flaky case, a
// creeping tool surface and cost, an added and a removed case gives
// exactly those series, slopes, flips and presences, whatever the window's
// length and however its files sort by name.
func TestKnownTrends(t *testing.T) {
	for _, n := range []int{6, 7, 12, 31} {
		spec := historytest.Spec{Runs: n, Suite: "suite.yml", Steady: 4, Evidence: true}
		h := build(t, spec)
		if len(h.Runs) != n || len(h.Suites) != 1 {
			t.Fatalf("n=%d: %d runs, %d suites", n, len(h.Runs), len(h.Suites))
		}
		for i, r := range h.Runs {
			if r.Commit != historytest.Commit(i) || r.StartedAt != historytest.StartedAt(i) || r.Index != i {
				t.Fatalf("n=%d: run %d is %+v, want commit %s: the window is not ordered by run.started_at", n, i, r, historytest.Commit(i))
			}
		}
		s := &h.Suites[0]
		checkSuiteSeries(t, n, s)
		cases := map[string]*history.Case{}
		for i := range s.Cases {
			cases[s.Cases[i].Name] = &s.Cases[i]
		}
		// The slow slide.
		checkSeries(t, n, "slide certified_lower", cases["slide"].Figure(history.CertifiedLower), series(n, func(i int) float64 { return float64(90 - i) }), -1)
		checkFlaky(t, n, s, cases["flaky"])
		checkPresence(t, n, s, cases["added"])
		checkSlides(t, n, s)
	}
}

// series is f over the runs of a window of n.
func series(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func checkSeries(t *testing.T, n int, what string, got *history.Series, wantVals []float64, wantSlope float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("n=%d: %s: no series", n, what)
	}
	if len(got.Values) != len(wantVals) {
		t.Fatalf("n=%d: %s: %v, want %v", n, what, got.Values, wantVals)
	}
	for i := range wantVals {
		if !near(got.Values[i], wantVals[i]) {
			t.Fatalf("n=%d: %s: %v, want %v", n, what, got.Values, wantVals)
		}
	}
	if sl, ok := got.Slope(); !ok || !near(sl, wantSlope) {
		t.Errorf("n=%d: %s: slope %v (%v), want %v", n, what, sl, ok, wantSlope)
	}
}

// checkSuiteSeries holds the suite's figures: the mean certified_lower of
// the slide and four steady cases at 60, the tool surface and cost of the
// surface case, and the constant ones.
func checkSuiteSeries(t *testing.T, n int, s *history.Suite) {
	t.Helper()
	checkSeries(t, n, "suite certified_lower", s.Figure(history.CertifiedLower), series(n, func(i int) float64 { return (float64(90-i) + 4*60) / 5 }), -0.2)
	checkSeries(t, n, "suite tool_surface_tokens", s.Figure(history.SurfaceTokens), series(n, func(i int) float64 { return float64(1000 + 5*i) }), 5)
	checkSeries(t, n, "suite cost", s.Figure(history.Cost), series(n, historytest.Cost), 0.001)
	checkSeries(t, n, "suite tokens", s.Figure(history.Tokens), series(n, func(int) float64 { return 500 }), 0)
	checkSeries(t, n, "suite selection_f1", s.Figure(history.SelectionF1), series(n, func(int) float64 { return 100 }), 0)
	checkSeries(t, n, "suite pass_rate", s.Figure(history.PassRate), series(n, func(int) float64 { return 100 }), 0)
	checkSeries(t, n, "suite pass^k", s.Figure(history.PassHat), series(n, func(int) float64 { return 100 }), 0)
	if len(s.Floors) != 1 || s.Floors[0].Target != "summary.pass_hat_10" {
		t.Fatalf("n=%d: suite floors %+v, want the one on summary.pass_hat_10", n, s.Floors)
	}
	checkSeries(t, n, "suite floor summary.pass_hat_10", &s.Floors[0], series(n, func(int) float64 { return 100 }), 0)
	if k := s.Figure(history.PassHat).K; k != 10 {
		t.Errorf("n=%d: suite pass^k at k=%d, want 10", n, k)
	}
}

// checkFlaky: a flip each time the flaky case's verdict changes, and the
// case listed as flipping often with their count.
func checkFlaky(t *testing.T, n int, s *history.Suite, flaky *history.Case) {
	t.Helper()
	var flips []history.Flip
	for i := 1; i < n; i++ {
		if historytest.FlakyFails(i) != historytest.FlakyFails(i-1) {
			from, to := report.Pass, report.Fail
			if historytest.FlakyFails(i - 1) {
				from, to = to, from
			}
			flips = append(flips, history.Flip{Run: i, From: from, To: to})
		}
	}
	if got := flaky.Flips; !reflect.DeepEqual(got, flips) {
		t.Errorf("n=%d: flaky flips %v, want %v", n, got, flips)
	}
	if want := []history.Flaky{{Case: "flaky", Flips: len(flips)}}; !reflect.DeepEqual(s.Flaky, want) {
		t.Errorf("n=%d: flaky %v, want %v", n, s.Flaky, want)
	}
}

// checkPresence: the added and the removed case at the middle run.
func checkPresence(t *testing.T, n int, s *history.Suite, added *history.Case) {
	t.Helper()
	if want := []history.Presence{{Case: "added", Run: n / 2}}; !reflect.DeepEqual(s.Added, want) {
		t.Errorf("n=%d: added %v, want %v", n, s.Added, want)
	}
	if want := []history.Presence{{Case: "removed", Run: n / 2}}; !reflect.DeepEqual(s.Removed, want) {
		t.Errorf("n=%d: removed %v, want %v", n, s.Removed, want)
	}
	if v := values(added.Figure(history.PassRate)); !math.IsNaN(v[0]) || v[n-1] != 100 {
		t.Errorf("n=%d: added pass rate %v: want none before run %d", n, v, n/2)
	}
}

// checkSlides: the floors that slid are the slide and the suite's mean,
// nothing else.
func checkSlides(t *testing.T, n int, s *history.Suite) {
	t.Helper()
	var slid []string
	for _, sl := range s.Slides {
		slid = append(slid, sl.Case+"/"+sl.Figure.ID())
		if sl.Case == "slide" && (sl.From != 90 || sl.To != float64(90-(n-1)) || sl.FromRun != 0 || sl.ToRun != n-1 || sl.Points != n || !near(sl.Slope, -1)) {
			t.Errorf("n=%d: slide %+v", n, sl)
		}
	}
	if want := []string{"/certified_lower", "slide/certified_lower"}; !slices.Equal(slid, want) {
		t.Errorf("n=%d: slid %v, want %v", n, slid, want)
	}
}

// TestSlope holds the least-squares slope to hand-computed values.
func TestSlope(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		ys   []float64
		want float64
		ok   bool
	}{
		{[]float64{1, 2, 3}, 1, true},
		{[]float64{5, 5, 5, 5}, 0, true},
		{[]float64{0, 2, 1}, 0.5, true},
		{[]float64{nan, 4, nan, 0}, -2, true}, // x = 1, 3
		{[]float64{3}, 0, false},
		{[]float64{nan, 3, nan}, 0, false},
		{nil, 0, false},
	} {
		got, ok := history.Slope(tc.ys)
		if ok != tc.ok || !near(got, tc.want) {
			t.Errorf("Slope(%v) = %v, %v, want %v, %v", tc.ys, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSlopeGenerated: a line a + b*i with noise that sums to zero against
// the index (symmetric pairs) has slope b exactly, for generated a, b, n.
func TestSlopeGenerated(t *testing.T) {
	for n := 2; n < 60; n += 3 {
		for _, b := range []float64{-3, -0.5, 0, 0.25, 7} {
			ys := make([]float64, n)
			for i := range ys {
				ys[i] = 42 + b*float64(i)
			}
			// +1 at both ends and -1 at the second and second-to-last is
			// symmetric about the middle, so orthogonal to the index.
			if n >= 4 {
				ys[0]++
				ys[n-1]++
				ys[1]--
				ys[n-2]--
			}
			if got, ok := history.Slope(ys); !ok || math.Abs(got-b) > 1e-9 {
				t.Errorf("n=%d b=%v: slope %v", n, b, got)
			}
		}
	}
}

// TestSnapshotOfMatchesStream: a decoded envelope (SnapshotOf, as the
// Action holds a fetched baseline) and the streaming reader give the same
// snapshot.
func TestSnapshotOfMatchesStream(t *testing.T) {
	spec := historytest.Spec{Runs: 5, Suite: "s.yml", Steady: 4, Wobble: true, Evidence: true}
	for i := range spec.Runs {
		env := historytest.Envelope(spec, i)
		data, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		a, err := history.SnapshotOf(env, "x")
		if err != nil {
			t.Fatal(err)
		}
		b, err := history.ReadSnapshot(bytes.NewReader(data), "x", 0)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(fmtSnap(a))
		jb, _ := json.Marshal(fmtSnap(b))
		if !bytes.Equal(ja, jb) {
			t.Fatalf("run %d:\n%s\n%s", i, ja, jb)
		}
	}
}

func fmtSnap(s *history.Snapshot) any {
	f := func(fs [history.NumFigures]float64) []string {
		out := make([]string, len(fs))
		for i, v := range fs {
			out[i] = history.Num(history.Figure(i), v)
		}
		return out
	}
	type c struct {
		Name, Kind, Verdict string
		F                   []string
		K                   int
	}
	var cs []c
	for _, x := range s.Cases {
		cs = append(cs, c{x.Name, x.Kind, string(x.Verdict), f(x.Figures), x.K})
	}
	return struct {
		Run   history.Run
		F     []string
		K     int
		Cases []c
	}{s.Run, f(s.Figures), s.K, cs}
}

// TestRefusesWhatReportRefuses: the reader applies the envelope's own
// check: a control character in a one-line field, a verdict outside its
// set, another schema version, a null case, a second cases field, and a
// document that is not JSON are each an error naming the file.
func TestRefusesWhatReportRefuses(t *testing.T) {
	good, err := json.Marshal(historytest.Envelope(historytest.Spec{Runs: 2, Suite: "s.yml"}, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"commit", `"commit":"`, `"commit":"\u001b[31m`, "control character"},
		{"verdict", `"verdict":"pass","totals"`, `"verdict":"maybe","totals"`, "not one of"},
		{"case verdict", `"name":"slide","kind":"agent","verdict":"pass"`, `"name":"slide","kind":"agent","verdict":"pwned"`, "cases[0].verdict"},
		{"case kind", `"name":"slide","kind":"agent"`, `"name":"slide","kind":"\u202eagent"`, "cases[0].kind"},
		{"schema", `"schema_version":1`, `"schema_version":99`, "schema_version 99"},
		{"null case", `"cases":[`, `"cases":[null,`, "is null"},
		{"twice", `"cases":[`, `"cases":[],"cases":[`, "appears twice"},
		{"not json", `{`, `[`, "not a run envelope"},
	} {
		doc := strings.Replace(string(good), tc.from, tc.to, 1)
		if doc == string(good) {
			t.Fatalf("%s: %q not in the envelope", tc.name, tc.from)
		}
		_, err := history.ReadSnapshot(strings.NewReader(doc), "bad.json", 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v, want an error naming bad.json and saying %q", tc.name, err, tc.want)
		}
	}
}

// TestOrderByStartedAt: the window's order is run.started_at, not the
// order of the arguments or of the file names; --last keeps the newest.
func TestOrderByStartedAt(t *testing.T) {
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 9, Suite: "s.yml"}
	paths, err := historytest.Write(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	shuffled := []string{paths[4], paths[0], paths[8], paths[2], paths[6], paths[1], paths[7], paths[3], paths[5]}
	runs, err := history.Order(shuffled, 4)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Name)
	}
	if want := paths[5:]; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestEvidenceLink: with a page directory, a flip links the run's report
// beside its envelope when there is one, else its envelope, by a relative
// path that cannot read as a URL scheme.
func TestEvidenceLink(t *testing.T) {
	dir := t.TempDir()
	spec := historytest.Spec{Runs: 4, Suite: "s.yml"}
	paths, err := historytest.Write(filepath.Join(dir), spec)
	if err != nil {
		t.Fatal(err)
	}
	html := strings.TrimSuffix(paths[2], ".json") + ".html"
	if err := os.WriteFile(html, []byte("<p>report</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := history.BuildFiles(paths, history.FileOptions{LinkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.Runs[2].Link, "./"+filepath.Base(html); got != want {
		t.Errorf("run 2 links %q, want %q", got, want)
	}
	if got, want := h.Runs[1].Link, "./"+filepath.Base(paths[1]); got != want {
		t.Errorf("run 1 links %q, want %q", got, want)
	}
}

// TestSuiteFloorSlides: a suite floor whose figure falls is listed as
// slid with its target; one that rises, one deferred to a merge and one on
// a count are not, and a target named twice in a run counts once.
func TestSuiteFloorSlides(t *testing.T) {
	b := history.NewBuilder(history.Options{SlideThreshold: 2})
	for i := range 6 {
		s := &history.Snapshot{Run: history.Run{Suite: "s.yml", Commit: historytest.Commit(i)}}
		for f := range s.Figures {
			s.Figures[f] = math.NaN()
		}
		s.Floors = []history.FloorValue{{Target: "summary.pass_rate", Value: 90 - float64(i)}, {Target: "summary.pass_at_3", Value: 50 + float64(i)},
			{Target: "summary.pass_rate", Value: 0}, {Target: "summary.pass_hat_2", Value: 80 - 0.2*float64(i)}}
		if err := b.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	s := b.History().Suites[0]
	var targets []string
	for _, f := range s.Floors {
		targets = append(targets, f.Target)
	}
	if want := []string{"summary.pass_rate", "summary.pass_at_3", "summary.pass_hat_2"}; !slices.Equal(targets, want) {
		t.Errorf("floors %v, want %v", targets, want)
	}
	checkSeries(t, 6, "floor summary.pass_rate", &s.Floors[0], series(6, func(i int) float64 { return 90 - float64(i) }), -1)
	// pass_hat_2 fell 1 point, under the threshold of 2.
	if len(s.Slides) != 1 || s.Slides[0].Target != "summary.pass_rate" || s.Slides[0].From != 90 || s.Slides[0].To != 85 {
		t.Errorf("slides %+v, want the one of summary.pass_rate, 90 -> 85", s.Slides)
	}
	if got, want := s.Slides[0].Words("the suite", "runs"), "floor summary.pass_rate of the suite: 90 -> 85 over 6 runs (-1 per run)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestFloorValues: a deferred floor, one on a count and one with no
// number give no series.
func TestFloorValues(t *testing.T) {
	env := historytest.Envelope(historytest.Spec{Runs: 1, Suite: "s.yml"}, 0)
	env.Floors = append(env.Floors, report.SuiteFloor{Target: "summary.pass_rate", Actual: 50.0, Deferred: true},
		report.SuiteFloor{Target: "summary.flaky", Actual: 3.0}, report.SuiteFloor{Target: "summary.pass_at_2"})
	data, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	s, err := history.ReadSnapshot(bytes.NewReader(data), "x.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Floors) != 1 || s.Floors[0].Target != "summary.pass_hat_10" {
		t.Errorf("floors %+v, want only summary.pass_hat_10", s.Floors)
	}
}
