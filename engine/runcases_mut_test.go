package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// mixedSuite writes a suite of agents agent tests over the cassettes
// files, scenarios scenario tests over the scenario-world recording
// restock.json (a drawn seed and expected state, so some fail) and
// quality tool_quality tests of the catalog file catalog.yml (computed by
// the run in order, never shared), and returns it.
func mixedSuite(rng *rand.Rand, dir string, files []string, agents, scenarios, quality int) string {
	var b strings.Builder
	if agents > 0 {
		b.WriteString("tests:\n")
	}
	for i := range agents {
		cas, _ := filepath.Rel(dir, files[rng.IntN(len(files))])
		fmt.Fprintf(&b, "  - name: agent %d\n    type: agent\n    cassette: %s\n", i, cas)
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "    budget:\n      max_calls: %d\n", 1+rng.IntN(12))
		}
	}
	b.WriteString(ScenarioTests(rng, scenarios, "restock.json"))
	if quality > 0 {
		b.WriteString("tool_quality:\n")
	}
	for i := range quality {
		fmt.Fprintf(&b, "  - name: quality %d\n    catalog: catalog.yml\n    expect:\n      - target: smell_total\n        matcher: { schema: { maximum: %d } }\n", i, rng.IntN(4))
	}
	return b.String()
}

// ScenarioTests returns a suite's scenarios section of n scenario tests
// (none when n is 0) over the scenario-world recording restock.json at
// the path cas: a drawn seed, and an expected state that a quarter of them
// miss (they fail). For the tests of engine and engine_test.
func ScenarioTests(rng *rand.Rand, n int, cas string) string {
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("scenarios:\n")
	for i := range n {
		widgets := rng.IntN(7)
		want := widgets + 2
		if rng.IntN(4) == 0 {
			want++ // fails
		}
		fmt.Fprintf(&b, `  - name: scenario %d
    cassette: %s
    seed: { inventory: { widgets: %d }, shelf_full: false }
    transitions:
      - tool: add_widget
        effect:
          inventory.widgets: { inc: 1 }
      - tool: mark_full
        effect:
          shelf_full: true
    expect_state:
      inventory.widgets: %d
      shelf_full: true
`, i, cas, widgets, want)
	}
	return b.String()
}

// sharedRun is what a run of a mixed suite showed: its envelope and
// cases as JSON (or its error), the cases the load computed ahead and
// those the run shared with its workers (replayed and not computed
// ahead), and what Prepare and the progress saw.
type sharedRun struct {
	out           string
	ahead, shared map[string]bool
	prepared      map[string]int
	overlap       bool     // two shared cases were prepared at once
	early         []string // cases prepared before a case ahead of them in the suite was
	named         []string // replayed cases the progress named as live
}

// prepareLog is a run's Prepare for runShared: it counts the cases
// prepared and keeps which are being prepared and which are done, into
// r. When wait is set and the run shares two cases or more, the first
// shared case prepared waits (five seconds at most) until another shared
// case is being prepared beside it; and the first case computed ahead
// waits (half a second at most) until a case not computed ahead starts
// being prepared, which Run must not do before it has taken every case
// before it, when it shares none.
type prepareLog struct {
	mu   sync.Mutex
	r    *sharedRun
	wait bool
	// order is the suite's cases, and r.ahead and r.shared are set, once
	// loaded.
	order  []string
	loaded bool
	inside map[string]bool // shared cases being prepared
	ended  map[string]bool // cases prepared

	firstShared, firstAhead   bool
	beside, later             chan struct{}
	besideClosed, laterClosed bool
}

func newPrepareLog(r *sharedRun, wait bool) *prepareLog {
	return &prepareLog{r: r, wait: wait, inside: map[string]bool{}, ended: map[string]bool{},
		beside: make(chan struct{}), later: make(chan struct{})}
}

// setLoaded notes the cases of the suite s just loaded: those computed
// ahead and those the run shares.
func (l *prepareLog) setLoaded(s *Suite) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.r.ahead, l.r.shared = map[string]bool{}, map[string]bool{}
	for _, c := range s.Cases {
		l.order = append(l.order, c.Name)
		switch {
		case c.ahead != nil:
			l.r.ahead[c.Name] = true
		case c.Kind == report.KindAgent || c.Kind == report.KindScenario:
			l.r.shared[c.Name] = true
		}
	}
	l.loaded = true
}

func (l *prepareLog) prepare(c *report.CaseResult) error {
	waitShared, waitAhead := l.start(c.Name)
	if waitShared {
		select {
		case <-l.beside:
		case <-time.After(5 * time.Second):
		}
	}
	if waitAhead {
		select {
		case <-l.later:
		case <-time.After(500 * time.Millisecond):
		}
	}
	l.mu.Lock()
	delete(l.inside, c.Name)
	l.ended[c.Name] = true
	l.mu.Unlock()
	return nil
}

// start notes the case name being prepared and says whether it waits.
func (l *prepareLog) start(name string) (waitShared, waitAhead bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.r.prepared[name]++
	isShared, isAhead := l.r.shared[name], l.r.ahead[name]
	if l.loaded && !isAhead {
		l.inOrder(name)
	}
	if isShared {
		l.inside[name] = true
		if len(l.inside) >= 2 {
			l.r.overlap = true
			if !l.besideClosed {
				l.besideClosed = true
				close(l.beside)
			}
		}
		waitShared = l.wait && !l.firstShared && len(l.r.shared) >= 2
		l.firstShared = true
	}
	// A case computed ahead may be prepared while the suite loads: it is
	// known by its kind until the load has ended.
	waitAhead = l.wait && !l.firstAhead && (isAhead || !l.loaded && strings.HasPrefix(name, "agent "))
	l.firstAhead = l.firstAhead || waitAhead
	return waitShared, waitAhead
}

// inOrder notes a case not computed ahead starting: early when a case
// before it is not prepared yet.
func (l *prepareLog) inOrder(name string) {
	for _, n := range l.order {
		if n == name {
			break
		}
		if !l.ended[n] {
			l.r.early = append(l.r.early, name)
			break
		}
	}
	if !l.laterClosed {
		l.laterClosed = true
		close(l.later)
	}
}

// runShared loads the suite at path for a run (computing ahead when
// ahead is set, every agent test the workers can take) and runs it with
// GOMAXPROCS procs, prepared by a prepareLog (wait: see there).
func runShared(t *testing.T, path string, procs int, ahead, wait bool) sharedRun {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := sharedRun{prepared: map[string]int{}}
	log := newPrepareLog(&r, wait)
	opt := Options{Version: "test", Prepare: log.prepare}
	var cases []string
	opt.Emit = emitJSON(&cases)
	opt.Progress = func(p Progress) {
		if strings.HasPrefix(p.Case, "agent ") || strings.HasPrefix(p.Case, "scenario ") {
			log.mu.Lock()
			r.named = append(r.named, p.Case)
			log.mu.Unlock()
		}
	}
	mode := loadMode{forRun: true, keep: keepBuilt}
	if ahead {
		mode.ahead = &opt
	}
	s, err := parseSuiteWith(path, data, mode, heldAlways)
	if err != nil {
		t.Fatal(err)
	}
	log.setLoaded(s)
	// A run that waits for ever (a case waited for that no worker
	// computes) fails here, not at the test binary's timeout.
	var env *report.Envelope
	done := make(chan struct{})
	go func() {
		defer close(done)
		env, err = Run(s, opt)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: the run at GOMAXPROCS=%d did not end in 20 seconds", path, procs)
	}
	if err != nil {
		r.out = "error: " + err.Error()
		return r
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	r.out = string(b) + "\n" + strings.Join(cases, "\n")
	return r
}

// TestRunWorkersShareReplayed: over drawn suites mixing agent tests and
// scenario tests, with up to two tool_quality tests (of a catalog file,
// which the run computes itself in order) after them, run on a drawn
// number of processors with the load
// computing the agent tests ahead or not, the run computes every case
// once (Prepare is called once a case, whether the load computed it or
// the run) to the envelope and cases of the run on one processor; the
// progress never names a replayed case (agent or scenario) as a live one
// in flight; two cases or more that the run shares with its workers (its
// replayed cases the load did not compute: every scenario test, and the
// agent tests left) are computed at once, scenario tests among them; and
// when it has fewer than two to share, it starts no worker and computes
// each case only once it has taken every case before it in the suite.
// A run that has not ended in 20 seconds (waiting for a case no worker
// computes) fails.
// The draws include suites of scenario tests only (two of them, the
// fewest the run shares, in one), of agent tests all
// computed ahead and two scenario tests or more, and of agent tests all
// computed ahead and one scenario test after them.
func TestRunWorkersShareReplayed(t *testing.T) {
	dir := t.TempDir()
	files, err := gen.Write(filepath.Join(dir, "c"), 6, 43)
	if err != nil {
		t.Fatal(err)
	}
	copyRestock(t, dir)
	catalog, err := os.ReadFile("../examples/tool-description-bench/catalog.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "catalog.yml"), catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	behind := aheadBehind
	defer func() { aheadBehind = behind }()
	rng := rand.New(rand.NewPCG(40, 9))
	rounds := 12
	if testing.Short() {
		rounds = 8
	}
	kinds := map[string]int{}
	for round := range rounds {
		var agents, scenarios int
		ahead := rng.IntN(2) == 0
		switch round % 4 {
		case 0: // scenario tests alone (drawn to be computed ahead or not: none is)
			scenarios = 2 + rng.IntN(20)
			if round == 4 {
				scenarios = 2 // the fewest the run shares
			}
		case 1: // every agent test computed ahead, then scenario tests
			agents, scenarios, ahead = 1+rng.IntN(8), 2+rng.IntN(8), true
		case 2: // every agent test computed ahead, then one scenario test
			agents, scenarios, ahead = 2+rng.IntN(8), 1, true
		default:
			agents, scenarios = rng.IntN(30), rng.IntN(30)
		}
		if agents+scenarios == 0 {
			agents = 1
		}
		quality := rng.IntN(3) // cases no worker computes, between those shared
		procs := 2 + rng.IntN(4)
		// The load leaves a drawn share of the agent tests to Run, but
		// in the rounds that want them all computed ahead (at most 9,
		// under the workers' queue).
		leave := 0
		if round%4 == 3 {
			leave = rng.IntN(3)
		}
		pick := rand.New(rand.NewPCG(uint64(round), 1))
		aheadBehind = func(a *loadAhead) bool { return behind(a) || pick.IntN(4) < leave }
		path := filepath.Join(dir, fmt.Sprintf("suite-%d.yml", round))
		if err := os.WriteFile(path, []byte(mixedSuite(rng, dir, files, agents, scenarios, quality)), 0o644); err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("round %d (%d agent tests, %d scenario tests, %d tool_quality tests, GOMAXPROCS=%d, ahead %v)", round, agents, scenarios, quality, procs, ahead)
		want := runShared(t, path, 1, false, false)
		if strings.HasPrefix(want.out, "error: ") {
			t.Fatalf("%s: %s", where, want.out)
		}
		got := runShared(t, path, procs, ahead, true)
		if got.out != want.out {
			t.Fatalf("%s: the run differs from the one on one processor:\n%s\n---\n%s", where, clipText(want.out), clipText(got.out))
		}
		checkShared(t, where, agents, scenarios, quality, want, got, kinds)
	}
	for _, k := range []string{"shared", "two shared", "scenarios alone shared", "one shared after cases ahead"} {
		if kinds[k] == 0 {
			t.Errorf("no round drew %s: the draws do not test it", k)
		}
	}
}

// checkShared holds the runs want (one processor) and got of a suite of
// agents agent tests and scenarios scenario tests to
// TestRunWorkersShareReplayed's rules, and counts in kinds which of them
// got tried.
func checkShared(t *testing.T, where string, agents, scenarios, quality int, want, got sharedRun, kinds map[string]int) {
	t.Helper()
	for _, r := range []sharedRun{want, got} {
		for i := range agents + scenarios + quality {
			name := fmt.Sprintf("agent %d", i)
			switch {
			case i >= agents+scenarios:
				name = fmt.Sprintf("quality %d", i-agents-scenarios)
			case i >= agents:
				name = fmt.Sprintf("scenario %d", i-agents)
			}
			if n := r.prepared[name]; n != 1 {
				t.Fatalf("%s: %q prepared %d times", where, name, n)
			}
		}
		if len(r.named) > 0 {
			t.Fatalf("%s: the progress named replayed cases as live: %q", where, r.named)
		}
	}
	scen := 0
	for name := range got.shared {
		if strings.HasPrefix(name, "scenario ") {
			scen++
		}
	}
	if len(got.shared) >= 2 {
		kinds["shared"]++
		if len(got.shared) == 2 {
			kinds["two shared"]++
		}
		if scen == len(got.shared) {
			kinds["scenarios alone shared"]++
		}
		if !got.overlap {
			t.Errorf("%s: %d cases shared (%d scenario tests), and no two were computed at once", where, len(got.shared), scen)
		}
		return
	}
	if len(got.ahead) > 0 && len(got.shared) == 1 {
		kinds["one shared after cases ahead"]++
	}
	if len(got.early) > 0 {
		t.Errorf("%s: %d case shared, and %q were prepared before a case ahead of them in the suite", where, len(got.shared), got.early)
	}
}

// TestRunWorkersRoomAfterAFullWindow: a worker that found the window of
// cases claimed ahead full waits for room, and is woken once Run keeps a
// case, so the cases after a full window are computed in parallel still.
// Run keeps its first cases slowly (Emit sleeps) so that the worker fills
// the window (aheadWindow a processor) and waits; the cases well past it
// then take a millisecond each to prepare, and two of them must be
// prepared at once. A worker never woken leaves Run's goroutine to
// compute every case after the window alone, and fails it.
func TestRunWorkersRoomAfterAFullWindow(t *testing.T) {
	dir := t.TempDir()
	copyRestock(t, dir)
	const procs, n = 2, 6 * aheadWindow * 2
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(ScenarioTests(rand.New(rand.NewPCG(40, 10)), n, "restock.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	// The cases past four windows each take a millisecond to
	// prepare: two goroutines computing them prepare two at once.
	late := 4 * aheadWindow * procs
	var mu sync.Mutex
	inside, emitted, pairs := 0, 0, 0
	opt := Options{Version: "test", Prepare: func(c *report.CaseResult) error {
		var k int
		if _, err := fmt.Sscanf(c.Name, "scenario %d", &k); err != nil || k < late {
			return err
		}
		mu.Lock()
		inside++
		if inside >= 2 {
			pairs++
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		inside--
		mu.Unlock()
		return nil
	}, Emit: func(*report.CaseResult) error {
		mu.Lock()
		emitted++
		slow := emitted < 2*aheadWindow*procs
		mu.Unlock()
		if slow {
			time.Sleep(2 * time.Millisecond)
		}
		return nil
	}}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	s, err := LoadSuite(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, opt); err != nil {
		t.Fatal(err)
	}
	if pairs == 0 {
		t.Errorf("the %d cases past a full window were prepared one at a time: the worker waiting for room was not woken", n-late)
	}
}

// TestRunWorkersStopWithTheRun: a run that stops early (Emit fails at a
// drawn case) stops its workers before it returns: no case is prepared
// after Run has returned. Each case takes a drawn fraction of a
// millisecond to prepare, so that the workers are still claiming cases
// when the run stops.
func TestRunWorkersStopWithTheRun(t *testing.T) {
	dir := t.TempDir()
	copyRestock(t, dir)
	rng := rand.New(rand.NewPCG(40, 11))
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(ScenarioTests(rng, 300, "restock.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	for round := range 6 {
		procs, at := 2+rng.IntN(3), rng.IntN(40)
		var mu sync.Mutex
		prepared, emitted := 0, 0
		pace := make(map[string]time.Duration, 300) // drawn before the run: read only in it
		for i := range 300 {
			pace[fmt.Sprintf("scenario %d", i)] = time.Duration(100+rng.IntN(400)) * time.Microsecond
		}
		opt := Options{Version: "test", Prepare: func(c *report.CaseResult) error {
			time.Sleep(pace[c.Name])
			mu.Lock()
			prepared++
			mu.Unlock()
			return nil
		}, Emit: func(*report.CaseResult) error {
			emitted++
			if emitted > at {
				return stop
			}
			return nil
		}}
		s, err := LoadSuite(path)
		if err != nil {
			t.Fatal(err)
		}
		prev := runtime.GOMAXPROCS(procs)
		_, err = Run(s, opt)
		runtime.GOMAXPROCS(prev)
		if !errors.Is(err, stop) {
			t.Fatalf("round %d: the run ended with %v, not Emit's error", round, err)
		}
		mu.Lock()
		after := prepared
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		later := prepared
		mu.Unlock()
		if later != after {
			t.Fatalf("round %d (GOMAXPROCS=%d, Emit failing at case %d): %d cases prepared after the run returned", round, procs, at, later-after)
		}
	}
}

// copyRestock copies the scenario-world recording restock.json, which the
// drawn scenario tests replay, into dir.
func copyRestock(t *testing.T, dir string) {
	t.Helper()
	rec, err := os.ReadFile("../examples/scenario-world/cassettes/restock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "restock.json"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
}
