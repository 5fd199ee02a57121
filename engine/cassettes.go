package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// cassetteUse is what a case does with its recordings, file by file: open
// sees a cassette's provenance and catalog before any of its runs, run
// sees each of its runs in file order. Either may be nil.
type cassetteUse struct {
	open func(*cassette.Cassette)
	run  func(*cassette.Cassette, *cassette.Run, *runPrep)
	// prep, when set, fills what a run gives the case on its own
	// (runPrep.checks, runPrep.scores) before run sees it. It reads the
	// run and what the case declared, never what run has folded, and is
	// safe for several runs at once: files read ahead (readAhead) are
	// prepared on the worker that decoded them.
	prep func(*cassette.Cassette, *cassette.Run, *runPrep)
	// bytes, when set, is handed a file's bytes before its runs are
	// streamed from them and nil once they are done (not for a file read
	// ahead, whose bytes are let go once decoded, nor an adapted one): what
	// a gate reads again (a violation's position) it reads there, not from
	// a second copy of the file.
	bytes func([]byte)
	// adapt, when set, turns each cassette and run into what the case
	// reads before anything reads them: joined with the case's other
	// sources and with its aliases applied (join.go); r is nil for a
	// cassette of no runs.
	adapt func(cas *cassette.Cassette, r *cassette.Run) (*cassette.Cassette, *cassette.Run)
	// files are the files to stream, nil for all of the plan's; digest,
	// when set, already holds the plan's other files (a join's other
	// sources, read first) and takes these after them.
	files  []string
	digest hash.Hash
	// tally, when set, is where the case's tools are counted (a
	// toolTally of its own otherwise), for the caller to read after.
	tally *toolTally
}

// eachCassette reads a case's cassette files one at a time, in order, and
// streams each one's runs to use as they are decoded (cassette.Stream), so
// no more than one cassette file and one of its runs are held at once. It
// fills res.Model from the first cassette and res.Cassettes with the file
// count and a digest over the files' suite-relative paths and contents,
// res.Tools with the tools the recordings called and res.Catalog with the
// catalog they offered (tools.setTools), and returns
// every file that could not be read as positioned errors. A file found
// broken after some of its runs were used fails the run with those errors,
// so what the runs added is never reported.
func eachCassette(s *Suite, p casePlan, res *report.CaseResult, progress func(), use cassetteUse) diag.List {
	var errs diag.List
	digest, files := use.digest, use.files
	if digest == nil {
		digest = sha256.New()
	}
	if files == nil {
		files = p.files
	}
	defer paceFold(len(files))()
	// From the first cassette of a catalog of many tools to the case's
	// tools and catalog set, the collector keeps a tight pace (paceTight).
	var tight sync.Once
	endTight := func() {}
	defer func() { endTight() }()
	tools := use.tally
	if tools == nil {
		tools = &toolTally{}
	}
	priced := 0
	unpriced := map[string]bool{}
	// fold takes file i's reading into the case, in file order: on this
	// goroutine for a file streamed, on a worker for one read ahead.
	fold := func(i int, fr fileRead) {
		f := files[i]
		name := displayPath(f)
		if fr.loadErr != nil {
			fr.release()
			errs = append(errs, asDiag(name, fr.loadErr)...)
			progress()
			return
		}
		fmt.Fprintf(digest, "%s\x00%s\n", suiteRelative(s, f), hex.EncodeToString(fr.sum[:]))
		var owner *owners
		opened := false
		open := func(cas *cassette.Cassette) {
			opened = true
			if catalogTools(cas) >= tightCatalog {
				tight.Do(func() { endTight = paceTight() })
			}
			if res.Model == "" {
				res.Model = oneLine(cas.Model)
			}
			owner = tools.addCatalog(cas)
			for _, w := range cas.Warnings {
				res.Findings = append(res.Findings, report.Finding{Level: "warning", Message: w, Position: &diag.Pos{File: name}})
			}
			if use.open != nil {
				use.open(cas)
			}
		}
		each := func(cas *cassette.Cassette, r *cassette.Run, pr *runPrep) {
			if use.adapt != nil {
				cas, r = use.adapt(cas, r)
			}
			if !opened {
				open(cas)
			}
			if pr == nil {
				prepared := prepRun(p, use.prep, cas, r, false)
				pr = &prepared
			}
			switch {
			case pr.priced:
				priced++
			case !pr.known:
				unpriced[oneLine(cas.Model)] = true
			}
			tools.addRun(owner, r)
			if use.run != nil {
				use.run(cas, r, pr)
			}
		}
		cas, err := fr.cas, fr.err
		if fr.ahead {
			// The runs the file handed out as it was decoded, in order,
			// then what its reader said of the whole.
			for j := range fr.runs {
				each(fr.runCas, &fr.runs[j], fr.prepOf(j))
			}
		} else {
			cas, err = streamFile(name, &fr, use, func(cas *cassette.Cassette, r *cassette.Run) { each(cas, r, nil) })
		}
		fr.release()
		progress()
		if err != nil {
			errs = append(errs, asDiag(name, err)...)
			return
		}
		if !opened && use.adapt != nil {
			cas, _ = use.adapt(cas, nil)
		}
		if !opened {
			open(cas)
		}
	}
	if !readAhead(p, files, aheadPrep(p, use), fold) {
		for i, f := range files {
			fold(i, readFile(p, f, displayPath(f), nil))
		}
	}
	res.Cassettes = &report.CassetteSet{Files: len(p.files), SHA256: hex.EncodeToString(digest.Sum(nil)), Paths: cassettePaths(s, p.c, p.files)}
	tools.setTools(res)
	res.PricedRuns = priced
	res.UnpricedModels = slices.Sorted(maps.Keys(unpriced))
	if len(res.UnpricedModels) == 0 {
		res.UnpricedModels = nil
	}
	return errs
}

// streamFile streams the file fr holds, read and not decoded, through
// each, handing its bytes to use.bytes while it does (a case whose runs are
// not adapted); a file no gate was handed and no error quotes (an error
// quotes the file's lines from its bytes) gives its array to readArrays
// once streamed.
func streamFile(name string, fr *fileRead, use cassetteUse, each func(*cassette.Cassette, *cassette.Run)) (*cassette.Cassette, error) {
	share := use.bytes != nil && use.adapt == nil
	if share {
		use.bytes(fr.data)
	}
	cas, err := streamRecording(name, fr.data, each)
	if share {
		use.bytes(nil)
	} else if err == nil {
		readArrays.give(fr.data)
	}
	fr.data = nil
	return cas, err
}

// aheadPrep is how the workers that read a case's files ahead prepare
// each run (prepRun); nil for a case that adapts its runs: a joined or
// aliased run is what adapt makes of it, in the fold, and is prepared
// there.
func aheadPrep(p casePlan, use cassetteUse) func(*cassette.Cassette, *cassette.Run) runPrep {
	if use.adapt != nil {
		return nil
	}
	return func(cas *cassette.Cassette, r *cassette.Run) runPrep { return prepRun(p, use.prep, cas, r, true) }
}

// prepOf is the prepared run j of a file read ahead, nil when its worker
// did not prepare its runs.
func (fr *fileRead) prepOf(j int) *runPrep {
	if fr.preps == nil {
		return nil
	}
	return &fr.preps[j]
}

// fileRead is one cassette file of a case as it was read: its bytes and
// their digest, or why it could not be read; read ahead, also its decoded
// runs (each a copy of what cassette.Stream handed out, with the cassette
// it handed them with) and what the reader returned.
type fileRead struct {
	data    []byte
	sum     [sha256.Size]byte
	loadErr error
	runCas  *cassette.Cassette
	runs    []cassette.Run
	// preps are the runs' runPrep, one a run, when the worker prepared
	// them (a case that adapts its runs prepares them in the fold).
	preps []runPrep
	cas   *cassette.Cassette
	err   error
	// ahead says the file was read ahead: decoded, its runs in runs.
	ahead bool
	// release gives back what the file took of the read budget.
	release func()
}

// readFile loads one cassette file within the plan's read budget (or
// budget, when not nil) and digests it; the bytes are taken with the
// open file's size (readBudget.onOpen), one stat a file.
func readFile(p casePlan, f, name string, budget *readBudget) fileRead {
	if budget == nil {
		budget = p.budget
	}
	sized, release := budget.onOpen()
	fr := fileRead{release: release}
	fr.data, fr.loadErr = cassette.LoadInto(f, name, readArrays.take(), sized)
	if fr.loadErr == nil {
		fr.sum = sha256.Sum256(fr.data)
	}
	return fr
}

// readAhead reads and decodes the files of a case of more than one file
// on one worker per core and folds each (fold) in file order on whichever
// worker finds it next in line, then returns true once every file is
// folded; false, doing nothing, for a case of one file or a run on one
// core, which streams it (one run held at a time). The files read ahead
// hold together no more bytes than the read budget (the plan's, else one
// file of the largest size) and no more files than a window, so memory
// does not grow with the number of cores, and fold sees every file's runs
// in file order, one file at a time, as the stream would hand them: the
// report is the same on any number of cores. prep, when not nil, prepares
// each run on the worker as it is decoded (what it keeps of a check's
// value is thinned: runPrep.thin), so the fold only folds.
func readAhead(p casePlan, files []string, prep func(*cassette.Cassette, *cassette.Run) runPrep, fold func(int, fileRead)) bool {
	workers := runtime.GOMAXPROCS(0)
	if len(files) < 2 || workers < 2 {
		return false
	}
	budget := p.budget
	if budget == nil {
		budget = newReadBudget(cassette.MaxSize)
	}
	type job struct {
		i    int
		size int64
	}
	jobs := make(chan job, workers)
	// At most window files are read ahead of the fold, whatever their
	// size: a file's decoded runs are held until the fold takes them
	// (aheadFilesPerWorker).
	n := aheadFilesPerWorker * workers
	window := make(chan struct{}, n)
	line := newFoldLine(len(files), n, fold)
	go func() {
		// The files are handed out in order, each once its bytes are
		// taken, so the fold, which gives them back, never waits on a
		// file that waits for bytes.
		defer close(jobs)
		for i, f := range files {
			window <- struct{}{}
			size := fileSize(f)
			budget.take(size)
			jobs <- job{i, size}
		}
	}()
	for range workers {
		go func() {
			// buf is the array of the last file the worker read, read into
			// again: a file's bytes are done with once it is streamed
			// (its runs and catalog are copies), and a fresh array a file
			// was a tenth of what a run of small transcripts allocated.
			var buf []byte
			for j := range jobs {
				f := files[j.i]
				name := displayPath(f)
				fr := fileRead{ahead: true, release: func() { budget.give(j.size); <-window }}
				fr.data, fr.loadErr = cassette.LoadInto(f, name, buf, nil)
				if fr.loadErr == nil {
					fr.sum = sha256.Sum256(fr.data)
					var kept []bool // per check: a failing run of the file kept its value
					fr.cas, fr.err = streamRecording(name, fr.data, func(c *cassette.Cassette, r *cassette.Run) {
						fr.runCas = c
						if prep != nil {
							pr := prep(c, r)
							pr.thin(len(fr.runs) == 0, &kept)
							fr.preps = append(fr.preps, pr)
						}
						fr.runs = append(fr.runs, *r)
					})
					if cap(fr.data) <= maxReusedRead && fr.err == nil {
						buf = fr.data[:0] // an error quotes the file's lines from its bytes
					} else {
						buf = nil
					}
					fr.data = nil
				}
				line.put(j.i, fr)
			}
		}()
	}
	<-line.done
	return true
}

// foldLine folds the files read ahead in file order on the workers that
// read them: the worker that hands in the next file in line folds it, and
// every file after it already handed in, while the others go on reading
// (a combining lock). The fold runs on one goroutine at a time, each
// fold ordered after the last by the line's mutex, so it needs no lock of
// its own; no goroutine waits to be woken for a file, and a file is most
// often folded by the worker that just decoded it, on that worker's core.
type foldLine struct {
	mu sync.Mutex
	// slots holds the files handed in and not yet folded, file i at
	// i % len(slots): a file is handed in only within the window after
	// the next one in line (its window place is given back by the fold).
	slots []lineSlot
	next  int
	fold  func(int, fileRead)
	// done is closed once the last file is folded.
	done chan struct{}
	n    int
}

// lineSlot is one file handed in to a foldLine.
type lineSlot struct {
	i  int
	ok bool
	fr fileRead
}

func newFoldLine(files, window int, fold func(int, fileRead)) *foldLine {
	return &foldLine{slots: make([]lineSlot, window), fold: fold, done: make(chan struct{}), n: files}
}

// put hands in file i, then folds the files in line from the next one
// for as long as they are handed in. The next file's slot is emptied when
// its fold begins and next moves on when it ends, so a worker that hands
// in a file meanwhile finds the slot empty and goes back to reading: one
// fold at a time, without a flag.
func (l *foldLine) put(i int, fr fileRead) {
	l.mu.Lock()
	l.slots[i%len(l.slots)] = lineSlot{i: i, ok: true, fr: fr}
	for {
		s := &l.slots[l.next%len(l.slots)]
		if !s.ok || s.i != l.next {
			break
		}
		i, fr := l.next, s.fr
		*s = lineSlot{}
		l.mu.Unlock()
		l.fold(i, fr)
		l.mu.Lock()
		l.next++
		if l.next == l.n {
			close(l.done)
			break
		}
	}
	l.mu.Unlock()
}

// runPrep is what one run gives its case on its own, before the case's
// fold sees it: its price (price), the outcomes of the case's per-run
// checks that read the run alone and its gates' scores (cassetteUse.prep,
// agentRun.prep). It is computed by the
// worker that decoded the run when the case's files are read ahead, else
// just before the fold, by the same function on the same run: the fold,
// and so the report, is the same either way.
type runPrep struct {
	priced, known bool
	// ahead says a worker prepares the run, ahead of the fold.
	ahead  bool
	checks []checkOutcome
	// scores are the run's score by each gate of the case, in the
	// case's order, nil for a gate that is not a runScorer or scores
	// only ahead (arguments:, whose run prepared in the fold is checked
	// there call by call).
	scores []any
}

// prepRun prepares run r of cas for the fold: prices it (filling its cost
// from the table) and computes prep's outcomes.
func prepRun(p casePlan, prep func(*cassette.Cassette, *cassette.Run, *runPrep), cas *cassette.Cassette, r *cassette.Run, ahead bool) runPrep {
	pr := runPrep{ahead: ahead}
	pr.priced, pr.known = price(p, cas.Model, r)
	if prep != nil {
		prep(cas, r, &pr)
	}
	return pr
}

// thin lets go of the value (and the words) a check read from a run that the fold will
// not keep, for a run prepared ahead of it: a runCheck keeps the value of
// the case's first run and of its first failing run, which are the first
// run of some file and the first run of some file that fails the check.
// first says this is the file's first run; kept marks, per check, that a
// failing run of the file kept its value.
func (pr *runPrep) thin(first bool, kept *[]bool) {
	if len(*kept) < len(pr.checks) {
		*kept = make([]bool, len(pr.checks))
	}
	for k := range pr.checks {
		o := &pr.checks[k]
		switch {
		case !o.passed && !(*kept)[k]:
			(*kept)[k] = true
		case !first:
			o.actual, o.why = nil, ""
		}
	}
}

// maxReusedRead is the largest array a worker of readAhead keeps to read
// its next file into, and readArrays keeps.
const maxReusedRead = 64 << 10

// readArrays keeps the arrays of files streamed without an error and done
// with (their runs and catalog are copies; an error quotes the file's
// lines from its bytes), for readFile to read the next files into: a
// fresh array a file was a tenth of what a run of small transcripts, one
// file a case, allocated. What it keeps is small files' arrays
// (maxReusedRead), maxReadArrays bytes of them at most: the read budget
// bounds the files held, this what is kept beside them.
var readArrays arrayList

// maxReadArrays bounds the capacity readArrays keeps.
const maxReadArrays = 1 << 20

// arrayList is a list of free byte arrays, safe for concurrent use.
type arrayList struct {
	mu    sync.Mutex
	free  [][]byte
	bytes int
}

// take returns an array of the list (nil when it is empty), to read into.
func (l *arrayList) take() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.free)
	if n == 0 {
		return nil
	}
	b := l.free[n-1]
	l.free, l.bytes = l.free[:n-1], l.bytes-cap(b)
	return b
}

// give puts b's array on the list, which must then be its only user,
// unless it is over maxReusedRead or the list holds maxReadArrays bytes.
func (l *arrayList) give(b []byte) {
	if b == nil || cap(b) > maxReusedRead {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bytes+cap(b) <= maxReadArrays {
		l.free = append(l.free, b[:0])
		l.bytes += cap(b)
	}
}

// aheadFilesPerWorker is how many files per worker readAhead may hold
// read and decoded ahead of the fold. The fold takes the files in order,
// so a file slower to decode than the next ones holds it up while the
// other workers, their files done, wait for room: with two files a
// worker, a processor of two was idle 6.8 % of a run over the 2,000
// generated cassettes (MCPTEST_CPUCLASSES, GOMAXPROCS=2; the trace has
// the fold waiting on one file, the other worker on the window), 2.0 to
// 2.6 % with eight, at the same peak RSS (32 to 34 MB: the read budget
// bounds the bytes, as before, so large files are held no further ahead,
// and a decoded run is dropped once folded).
const aheadFilesPerWorker = 8

// fileSize is the size of the file at path for the read budget: 0 when it
// cannot be read, which Load then reports, and at most cassette.MaxSize,
// which Load refuses to exceed.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return min(fi.Size(), cassette.MaxSize)
}

// price fills the cost of a run that recorded tokens but no cost from the
// price table, when the table has the model's rates. It reports whether it
// did (ok; a recorded cost is never replaced) and known, false when the run
// needed a price and the table has no entry for its model.
func price(p casePlan, model string, r *cassette.Run) (ok, known bool) {
	if r.CostMicros != nil || r.Tokens == nil {
		return false, true
	}
	t := p.table()
	if t == nil {
		return false, true
	}
	if _, found := t.Lookup(model); !found {
		return false, false
	}
	micros, ok := t.CostMicrosCached(model, r.Tokens.Input, r.Tokens.Cached, r.Tokens.Output)
	if ok {
		r.CostMicros = &micros
	}
	return ok, true
}

// maxLabelRunes bounds a label a case takes from a recording (its
// model, in the case, its unpriced models, its selection pairs and its
// evidence): a recording may say anything there, as long as its file.
const maxLabelRunes = 256

// streamRecording is cassette.Stream for every recording the engine
// reads: a label of the recording (Cassette.Model) longer than
// maxLabelRunes characters is cut there ("…" marks the cut) before each
// sees it, so no case takes more of it than that.
func streamRecording(name string, data []byte, each func(*cassette.Cassette, *cassette.Run)) (*cassette.Cassette, error) {
	if len(data) >= tightRecording && !cassette.OpensAsCassette(data) {
		defer paceAt(recordingPercent)()
	}
	cas, err := cassette.Stream(name, data, func(c *cassette.Cassette, r *cassette.Run) {
		c.Model = diag.Clip(c.Model, maxLabelRunes)
		if each != nil {
			each(c, r)
		}
	})
	if cas != nil {
		cas.Model = diag.Clip(cas.Model, maxLabelRunes)
	}
	return cas, err
}

// oneLine returns recorded text for a one-line envelope field: as it is
// when every character prints, else with Go escapes (\n, \u202e), so a
// newline or a bidi override in a recording cannot break the line it is
// printed on, and the envelope stays one that Envelope.Check accepts.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// cassettePaths lists files relative to the suite's directory for a case's
// CassetteSet, nil past report.MaxCassettePaths, and nil for a case that
// joins sources or renames tools (sources:, aliases:): its runs are what
// the join makes of its files, which reading them again would not give
// (engine.RecordedEvidence).
func cassettePaths(s *Suite, c *Case, files []string) []string {
	if len(files) == 0 || len(files) > report.MaxCassettePaths || c != nil && (len(c.Sources) > 0 || len(c.Aliases) > 0) {
		return nil
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = suiteRelative(s, f)
	}
	return out
}
