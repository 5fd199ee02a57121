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
// are computed at once on worker goroutines, at most aheadWindow per
// worker ahead of the case Run takes; every other case (live servers,
// catalogs, model cases) is computed by next itself, in order, on Run's
// goroutine. A case's result depends on its own input only, so the results
// and their order are those of computing every case in turn; the cache
// and the progress callback see one caller at a time, and the workers
// together hold no more cassette bytes than one case read alone may
// (readBudget).
type caseRunner struct {
	s     *Suite
	plans []casePlan
	opt   Options
	// rebuilt builds the tests the suite dropped again (casePlan.load),
	// in order: on the goroutine that hands the cases out, nil when the
	// suite dropped none.
	rebuilt *rebuilder
	// progress counts a cassette file read; safe from any goroutine.
	progress func()
	// track names the live case next computes (tracker.start).
	track *tracker
	// slot[i] is the channel of the i-th plan's outcome when it is
	// computed ahead, nil when next computes it; ahead cases share
	// len(ring) channels in turn (the k-th ahead case uses ring[k%len]).
	slot []chan caseOutcome
	ring []chan caseOutcome
	// room bounds the cases computed ahead and not yet kept (see kept).
	room chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

// replayed reports whether a case is computed from its cassettes alone.
func (p *casePlan) replayed() bool {
	k := p.kind()
	return k == report.KindAgent || k == report.KindScenario
}

// newCaseRunner starts the workers when there are two replayed cases or
// more and more than one processor to compute them on.
func newCaseRunner(s *Suite, plans []casePlan, opt Options, track *tracker, rebuilt *rebuilder, loaded *loadAhead) *caseRunner {
	r := &caseRunner{s: s, plans: plans, opt: opt, progress: track.file, track: track, rebuilt: rebuilt}
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
	r.ring = make([]chan caseOutcome, workers*aheadWindow)
	for i := range r.ring {
		r.ring[i] = make(chan caseOutcome, 1)
	}
	r.slot = make([]chan caseOutcome, len(plans))
	budget := newReadBudget(cassette.MaxSize)
	if loaded != nil {
		budget = loaded.budget // one budget for every worker of the run
	}
	k := 0
	for i := range plans {
		if plans[i].replayed() && plans[i].ahead == nil {
			r.slot[i] = r.ring[k%len(r.ring)]
			r.plans[i].budget = budget
			k++
		}
	}
	r.room = make(chan struct{}, len(r.ring))
	r.stop = make(chan struct{})
	jobs := make(chan int)
	r.wg.Add(workers + 1)
	go func() {
		defer r.wg.Done()
		r.dispatch(jobs)
	}()
	for range workers {
		go func() {
			defer r.wg.Done()
			for i := range jobs {
				r.slot[i] <- r.compute(i)
				// As readAhead's workers do: the fold this readied
				// takes the case now, not after this time slice.
				runtime.Gosched()
			}
		}()
	}
	return r
}

// dispatch hands the workers the replayed cases in suite order, each once
// there is room for its outcome and built (casePlan.load), until every one
// is handed out or the run stops.
func (r *caseRunner) dispatch(jobs chan<- int) {
	defer close(jobs)
	for i := range r.plans {
		if r.slot[i] == nil {
			continue
		}
		select {
		case r.room <- struct{}{}:
		case <-r.stop:
			return
		}
		r.plans[i].load(r.s, r.rebuilt)
		select {
		case jobs <- i:
		case <-r.stop:
			return
		}
	}
}

// next returns the outcome of the i-th plan; Run calls it for i = 0, 1,
// ... in turn, and kept(i) once it has kept the outcome.
func (r *caseRunner) next(i int) caseOutcome {
	if p := &r.plans[i]; p.ahead != nil { // computed while the suite loaded
		o := <-p.ahead
		p.ahead, p.c.ahead = nil, nil
		for range o.files {
			r.progress()
		}
		return o
	}
	if r.slot == nil || r.slot[i] == nil {
		r.plans[i].load(r.s, r.rebuilt)
		r.track.start(&r.plans[i])
		return r.compute(i)
	}
	return <-r.slot[i]
}

// kept makes room for one more case to be computed ahead once the i-th
// plan's outcome is kept (emitted): the cases computed and not yet kept
// are never more than the room, workers × aheadWindow.
func (r *caseRunner) kept(i int) {
	if r.slot != nil && r.slot[i] != nil {
		<-r.room
	}
}

// close stops handing out cases and waits for the workers to finish the
// ones they hold, and for dispatch to return, so no case is computed or
// built after Run returns.
func (r *caseRunner) close() {
	if r.stop == nil {
		return
	}
	close(r.stop)
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
