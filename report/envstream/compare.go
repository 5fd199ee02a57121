package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/spoolfile"
	"github.com/mcptest/mcptest/report"
)

// MaxListed is the most changed cases a streamed comparison keeps for the
// text and markdown renderings (Compared.Cmp.Cases); the JSON rendering
// (CompareJSON) writes every case as it is compared and keeps none.
const MaxListed = 10000

// Compared is a comparison computed from two envelope streams for the
// text and markdown renderings: Cmp is the comparison with, in Cases,
// only the cases that changed (Changed), at most MaxListed of them. Close
// removes the spool they were kept on while the baseline's index was
// held.
type Compared struct {
	Cmp *baseline.Comparison
	// Unlisted counts the changed cases past MaxListed.
	Unlisted int
	spool    *spoolfile.File
}

// Close closes the spool of the listed cases (its name was removed when
// it was created: spoolfile.Create, so a comparison killed half-way
// leaves no file behind).
func (c *Compared) Close() error {
	if c.spool == nil {
		return nil
	}
	err := c.spool.Close()
	c.spool = nil
	return err
}

// Render writes the comparison in text or markdown: the listed cases
// and, past MaxListed, a warning saying how many more changed. The json
// rendering, which holds every case, is CompareJSON's.
func (c *Compared) Render(w io.Writer, format string, opt annotate.Options) error {
	if annotate.Canonical(format) == "json" {
		return errors.New("render comparison: json: the cases were counted, not kept (CompareListed): compare with CompareJSON")
	}
	if c.Unlisted > 0 {
		c.Cmp.Warnings = append(c.Cmp.Warnings, fmt.Sprintf("%d more changed cases are not listed here (the first %d are): --format json lists every case", c.Unlisted, MaxListed))
	}
	return annotate.RenderComparison(w, format, c.Cmp, opt)
}

// baseIndex finds the baseline's cases by name in the baseline's own
// file, read again where each case lies: a key per case, the 32-bit hash
// of its name above its place in the baseline, sorted (so the cases of a
// hash are in the baseline's order), where each case starts (from the
// start of its block, a block being at most blockCases cases spanning
// less than 4 GiB), its length, and two bits: 16 bytes a case in all.
type baseIndex struct {
	cr *report.CaseReader
	f  *os.File
	n  int
	// keys are hash<<32 | place, sorted.
	keys []uint64
	// top[t] is the first of keys whose hash's top 16 bits are t or
	// more (top[1<<16] is len(keys)): a name is searched for among the
	// keys of its hash's top bits, a few cache lines, not across every
	// key (a binary search over a million keys missed the cache at most
	// of its twenty steps). Nil until the keys are sorted.
	top []int32
	// blockFirst and blockAt are each block's first case and where it
	// starts; rel and lens where each case starts from its block's start,
	// and its length.
	blockFirst []int32
	blockAt    []int64
	rel, lens  []uint32
	// dropped marks a case given twice (the first is compared); matched
	// a case the current run holds.
	dropped, matched bitset
}

const blockCases = 256

type bitset []uint64

func (b bitset) get(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (i & 63) }

// hash32 is the index's hash of a case's name.
// (FNV-1a, as hash/fnv's New32a sums it, without its allocation).
func hash32[T string | []byte](name T) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return h
}

// add notes the next case of the baseline: its name's hash, where it
// starts and its length.
func (b *baseIndex) add(h uint32, start int64, n int) error {
	if n > math.MaxUint32 || b.n >= math.MaxInt32 {
		return fmt.Errorf("%s: not a run envelope: cases[%d]: over 4 GiB, or past 2^31 cases", b.cr.Name(), b.n)
	}
	last := len(b.blockAt) - 1
	if last < 0 || b.n-int(b.blockFirst[last]) == blockCases || start-b.blockAt[last] > math.MaxUint32 {
		b.blockFirst = append(b.blockFirst, int32(b.n))
		b.blockAt = append(b.blockAt, start)
		last++
	}
	b.keys = append(b.keys, uint64(h)<<32|uint64(b.n))
	b.rel = append(b.rel, uint32(start-b.blockAt[last]))
	b.lens = append(b.lens, uint32(n))
	b.n++
	return nil
}

func (b *baseIndex) raw(i int32) ([]byte, error) {
	return b.rawTo(make([]byte, b.lens[i]), i)
}

// rawTo reads the i-th case's bytes into buf, grown to their length.
func (b *baseIndex) rawTo(buf []byte, i int32) ([]byte, error) {
	k, found := slices.BinarySearch(b.blockFirst, i)
	if !found {
		k--
	}
	buf = slices.Grow(buf[:0], int(b.lens[i]))[:b.lens[i]]
	_, err := b.f.ReadAt(buf, b.blockAt[k]+int64(b.rel[i]))
	return buf, err
}

// decode decodes and checks the i-th case of the baseline from its JSON
// data, and holds its name to the one it was indexed under (caseName
// reads it as the decoder does, so they differ only where the two
// disagree: an error rather than a wrong comparison).
func (b *baseIndex) decode(i int32, data []byte) (*report.CaseResult, error) {
	c, err := b.cr.Decode(int(i), data)
	if err != nil {
		return nil, err
	}
	if name, err := caseName(data); err != nil || name != c.Name {
		return nil, fmt.Errorf("%s: cases[%d]: its name was indexed as %q and decodes to %q", b.cr.Name(), i, name, c.Name)
	}
	return c, nil
}

// find returns the index of the baseline case called name, -1 for none,
// and the case decoded. cur is the current run's case of that name and
// raw its JSON: a baseline case of the very same bytes is that case (the
// same bytes decode and check alike), so it is not decoded again: most
// cases of a run compared with the run before it are.
func (b *baseIndex) find(name string, cur *report.CaseResult, raw []byte) (int32, *report.CaseResult, error) {
	h := uint64(hash32(name))
	for at := b.firstOf(h); at < len(b.keys) && b.keys[at]>>32 == h; at++ {
		i := int32(b.keys[at])
		if b.dropped.get(i) {
			continue
		}
		data, err := b.raw(i)
		if err != nil {
			return -1, nil, err
		}
		if cur != nil && bytes.Equal(data, raw) {
			return i, cur, nil
		}
		c, err := b.decode(i, data)
		if err != nil {
			return -1, nil, err
		}
		if c.Name == name {
			return i, c, nil
		}
	}
	return -1, nil, nil
}

// CompareJSON compares the run envelope at curPath with the baseline
// envelope at basePath (flag names where it came from in messages) under
// the --fail-on policy failOn, as baseline.Compare compares them, and
// writes the comparison's JSON as it computes it, byte for byte what
// baseline.Comparison.WriteJSON writes for baseline.Compare's: out calls
// fill with the writer of the output (a file written by rename, or
// stdout) and returns fill's error or its own. It returns the
// comparison, its Cases empty (they were written, not kept).
//
// Both envelopes are read as streams: the baseline's cases are indexed
// by the hash of their names where they lie in its file (baseIndex),
// then the head is written, the current run's cases are decoded, looked
// up and compared on every core, folded in order and written, the
// removed cases after them, then what is known once every case is (the
// warnings, the summary, the gate). Memory is about 16 bytes per baseline
// case plus one Go map entry per current case the baseline does not
// hold; each file is bounded at report.MaxStreamBytes. A baseline of
// another schema_version is compared as baseline.Compare compares one
// (every case not comparable).
//
// A current run whose head does not stand whole before its cases (a
// document written by hand) is compared in memory, before anything is
// written; one that gives a member of its head again after its cases is
// found out at its end: where again is set (out starts the output over:
// a file written by rename) it is then compared again in memory, else it
// is refused. Wrong input is an *diag.InputError; out's own error (the
// output could not be written) is returned wrapped, "write comparison".
func CompareJSON(out func(fill func(io.Writer) error) error, again bool, basePath, flag, curPath, failOn string) (*baseline.Comparison, error) {
	policy, err := baseline.ParsePolicy(failOn)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	defer paceCollector()()
	var cmp *baseline.Comparison
	var cerr error
	werr := out(func(w io.Writer) error {
		cmp, cerr = compareJSON(w, basePath, flag, curPath, policy)
		return cerr
	})
	if errors.Is(cerr, errHeadAfterCases) && again {
		werr = out(func(w io.Writer) error {
			cmp, cerr = compareJSONInMemory(w, basePath, flag, curPath, policy)
			return cerr
		})
	}
	var oe *outputError
	switch {
	case errors.As(cerr, &oe):
		return nil, fmt.Errorf("write comparison: %w", oe.err)
	case cerr != nil:
		var in *diag.InputError
		if !errors.As(cerr, &in) {
			cerr = &diag.InputError{Err: cerr}
		}
		return nil, cerr
	case werr != nil:
		return nil, fmt.Errorf("write comparison: %w", werr)
	}
	return cmp, nil
}

// outputError is an error writing the comparison out, not one of its
// input.
type outputError struct{ err error }

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// CompareTo is `report --compare` in format, one of
// annotate.CompareFormats: json by CompareJSON, text and markdown by
// CompareListed, written with out as CompareJSON writes (again: out
// starts the output over). It returns the gate.
func CompareTo(out func(fill func(io.Writer) error) error, again bool, format, basePath, flag, curPath, failOn string, opt annotate.Options) (baseline.Gate, error) {
	if annotate.Canonical(format) == "json" {
		cmp, err := CompareJSON(out, again, basePath, flag, curPath, failOn)
		if err != nil {
			return baseline.Gate{}, err
		}
		return cmp.Gate, nil
	}
	cmp, err := CompareListed(basePath, flag, curPath, failOn)
	if err != nil {
		return baseline.Gate{}, err
	}
	defer cmp.Close()
	if err := out(func(w io.Writer) error { return cmp.Render(w, format, opt) }); err != nil {
		return baseline.Gate{}, fmt.Errorf("write comparison: %w", err)
	}
	return cmp.Cmp.Gate, nil
}

// errHeadAfterCases says the current run gave a member of its head
// again after its cases, so the head written before them was not its
// own: the comparison is done again in memory, into an output started
// over.
var errHeadAfterCases = errors.New("the current run envelope gives a member of its head again after its cases, where a comparison written as it is computed has written it already: write it to a file (--output FILE), which is then compared again in memory")

// CompareListed is CompareJSON for the text and markdown renderings: the
// cases that did not change are counted, not encoded, and the changed
// ones are listed (at most MaxListed).
func CompareListed(basePath, flag, curPath, failOn string) (*Compared, error) {
	policy, err := baseline.ParsePolicy(failOn)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	defer paceCollector()()
	cmp, err := compareListed(basePath, flag, curPath, policy)
	if err != nil {
		var in *diag.InputError
		if !errors.As(err, &in) {
			err = &diag.InputError{Err: err}
		}
		return nil, err
	}
	return cmp, nil
}

// streamed is what compareJSON and compareListed share: both envelopes
// open, the baseline indexed, and the fold of the current run's cases,
// which hands each case's delta (and, when every, its JSON) to emit.
type streamed struct {
	cf, bf            *os.File
	cur               *report.CaseReader
	idx               *indexed
	baseHead, curHead *report.Envelope
	reason            string
	sum               baseline.Summary
	// dupWarnings are the cases the current run gives twice, in its
	// order; newNames where the first case of each hash of a name the
	// baseline does not hold lies in the current run's file, and names
	// the names of the hashes met twice (a name given twice, or two names
	// of one hash), read back from there.
	dupWarnings []string
	newNames    map[uint64]caseAt
	names       map[string]bool
	twice       map[uint64]bool
}

type caseAt struct {
	at int64
	n  int
}

// openStreamed opens both envelopes, the current run first (as
// baseline.CompareFile's caller reads it, so its errors come first), and
// indexes the baseline.
func openStreamed(basePath, flag, curPath string) (_ *streamed, err error) {
	s := &streamed{newNames: map[uint64]caseAt{}}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	cf, cr0, err := openEnvelope(curPath, "", report.MaxStreamBytes)
	if err != nil {
		return nil, err
	}
	s.cf = cf
	if s.cur, err = newCaseReader(cr0, curPath); err != nil {
		return nil, err
	}
	bf, br0, err := openEnvelope(basePath, flag, report.MaxStreamBytes)
	if err != nil {
		return nil, err
	}
	s.bf = bf
	base, err := newCaseReader(br0, basePath)
	if err != nil {
		return nil, err
	}
	if s.idx, s.baseHead, err = indexBaseline(bf, base); err != nil {
		return nil, err
	}
	// The current run is of this schema_version (its read refuses any
	// other), so the runs compare unless the baseline's is another.
	s.reason = baseline.Begin(s.baseHead, &report.Envelope{SchemaVersion: report.SchemaVersion}).NotComparable
	return s, nil
}

func (s *streamed) close() {
	if s.cf != nil {
		s.cf.Close()
	}
	if s.bf != nil {
		s.bf.Close()
	}
}

// fold compares the current run's cases and hands emit each case's delta
// (its JSON where every), in the order baseline.Compare lists them: the
// current run's cases, then the baseline's it does not hold. A case the
// current run gives twice is left out past its first, with a warning.
func (s *streamed) fold(every bool, emit func(baseline.CaseDelta, []byte)) error {
	idx := s.idx
	var ferr error
	err := compareCases(s.cur, idx, s.reason, every, func(r result) {
		if ferr != nil {
			return
		}
		if r.base >= 0 {
			if idx.matched.get(r.base) {
				s.dupWarnings = append(s.dupWarnings, baseline.TwiceInCurrent(r.d.Name))
				return
			}
			idx.matched.set(r.base)
		} else {
			twice, err := s.newTwice(r)
			if err != nil {
				ferr = err
				return
			}
			if twice {
				s.dupWarnings = append(s.dupWarnings, baseline.TwiceInCurrent(r.d.Name))
				return
			}
		}
		s.sum.Add(r.d)
		emit(r.d, r.data)
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if s.curHead, err = s.cur.Envelope(); err != nil {
		return err
	}
	if s.reason == "" {
		return idx.removed(every, func(d baseline.CaseDelta, data []byte) {
			s.sum.Add(d)
			emit(d, data)
		})
	}
	return nil
}

// newTwice reports whether the current run gave the name of r, a case
// the baseline does not hold, before: a name's hash met for the first
// time is not; met again, the names of its cases are compared, the
// first one's read back from the current run's file.
func (s *streamed) newTwice(r result) (bool, error) {
	first, seen := s.newNames[r.hash]
	if !seen {
		s.newNames[r.hash] = caseAt{r.at, r.n}
		return false, nil
	}
	if !s.twice[r.hash] {
		raw := make([]byte, first.n)
		if _, err := s.cf.ReadAt(raw, first.at); err != nil {
			return false, fmt.Errorf("read the current run again: %w", err)
		}
		name, err := caseName(raw)
		if err != nil {
			return false, fmt.Errorf("%s: not a run envelope: %w", s.cur.Name(), err)
		}
		if s.twice == nil {
			s.twice, s.names = map[uint64]bool{}, map[string]bool{}
		}
		s.twice[r.hash] = true
		s.names[name] = true
	}
	if s.names[r.d.Name] {
		return true, nil
	}
	s.names[r.d.Name] = true
	return false, nil
}

// finish is the comparison of the two heads with the cases' warnings,
// summary and gate.
func (s *streamed) finish(policy baseline.Policy) *baseline.Comparison {
	c := baseline.Begin(s.baseHead, s.curHead)
	if c.NotComparable == "" {
		c.Warnings = append(c.Warnings, s.idx.warnings...)
	}
	c.Warnings = append(c.Warnings, s.dupWarnings...)
	c.Summary = s.sum
	c.Finish(s.baseHead, s.curHead, baseline.Options{FailOn: policy})
	return c
}

// compareJSON is CompareJSON's comparison, written to w.
func compareJSON(w io.Writer, basePath, flag, curPath string, policy baseline.Policy) (*baseline.Comparison, error) {
	s, err := openStreamed(basePath, flag, curPath)
	if err != nil {
		return nil, err
	}
	defer s.close()
	early, ok := s.cur.EarlyHead()
	if !ok {
		s.close()
		return compareJSONInMemory(w, basePath, flag, curPath, policy)
	}
	head, _, err := baseline.Begin(s.baseHead, early).JSONParts()
	if err != nil {
		return nil, err
	}
	cw := newCaseWriter(w)
	cw.bw.Write(head)
	n := 0
	err = s.fold(true, func(_ baseline.CaseDelta, data []byte) {
		cw.add(n, data)
		n++
	})
	if cerr := cw.close(); err == nil && cerr != nil {
		err = &outputError{cerr}
	}
	if err != nil {
		return nil, err
	}
	c := s.finish(policy)
	final, tail, err := c.JSONParts()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(final, head) {
		return nil, errHeadAfterCases
	}
	if n > 0 {
		cw.bw.WriteString(baseline.CasesEnd)
	}
	cw.bw.Write(tail)
	if err := cw.bw.Flush(); err != nil {
		return nil, &outputError{err}
	}
	c.Cases = []baseline.CaseDelta{}
	return c, nil
}

// compareJSONInMemory is CompareJSON over whole envelopes
// (baseline.CompareFile), for the inputs a stream does not settle.
func compareJSONInMemory(w io.Writer, basePath, flag, curPath string, policy baseline.Policy) (*baseline.Comparison, error) {
	c, err := compareInMemory(basePath, flag, curPath, policy)
	if err != nil {
		return nil, err
	}
	if err := c.WriteJSON(w); err != nil {
		return nil, &outputError{err}
	}
	c.Cases = []baseline.CaseDelta{}
	return c, nil
}

// compareInMemory is baseline.CompareFile over whole envelopes.
func compareInMemory(basePath, flag, curPath string, policy baseline.Policy) (*baseline.Comparison, error) {
	cur, err := baseline.ReadFile(curPath, "", report.Read)
	if err != nil {
		return nil, err
	}
	base, err := baseline.ReadFile(basePath, flag, baseline.ReadBaseline)
	if err != nil {
		return nil, err
	}
	return baseline.Compare(base, cur, baseline.Options{FailOn: policy}), nil
}

// caseWriter writes the cases' lines of a comparison, each after its
// separator, on a goroutine of its own (the mask of every file mcptest
// writes, and the write itself, beside the fold): the fold hands it
// whole batches of lines.
type caseWriter struct {
	bw   *bufio.Writer
	buf  []byte
	full chan []byte
	free chan []byte
	done chan error
	// started is set once the goroutine is.
	started bool
}

func newCaseWriter(w io.Writer) *caseWriter {
	cw := &caseWriter{
		bw:   bufio.NewWriterSize(w, 64<<10),
		full: make(chan []byte, 4),
		free: make(chan []byte, 6),
		done: make(chan error, 1),
	}
	return cw
}

// start starts the writing goroutine, once the head is in bw: bw is
// then the goroutine's until close.
func (cw *caseWriter) start() {
	go func() {
		var err error
		for b := range cw.full {
			if err == nil {
				_, err = cw.bw.Write(b)
			}
			select {
			case cw.free <- b[:0]:
			default:
			}
		}
		cw.done <- err
	}()
}

// caseBatch is how many bytes of case lines go to the writer at a time.
const caseBatch = 256 << 10

func (cw *caseWriter) add(i int, data []byte) {
	if cw.buf == nil {
		if !cw.started {
			cw.started = true
			cw.start()
		}
		select {
		case cw.buf = <-cw.free:
		default:
			cw.buf = make([]byte, 0, caseBatch+4096)
		}
	}
	cw.buf = append(cw.buf, baseline.CaseSep(i)...)
	cw.buf = append(cw.buf, data...)
	if len(cw.buf) >= caseBatch {
		cw.full <- cw.buf
		cw.buf = nil
	}
}

// close hands on the last batch and waits for the writes: bw then holds
// what is left to write, for the caller's goroutine.
func (cw *caseWriter) close() error {
	if !cw.started {
		return nil
	}
	if len(cw.buf) > 0 {
		cw.full <- cw.buf
		cw.buf = nil
	}
	close(cw.full)
	return <-cw.done
}

// compareListed is CompareListed's comparison.
func compareListed(basePath, flag, curPath string, policy baseline.Policy) (out *Compared, err error) {
	s, err := openStreamed(basePath, flag, curPath)
	if err != nil {
		return nil, err
	}
	defer s.close()
	spool, err := spoolfile.Create("mcptest-comparison-*.json")
	if err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", err)
	}
	cmp := &Compared{spool: spool}
	defer func() {
		if err != nil {
			cmp.Close()
		}
	}()
	sw := bufio.NewWriterSize(spool, 64<<10)
	lst := &lister{unlisted: &cmp.Unlisted}
	err = s.fold(false, func(d baseline.CaseDelta, _ []byte) {
		if d.Changed() {
			lst.add(d, sw)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := sw.Flush(); err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", err)
	}
	c := s.finish(policy)
	s.idx = nil // the index is let go before the listed cases come back
	if c.Cases, err = lst.cases(spool.File); err != nil {
		return nil, err
	}
	if c.Cases == nil {
		c.Cases = []baseline.CaseDelta{}
	}
	cmp.Cmp = c
	return cmp, nil
}

// lister lists the first MaxListed changed cases a comparison finds
// (on the spool) and counts the rest in unlisted.
type lister struct {
	n        int
	ls       listSpool
	unlisted *int
}

func (l *lister) add(d baseline.CaseDelta, sw *bufio.Writer) {
	if l.n == MaxListed {
		*l.unlisted++
		return
	}
	l.ls.add(sw, d)
	l.n++
}

// cases are the listed cases, read back from the spool f where they were
// spooled (its writer flushed).
func (l *lister) cases(f *os.File) ([]baseline.CaseDelta, error) {
	if l.ls.err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", l.ls.err)
	}
	if l.ls.n == 0 {
		return nil, nil
	}
	listed, err := l.ls.read(f)
	if err != nil {
		return nil, fmt.Errorf("read the spooled comparison: %w", err)
	}
	return listed, nil
}

// listSpool holds the changed cases of a comparison rendered in text or
// markdown on its spool, one line of JSON each, while the baseline's
// index is held: at a million cases the 10,000 listed and the index were
// over the collector's heap together. A case holding a string that is
// not UTF-8 (which JSON would not give back as it was) is kept in memory,
// its line naming it.
type listSpool struct {
	n    int
	kept []baseline.CaseDelta
	err  error
}

func (ls *listSpool) add(w *bufio.Writer, d baseline.CaseDelta) {
	ls.n++
	if !deltaUTF8(&d) {
		fmt.Fprintf(w, "#%d\n", len(ls.kept))
		ls.kept = append(ls.kept, d)
		return
	}
	data, err := json.Marshal(&d)
	if err != nil && ls.err == nil {
		ls.err = err
	}
	w.Write(data)
	w.WriteByte('\n')
}

// read reads the listed cases back from the spool f, in their order.
func (ls *listSpool) read(f *os.File) ([]baseline.CaseDelta, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	out := make([]baseline.CaseDelta, 0, ls.n)
	for range ls.n {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var d baseline.CaseDelta
		if k, ok := strings.CutPrefix(string(line[:len(line)-1]), "#"); ok {
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(ls.kept) {
				return nil, fmt.Errorf("no kept case %q", k)
			}
			d = ls.kept[i]
		} else if err := json.Unmarshal(line, &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, f.Truncate(0)
}

// deltaUTF8 reports whether every string of d is UTF-8.
func deltaUTF8(d *baseline.CaseDelta) bool {
	ss := append([]string{d.Name, string(d.Kind), string(d.Status)}, d.Reasons...)
	for _, side := range []*baseline.CaseSide{d.Baseline, d.Current} {
		if side != nil {
			ss = append(ss, string(side.Verdict), side.Position.File)
		}
	}
	for _, t := range d.Targets {
		ss = append(ss, t.Name)
	}
	for _, c := range d.Counts {
		ss = append(ss, c.Name)
	}
	for _, l := range d.Labels {
		ss = append(ss, l.Name)
		for _, v := range []*string{l.Baseline, l.Current} {
			if v != nil {
				ss = append(ss, *v)
			}
		}
	}
	for _, f := range d.Flips {
		ss = append(ss, f.Subject, f.Name, f.Block, string(f.From), string(f.To), string(f.Change), f.Message)
		if f.Position != nil {
			ss = append(ss, f.Position.File)
		}
	}
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// encodeDelta is one case of the comparison's JSON, one line of compact
// JSON as baseline.AppendCaseJSON writes it (appendDelta, or
// encodeDeltaJSON for what appendDelta leaves to it).
func encodeDelta(d *baseline.CaseDelta) ([]byte, error) {
	if b, ok := appendDelta(make([]byte, 0, 1024), d); ok {
		return b, nil
	}
	return encodeDeltaJSON(d)
}

// encodeDeltaJSON is encodeDelta by encoding/json's encoder.
func encodeDeltaJSON(d *baseline.CaseDelta) ([]byte, error) {
	return baseline.AppendCaseJSON(nil, d)
}

// indexed is the baseline's index with the warnings of its cases given
// twice.
type indexed struct {
	*baseIndex
	warnings []string
	// parted says the second part of the cases was read beside the
	// first, and its read taken (casesPart).
	parted bool
}

// indexBaseline indexes the baseline's cases by name (baseIndex) where
// they lie in the baseline's file f; each is checked when it is compared
// or listed as removed, as ReadBaseline checks it. It returns the
// baseline's head. A baseline of another schema_version is not indexed:
// its head is only its schema_version and tool.
func indexBaseline(f *os.File, cr *report.CaseReader) (*indexed, *report.Envelope, error) {
	return indexBaselineFrom(f, cr, splitMid(f))
}

// indexBaselineFrom is indexBaseline reading the second part of the
// cases, from the first place after mid where one may start, beside the
// first (casesPart); mid -1 for none.
func indexBaselineFrom(f *os.File, cr *report.CaseReader, mid int64) (*indexed, *report.Envelope, error) {
	idx := &indexed{baseIndex: &baseIndex{f: f, cr: cr}}
	// A baseline of another schema_version says so before its cases in
	// every envelope mcptest writes; its cases are then not read as
	// cases, only to their end.
	other := false
	if h, err := cr.Head(); err == nil && cr.Seen("schema_version") && h.SchemaVersion != report.SchemaVersion {
		other = true
	}
	// The cases are read (scanned to their end) a goroutine ahead of
	// their names' hashing and indexing, and the second half of them
	// beside the first where the baseline is large (casesPart): two
	// cores. The index keeps a case's name hash and place, not its bytes.
	add := func(n int, raw []byte, start int64) error {
		if other {
			if !json.Valid(raw) {
				var v any
				return cr.Place(fmt.Errorf("%s: not a run envelope: cases[%d]: %w", cr.Name(), n, json.Unmarshal(raw, &v)))
			}
			return nil
		}
		h, err := caseHash(raw)
		if err != nil {
			return cr.Place(fmt.Errorf("%s: not a run envelope: cases[%d]: %w", cr.Name(), n, err))
		}
		return idx.add(h, start, len(raw))
	}
	var part *casesPart
	if !other && mid >= 0 {
		part = startPart(f, cr.Name(), mid)
	}
	err := indexCases(cr, idx, part, add)
	if err != nil {
		return nil, nil, err
	}
	head, err := baselineHead(cr)
	if err != nil {
		return nil, nil, err
	}
	if head.SchemaVersion != report.SchemaVersion {
		idx.keys, idx.blockFirst, idx.blockAt, idx.rel, idx.lens, idx.n = nil, nil, nil, nil, nil, 0
	}
	if err := idx.sortAndDrop(); err != nil {
		return nil, nil, err
	}
	return idx, head, nil
}

// caseName reads the name of a case from its JSON as encoding/json
// decodes it, without decoding the rest: the case is decoded and checked
// when it is compared (or listed as removed), so every case of the
// baseline is checked once, and the name it decodes to is held to the
// one read here then. The fast reader (plainName) reads the first
// member; where another member may be the name again (nameKeyAfter: the
// last one counts), the name is decoded.
func caseName(raw []byte) (string, error) {
	if name, end, ok := plainNameAt(raw); ok && !nameKeyAfter(raw, end) {
		return name, nil
	}
	var c struct {
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", err
	}
	if c.Name == nil {
		return "", nil
	}
	return *c.Name, nil
}

// nameKeyAfter reports whether raw, from its byte from on, may hold a
// member whose key decodes to "name" without regard to case (as
// encoding/json matches it). Where raw holds no backslash past from, no
// quote there is escaped and no key holds an escape: such a key is four
// bytes folding to "name" between quotes, then a colon (white space
// between), found from each m or M (most cases hold a few). Else every
// colon is looked at (keyBeforeColon).
func nameKeyAfter(raw []byte, from int) bool {
	rest := raw[from:]
	if bytes.IndexByte(rest, '\\') >= 0 {
		return keyBeforeColon(raw, from)
	}
	for _, m := range []byte{'m', 'M'} {
		for i := 0; ; {
			k := bytes.IndexByte(rest[i:], m)
			if k < 0 {
				break
			}
			p := i + k
			i = p + 1
			if p >= 3 && p+2 < len(rest) && rest[p-3] == '"' && rest[p+2] == '"' && bytes.EqualFold(rest[p-2:p+2], nameKey) {
				if q := skipSpace(rest, p+3); q < len(rest) && rest[q] == ':' {
					return true
				}
			}
		}
	}
	return false
}

// keyBeforeColon is nameKeyAfter for a raw that holds backslashes: a
// string before a colon (white space between) whose last four bytes
// before its closing quote fold to "name" and follow a quote, or that
// holds a backslash among them and the 21 before (a key that decodes to
// four ASCII letters is at most 24 bytes, each \u00XX). It looks at
// every colon, those within strings too: it may say true for a case that
// holds no such member (the name is then decoded), never false for one
// that does.
func keyBeforeColon(raw []byte, from int) bool {
	for i := from; i < len(raw); {
		k := bytes.IndexByte(raw[i:], ':')
		if k < 0 {
			return false
		}
		colon := i + k
		i = colon + 1
		j := colon - 1
		for j >= from && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j--
		}
		if j < from || raw[j] != '"' {
			continue
		}
		if j-5 >= from && raw[j-5] == '"' && bytes.EqualFold(raw[j-4:j], nameKey) {
			return true
		}
		for m := j - 1; m >= from && m >= j-25; m-- {
			if raw[m] == '\\' {
				return true
			}
			if raw[m] == '"' {
				break
			}
		}
	}
	return false
}

var nameKey = []byte("name")

// plainName reads the name of a case an encoder wrote: its first member,
// "name", a string of printable ASCII or UTF-8 with no escape, compact
// ("name":"x") or indented ("name": "x"). It does not look past it: a
// name given again later is caseName's to find.
func plainName(raw []byte) (string, bool) {
	name, _, ok := plainNameAt(raw)
	return name, ok
}

// plainNameAt is plainName, with where the name's value ends in raw.
func plainNameAt(raw []byte) (string, int, bool) {
	text, end, ok := plainNameText(raw)
	if !ok {
		return "", 0, false
	}
	return string(text), end, true
}

// plainNameText is plainNameAt giving the name's bytes in raw.
func plainNameText(raw []byte) ([]byte, int, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, 0, false
	}
	i = skipSpace(raw, i+1)
	const key = `"name"`
	if !bytes.HasPrefix(raw[i:], []byte(key)) {
		return nil, 0, false
	}
	i = skipSpace(raw, i+len(key))
	if i >= len(raw) || raw[i] != ':' {
		return nil, 0, false
	}
	i = skipSpace(raw, i+1)
	if i >= len(raw) || raw[i] != '"' {
		return nil, 0, false
	}
	rest := raw[i+1:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return nil, 0, false
	}
	text := rest[:end]
	for _, c := range text {
		if c < 0x20 || c == '\\' {
			return nil, 0, false
		}
	}
	if !utf8.Valid(text) {
		return nil, 0, false
	}
	return text, i + 1 + end + 1, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// removed hands emit the baseline's cases the current run does not hold,
// in the baseline's order.
func (idx *indexed) removed(every bool, emit func(baseline.CaseDelta, []byte)) error {
	for i := range int32(idx.n) {
		if idx.dropped.get(i) || idx.matched.get(i) {
			continue
		}
		data, err := idx.raw(i)
		if err != nil {
			return err
		}
		bc, err := idx.decode(i, data)
		if err != nil {
			return err
		}
		d := baseline.RemovedOf(bc)
		var enc []byte
		if every {
			if enc, err = encodeDelta(&d); err != nil {
				return err
			}
		}
		emit(d, enc)
	}
	return nil
}

// sortAndDrop orders the index by name hash and drops every case given
// twice past its first, in the baseline's order, with a warning each.
func (idx *indexed) sortAndDrop() error {
	words := (idx.n + 63) / 64
	idx.dropped, idx.matched = make(bitset, words), make(bitset, words)
	slices.Sort(idx.keys)
	idx.sortTop()
	// Cases of one hash: a name given twice, or two names of one hash.
	// The first of a name, in the baseline's order, is kept.
	var twice []int32
	for k := 1; k < len(idx.keys); k++ {
		if idx.keys[k]>>32 == idx.keys[k-1]>>32 {
			twice = append(twice, int32(idx.keys[k]))
		}
	}
	slices.Sort(twice)
	for _, i := range twice {
		data, err := idx.raw(i)
		if err != nil {
			return err
		}
		c, err := idx.decode(i, data)
		if err != nil {
			return err
		}
		j, _, err := idx.find(c.Name, nil, nil)
		if err == nil && j >= 0 && j < i {
			idx.dropped.set(i)
			idx.warnings = append(idx.warnings, baseline.TwiceInBaseline(c.Name))
		}
	}
	return nil
}

// sortTop builds top from the sorted keys.
func (b *baseIndex) sortTop() {
	b.top = make([]int32, 1<<16+1)
	k := 0
	for t := range b.top {
		for k < len(b.keys) && int(b.keys[k]>>48) < t {
			k++
		}
		b.top[t] = int32(k)
	}
}

// firstOf is the place in keys of the first key of hash h (32 bits), or
// where it would be.
func (b *baseIndex) firstOf(h uint64) int {
	if b.top == nil {
		at, _ := slices.BinarySearch(b.keys, h<<32)
		return at
	}
	lo, hi := int(b.top[h>>16]), int(b.top[h>>16+1])
	at, _ := slices.BinarySearch(b.keys[lo:hi], h<<32)
	return lo + at
}

// baselineHead is the baseline's head as baseline.ReadBaseline reads it:
// of another schema_version, only that and its tool.
func baselineHead(cr *report.CaseReader) (*report.Envelope, error) {
	head, err := cr.Head()
	if err != nil {
		return nil, err
	}
	if !cr.Seen("schema_version") {
		return nil, fmt.Errorf("%s: not a run envelope: no schema_version", crName(cr))
	}
	if head.SchemaVersion != report.SchemaVersion {
		env := &report.Envelope{SchemaVersion: head.SchemaVersion, Tool: head.Tool}
		if err := env.Check(); err != nil {
			return nil, fmt.Errorf("%s: not a run envelope: %w", crName(cr), err)
		}
		return env, nil
	}
	return cr.Envelope()
}

func crName(cr *report.CaseReader) string { return cr.Name() }

// result is one current case compared, on its way to the fold.
type result struct {
	d    baseline.CaseDelta
	data []byte
	hash uint64
	base int32
	err  error
	// at and n are where the case lies in the current run's file.
	at int64
	n  int
}

// compareCases reads the current run's cases in order, compares each with
// the baseline on GOMAXPROCS workers (not comparable for reason, when it
// is set), and hands the results to fold in order. The cases travel in
// batches of batch, at most window batches in flight: a handoff between
// goroutines per batch, not per case, so the workers keep their cores on
// a machine whose other processes hold them too. A batch's buffer of
// encoded deltas goes back to the workers once fold has had its results
// (fold copies what it keeps of a result's data), so the deltas of a
// million cases are encoded into a few buffers, not a garbage buffer a
// batch for the collector to chase.
func compareCases(cur *report.CaseReader, idx *indexed, reason string, every bool, fold func(result)) error {
	const batch, window = 64, 8
	// out is a batch's results, the buffer of their encoded deltas
	// and the storage of their sides (sameScratch.sides), reused once
	// fold is done with them; read the batch's cases as the reader
	// read them, likewise.
	type out struct {
		rs    []result
		buf   []byte
		sides []baseline.CaseSide
	}
	type read struct {
		raws [][]byte
		at   []int64 // where each lies in the file
		// bases are, for each case, the baseline case whose bytes it
		// was read as (the reader's guess taken), else -1.
		bases []int32
		buf   []byte // what raws lie in
	}
	type done struct {
		out
		read
	}
	type job struct {
		i int
		read
		out chan done
	}
	jobs := make(chan job, window)
	order := make(chan chan done, window)
	workers := runtime.GOMAXPROCS(0)
	// free holds the batches' buffers fold is done with: at most one a
	// batch in flight (window in order, one a worker, one being folded);
	// freeRaw the buffers the batches' cases were read into, likewise.
	free := make(chan out, window+workers+2)
	freeRaw := make(chan read, window+workers+3)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scratch
			for j := range jobs {
				// The batch's deltas are encoded into one buffer.
				var o out
				select {
				case o = <-free:
				default:
					o = out{make([]result, 0, batch), make([]byte, 0, 2048*batch), make([]baseline.CaseSide, 0, 2*batch)}
				}
				rs := o.rs[:0]
				sc.out, sc.same.sides = o.buf[:0], o.sides[:0]
				for k, raw := range j.raws {
					r := compareOne(cur, idx, reason, every, j.i+k, raw, j.bases[k], &sc)
					r.at, r.n = j.at[k], len(raw)
					rs = append(rs, r)
					if r.err != nil {
						break
					}
				}
				j.out <- done{out{rs, sc.out, sc.same.sides}, j.read}
				sc.out, sc.same.sides = nil, nil
			}
		}()
	}
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(order)
		var err error
		g := guesser{idx: idx, on: reason == ""}
		for i := 0; err == nil; {
			var rd read
			select {
			case rd = <-freeRaw:
			default:
				rd = read{buf: make([]byte, 0, 1024*batch)}
			}
			raws, at, bases, buf := rd.raws[:0], rd.at[:0], rd.bases[:0], rd.buf[:0]
			for len(raws) < batch {
				start := len(buf)
				want, wantAt := g.want()
				next, took, rerr := cur.AppendExpected(buf, want)
				if rerr != nil {
					err = rerr
					break
				}
				buf = next
				raw := buf[start:len(buf):len(buf)]
				raws = append(raws, raw)
				at = append(at, cur.Offset()-int64(len(next)-start))
				if took {
					bases = append(bases, wantAt)
				} else {
					bases = append(bases, -1)
				}
				g.next(took, raw)
			}
			if len(raws) > 0 {
				out := make(chan done, 1)
				select {
				case order <- out:
				case <-stop:
					readErr <- nil
					return
				}
				jobs <- job{i: i, read: read{raws, at, bases, buf}, out: out}
				i += len(raws)
			}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		readErr <- err
	}()
	var err error
	for out := range order {
		d := <-out
		for _, r := range d.rs {
			switch {
			case err != nil:
			case r.err != nil:
				err = r.err
				close(stop)
			default:
				fold(r)
			}
		}
		select {
		case free <- d.out:
		default:
		}
		select {
		case freeRaw <- d.read:
		default:
		}
	}
	wg.Wait()
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	return err
}

// compareOne compares the i-th case of the current run, given as its
// JSON, with the baseline: without decoding it when its bytes are the
// baseline case's (sameBytes), else decoded and checked, found in the
// baseline and compared.
func compareOne(cur *report.CaseReader, idx *indexed, reason string, every bool, i int, raw []byte, taken int32, sc *scratch) result {
	if reason == "" {
		var base int32
		var d baseline.CaseDelta
		var ok bool
		// The figures are read, not made into a delta: an unchanged
		// case's line is written from them (appendSame), and a case of
		// no definition digest is given its figures whatever figures
		// says (sameDeltaKeys).
		if taken >= 0 {
			d, ok = idx.sameAs(taken, raw, false, sc)
			base = taken
		} else {
			base, d, ok = idx.sameBytes(raw, false, sc)
		}
		var data []byte
		if ok && every {
			data, ok = sc.line(&d)
		}
		if ok {
			r := result{base: base, d: d, data: data}
			if every && data == nil {
				r.data, r.err = sc.encode(&r.d)
			}
			if r.d.Status == baseline.Same {
				// Its figures lie in the worker's storage (sameScratch),
				// reused by the next case; the fold, which only counts an
				// unchanged case (Summary.Add), counts it alike without
				// them.
				r.d.Targets, r.d.Counts, r.d.Labels = nil, nil, nil
			}
			return r
		}
	}
	r := result{base: -1}
	cc, err := cur.Decode(i, raw)
	if err != nil {
		r.err = err
		return r
	}
	r.hash = nameHash(cc.Name)
	var bc *report.CaseResult
	if reason == "" {
		r.base, bc, r.err = idx.find(cc.Name, cc, raw)
	}
	if r.err == nil {
		r.d = baseline.CaseOf(bc, cc, reason)
		if every {
			r.data, r.err = sc.encode(&r.d)
		}
	}
	return r
}

// scratch is a comparison worker's buffers: a baseline case read, and
// the encoded deltas of its batch.
type scratch struct {
	read, out []byte
	// spans are where the fields of the case being compared lie; same
	// what sameDeltaSpans reuses.
	spans caseSpans
	keys  sameKeys
	same  sameScratch
	// lc is what the validating scan of the case notes (passThroughKeys).
	lc leanCase
	// blockData is block of the baseline's cases, read whole (cached).
	block     int
	blockData []byte
}

// encode appends d's JSON (encodeDelta) to the batch's buffer and
// returns it.
func (sc *scratch) encode(d *baseline.CaseDelta) ([]byte, error) {
	start := len(sc.out)
	if b, ok := appendDelta(sc.out, d); ok {
		sc.out = b
		return b[start:len(b):len(b)], nil
	}
	// A copy goes to the encoder, which keeps it: d stays where the
	// caller has it (on its stack), for the cases appendDelta writes.
	dc := *d
	return encodeDeltaJSON(&dc)
}

// line appends an unchanged case's line (appendSame) to the batch's
// buffer and returns it: nil for a case of another status, which is
// encoded whole (encode), and false where the case is to be decoded.
func (sc *scratch) line(d *baseline.CaseDelta) ([]byte, bool) {
	if d.Status != baseline.Same {
		return nil, true
	}
	start := len(sc.out)
	b, ok := appendSame(sc.out, d, &sc.same)
	sc.out = b
	return b[start:len(b):len(b)], ok
}

// readAhead reads cr's cases on a goroutine of its own, in batches, and
// hands each to fn in order on the calling goroutine: its index, its
// bytes (valid until fn returns) and where it starts in the file. It
// returns fn's first error, else the read's (io.EOF is the end, not an
// error), in the order a loop of cr.AppendRaw and fn would meet them;
// the reader stops once fn fails. Where stopAt is not negative, the
// read stops after a case that ends there and readAhead returns
// errAtSplit once fn has had that case; a case that ends past it calls
// missed, and the read goes on to the cases' end.
func readAhead(cr *report.CaseReader, stopAt int64, missed func(), fn func(n int, raw []byte, start int64) error) error {
	const batch, window = 256, 4
	n := cr.Cases()
	type cases struct {
		buf    []byte
		ends   []int
		starts []int64
		err    error
	}
	full := make(chan cases, window)
	free := make(chan cases, window+2)
	stop := make(chan struct{})
	go func() {
		defer close(full)
		for {
			var b cases
			select {
			case b = <-free:
				b.buf, b.ends, b.starts = b.buf[:0], b.ends[:0], b.starts[:0]
			default:
			}
			for len(b.ends) < batch && b.err == nil {
				from := len(b.buf)
				next, err := cr.AppendRaw(b.buf)
				if err != nil {
					b.err = err
					break
				}
				b.buf = next
				b.ends = append(b.ends, len(next))
				b.starts = append(b.starts, cr.Offset()-int64(len(next)-from))
				if stopAt >= 0 && cr.Offset() >= stopAt {
					if cr.Offset() == stopAt {
						b.err = errAtSplit
						break
					}
					stopAt = -1
					missed()
				}
			}
			select {
			case full <- b:
			case <-stop:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	for b := range full {
		from := 0
		for k, end := range b.ends {
			if err := fn(n, b.buf[from:end:end], b.starts[k]); err != nil {
				close(stop)
				return err
			}
			from = end
			n++
		}
		if b.err != nil {
			if errors.Is(b.err, io.EOF) {
				return nil
			}
			return b.err
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}
