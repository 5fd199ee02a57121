package annotate

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/mcptest/mcptest/internal/spoolfile"
	"github.com/mcptest/mcptest/report"
)

// The envelope's JSON is indented by report.JSONIndent, but for its
// cases: each case is one line of compact JSON at report.CaseIndent, so a
// case costs its bytes and no indentation, and a reader or a merge can
// take it as it is.
const (
	jsonIndent = report.JSONIndent
	casePrefix = report.CaseIndent
)

// writeEnvelope writes env as the JSON reporter does, with n cases that
// cases writes in place of env.Cases: each one "\n" + casePrefix + the case
// encoded by a caseEncoder, the first n-1 followed by a comma. The
// envelope is encoded without its cases (its catalogs one line each,
// catalogLines) and the cases are spliced in where the encoder put the
// empty array, so the output is the same for the same envelope however its
// cases were given, and no more than one case is ever held encoded in
// memory.
func writeEnvelope(w io.Writer, env *report.Envelope, n int, cases func(w *bufio.Writer) error) error {
	head, tail, err := envelopeParts(env)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	if n > 0 {
		if err := cases(bw); err != nil {
			return err
		}
		bw.WriteString("\n" + jsonIndent)
	}
	bw.Write(tail)
	return bw.Flush()
}

// envelopeParts is env's encoding without its cases, cut where they go:
// head ends with the "cases" key's opening bracket, tail begins with its
// closing one.
func envelopeParts(env *report.Envelope) (head, tail []byte, err error) {
	h := *env
	h.Cases = []*report.CaseResult{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", jsonIndent)
	if err := enc.Encode(&h); err != nil {
		return nil, nil, fmt.Errorf("encode run envelope: %w", err)
	}
	data, err := catalogLines(buf.Bytes(), env.Catalogs)
	if err != nil {
		return nil, nil, err
	}
	head, tail, ok := report.CutAtCases(data)
	if !ok {
		return nil, nil, errors.New("encode run envelope: no empty cases array to fill")
	}
	return head, tail, nil
}

// catalogsKey is the line of the envelope's "catalogs" key, as the encoder
// writes it (a top-level key, so it occurs once).
var catalogsKey = []byte("\n" + jsonIndent + `"catalogs": [`)

// catalogLines rewrites the envelope's catalogs array, which the encoder
// indented, as one line of compact JSON a catalog, as the cases are.
func catalogLines(data []byte, cats []report.Catalog) ([]byte, error) {
	if len(cats) == 0 {
		return data, nil
	}
	at := bytes.Index(data, catalogsKey)
	end := -1
	if at >= 0 {
		end = bytes.Index(data[at:], []byte("\n"+jsonIndent+"]"))
	}
	if end < 0 {
		return nil, errors.New("encode run envelope: no catalogs array to write")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	out := slices.Concat(data[:at], catalogsKey)
	for i := range cats {
		if i > 0 {
			out = append(out, ',')
		}
		b.Reset()
		if err := enc.Encode(&cats[i]); err != nil {
			return nil, fmt.Errorf("encode run envelope: %w", err)
		}
		out = append(append(out, "\n"+casePrefix...), bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
	}
	return append(out, data[at+end:]...), nil
}

// caseEncoder encodes one case as it appears inside the envelope: compact,
// HTML characters as themselves, no final newline.
type caseEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newCaseEncoder() *caseEncoder {
	e := &caseEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// release drops the encoder's buffers once they have grown past
// maxPrepared, so one large case (a case over a directory of 32,000
// cassettes carries 50,000 per-run verdict rows, 8 MB of JSON) does not
// stay allocated for the rest of the run.
func (e *caseEncoder) release() {
	if e.buf.Cap() > maxPrepared {
		e.buf = bytes.Buffer{}
	}
}

// streamRows is the number of per-run verdict rows above which Add writes
// a case's rows one at a time rather than encoding the case whole: a case
// over a directory of 32,000 cassettes has 50,000 rows, 4.7 MB of its 8.3
// MB, which encoding whole held at once.
const streamRows = 4096

// manyRows reports whether a case has more than streamRows verdict rows.
func manyRows(c *report.CaseResult) bool {
	return c != nil && c.Reliability != nil && len(c.Reliability.Rows) > streamRows
}

// rowSentinel stands for a case's rows while the rest of it is encoded: a
// run number no run has, which the rows' writer finds and replaces.
const rowSentinel = math.MinInt64

// writeCaseRows writes the i-th case of the array as writeCase writes its
// encoding, byte for byte, holding one verdict row encoded at a time: the
// case is encoded with one sentinel row, and the rows are written in its
// place.
func writeCaseRows(w io.Writer, i int, e *caseEncoder, c *report.CaseResult) error {
	rows := c.Reliability.Rows
	shallow, rel := *c, *c.Reliability
	rel.Rows = []report.RunVerdict{{Run: rowSentinel}}
	shallow.Reliability = &rel
	data, err := e.encode(&shallow)
	if err != nil {
		return err
	}
	mark := []byte(`{"run":` + strconv.FormatInt(rowSentinel, 10) + ",")
	open := bytes.Index(data, mark)
	if open < 0 {
		return errors.New("encode run envelope: the rows' place was not found")
	}
	end := open + bytes.IndexByte(data[open:], '}') + 1
	head, tail := bytes.Clone(data[:open]), bytes.Clone(data[end:])
	sep := ",\n" + casePrefix
	if i == 0 {
		sep = "\n" + casePrefix
	}
	var row bytes.Buffer
	enc := json.NewEncoder(&row)
	enc.SetEscapeHTML(false)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(sep)
	bw.Write(head)
	for j := range rows {
		if j > 0 {
			bw.WriteByte(',')
		}
		row.Reset()
		if err := enc.Encode(&rows[j]); err != nil {
			return fmt.Errorf("encode run envelope: case %q: %w", caseName(c), err)
		}
		bw.Write(bytes.TrimSuffix(row.Bytes(), []byte("\n")))
	}
	bw.Write(tail)
	return bw.Flush()
}

// maxPrepared is the size of the largest case encoding Prepare keeps for
// Add: a larger case is encoded again by Add, straight into the spool,
// rather than held twice (its encoding and its copy) until its turn.
const maxPrepared = 1 << 20

// encode returns the case's JSON, valid until the next call.
func (e *caseEncoder) encode(c *report.CaseResult) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode run envelope: case %q: %w", caseName(c), err)
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), nil
}

func caseName(c *report.CaseResult) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// writeCase writes the i-th case of the array.
func writeCase(w io.Writer, i int, data []byte) error {
	sep := ",\n" + casePrefix
	if i == 0 {
		sep = "\n" + casePrefix
	}
	if _, err := io.WriteString(w, sep); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// CaseSpool keeps the cases of a run that streams them (engine.Options.Emit)
// encoded in a temporary file instead of in memory, so a run of any number
// of cases holds one case at a time; WriteEnvelope then writes the
// envelope with them, byte for byte what the JSON reporter writes for the
// same envelope holding the same cases. Close removes the file.
type CaseSpool struct {
	f   *spoolfile.File
	w   *bufio.Writer
	enc *caseEncoder
	n   int

	// mu guards ready, the cases Prepare encoded and Add has not yet
	// written, and free, the arrays of cases Add wrote, which Prepare
	// copies the next encodings into (freeBytes their capacity, at most
	// maxFreeBytes): the encodings of a run's cases pass through a few
	// arrays, not one copy a case.
	mu        sync.Mutex
	ready     map[*report.CaseResult][]byte
	free      [][]byte
	freeBytes int

	// head is what Begin wrote of a stream's envelope (NewCaseStream):
	// its encoding up to its cases.
	head []byte
}

// caseEncoders are the encoders Prepare borrows, one per goroutine.
var caseEncoders = sync.Pool{New: func() any { return newCaseEncoder() }}

// NewCaseSpool creates the spool's file in the system's temporary
// directory, readable by its owner only.
func NewCaseSpool() (*CaseSpool, error) {
	f, err := spoolfile.Create("mcptest-cases-*.json")
	if err != nil {
		return nil, fmt.Errorf("spool the run's cases: %w", err)
	}
	return &CaseSpool{f: f, w: bufio.NewWriterSize(f, 64<<10), enc: newCaseEncoder()}, nil
}

// NewCaseStream is a CaseSpool that keeps no file: its envelope is
// written as its cases are added, to the writer Begin gives it (report
// merge writes the merged envelope so, once it knows the head before the
// cases). Prepare may be called before Begin.
func NewCaseStream() *CaseSpool {
	return &CaseSpool{enc: newCaseEncoder()}
}

// ErrHeadMoved is End's error when the envelope's head before its cases
// does not encode as the head given to Begin did: what was written is not
// the envelope, and the caller writes it again.
var ErrHeadMoved = errors.New("encode run envelope: the head written before the cases is not the envelope's")

// errNotBegun is the error of a case added to a stream before Begin.
var errNotBegun = errors.New("encode run envelope: a case added before the stream began")

// Begin writes head's encoding up to its cases to w, where Add and AddRaw
// then write each case as they are given it; End writes the rest.
func (s *CaseSpool) Begin(w io.Writer, head *report.Envelope) error {
	if s.f != nil || s.w != nil {
		return errors.New("encode run envelope: the stream has begun or is a spool")
	}
	h, _, err := envelopeParts(head)
	if err != nil {
		return err
	}
	s.head = bytes.Clone(h)
	s.w = bufio.NewWriterSize(w, 64<<10)
	_, err = s.w.Write(h)
	return err
}

// End writes the rest of env after the cases added, byte for byte what
// the JSON reporter writes for env holding them: env's head before the
// cases must encode as Begin's did, else End writes nothing more and
// returns ErrHeadMoved. env.Cases must be empty.
func (s *CaseSpool) End(env *report.Envelope) error {
	if s.w == nil || s.f != nil {
		return errors.New("encode run envelope: the stream has not begun")
	}
	if len(env.Cases) != 0 {
		return errors.New("encode run envelope: the envelope holds cases and the stream holds more")
	}
	head, tail, err := envelopeParts(env)
	if err != nil {
		return err
	}
	if !bytes.Equal(head, s.head) {
		return ErrHeadMoved
	}
	if s.n > 0 {
		s.w.WriteString("\n" + jsonIndent)
	}
	s.w.Write(tail)
	return s.w.Flush()
}

// Prepare encodes a case for Add to write, and may be called for several
// cases at once (engine.Options.Prepare): the cases of a run are then
// encoded as they are computed, on the goroutines computing them, and Add
// only writes them, in order.
func (s *CaseSpool) Prepare(c *report.CaseResult) error {
	if manyRows(c) {
		return nil // Add writes its rows one at a time, never the whole encoding
	}
	e := caseEncoders.Get().(*caseEncoder)
	defer caseEncoders.Put(e)
	data, err := e.encode(c)
	if err != nil {
		return err
	}
	if len(data) > maxPrepared {
		e.release()
		return nil // Add encodes it
	}
	s.mu.Lock()
	var buf []byte
	if n := len(s.free); n > 0 {
		buf = s.free[n-1]
		s.free, s.freeBytes = s.free[:n-1], s.freeBytes-cap(buf)
	}
	s.mu.Unlock()
	data = append(buf[:0], data...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready == nil {
		s.ready = map[*report.CaseResult][]byte{}
	}
	s.ready[c] = data
	return nil
}

// Add writes one case at the end of the spool: as Prepare encoded it, or
// encoded now when it was not prepared.
func (s *CaseSpool) Add(c *report.CaseResult) error {
	if s.w == nil {
		return errNotBegun
	}
	s.mu.Lock()
	data, ok := s.ready[c]
	delete(s.ready, c)
	s.mu.Unlock()
	if !ok && manyRows(c) {
		err := writeCaseRows(s.w, s.n, s.enc, c)
		s.enc.release()
		if err != nil {
			return fmt.Errorf("spool the run's cases: %w", err)
		}
		s.n++
		return nil
	}
	if !ok {
		var err error
		if data, err = s.enc.encode(c); err != nil {
			return err
		}
	}
	err := writeCase(s.w, s.n, data)
	s.enc.release()
	if ok {
		s.recycle(data)
	}
	if err != nil {
		return fmt.Errorf("spool the run's cases: %w", err)
	}
	s.n++
	return nil
}

// maxFreeBytes bounds the capacity of the arrays a CaseSpool keeps for
// Prepare to copy encodings into.
const maxFreeBytes = 256 << 10

// recycle keeps data, the encoding of a case Prepare copied and Add has
// written (the spool's buffer copied it), for Prepare to copy another
// into, while the arrays kept stay within maxFreeBytes.
func (s *CaseSpool) recycle(data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.freeBytes+cap(data) <= maxFreeBytes {
		s.free = append(s.free, data[:0])
		s.freeBytes += cap(data)
	}
}

// AddRaw writes one case at the end of the spool as data, its encoding
// as Add would write it (a case of an envelope this encoder wrote, read
// back: report merge copies it as it is).
func (s *CaseSpool) AddRaw(data []byte) error {
	if s.w == nil {
		return errNotBegun
	}
	if err := writeCase(s.w, s.n, data); err != nil {
		return fmt.Errorf("spool the run's cases: %w", err)
	}
	s.n++
	return nil
}

// WriteEnvelope writes env with the spooled cases in place of env.Cases,
// which must be empty. It may be called more than once (the workspace
// store and --output), from several goroutines at once once the last case
// is added.
func (s *CaseSpool) WriteEnvelope(w io.Writer, env *report.Envelope) error {
	if s.f == nil {
		return errors.New("encode run envelope: a stream keeps no cases to write again")
	}
	if len(env.Cases) != 0 {
		return errors.New("encode run envelope: the envelope holds cases and the spool holds more")
	}
	s.mu.Lock() // two writes at once (the report and the store's copy) flush once
	err := s.w.Flush()
	size, serr := s.f.Seek(0, io.SeekCurrent)
	s.mu.Unlock()
	if err = cmp.Or(err, serr); err != nil {
		return fmt.Errorf("spool the run's cases: %w", err)
	}
	return writeEnvelope(w, env, s.n, func(w *bufio.Writer) error {
		return copyAhead(w, s.f, size, spoolBlock)
	})
}

// spoolBlock is the size of a block of the spool copyAhead reads.
var spoolBlock = 256 << 10

// copyAhead copies the first size bytes of r to w, block bytes at a
// time, reading on a goroutine of its own up to two blocks ahead of the
// writes: reading the spool and writing the envelope (through the mask
// of every file mcptest writes, on the caller's goroutine) run on two
// cores. Memory: three blocks, each no larger than size.
func copyAhead(w io.Writer, r io.ReaderAt, size int64, block int) error {
	type chunk struct {
		b   []byte
		err error
	}
	if size < int64(block) {
		block = int(max(size, 1)) // a small run's spool in buffers of its size, not 768 kB
	}
	free, full := make(chan []byte, 3), make(chan chunk, 3)
	for range 3 {
		free <- make([]byte, block)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(full)
		for off := int64(0); off < size; {
			var b []byte
			select {
			case b = <-free:
			case <-stop:
				return
			}
			n, err := r.ReadAt(b[:min(int64(block), size-off)], off)
			if err == io.EOF && off+int64(n) == size {
				err = nil
			}
			off += int64(n)
			if err == nil && n == 0 {
				err = io.ErrUnexpectedEOF
			}
			full <- chunk{b[:n], err}
			if err != nil {
				return
			}
		}
	}()
	for c := range full {
		if c.err != nil {
			return fmt.Errorf("read the spooled cases: %w", c.err)
		}
		if _, err := w.Write(c.b); err != nil {
			return err
		}
		free <- c.b[:cap(c.b)]
	}
	return nil
}

// Close closes the spool's file (its name was removed when it was
// created: spoolfile.Create).
func (s *CaseSpool) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}
