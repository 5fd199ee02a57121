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
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/spoolfile"
	"github.com/mcptest/mcptest/report"
)

// MaxListed is the most changed cases a streamed comparison keeps for the
// text and markdown renderings (Compared.Cmp.Cases); the JSON rendering
// holds every case all the same, from the spool.
const MaxListed = 10000

// Compared is a comparison computed from two envelope streams. Cmp is the
// comparison with, in Cases, only the cases that changed (Changed), at
// most MaxListed of them: all the text and markdown renderings list.
// Write writes the JSON rendering with every case, byte for byte what
// baseline.Compare's comparison encodes to. Close removes the spools.
type Compared struct {
	Cmp *baseline.Comparison
	// Unlisted counts the changed cases past MaxListed.
	Unlisted int
	cases    *spoolfile.File
	n        int
	// listedOnly is set by CompareListed: the spool holds no case;
	// jsonOnly by CompareFor json: Cmp.Cases holds none.
	listedOnly, jsonOnly bool
	// rec recorded whether the spooled cases need no mask under the
	// Known the comparison was given (CompareFor): Write then passes
	// them on from the spool as they are (redact.Writer.SpliceFrom).
	rec *redact.CleanRecorder
}

// Close closes the spool of the cases (its name was removed when it was
// created: spoolfile.Create, so a comparison killed half-way leaves no
// file behind).
func (c *Compared) Close() error {
	if c.cases == nil {
		return nil
	}
	err := c.cases.Close()
	c.cases = nil
	return err
}

// Render writes the comparison in format (one of
// annotate.CompareFormats but html, which needs every case at hand): json
// with every case (Write), the others with the listed cases and, past
// MaxListed, a warning saying how many more changed.
func (c *Compared) Render(w io.Writer, format string, opt annotate.Options) error {
	if annotate.Canonical(format) == "json" {
		return c.Write(w)
	}
	if c.jsonOnly {
		return fmt.Errorf("render comparison: %s: the changed cases were not kept (CompareFor json)", format)
	}
	if c.Unlisted > 0 {
		c.Cmp.Warnings = append(c.Cmp.Warnings, fmt.Sprintf("%d more changed cases are not listed here (the first %d are): --format json lists every case", c.Unlisted, MaxListed))
	}
	return annotate.RenderComparison(w, format, c.Cmp, opt)
}

// Write writes the comparison's JSON rendering, every case in it.
func (c *Compared) Write(w io.Writer) error {
	if c.listedOnly {
		return errors.New("encode comparison: the cases were counted, not kept (CompareListed): compare with CompareFiles")
	}
	head := *c.Cmp
	head.Cases = []baseline.CaseDelta{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&head); err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	data := buf.Bytes()
	key := []byte("\n  \"cases\": [")
	at := bytes.Index(data, key)
	if at < 0 || !bytes.HasPrefix(data[at+len(key):], []byte("]")) {
		return errors.New("encode comparison: no empty cases array to fill")
	}
	at += len(key)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(data[:at])
	if c.n > 0 {
		size, err := c.cases.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		// The spooled cases start and end with a line break. Proven to
		// need no mask, they are passed on from the spool as they are
		// (copy_file_range where the output is a file); else read a
		// goroutine ahead of the writes through the mask: two cores.
		spliced := false
		if x, ok := w.(*redact.Writer); ok {
			if err := bw.Flush(); err != nil {
				return err
			}
			if spliced, err = x.SpliceFrom(c.rec, c.cases.File, size); err != nil {
				return err
			}
		}
		if !spliced {
			if err := annotate.CopyAhead(bw, c.cases, size); err != nil {
				return err
			}
		}
		bw.WriteString("  ")
	}
	bw.Write(data[at:])
	return bw.Flush()
}

// spoolWriter is the writer of the comparison's spool: for every case
// (the json rendering), through a recorder of whether they need no mask
// under known (Write then passes them on as they are).
func (c *Compared) spoolWriter(every bool, known *redact.Known) *bufio.Writer {
	if !every {
		return bufio.NewWriterSize(c.cases, 64<<10)
	}
	c.rec = redact.NewCleanRecorder(c.cases, known)
	return bufio.NewWriterSize(c.rec, 64<<10)
}

// endSpool ends the spooled cases with a line break (Write writes the
// rest of the comparison after it) and flushes sw.
func (c *Compared) endSpool(sw *bufio.Writer) error {
	if c.rec != nil && c.n > 0 {
		sw.WriteByte('\n')
	}
	return sw.Flush()
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
func hash32(name string) uint32 {
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

// errRenamed says a baseline case decodes to another name than the one
// it was indexed under (a name given twice in the case, where the last
// counts): the comparison is done again in memory, which reads it whole.
var errRenamed = errors.New("a baseline case's name is given twice")

// decode decodes and checks the i-th case of the baseline from its JSON
// data, and holds its name to the one it was indexed under.
func (b *baseIndex) decode(i int32, data []byte) (*report.CaseResult, error) {
	c, err := b.cr.Decode(int(i), data)
	if err != nil {
		return nil, err
	}
	if name, err := caseName(data); err != nil || name != c.Name {
		return nil, errRenamed
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
	at, _ := slices.BinarySearch(b.keys, h<<32)
	for ; at < len(b.keys) && b.keys[at]>>32 == h; at++ {
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

// CompareFiles compares the run envelope at curPath with the baseline
// envelope at basePath (flag names where it came from in messages) under
// the --fail-on policy failOn, as baseline.Compare compares them, reading
// both as streams: the baseline's cases are indexed by the hash of their
// names where they lie in its file (baseIndex), then the current run's
// cases are decoded, looked up and compared on every core and folded in
// order. Memory is about 16 bytes per baseline case, plus one Go map
// entry per current case the baseline does not hold, plus the changed
// cases listed (at most MaxListed); each file is bounded at
// report.MaxStreamBytes. A baseline of another schema_version is compared
// as baseline.Compare compares one (every case not comparable). Wrong
// input is an *diag.InputError.
func CompareFiles(basePath, flag, curPath, failOn string) (*Compared, error) {
	return compareFiles(basePath, flag, curPath, failOn, true, true, nil)
}

// CompareListed is CompareFiles for the text and markdown renderings:
// the cases that did not change are counted, not encoded (Write refuses).
func CompareListed(basePath, flag, curPath, failOn string) (*Compared, error) {
	return compareFiles(basePath, flag, curPath, failOn, false, true, nil)
}

// CompareFor is CompareFiles for --format json and CompareListed for the
// other formats, which render the changed cases only.
//
// For json, no changed case is kept in Cmp.Cases (the rendering reads
// them from the spool): at a million cases the 10,000 listed were a
// third of the live heap. Render then renders json only.
//
// known is the set of secrets the rendering will be masked with (the
// Writer of redact.NewKnownWriter Render writes to): the spooled cases
// are checked against it as they are spooled, and where none needs a
// mask the json rendering passes them on from the spool as they are.
func CompareFor(format, basePath, flag, curPath, failOn string, known *redact.Known) (*Compared, error) {
	if annotate.Canonical(format) == "json" {
		return compareFiles(basePath, flag, curPath, failOn, true, false, known)
	}
	return compareFiles(basePath, flag, curPath, failOn, false, true, known)
}

func compareFiles(basePath, flag, curPath, failOn string, every, list bool, known *redact.Known) (*Compared, error) {
	policy, err := baseline.ParsePolicy(failOn)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	defer paceCollector()()
	cmp, err := compareStream(basePath, flag, curPath, policy, every, list, known)
	if errors.Is(err, errRenamed) {
		cmp, err = compareInMemory(basePath, flag, curPath, policy, known)
	}
	if err == nil && !list {
		cmp.Cmp.Cases = []baseline.CaseDelta{}
		cmp.jsonOnly = true
	}
	if err != nil {
		var in *diag.InputError
		if !errors.As(err, &in) {
			err = &diag.InputError{Err: err}
		}
		return nil, err
	}
	return cmp, nil
}

func compareStream(basePath, flag, curPath string, policy baseline.Policy, every, list bool, known *redact.Known) (out *Compared, err error) {
	// The current run is read first, as baseline.CompareFile's caller
	// reads it, so its errors come first.
	cf, cr0, err := openEnvelope(curPath, "", report.MaxStreamBytes)
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	cur, err := newCaseReader(cr0, curPath)
	if err != nil {
		return nil, err
	}
	bf, br0, err := openEnvelope(basePath, flag, report.MaxStreamBytes)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	bname := basePath
	base, err := newCaseReader(br0, bname)
	if err != nil {
		return nil, err
	}
	idx, baseHead, err := indexBaseline(bf, base)
	if err != nil {
		return nil, err
	}

	spool, err := spoolfile.Create("mcptest-comparison-*.json")
	if err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", err)
	}
	cmp := &Compared{cases: spool, listedOnly: !every}
	out = cmp
	defer func() {
		if err != nil { // out is nil by now when the error was returned with it
			cmp.Close()
			out = nil
		}
	}()
	sw := cmp.spoolWriter(every, known)
	lst := &lister{list: list, spool: list && !every, unlisted: &cmp.Unlisted}
	var sum baseline.Summary
	var dupWarnings []string
	// The current run is of this schema_version (its read refuses any
	// other), so the runs compare unless the baseline's is another.
	reason := baseline.Begin(baseHead, &report.Envelope{SchemaVersion: report.SchemaVersion}).NotComparable
	emit := func(d baseline.CaseDelta, data []byte) {
		sum.Add(d)
		if every {
			sep := ",\n    "
			if out.n == 0 {
				sep = "\n    "
			}
			sw.WriteString(sep)
			sw.Write(data)
			out.n++
		}
		if d.Changed() {
			lst.add(d, sw)
		}
	}
	newNames := map[uint64]bool{}
	newDup := false
	err = compareCases(cur, idx, reason, every, func(r result) {
		if r.base >= 0 {
			if idx.matched.get(r.base) {
				dupWarnings = append(dupWarnings, baseline.TwiceInCurrent(r.d.Name))
				return
			}
			idx.matched.set(r.base)
		} else {
			if newNames[r.hash] {
				// A name given twice, or two names of one hash: the
				// comparison is done again in memory, which knows.
				newDup = true
			}
			newNames[r.hash] = true
		}
		emit(r.d, r.data)
	})
	if err != nil {
		return nil, err
	}
	curHead, err := cur.Envelope()
	if err != nil {
		return nil, err
	}
	if newDup {
		// The comparison in memory spools its own cases: this one's go.
		cmp.Close()
		return compareInMemory(basePath, flag, curPath, policy, known)
	}
	c := baseline.Begin(baseHead, curHead)
	if c.NotComparable == "" {
		if err := idx.removed(every, emit); err != nil {
			return nil, err
		}
	}
	if err := cmp.endSpool(sw); err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", err)
	}
	c.Warnings = append(c.Warnings, idx.warnings...)
	c.Warnings = append(c.Warnings, dupWarnings...)
	c.Summary = sum
	c.Finish(baseHead, curHead, baseline.Options{FailOn: policy})
	idx = nil // the index is let go before the listed cases come back
	if c.Cases, err = lst.cases(spool.File); err != nil {
		return nil, err
	}
	if c.Cases == nil {
		c.Cases = []baseline.CaseDelta{}
	}
	out.Cmp = c
	return out, nil
}

// lister lists the first MaxListed changed cases a comparison finds
// (kept unless !list: in memory, or on the spool where spool is set) and
// counts the rest in unlisted.
type lister struct {
	list, spool bool
	n           int
	listed      []baseline.CaseDelta
	ls          listSpool
	unlisted    *int
}

func (l *lister) add(d baseline.CaseDelta, sw *bufio.Writer) {
	switch {
	case l.n == MaxListed:
		*l.unlisted++
		return
	case l.spool:
		l.ls.add(sw, d)
	case l.list:
		l.listed = append(l.listed, d)
	}
	l.n++
}

// cases are the listed cases, read back from the spool f where they were
// spooled (its writer flushed).
func (l *lister) cases(f *os.File) ([]baseline.CaseDelta, error) {
	if l.ls.err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", l.ls.err)
	}
	if l.ls.n == 0 {
		return l.listed, nil
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

// compareInMemory is baseline.CompareFile over whole envelopes, for the
// inputs a stream does not settle.
func compareInMemory(basePath, flag, curPath string, policy baseline.Policy, known *redact.Known) (*Compared, error) {
	cur, err := baseline.ReadFile(curPath, "", report.Read)
	if err != nil {
		return nil, err
	}
	base, err := baseline.ReadFile(basePath, flag, baseline.ReadBaseline)
	if err != nil {
		return nil, err
	}
	c := baseline.Compare(base, cur, baseline.Options{FailOn: policy})
	spool, err := spoolfile.Create("mcptest-comparison-*.json")
	if err != nil {
		return nil, fmt.Errorf("spool the comparison: %w", err)
	}
	out := &Compared{cases: spool}
	sw := out.spoolWriter(true, known)
	var listed []baseline.CaseDelta
	for i := range c.Cases {
		data, err := encodeDelta(&c.Cases[i])
		if err != nil {
			out.Close()
			return nil, err
		}
		if i > 0 {
			sw.WriteString(",")
		}
		sw.WriteString("\n    ")
		sw.Write(data)
		out.n++
		if c.Cases[i].Changed() {
			if len(listed) < MaxListed {
				listed = append(listed, c.Cases[i])
			} else {
				out.Unlisted++
			}
		}
	}
	if err := out.endSpool(sw); err != nil {
		out.Close()
		return nil, err
	}
	c.Cases = listed
	if c.Cases == nil {
		c.Cases = []baseline.CaseDelta{}
	}
	out.Cmp = c
	return out, nil
}

// encodeDelta is one case of the comparison's JSON, indented as the
// comparison's encoder indents an element of its cases (appendDelta, or
// encodeDeltaJSON for what appendDelta leaves to it).
func encodeDelta(d *baseline.CaseDelta) ([]byte, error) {
	if b, ok := appendDelta(make([]byte, 0, 1024), d); ok {
		return b, nil
	}
	return encodeDeltaJSON(d)
}

// encodeDeltaJSON is encodeDelta by encoding/json's encoder.
func encodeDeltaJSON(d *baseline.CaseDelta) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encode comparison: case %q: %w", d.Name, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), "    ", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// indexBaseline indexes the baseline's cases by name (baseIndex) where
// they lie in the baseline's file f; each is checked when it is compared
// or listed as removed, as ReadBaseline checks it. It returns the
// baseline's head. A baseline of another schema_version is not indexed:
// its head is only its schema_version and tool.
type indexed struct {
	*baseIndex
	warnings []string
}

func indexBaseline(f *os.File, cr *report.CaseReader) (*indexed, *report.Envelope, error) {
	idx := &indexed{baseIndex: &baseIndex{f: f, cr: cr}}
	// A baseline of another schema_version says so before its cases in
	// every envelope mcptest writes; its cases are then not read as
	// cases, only to their end.
	other := false
	if h, err := cr.Head(); err == nil && cr.Seen("schema_version") && h.SchemaVersion != report.SchemaVersion {
		other = true
	}
	// The cases are read (scanned to their end) a goroutine ahead of
	// their names' hashing and indexing: two cores. The index keeps a
	// case's name hash and place, not its bytes.
	err := readAhead(cr, func(n int, raw []byte, start int64) error {
		if other {
			if !json.Valid(raw) {
				var v any
				return fmt.Errorf("%s: not a run envelope: cases[%d]: %v", cr.Name(), n, json.Unmarshal(raw, &v))
			}
			return nil
		}
		name, err := caseName(raw)
		if err != nil {
			return fmt.Errorf("%s: not a run envelope: cases[%d]: %w", cr.Name(), n, err)
		}
		return idx.add(hash32(name), start, len(raw))
	})
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

// caseName reads the name of a case from its JSON, without decoding the
// rest: the case is decoded and checked when it is compared (or listed as
// removed), so every case of the baseline is checked once, and the name
// it decodes to is held to the one read here then (errRenamed).
func caseName(raw []byte) (string, error) {
	if name, ok := plainName(raw); ok {
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

// plainName reads the name of a case an encoder wrote: its first member,
// "name", a string of printable ASCII or UTF-8 with no escape, compact
// ("name":"x") or indented ("name": "x").
func plainName(raw []byte) (string, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return "", false
	}
	i = skipSpace(raw, i+1)
	const key = `"name"`
	if !bytes.HasPrefix(raw[i:], []byte(key)) {
		return "", false
	}
	i = skipSpace(raw, i+len(key))
	if i >= len(raw) || raw[i] != ':' {
		return "", false
	}
	i = skipSpace(raw, i+1)
	if i >= len(raw) || raw[i] != '"' {
		return "", false
	}
	rest := raw[i+1:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	text := rest[:end]
	for _, c := range text {
		if c < 0x20 || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(text) {
		return "", false
	}
	return string(text), true
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
		if errors.Is(err, errRenamed) {
			return err
		}
		if err == nil && j >= 0 && j < i {
			idx.dropped.set(i)
			idx.warnings = append(idx.warnings, baseline.TwiceInBaseline(c.Name))
		}
	}
	return nil
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
	type done struct {
		rs       []result
		buf, raw []byte
	}
	type job struct {
		i    int
		raws [][]byte
		buf  []byte // what raws lie in
		out  chan done
	}
	jobs := make(chan job, window)
	order := make(chan chan done, window)
	workers := runtime.GOMAXPROCS(0)
	// free holds the batches' buffers fold is done with: at most one a
	// batch in flight (window in order, one a worker, one being folded);
	// freeRaw the buffers the batches' cases were read into, likewise.
	free := make(chan []byte, window+workers+2)
	freeRaw := make(chan []byte, window+workers+3)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scratch
			for j := range jobs {
				rs := make([]result, 0, len(j.raws))
				// The batch's deltas are encoded into one buffer.
				select {
				case sc.out = <-free:
				default:
					sc.out = make([]byte, 0, 2048*batch)
				}
				for k, raw := range j.raws {
					r := compareOne(cur, idx, reason, every, j.i+k, raw, &sc)
					rs = append(rs, r)
					if r.err != nil {
						break
					}
				}
				j.out <- done{rs, sc.out, j.buf}
				sc.out = nil
			}
		}()
	}
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(order)
		var err error
		for i := 0; err == nil; {
			var raws [][]byte
			var buf []byte
			select {
			case buf = <-freeRaw:
			default:
				buf = make([]byte, 0, 1024*batch)
			}
			for len(raws) < batch {
				start := len(buf)
				next, rerr := cur.AppendRaw(buf)
				if rerr != nil {
					err = rerr
					break
				}
				buf = next
				raws = append(raws, buf[start:len(buf):len(buf)])
			}
			if len(raws) > 0 {
				out := make(chan done, 1)
				select {
				case order <- out:
				case <-stop:
					readErr <- nil
					return
				}
				jobs <- job{i: i, raws: raws, buf: buf, out: out}
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
		case free <- d.buf[:0]:
		default:
		}
		select {
		case freeRaw <- d.raw[:0]:
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
func compareOne(cur *report.CaseReader, idx *indexed, reason string, every bool, i int, raw []byte, sc *scratch) result {
	if reason == "" {
		if base, d, ok := idx.sameBytes(raw, every, sc); ok {
			r := result{base: base, d: d, hash: nameHash(d.Name)}
			if every {
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
	same  sameScratch
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
	return encodeDeltaJSON(d)
}

// readAhead reads cr's cases on a goroutine of its own, in batches, and
// hands each to fn in order on the calling goroutine: its index, its
// bytes (valid until fn returns) and where it starts in the file. It
// returns fn's first error, else the read's (io.EOF is the end, not an
// error), in the order a loop of cr.AppendRaw and fn would meet them;
// the reader stops once fn fails.
func readAhead(cr *report.CaseReader, fn func(n int, raw []byte, start int64) error) error {
	const batch, window = 256, 4
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
	n := 0
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
