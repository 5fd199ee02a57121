package engine

import (
	"runtime"
	"sync"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// caseOutcome is one case computed: its result, the errors of its input,
// whether the cache served it, and why the cache's entry for it was
// refused (nil when it was not), and the error of Options.Prepare.
type caseOutcome struct {
	res      *report.CaseResult
	errs     diag.List
	cached   bool
	refused  error
	prepared error
	// files is the number of cassette files a case computed ahead of the
	// run (loadAhead) read, for the progress it did not show.
	files int
}

// aheadWindow is how many replayed cases, per worker, may be computed
// before the run keeps them: a run holds at most that many results at once
// beyond the one it is emitting. The run keeps them in order, so a case
// slower than the next ones holds it up while the other workers, their
// window full, wait: with 4 a worker, a trace of the 2,000 transcripts at
// GOMAXPROCS=2 had a processor idle 0.4 s of 4 with the fold waiting on
// one case, the dispatcher on room and a worker on a job; with 16 (a
// result of a small case is a few KB) the idle share of the run
// (MCPTEST_CPUCLASSES) went from 6-15 % to 4-6 % under the same load.
const aheadWindow = 16

// caseRunner computes a run's cases for Run, which takes them one at a
// time in suite order (next). A replayed case (agent and scenario tests)
// reads only its own cassettes and the suite, so up to GOMAXPROCS of them
// are computed at once, at most aheadWindow per worker ahead of the case
// Run takes; every other case (live servers, catalogs, model cases) is
// computed by next itself, in order, on Run's goroutine. A case's result
// depends on its own input only, so the results and their order are those
// of computing every case in turn; the cache and the progress callback see
// one caller at a time, and the workers together hold no more cassette
// bytes than one case read alone may (readBudget).
//
// The replayed cases are shared: each worker claims the next one itself
// (no goroutine hands them out) and puts its outcome in the case's place
// of a ring of the window's size, and Run's goroutine is one of the
// workers: when the case it is to keep is not computed yet, it computes
// the next unclaimed one instead of waiting (help), and waits only when
// none is left or the window is full. A run on two cores then has two
// goroutines for its two processors, and a case is handed over once (its
// outcome, to Run's goroutine, which seldom sleeps), where a dispatcher,
// its workers and the fold handed each case over three times, each a
// goroutine woken: a trace of the 2,000 transcripts at GOMAXPROCS=2 had
// 1.2 to 1.3 goroutines running and one always waiting for a processor.
type caseRunner struct {
	s     *Suite
	plans []casePlan
	opt   Options
	// rebuilt builds the tests the suite dropped again (casePlan.load),
	// in suite order (see load), nil when the suite dropped none.
	rebuilt *rebuilder
	// progress counts a cassette file read; safe from any goroutine.
	progress func()
	// track names the live case next computes (tracker.start).
	track *tracker
	// shared lists the plans computed by whichever worker claims them, in
	// suite order; place[i] is the i-th plan's index in shared, -1 when
	// next computes it (or the load did, casePlan.ahead). Both are nil
	// when Run's goroutine computes every case.
	shared []int
	place  []int
	// loadMu orders casePlan.load: built is how many shared plans are
	// loaded, each before the ones after it.
	loadMu sync.Mutex
	built  int
	wg     sync.WaitGroup

	// mu guards what follows. The k-th shared case's outcome is
	// ring[k%len(ring)], done once done[k%len(ring)]; a case is claimed
	// only while it is fewer than len(ring) places past the ones kept,
	// so no two cases claimed and not kept share a place.
	mu      sync.Mutex
	ring    []caseOutcome
	done    []bool
	claimed int // shared cases claimed
	emitted int // shared cases kept (Run emitted them)
	// waits is the shared case next waits for, -1 when it waits for none;
	// ready wakes it. idle counts the workers waiting for room, which
	// room wakes.
	waits   int
	ready   sync.Cond
	idle    int
	room    sync.Cond
	stopped bool
}

// replayed reports whether a case is computed from its cassettes alone.
func (p *casePlan) replayed() bool {
	k := p.kind()
	return k == report.KindAgent || k == report.KindScenario
}

// newCaseRunner starts the workers when there are two replayed cases or
// more and more than one processor to compute them on: one a processor
// but Run's own.
func newCaseRunner(s *Suite, plans []casePlan, opt Options, track *tracker, rebuilt *rebuilder, loaded *loadAhead) *caseRunner {
	r := &caseRunner{s: s, plans: plans, opt: opt, progress: track.file, track: track, rebuilt: rebuilt, waits: -1}
	workers := runtime.GOMAXPROCS(0)
	ahead := 0
	for i := range plans {
		if plans[i].replayed() && plans[i].ahead == nil {
			ahead++
		}
	}
	if workers < 2 || ahead < 2 {
		return r
	}
	workers = min(workers, ahead)
	if opt.Cache != nil {
		r.opt.Cache = &lockedCache{c: opt.Cache}
	}
	budget := newReadBudget(cassette.MaxSize)
	if loaded != nil {
		budget = loaded.budget // one budget for every worker of the run
	}
	r.shared = make([]int, 0, ahead)
	r.place = make([]int, len(plans))
	for i := range plans {
		r.place[i] = -1
		if plans[i].replayed() && plans[i].ahead == nil {
			r.place[i] = len(r.shared)
			r.shared = append(r.shared, i)
			r.plans[i].budget = budget
		}
	}
	r.ring = make([]caseOutcome, workers*aheadWindow)
	r.done = make([]bool, len(r.ring))
	r.ready.L, r.room.L = &r.mu, &r.mu
	r.wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer r.wg.Done()
			for {
				k, ok := r.claim(true)
				if !ok {
					return
				}
				r.put(k, r.compute(r.load(k)))
			}
		}()
	}
	return r
}

// claim takes the next shared case not claimed and returns its place,
// once it is built (load); ok is false when every case is claimed or the
// run stopped, and when the window is full and wait is false (wait true
// waits for room). It is called without mu held.
func (r *caseRunner) claim(wait bool) (k int, ok bool) {
	r.mu.Lock()
	for {
		if r.stopped || r.claimed == len(r.shared) {
			r.mu.Unlock()
			return 0, false
		}
		if r.claimed < r.emitted+len(r.ring) {
			break
		}
		if !wait {
			r.mu.Unlock()
			return 0, false
		}
		r.idle++
		r.room.Wait()
		r.idle--
	}
	k = r.claimed
	r.claimed++
	r.mu.Unlock()
	return k, true
}

// load builds the k-th shared case's test again when the suite dropped it
// (casePlan.load), and every shared one before it first: the rebuilder
// reads the tests again in suite order, whichever worker claimed them.
// It returns the case's plan index.
func (r *caseRunner) load(k int) int {
	if r.rebuilt != nil {
		r.loadMu.Lock()
		for ; r.built <= k; r.built++ {
			r.plans[r.shared[r.built]].load(r.s, r.rebuilt)
		}
		r.loadMu.Unlock()
	}
	return r.shared[k]
}

// put gives the k-th shared case's outcome to Run.
func (r *caseRunner) put(k int, o caseOutcome) {
	r.mu.Lock()
	at := k % len(r.ring)
	r.ring[at], r.done[at] = o, true
	if r.waits == k {
		r.ready.Signal()
	}
	r.mu.Unlock()
}

// help computes the next shared case not claimed, on Run's goroutine, when
// the window has room for it; it reports whether it did.
func (r *caseRunner) help() bool {
	k, ok := r.claim(false)
	if ok {
		r.put(k, r.compute(r.load(k)))
	}
	return ok
}

// next returns the outcome of the i-th plan; Run calls it for i = 0, 1,
// ... in turn, and kept(i) once it has kept the outcome. While the
// outcome is being computed on another goroutine, next computes the
// shared cases after it (help).
func (r *caseRunner) next(i int) caseOutcome {
	if p := &r.plans[i]; p.ahead != nil { // computed while the suite loaded
		for len(p.ahead) == 0 && r.help() {
		}
		o := <-p.ahead
		p.ahead, p.c.ahead = nil, nil
		for range o.files {
			r.progress()
		}
		return o
	}
	if r.place == nil || r.place[i] < 0 {
		r.plans[i].load(r.s, r.rebuilt)
		r.track.start(&r.plans[i])
		return r.compute(i)
	}
	k := r.place[i]
	at := k % len(r.ring)
	r.mu.Lock()
	for !r.done[at] {
		if r.claimed < len(r.shared) && r.claimed < r.emitted+len(r.ring) && !r.stopped {
			r.mu.Unlock()
			r.help()
			r.mu.Lock()
			continue
		}
		r.waits = k
		r.ready.Wait()
		r.waits = -1
	}
	o := r.ring[at]
	r.ring[at], r.done[at] = caseOutcome{}, false
	r.mu.Unlock()
	return o
}

// kept makes room for one more case to be claimed once the i-th plan's
// outcome is kept (emitted): the cases claimed and not yet kept are never
// more than the ring, workers × aheadWindow.
func (r *caseRunner) kept(i int) {
	if r.place == nil || r.place[i] < 0 {
		return
	}
	r.mu.Lock()
	r.emitted++
	if r.idle > 0 {
		r.room.Signal()
	}
	r.mu.Unlock()
}

// close stops the claiming of cases and waits for the workers to finish
// the ones they hold, so no case is computed or built after Run returns.
func (r *caseRunner) close() {
	if r.place == nil {
		return
	}
	r.mu.Lock()
	r.stopped = true
	r.room.Broadcast()
	r.mu.Unlock()
	r.wg.Wait()
}

// compute computes the i-th plan: served from the cache when it holds the
// case, else run and then stored in the cache; then prepared for Emit.
func (r *caseRunner) compute(i int) caseOutcome {
	var o caseOutcome
	p := r.plans[i]
	if p.errs != nil { // a dropped test that could not be built again
		return caseOutcome{res: &report.CaseResult{Name: p.name(), Kind: p.kind(), Verdict: report.Inconclusive}, errs: p.errs}
	}
	key, res, refused := fromCache(r.s, p, r.opt)
	o.refused = refused
	if res != nil {
		for range p.files {
			r.progress()
		}
		o.res, o.cached = res, true
	} else {
		o.res, o.errs = runCase(r.s, p, r.progress)
		if key != "" && len(o.errs) == 0 {
			r.opt.Cache.Put(key, o.res)
		}
	}
	if r.opt.Prepare != nil {
		o.prepared = r.opt.Prepare(o.res)
	}
	return o
}

// lockedCache lets one caller at a time use a CaseCache.
type lockedCache struct {
	mu sync.Mutex
	c  CaseCache
}

func (l *lockedCache) Get(key string, check func(*report.CaseResult) error) (*report.CaseResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.Get(key, check)
}

func (l *lockedCache) Put(key string, res *report.CaseResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c.Put(key, res)
}

// readBudget bounds the bytes of the cassette files the workers hold at
// once to what one case read alone may hold (cassette.MaxSize), so that a
// run on many cores peaks no higher than a run on one: a file takes its
// size while it is read and replayed, and waits while the files the other
// workers hold leave it too little; a file alone takes what it needs.
type readBudget struct {
	mu   sync.Mutex
	free *sync.Cond
	left int64 // bytes not taken
	held int   // files holding bytes
}

func newReadBudget(size int64) *readBudget {
	b := &readBudget{left: size}
	b.free = sync.NewCond(&b.mu)
	return b
}

// take waits until n bytes are left, or no file holds any, and takes
// them. A nil budget takes nothing.
func (b *readBudget) take(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.held > 0 && n > b.left {
		b.free.Wait()
	}
	b.left -= n
	b.held++
}

// onOpen returns what takes a file's bytes from b once the file is open
// (sized, for cassette.LoadInto: the size its stat gave, at most
// cassette.MaxSize, before a byte is read) and what gives them back
// (release), which gives nothing when sized was not called (the file did
// not open). A nil budget gives a nil sized and a release that does
// nothing. Taking the bytes with the open file's stat, not a stat of the
// path beforehand, is one system call a file fewer on every core count
// but one (a run on one core has no budget): 2,000 over the transcripts
// of .ci/bench.
func (b *readBudget) onOpen() (sized func(int64), release func()) {
	if b == nil {
		return nil, func() {}
	}
	var size int64
	taken := false
	sized = func(n int64) {
		size, taken = min(max(n, 0), cassette.MaxSize), true
		b.take(size)
	}
	release = func() {
		if taken {
			taken = false
			b.give(size)
		}
	}
	return sized, release
}

// give returns n bytes taken.
func (b *readBudget) give(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left += n
	b.held--
	b.free.Broadcast()
}
