package engine

import (
	"runtime"
	"sync"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

// Loading a long suite for a run builds its tests in order on one
// goroutine (the reader's positions and the builder's checks of names are
// one document's); on two cores that was about a seventh of a run over
// 2,000 transcripts with the other core half idle. A suite loaded for a
// run with the run's options (LoadSuiteAhead) has each replayed test it
// builds computed at once, on one worker per core, while the builder goes
// on with the next: loadAhead. The run (Run) then takes those cases'
// outcomes instead of computing them again, and folds and reports every
// case only once the whole suite has loaded clean: a suite with an error
// fails as it always did (the load's errors, nothing computed reported,
// no progress shown, no server started), and the outcomes are dropped.

// loadAhead computes, on one worker per core but the load's, the replayed tests a suite
// being loaded for a run hands over (take) as soon as each is built, up
// to aheadMax of them: their outcomes wait for Run in the cases
// themselves (Case.ahead).
type loadAhead struct {
	opt    Options
	s      *Suite
	budget *readBudget
	jobs   chan aheadJob
	// taken are the cases handed to the workers, in order; max bounds them.
	taken []*Case
	max   int
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// aheadJob is a case to compute ahead: the test, the value it was built
// from when its definition digest is still to compute (nil otherwise),
// and its cassette files.
type aheadJob struct {
	c     *Case
	m     map[string]any
	files []string
}

// aheadMax is how many cases a suite's load may compute ahead: their
// outcomes are held until the load ends, a few KB each for the 2,000
// transcripts of .ci/bench. The cases taken are those the workers can
// start at once (aheadQueue), so what is held is what the workers
// computed while the load went on: on two cores about a third of the
// tests built (350 to 490 of the 2,000 transcripts), at GOMAXPROCS=16
// the cap (the run's peak RSS 62 MB at 1,024, 54 to 60 MB at 256). A cap
// of 256 ran out on two cores a third of the way through the load and
// left the other core idle for the rest of it (the builder is the load's
// one goroutine). It stays under keepBuilt, so a case computed ahead is
// one the load keeps built (Suite.dropHeld keeps it anyway).
const aheadMax = 1024

// aheadQueue bounds the cases handed over and not yet started: a case
// built while the workers are that far behind is left for Run (the
// builder makes a test about three times faster than a worker computes
// a small case), so the values a queued job holds for its digest are
// never more than aheadQueue tests', and the outcomes held are the cases
// the workers had time for while the suite loaded. Handing every case
// over (a queue of aheadMax) held 2,000 tests' values at once on two
// cores, 8 MB more at the peak.
const aheadQueue = 16

// aheadBehind reports whether the workers of a are aheadQueue cases
// behind the builder, so that take leaves the case for Run; a variable
// so that a test can draw which cases are left (any choice runs to the
// same envelope).
var aheadBehind = func(a *loadAhead) bool { return len(a.jobs) == cap(a.jobs) }

// newLoadAhead returns the computing ahead of a suite s being loaded for a
// run with opt; nil, computing nothing ahead, on one core, or when the
// run's options need the whole suite before a case is chosen (Filter) or
// served (Cache: CacheKeep counts the cases), which Run then computes as
// ever.
func newLoadAhead(s *Suite, opt Options) *loadAhead {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(opt.Filter) > 0 || opt.Cache != nil || opt.Shard.Check() != nil {
		return nil
	}
	max := min(aheadMax, keepBuilt)
	return &loadAhead{opt: opt, s: s, max: max, budget: newReadBudget(cassette.MaxSize),
		jobs: make(chan aheadJob, aheadQueue), stop: make(chan struct{})}
}

// aheadable reports whether a case is one loadAhead computes: an agent
// test that reads its own recordings (no sources: to join, no aliases:
// to rename by), which a run keeps by shard; its files are found (plan's
// caseFiles) when it is taken.
func aheadable(c *Case, opt Options) bool {
	return c.Kind == report.KindAgent && len(c.Sources) == 0 && len(c.Aliases) == 0 && opt.Shard.Holds(c.Name)
}

// take hands the case c, just built from m (nil when its digest is set or
// not wanted), over to be computed ahead, and reports whether it was
// taken; a case not taken (not aheadable, its files not found, the
// workers aheadQueue cases behind, or aheadMax already taken) is left for
// Run, so the cases taken need not be a prefix of the suite. take never
// waits on the workers: the load goes on at its own pace.
func (a *loadAhead) take(c *Case, m map[string]any) bool {
	if a == nil || len(a.taken) >= a.max || !aheadable(c, a.opt) {
		return false
	}
	if len(a.taken) > 0 && aheadBehind(a) {
		return false // Run computes it
	}
	files, err := caseFiles(a.s, c, a.opt.CassetteDir)
	if err != nil {
		return false
	}
	if len(a.taken) == 0 {
		n := min(runtime.GOMAXPROCS(0)-1, a.max) // the load has a core of its own
		a.wg.Add(n)
		for range n {
			go a.work()
		}
	}
	c.ahead = make(chan caseOutcome, 1)
	a.taken = append(a.taken, c)
	a.jobs <- aheadJob{c: c, m: m, files: files}
	return true
}

// work computes the cases handed over, each once: its digest always (the
// case is the suite's whether or not its outcome is used), its outcome
// unless the load or the run gave the outcomes up (stop).
func (a *loadAhead) work() {
	defer a.wg.Done()
	for j := range a.jobs {
		if j.m != nil {
			j.c.DefinitionSHA256 = canonicalSHA256(j.m)
		}
		select {
		case <-a.stop:
			continue
		default:
		}
		p := casePlan{c: j.c, files: j.files, prices: a.opt.Prices, budget: a.budget}
		var o caseOutcome
		o.res, o.errs = runCase(a.s, p, func() {})
		if a.opt.Prepare != nil {
			o.prepared = a.opt.Prepare(o.res)
		}
		o.files = len(j.files)
		j.c.ahead <- o
	}
}

// loaded ends the handing over: the workers finish the cases they were
// given and stop. The load's core is free from now on: one more worker
// takes it, so the cases still queued are computed on every core while
// the run's fold waits for them in order (with the load's workers alone,
// the run's own workers filled their window and stood idle behind them).
func (a *loadAhead) loaded() {
	if a == nil {
		return
	}
	a.once.Do(func() {
		close(a.jobs)
		if len(a.taken) > 0 {
			a.wg.Add(1)
			go a.work()
		}
	})
}

// drop gives the outcomes up (a load that failed, a run with other
// options) and waits for the workers: every case taken then has its
// digest and no outcome.
func (a *loadAhead) drop() {
	if a == nil {
		return
	}
	a.loaded()
	close(a.stop)
	a.wg.Wait()
	for _, c := range a.taken {
		c.ahead = nil
	}
	a.taken = nil
}

// fits reports whether a run with opt may use the outcomes computed ahead
// with a.opt: the options that decide what a case computes are the same.
// Prepare is not compared (a function): Run's caller gives the run the
// options it gave the load (LoadSuiteAhead).
func (a *loadAhead) fits(opt Options) bool {
	return len(opt.Filter) == 0 && opt.Cache == nil && opt.Shard == a.opt.Shard &&
		opt.CassetteDir == a.opt.CassetteDir && opt.Prices == a.opt.Prices &&
		(opt.Prepare == nil) == (a.opt.Prepare == nil)
}

// LoadSuiteAhead is LoadSuiteForRun for a run with opt: on more than one
// core, each replayed test is computed as soon as it is built, while the
// rest of the suite loads (loadAhead), and Run(s, opt) takes those
// outcomes; it is given the same options (Progress, Warn, Emit and Cache
// aside). cached says the run will have a cache (its CaseCache is opened
// after the load): nothing is computed ahead then, the cache serves the
// cases. The suite and the errors are LoadSuiteForRun's: a suite with an
// error gives up what was computed ahead. The definition digests of the
// cases computed ahead are set by the time Run or Release returns; a
// suite loaded ahead that is not run holds workers until Release.
//
// From the load on, the collector runs at the run's pace (paceRun: not
// before the heap reaches runHeapFloor) until Release.
func LoadSuiteAhead(path string, opt Options, cached bool) (*Suite, error) {
	mode := loadMode{forRun: true, keep: keepBuilt}
	if !cached {
		mode.ahead = &opt
	}
	paced := paceRun()
	s, err := readSuite(path, mode)
	if err != nil {
		paced()
		return s, err
	}
	s.paced = paced
	return s, nil
}

// Release gives up what the load computed ahead for a run that will not
// happen (LoadSuiteAhead) and waits for its workers, and puts the
// collector's pace back: call it once the run and its reports are done.
func (s *Suite) Release() {
	s.ahead.drop()
	s.ahead = nil
	if s.paced != nil {
		s.paced()
		s.paced = nil
	}
}

// takeAhead returns what the load computed ahead when a run with opt may
// use it, giving it up otherwise; the suite no longer holds it either way.
func (s *Suite) takeAhead(opt Options) *loadAhead {
	a := s.ahead
	s.ahead = nil
	if a == nil || a.fits(opt) {
		return a
	}
	a.drop()
	return nil
}
