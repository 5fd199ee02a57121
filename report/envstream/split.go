package envstream

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/mcptest/mcptest/report"
)

// splitMin is the least size, in bytes, of a baseline whose cases are
// read in two parts beside each other (casesPart): under it the second
// goroutine costs more than it saves.
var splitMin int64 = 4 << 20

// splitWindow is how many bytes from the middle of a baseline are looked
// through for the place its second part starts (splitPoint).
const splitWindow = 256 << 10

// errAtSplit stops the read of a baseline's first part where its second
// part starts (readAhead).
var errAtSplit = errors.New("the cases' read stopped where their second part starts")

// casesPart reads the second part of a baseline's cases (from a place
// near the middle of its file, splitPoint) on a goroutine of its own,
// while the first part is read from the start: each case's name hashed,
// where it starts and its length, as indexBaseline's reader notes them.
// Its cases count as the baseline's only where the read of the first part
// ends a case exactly where the second part starts (so the second part's
// read is the very read the first would go on with: report.CasesFrom),
// and the second part read to the cases' end without an error; else they
// are dropped and the first part's read goes on as if there were none
// (indexCases), so the index, and every error and where it is placed, is
// what one read from the start gives.
type casesPart struct {
	at int64
	cr *report.CaseReader
	// cases are held in chunks of partChunk, each let go once added to
	// the index: no copy of them all as a slice grows, and not all of
	// them beside the index they are added to.
	cases [][]partCase
	n     int
	err   error
	stop  atomic.Bool
	done  chan struct{}
}

// partChunk is how many cases of the second part a chunk holds.
const partChunk = 4096

// partCase is one case of the second part: its name's hash, its length
// and where it starts.
type partCase struct {
	start  int64
	hash   uint32
	length uint32
}

// splitMid is where indexBaseline looks for the start of the second
// part of the baseline in f (casesPart): its middle, where it is at least
// splitMin bytes and the process has two processors or more; else -1,
// for a read from the start alone.
func splitMid(f *os.File) int64 {
	if runtime.GOMAXPROCS(0) < 2 {
		return -1
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() < splitMin {
		return -1
	}
	return fi.Size() / 2
}

// startPart starts reading the second part of the baseline in f (named
// name in errors) from the place splitPoint finds from mid, and returns
// nil where it finds none.
func startPart(f *os.File, name string, mid int64) *casesPart {
	at, ok := splitPoint(f, mid)
	if !ok {
		return nil
	}
	p := &casesPart{at: at, done: make(chan struct{})}
	p.cr = report.CasesFrom(io.NewSectionReader(f, at, report.MaxStreamBytes-at), name, at)
	go p.read()
	return p
}

// splitPoint looks through splitWindow bytes of f from mid for where a
// case ends and the next starts on a line of its own, as mcptest writes
// a run's cases ("},", a line break, white space, "{"): it returns the
// offset of that comma. It is a guess, held to the read of the first
// part (casesPart): the bytes may lie within a string of a hand-written
// envelope.
func splitPoint(f *os.File, mid int64) (int64, bool) {
	buf := make([]byte, splitWindow)
	n, err := f.ReadAt(buf, mid)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	buf = buf[:n]
	for i := 0; ; {
		k := bytes.Index(buf[i:], []byte("},\n"))
		if k < 0 {
			return 0, false
		}
		comma := i + k + 1
		j := skipSpace(buf, comma+1)
		if j < len(buf) && buf[j] == '{' {
			return mid + int64(comma), true
		}
		i = comma
	}
}

// read reads the second part's cases to the cases' end, or until the
// part is abandoned or a case fails to read or to give its name: the
// read from the start then meets that failure itself, and names it.
func (p *casesPart) read() {
	defer close(p.done)
	var buf []byte
	for !p.stop.Load() {
		raw, err := p.cr.AppendRaw(buf[:0])
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			p.err = err
			return
		}
		buf = raw
		h, err := caseHash(raw)
		if err != nil {
			p.err = err
			return
		}
		if len(raw) > math.MaxUint32 {
			p.err = errors.New("a case over 4 GiB")
			return
		}
		if p.n%partChunk == 0 {
			p.cases = append(p.cases, make([]partCase, 0, partChunk))
		}
		last := len(p.cases) - 1
		p.cases[last] = append(p.cases[last], partCase{p.cr.Offset() - int64(len(raw)), h, uint32(len(raw))})
		p.n++
	}
	p.err = errAbandoned
}

var errAbandoned = errors.New("the second part's read was abandoned")

// abandon stops the second part's read and waits for it: the read of
// the first part did not end a case where it starts.
func (p *casesPart) abandon() {
	p.stop.Store(true)
	<-p.done
}

// indexCases reads the baseline's cases from cr, handing each to add (its
// index, bytes and start), and, where part was started and the first
// part's read ends a case where it starts, adds the second part's cases
// to idx and reads the rest of the document past them (report's Resume).
func indexCases(cr *report.CaseReader, idx *indexed, part *casesPart, add func(n int, raw []byte, start int64) error) error {
	if part == nil {
		return readAhead(cr, -1, nil, add)
	}
	err := readAhead(cr, part.at, part.abandon, add)
	if !errors.Is(err, errAtSplit) {
		part.abandon()
		return err
	}
	<-part.done
	if part.err != nil {
		// The read from the start goes on over the second part itself
		// and meets its failure (or not: a part may fail past the cases'
		// end, where the first part's read has no business).
		return readAhead(cr, -1, nil, add)
	}
	idx.grow(part.n)
	for k, chunk := range part.cases {
		for _, c := range chunk {
			if err := idx.add(c.hash, c.start, int(c.length)); err != nil {
				return err
			}
		}
		part.cases[k] = nil
	}
	idx.parted = true
	if err := cr.Resume(part.cr, part.at); !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// caseHash is the index's hash of a case's name (caseName), from where
// the name lies in raw where it can be.
func caseHash(raw []byte) (uint32, error) {
	if text, end, ok := plainNameText(raw); ok && !nameKeyAfter(raw, end) {
		return hash32(text), nil
	}
	name, err := caseName(raw)
	if err != nil {
		return 0, err
	}
	return hash32(name), nil
}

// grow makes room in the index for n more cases at once, rather than
// by the steps of append.
func (b *baseIndex) grow(n int) {
	b.keys = slices.Grow(b.keys, n)
	b.rel = slices.Grow(b.rel, n)
	b.lens = slices.Grow(b.lens, n)
	b.blockFirst = slices.Grow(b.blockFirst, n/blockCases+1)
	b.blockAt = slices.Grow(b.blockAt, n/blockCases+1)
}
