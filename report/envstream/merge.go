package envstream

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sync"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// Merged is a merged envelope ready to be written: its head (Env, with no
// cases) and its cases, spooled to a temporary file in merged order.
// Close removes the spool.
type Merged struct {
	Env   *report.Envelope
	spool *annotate.CaseSpool
	whole *report.Envelope
}

// Write writes the merged envelope as the JSON reporter writes it: byte
// for byte what baseline.Merge's envelope gives, one case at a time.
func (m *Merged) Write(w io.Writer) error {
	if m.whole != nil {
		return annotate.JSON{}.Report(w, m.whole)
	}
	return m.spool.WriteEnvelope(w, m.Env)
}

// Close removes the spooled cases.
func (m *Merged) Close() error {
	if m.spool == nil {
		return nil
	}
	return m.spool.Close()
}

// batch is the most cases an input hands the fold at a time, and
// batchBytes the most bytes of cases (a batch ends at the case that
// reaches it): a handoff between goroutines per batch, not per case, so
// the inputs keep the cores on a machine whose other processes hold them
// too.
const batch, batchBytes = 16, 32 << 10

// aheadBytes bounds the cases the inputs hold ready ahead of the fold,
// all inputs together: each input holds depthFor(inputs) batches. The fold
// takes the cases in suite order, so it waits on whichever input holds
// the next one; with one batch ready an input, the other inputs had
// filled theirs and waited too, one core idle (a tenth of the merge's
// wall at 2 cores in its trace, 64 inputs). What is held ahead is live
// heap the collector's pacing (streamHeap) counts: at 16 MiB a merge of
// 64 shards collected half as often again (11 collections against 7),
// at 8 MiB (4 batches an input) once more.
const aheadBytes = 8 << 20

// depthFor is how many batches each of n inputs holds ready: aheadBytes
// shared, between 1 and 16.
func depthFor(n int) int {
	return min(16, max(1, aheadBytes/(max(n, 1)*batchBytes)))
}

// item is one case of an input on its way to the fold: what the fold
// reads of it (its name and position) and its JSON to copy when it is
// what encoding the case gives (canonical), else the decoded case to
// encode. The input's goroutine has decoded, checked and counted it.
type item struct {
	// name is a decoded case's name; lean, a case's name as the bytes
	// of raw it was read from (a case passed through, passThrough).
	name string
	lean []byte
	pos  diag.Pos
	raw  []byte
	c    *report.CaseResult
	err  error
	// hash is the name's (nameHash); foreign says the case is not of the
	// shard the input's head names before its cases.
	hash    uint64
	foreign bool
	// arena, on the last case of an input's batch, is the buffer that
	// holds the batch's bytes (raw and lean are in it), put back in
	// arenas once the case is written: every case of the batch was
	// written before it.
	arena *[]byte
}

// caseName is the case's name.
func (it *item) caseName() string {
	if it.lean != nil {
		return string(it.lean)
	}
	return it.name
}

// input is one envelope being read.
type input struct {
	name string
	f    *os.File
	cr   *report.CaseReader
	ch   chan []item
	// opened is open's error, nil once the input is open and its
	// goroutine reads its cases.
	opened chan error
	// ready is the batch the fold takes the input's cases from.
	ready []item
	// shard is the shard the head names before the cases, when it does
	// (runSeen); an envelope that names its run after its cases has its
	// cases' shard hashes kept for a check at the end.
	shard   report.Shard
	runSeen bool
	late    []string
	last    diag.Pos
	n       int
	// counter counts the input's cases, on its goroutine, and file is
	// the position file of the last case passed through, kept once.
	counter report.Counter
	file    string
	// head and headErr are the input's head, decoded and checked on its
	// goroutine once its cases are read (CaseReader.Envelope).
	head    *report.Envelope
	headErr error
	// pre is the head read before the cases, unchecked, when it holds
	// the run, verdict and totals (what a merge written as it merges
	// predicts its head from: predictHead).
	pre *report.Envelope
	// items are the slices of batches the fold took (taken), for the
	// input's next batches (spareBatches kept). lc is the scan's result
	// for the case read.
	items chan []item
	taken []item
	lc    leanCase
}

// arenaWritten, when a test sets it, is called with each batch's buffer
// as it is put back in arenas (TestMergeArenasReusedIsMerge overwrites it
// there, so a case still to be written from it would come out changed).
var arenaWritten func(*[]byte)

// spareBatches is how many taken batches' slices an input keeps for its
// next batches; past it they are left to the collector.
const spareBatches = 4

// arenas are the buffers the inputs read their batches' cases into, put
// back once the batch is written (item.arena): a merge reads its cases
// into the same buffers, not a new one a case (two thirds of what a merge
// of 100,000 cases allocated, and of its collections). It holds no more
// than the most batches in flight at once, which depthFor and spoolAhead
// bound.
var arenas = sync.Pool{New: func() any { b := make([]byte, 0, batchBytes/2); return &b }}

// maxArena is the largest buffer put back in arenas: one a large case grew
// past it is left to the collector, so a buffer in flight holds no more
// than twice a batch's bytes (a batch ends at the case that reaches
// batchBytes, as it did when each case was a buffer of its own).
const maxArena = 2 * batchBytes

// MergeFiles merges the shard envelopes at paths as baseline.Merge merges
// them, reading each as a stream (report.CaseReader): every input is read
// and its cases decoded, checked and encoded on a goroutine of its own, and
// the fold takes the next case in suite order (position, then input) from
// the inputs' heads, counts it (report.Counter) and spools it. Memory is
// the inputs' few cases in flight, 8 bytes per case (the hashes of the
// names that find a case given twice) and a count per distinct
// reliability pair; the cases themselves are in the spool. Shards written
// by mcptest hold their cases in suite order; each file is bounded as
// baseline.ReadFile bounds it (baseline.MaxEnvelopeBytes), a shard being a
// part of a run; an input that does not is
// merged in memory instead (baseline.MergeFiles), as before.
//
// A file that does not read, and inputs that do not merge, are an
// *diag.InputError.
func MergeFiles(paths []string) (*Merged, error) {
	defer paceCollector()()
	m, err := mergeStream(paths)
	if errors.Is(err, errUnsorted) {
		env, err := baseline.MergeFiles(paths)
		if err != nil {
			return nil, err
		}
		return &Merged{Env: env, whole: env}, nil
	}
	if err != nil {
		var in *diag.InputError
		if !errors.As(err, &in) {
			err = &diag.InputError{Err: err}
		}
		return nil, err
	}
	return m, nil
}

// open opens the input's shard envelope and reads its head up to its
// cases: its shard when the head names it there. It runs on the input's
// goroutine, so the inputs' heads (a run's catalogs) are read on every
// core while the fold waits for the first cases, not one after another
// before any case is read. The file is kept in in.f only when the open
// succeeds.
func (in *input) open() error {
	f, r, err := openEnvelope(in.name, "", baseline.MaxEnvelopeBytes)
	if err != nil {
		return err
	}
	cr, err := newCaseReader(r, in.name)
	if err != nil {
		f.Close()
		return &diag.InputError{Err: err}
	}
	if cr.Seen("run") {
		head, err := cr.Head()
		if err != nil {
			f.Close()
			return &diag.InputError{Err: err}
		}
		in.runSeen = true
		if cr.Seen("verdict") && cr.Seen("totals") {
			in.pre = head
		}
		if head.Run.Shard != "" {
			if in.shard, err = report.ParseShard(head.Run.Shard); err != nil {
				f.Close()
				return &diag.InputError{Err: fmt.Errorf("merge: %s: run.shard: %v", in.name, err)}
			}
		}
	}
	in.f, in.cr = f, cr
	return nil
}

// read decodes and checks the input's cases in order and hands them to
// the fold, with their JSON when it is canonical, else encoded for the
// spool (CaseSpool.Prepare) here, on the input's goroutine; it stops at
// the first error, which it hands on too, or when ctx is done.
func (in *input) read(ctx context.Context, spool *annotate.CaseSpool) {
	defer close(in.ch)
	b, box := in.spare()
	buf := *box
	send := func() bool {
		if last := &b[len(b)-1]; last.err == nil && cap(buf) <= maxArena {
			// The batch's cases are in buf (a decoded case holds copies
			// of its bytes, and is encoded before it is written): the
			// spooler puts buf back once it has written the last one.
			*box = buf
			last.arena = box
		}
		select {
		case in.ch <- b:
			b, box = in.spare()
			buf = *box
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		next, err := in.cr.AppendRaw(buf)
		if errors.Is(err, io.EOF) {
			// The head, on this goroutine: the inputs' heads (their
			// catalogs) are decoded and checked on every core.
			in.head, in.headErr = in.cr.Envelope()
			if len(b) > 0 {
				send()
			}
			return
		}
		var raw []byte
		if err == nil {
			// The case is next's bytes after buf's: buf grows by it (a
			// slice of them, capped, so nothing appends over the next).
			raw = next[len(buf):len(next):len(next)]
			buf = next
		}
		b = append(b, in.item(raw, err, spool))
		failed := b[len(b)-1].err != nil
		if (len(b) == batch || len(buf) >= batchBytes || failed) && !send() {
			return
		}
		if failed {
			return
		}
	}
}

// spare is a slice for the input's next batch and a buffer for its
// bytes, both empty: ones the merge is done with (input.items, arenas),
// or new ones.
func (in *input) spare() ([]item, *[]byte) {
	var b []item
	select {
	case b = <-in.items:
	default:
		b = make([]item, 0, batch)
	}
	box := arenas.Get().(*[]byte)
	*box = (*box)[:0]
	return b, box
}

// item reads one case of the input (raw, or the error reading it gave):
// passed through as its bytes when they are what the reporter writes and
// a scan proves them what decoding and checking them gives (passThrough),
// else decoded, checked, and encoded again when they are not canonical.
func (in *input) item(raw []byte, err error, spool *annotate.CaseSpool) item {
	if err != nil {
		return item{err: err}
	}
	lc := &in.lc
	if !decodeAll && canonical(raw) && passThrough(raw, lc) {
		in.counter.AddFigures(lc.verdict, false, lc.runs, lc.passed)
		if string(lc.file) != in.file {
			in.file = string(lc.file)
		}
		return item{lean: lc.name, raw: raw, pos: diag.Pos{File: in.file, Line: lc.line, Col: lc.col},
			hash: nameHashOf(lc.name), foreign: in.runSeen && !in.shard.HoldsName(lc.name)}
	}
	c, err := in.cr.Decode(in.cr.Cases()-1, raw)
	if err != nil {
		return item{err: err}
	}
	in.counter.Add(c)
	it := item{name: c.Name, pos: c.Position, hash: nameHash(c.Name), foreign: in.runSeen && !in.shard.Holds(c.Name)}
	if canonical(raw) {
		it.raw = raw
	} else {
		it.c, it.err = c, spool.Prepare(c)
	}
	return it
}

// decodeAll turns the pass-through off: every case is decoded and
// checked (TestPassThroughMergesAsDecode compares the two).
var decodeAll = false

// errUnsorted stops a streamed merge whose input is not in suite order.
var errUnsorted = errors.New("an input's cases are not in suite order")

// openEnvelope opens an envelope file for a stream, bounded at limit,
// with the errors of baseline.ReadFile.
func openEnvelope(path, flag string, limit int64) (*os.File, io.Reader, error) {
	name := path
	if flag != "" {
		name = flag + " " + path
	}
	f, r, err := safefile.Open(path, limit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, &diag.InputError{Err: fmt.Errorf("%s: no such file", name)}
	case safefile.IsLimit(err):
		return nil, nil, &diag.InputError{Err: fmt.Errorf("%s: not a run envelope: %v", name, err)}
	case err != nil:
		return nil, nil, fmt.Errorf("open run envelope: %w", err)
	}
	return f, r, nil
}

func mergeStream(paths []string) (m *Merged, err error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("merge: no envelopes given")
	}
	spool, err := annotate.NewCaseSpool()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			spool.Close()
		}
	}()
	mg, err := openInputs(paths, spool)
	if err != nil {
		return nil, err
	}
	defer mg.close()
	names, spoolErr, err := fold(mg.ins, spool)
	if err = cmp.Or(err, spoolErr); err != nil {
		return nil, err
	}
	out, err := mg.finish(names)
	if err != nil {
		return nil, err
	}
	return &Merged{Env: out, spool: spool}, nil
}

// merging is a merge's inputs, open and read each on its goroutine.
type merging struct {
	paths  []string
	ins    []*input
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// openInputs opens each input and starts reading it on its goroutine,
// its cases prepared for spool; the first input in the order given that
// does not open is the error, as when they were opened one after another.
// close stops the goroutines and closes the files.
func openInputs(paths []string, spool *annotate.CaseSpool) (*merging, error) {
	ctx, cancel := context.WithCancel(context.Background())
	mg := &merging{paths: paths, ins: make([]*input, len(paths)), cancel: cancel}
	depth := depthFor(len(paths))
	for i, p := range paths {
		in := &input{name: p, ch: make(chan []item, depth), opened: make(chan error, 1),
			items: make(chan []item, spareBatches)}
		mg.ins[i] = in
		mg.wg.Add(1)
		go func() {
			defer mg.wg.Done()
			err := in.open()
			in.opened <- err
			if err == nil {
				in.read(ctx, spool)
			}
		}()
	}
	for _, in := range mg.ins {
		if err := <-in.opened; err != nil {
			mg.close()
			return nil, err
		}
	}
	return mg, nil
}

func (mg *merging) close() {
	mg.cancel()
	mg.wg.Wait()
	for _, in := range mg.ins {
		if in != nil && in.f != nil {
			in.f.Close()
		}
	}
}

// finish is the merged envelope's head once the fold has taken every
// case (names are the hashes of their names, in sorted runs): the
// inputs' heads merged and checked, no case given twice, the totals,
// verdict and summary of the cases the inputs counted.
func (mg *merging) finish(names [][]uint64) (*report.Envelope, error) {
	heads, err := headsOf(mg.ins)
	if err != nil {
		return nil, err
	}
	out, err := baseline.MergeHeads(heads)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	if err := duplicates(mg.paths, names); err != nil {
		return nil, &diag.InputError{Err: err}
	}
	var counter report.Counter
	for _, in := range mg.ins {
		counter.Merge(&in.counter)
	}
	out.Cases = []*report.CaseResult{}
	out.Finish(&counter, expr.JudgeFloor)
	return out, nil
}

// fold takes the inputs' cases in suite order (position, then input) and
// spools them, checking each input's order and shard; it returns the
// hashes of the cases' names, in sorted runs (the spooler sorts them),
// and apart from the fold's own error the first error writing a case to
// spool gave (spoolErr).
func fold(ins []*input, spool *annotate.CaseSpool) (names [][]uint64, spoolErr, err error) {
	w := startSpooler(spool)
	defer func() {
		runs, werr := w.stop()
		if err == nil {
			names, spoolErr = runs, werr
		}
	}()
	h := &caseHeap{}
	next := func(i int) error {
		in := ins[i]
		if len(in.ready) == 0 {
			if in.taken != nil {
				select { // the batch taken, its items cleared, for another
				case in.items <- in.taken[:0]:
				default:
				}
				in.taken = nil
			}
			b, ok := <-in.ch
			if !ok {
				return nil
			}
			in.ready, in.taken = b, b
		}
		it := in.ready[0]
		in.ready[0] = item{}
		in.ready = in.ready[1:]
		if it.err != nil {
			return &diag.InputError{Err: it.err}
		}
		h.push(headCase{item: it, in: i})
		return nil
	}
	for i := range ins {
		if err := next(i); err != nil {
			return nil, nil, err
		}
	}
	for h.Len() > 0 {
		hc := h.pop()
		in := ins[hc.in]
		if in.n > 0 && positionLess(hc.pos, in.last) {
			return nil, nil, errUnsorted
		}
		if err := in.took(&hc.item); err != nil {
			return nil, nil, err
		}
		w.add(hc.item)
		if err := next(hc.in); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, nil // the spooler's runs and error, set as fold returns
}

// spooler writes the cases the fold took to the spool, in the order it
// took them, on a goroutine of its own: the fold orders the cases and
// the spooler copies their bytes, each on a core. It keeps their names'
// hashes too, sorted a run at a time (hashRuns).
type spooler struct {
	ch    chan []item
	free  chan []item
	batch []item
	size  int
	done  chan error
	names hashRuns
}

// spoolBatch is the most cases the fold hands the spooler at a time, and
// spoolBatchBytes the most bytes (a batch ends at the case that reaches
// it); spoolAhead is how many batches the fold may hand it ahead of what
// it writes, up to 2 MiB of cases. The spooler's write system calls wait
// in the kernel at times (a file system shared with other work: up to
// tens of ms here); with two batches ahead the fold waited with them,
// and the inputs behind it, one core idle, at every such wait.
const spoolBatch, spoolBatchBytes, spoolAhead = 64, 64 << 10, 32

func startSpooler(spool *annotate.CaseSpool) *spooler {
	w := &spooler{ch: make(chan []item, spoolAhead), free: make(chan []item, spoolAhead+2), done: make(chan error, 1)}
	w.batch = make([]item, 0, spoolBatch)
	go func() {
		var err error
		for b := range w.ch { // drained to the end, so the fold never waits on a spooler that failed
			for i := range b {
				w.names.add(b[i].hash)
			}
			for i := 0; i < len(b) && err == nil; i++ {
				if b[i].raw != nil {
					err = spool.AddRaw(b[i].raw)
				} else {
					err = spool.Add(b[i].c)
				}
				if b[i].arena != nil && err == nil {
					if arenaWritten != nil {
						arenaWritten(b[i].arena)
					}
					arenas.Put(b[i].arena) // written: its batch's buffer for another
				}
			}
			clear(b)
			select {
			case w.free <- b[:0]:
			default:
			}
		}
		w.done <- err
	}()
	return w
}

// add hands the spooler one case.
func (w *spooler) add(it item) {
	w.batch = append(w.batch, it)
	w.size += len(it.raw)
	if len(w.batch) < spoolBatch && w.size < spoolBatchBytes {
		return
	}
	w.ch <- w.batch
	w.size = 0
	select {
	case w.batch = <-w.free:
	default:
		w.batch = make([]item, 0, spoolBatch)
	}
}

// stop hands the spooler its last cases and waits for it: the hashes
// of the names of the cases it took, in sorted runs, and the first error
// writing the spool gave.
func (w *spooler) stop() ([][]uint64, error) {
	if len(w.batch) > 0 {
		w.ch <- w.batch
	}
	close(w.ch)
	err := <-w.done
	return w.names.sorted(), err
}

// took notes that the fold took the input's case called name, at pos:
// where it stands, and whether it belongs to the input's shard (checked
// at the end when the input names its shard after its cases).
func (in *input) took(it *item) error {
	in.last = it.pos
	in.n++
	switch {
	case !in.runSeen:
		in.late = append(in.late, it.caseName())
	case it.foreign:
		return baseline.WrongShard(in.name, in.shard, it.caseName())
	}
	return nil
}

// headsOf reads each input's head once its cases are read, and checks
// the cases of an input that named its shard only after them.
func headsOf(ins []*input) ([]baseline.Input, error) {
	heads := make([]baseline.Input, len(ins))
	for i, in := range ins {
		env, err := in.head, in.headErr
		if env == nil && err == nil { // not read to its end
			env, err = in.cr.Envelope()
		}
		if err != nil {
			return nil, &diag.InputError{Err: err}
		}
		heads[i] = baseline.Input{Name: in.name, Envelope: env}
		if len(in.late) == 0 || env.Run.Shard == "" {
			continue
		}
		sh, err := report.ParseShard(env.Run.Shard)
		if err != nil {
			return nil, &diag.InputError{Err: fmt.Errorf("merge: %s: run.shard: %v", in.name, err)}
		}
		for _, name := range in.late {
			if !sh.Holds(name) {
				return nil, &diag.InputError{Err: baseline.WrongShard(in.name, sh, name)}
			}
		}
	}
	return heads, nil
}

// duplicates finds a case two inputs (or one, twice) hold from the hashes
// of the names, in sorted runs, and reads the inputs again for the names
// behind an equal pair, so the error names the first case given twice as
// baseline.Merge does; a pair of hashes of two names is no duplicate.
func duplicates(paths []string, names [][]uint64) error {
	suspect := repeats(names)
	if len(suspect) == 0 {
		return nil
	}
	owner := map[string]string{}
	for _, p := range paths {
		f, r, err := openEnvelope(p, "", baseline.MaxEnvelopeBytes)
		if err != nil {
			return err
		}
		err = func() error {
			defer f.Close()
			cr, err := newCaseReader(r, p)
			if err != nil {
				return err
			}
			for {
				raw, err := cr.NextRaw()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return err
				}
				var c struct {
					Name string `json:"name"`
				}
				if err := json.Unmarshal(raw, &c); err != nil {
					return err
				}
				if !suspect[nameHash(c.Name)] {
					continue
				}
				if prev, dup := owner[c.Name]; dup {
					return baseline.Duplicate(c.Name, prev, p)
				}
				owner[c.Name] = p
			}
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// canonical reports whether a case's JSON is laid out as the JSON
// reporter lays out a case of the envelope (annotate.JSON: one line of
// compact JSON, the name first), so that copying it gives what encoding
// the decoded case gives: a shard mcptest wrote. Another layout (an
// envelope written before cases were one line each) is encoded again, as
// is one holding a \u00XX escape: encoding/json's Marshal escapes <, >
// and & so, where the reporter writes them as they are.
func canonical(raw []byte) bool {
	return bytes.HasPrefix(raw, []byte(`{"name":`)) && bytes.HasSuffix(raw, []byte("}")) &&
		bytes.IndexByte(raw, '\n') < 0 && !bytes.Contains(raw, []byte(`\u00`))
}

func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// nameHashOf is nameHash of a name given as its bytes.
func nameHashOf(name []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range name {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// headCase is the next case of one input.
type headCase struct {
	item
	in int
}

// caseHeap orders the inputs' next cases as baseline.Merge's stable sort
// does: by position, then by input. It is a binary heap of the cases
// themselves (container/heap would box each one pushed).
type caseHeap []headCase

func (h caseHeap) Len() int { return len(h) }
func (h caseHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.pos != b.pos {
		return positionLess(a.pos, b.pos)
	}
	return a.in < b.in
}

func (h *caseHeap) push(c headCase) {
	*h = append(*h, c)
	for i := len(*h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h.less(i, up) {
			break
		}
		(*h)[i], (*h)[up] = (*h)[up], (*h)[i]
		i = up
	}
}

func (h *caseHeap) pop() headCase {
	old := *h
	top := old[0]
	n := len(old) - 1
	old[0] = old[n]
	old[n] = headCase{}
	*h = old[:n]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < n && h.less(l, small) {
			small = l
		}
		if r < n && h.less(r, small) {
			small = r
		}
		if small == i {
			break
		}
		(*h)[i], (*h)[small] = (*h)[small], (*h)[i]
		i = small
	}
	return top
}

func positionLess(a, b diag.Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}
