package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxStreamBytes bounds an envelope read as a stream (CaseReader): memory
// does not grow with it, only the time the read takes.
const MaxStreamBytes = 16 << 30

// CaseReader reads a run envelope as a stream: its cases one at a time,
// each decoded and checked as Read checks it, and the rest of the envelope
// (its head: every field but cases, wherever it stands in the document)
// once the cases are read. It holds one case and the head, never the
// cases, so reading an envelope of any number of cases takes the same
// memory. The head is decoded as Read decodes it (encoding/json's rules:
// keys matched without regard to case, the last of a key given twice
// wins), refused for another schema_version and checked as
// Envelope.Check checks a head.
//
// The document's structure (its braces, brackets, commas, colons and
// member names) is read by a scanner of its own that finds where each
// value ends without decoding it: a case's bytes are handed on as they
// are (NextRaw) and decoded, which checks them, by Decode; a member of the
// head is checked when the head is decoded. A misplaced character is
// named by its line and column in the file.
type CaseReader struct {
	name string
	src  io.Reader
	// buf[pos:] is read and not yet scanned; rerr is the error the source
	// gave once buf is drained.
	buf  []byte
	pos  int
	rerr error
	// line and lineAt place the scan: the lines before buf[pos] and the
	// offset, in the file, of the first byte of the current line; off is
	// the file's offset of buf[0].
	line   int
	lineAt int64
	off    int64
	// head is the head's fields read so far, as a JSON object's members.
	head bytes.Buffer
	// inCases is set while the cases array is being read; done once the
	// document's closing brace was read.
	inCases, done, sawCases bool
	// first is set before the first case of the array is read.
	first bool
	// part is set on a reader of part of the cases (CasesFrom): it stops
	// at their closing bracket.
	part bool
	n    int
	env  *Envelope
	// seen holds the head's member names read so far, lower-cased.
	seen map[string]bool
	// badCases says cases is neither an array nor null.
	badCases error
	// file is the file the reader reads, read again from its start to
	// place a text that is not JSON (Place); nil when the source cannot
	// be read again. located is that error, found once.
	file      io.ReaderAt
	placeOnce sync.Once
	located   error
	// checkJSON is set on Locate's reader: each value is checked to be
	// JSON as it is scanned, and none is held to the decode budget.
	checkJSON bool

	// Unmarshal decodes a case for Decode: encoding/json's Unmarshal
	// when nil, or one that decodes what it decodes to the same value
	// and refuses what it refuses, with its error (report/envstream's).
	Unmarshal func(data []byte, c *CaseResult) error
}

// chunk is how much the reader asks its source for at a time.
const chunk = 64 << 10

// NewCaseReader starts reading the envelope r holds, named name in errors,
// and reads its members up to its cases. Where r is a file (or a limit in
// front of one), a text that is not JSON is placed by Locate (Place).
func NewCaseReader(r io.Reader, name string) (*CaseReader, error) {
	cr := &CaseReader{name: name, src: io.LimitReader(r, MaxStreamBytes), buf: make([]byte, 0, chunk)}
	cr.file, _ = readerAt(r)
	if err := cr.start(); err != nil {
		return nil, cr.Place(err)
	}
	return cr, nil
}

// start reads the document's opening brace and its members up to its
// cases.
func (cr *CaseReader) start() error {
	c, err := cr.nonSpace()
	if errors.Is(err, io.EOF) {
		return cr.syntax("a JSON object")
	}
	if err != nil {
		return err
	}
	if c != '{' {
		return cr.syntax("a JSON object")
	}
	cr.advance(1)
	return cr.members(true)
}

// Place is err, or, when the envelope is not JSON and the reader can
// read its file again, Locate's error for the file, as Placed gives it:
// the one every reader of an envelope gives for it, whatever this one met
// first (a case over the decode budget too: the budget holds JSON, and
// Read refuses a text that is not JSON for that). It is found once for
// the reader, whichever goroutine asks first.
func (cr *CaseReader) Place(err error) error {
	if err == nil || cr.file == nil {
		return err
	}
	cr.placeOnce.Do(func() { cr.located = Locate(cr.file, cr.name) })
	if cr.located != nil {
		return cr.located
	}
	return err
}

// fill reads more of the source into buf, keeping buf[pos:]; it returns
// the source's error once nothing more came.
func (cr *CaseReader) fill() error {
	if cr.rerr != nil {
		return cr.rerr
	}
	if cr.pos > 0 {
		n := copy(cr.buf, cr.buf[cr.pos:])
		cr.off += int64(cr.pos)
		cr.buf = cr.buf[:n]
		cr.pos = 0
	}
	if cap(cr.buf)-len(cr.buf) < chunk/2 {
		cr.buf = append(cr.buf, make([]byte, chunk)...)[:len(cr.buf)]
	}
	for {
		n, err := cr.src.Read(cr.buf[len(cr.buf):cap(cr.buf)])
		cr.buf = cr.buf[:len(cr.buf)+n]
		if err != nil {
			cr.rerr = err
		}
		if n > 0 {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// advance consumes n scanned bytes, counting their lines.
func (cr *CaseReader) advance(n int) {
	b := cr.buf[cr.pos : cr.pos+n]
	if k := bytes.Count(b, []byte{'\n'}); k > 0 {
		cr.line += k
		cr.lineAt = cr.off + int64(cr.pos+bytes.LastIndexByte(b, '\n')+1)
	}
	cr.pos += n
}

// at names where the scan stands: line:col in the file.
func (cr *CaseReader) at() string {
	line, col := cr.lineCol()
	return fmt.Sprintf("%d:%d", line, col)
}

// lineCol is where the scan stands: the 1-based line and column (in
// bytes) in the file.
func (cr *CaseReader) lineCol() (int, int64) {
	return cr.line + 1, cr.off + int64(cr.pos) - cr.lineAt + 1
}

// checkBudget is CheckBudget of raw, the case of index i (a member of the
// head for -1), read from line and col of the file on: its error is
// placed where the budget runs out.
func (cr *CaseReader) checkBudget(i int, raw []byte, line int, col int64) error {
	if cr.checkJSON {
		return nil
	}
	err := overBudget(raw)
	if err == nil {
		return nil
	}
	err.What, err.Placed = "a member of the envelope's head", true
	if i >= 0 {
		err.What = "cases[" + strconv.Itoa(i) + "]"
	}
	before := raw[:err.At]
	if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 {
		line, col = line+bytes.Count(before, []byte{'\n'}), int64(len(before)-nl)
	} else {
		col += int64(len(before))
	}
	return fmt.Errorf("%s:%d:%d: %w", cr.name, line, col, err)
}

// syntax is a misplaced character (or the end of the file) where want
// was expected.
func (cr *CaseReader) syntax(want string) error {
	got := "the end of the file"
	if cr.pos < len(cr.buf) {
		got = fmt.Sprintf("%q", cr.buf[cr.pos])
	}
	if errors.Is(cr.rerr, io.EOF) || cr.rerr == nil || cr.pos < len(cr.buf) {
		line, col := cr.lineCol()
		return &syntaxError{name: cr.name, line: line, col: col, off: cr.Offset(), what: fmt.Sprintf("want %s, got %s", want, got)}
	}
	return fmt.Errorf("%s: not a run envelope: %w", cr.name, cr.rerr)
}

// nonSpace skips white space and returns the next byte, unconsumed.
func (cr *CaseReader) nonSpace() (byte, error) {
	for {
		for cr.pos < len(cr.buf) {
			switch c := cr.buf[cr.pos]; c {
			case ' ', '\t', '\r':
				cr.pos++
			case '\n':
				cr.pos++
				cr.line++
				cr.lineAt = cr.off + int64(cr.pos)
			default:
				return c, nil
			}
		}
		if err := cr.fill(); err != nil {
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
		}
	}
}

// expect consumes the next byte past white space, which must be one of
// set; what names set in the error.
func (cr *CaseReader) expect(set, what string) (byte, error) {
	c, err := cr.nonSpace()
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	if err != nil || strings.IndexByte(set, c) < 0 {
		return 0, cr.syntax(what)
	}
	cr.advance(1)
	return c, nil
}

// value scans the next value past white space and appends its bytes to
// dst: a string up to its closing quote, an object or array up to its
// closing bracket, anything else up to the next delimiter. What it holds
// is not checked here (but by Locate's reader, checkedValue): the value
// is decoded, and so checked, where it is used.
func (cr *CaseReader) value(dst []byte) ([]byte, error) {
	if cr.checkJSON {
		return cr.checkedValue(dst)
	}
	raw, err := cr.scanValue(dst)
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// checkedValue is value for Locate: the value scanned is checked to be
// JSON.
func (cr *CaseReader) checkedValue(dst []byte) ([]byte, error) {
	if _, err := cr.nonSpace(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	from, start := len(dst), cr.Offset()
	out, err := cr.scanValue(dst)
	switch {
	case err == nil:
		err = cr.checkValue(out[from:], start)
	case out != nil:
		// The file ends within the value: the first place where what
		// was read of it stops being JSON (the end of the file, where
		// it is JSON up to there, as the scan says).
		if e := cr.checkValue(out[from:], start); e != nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanValue is value unchecked.
func (cr *CaseReader) scanValue(dst []byte) ([]byte, error) {
	c, err := cr.nonSpace()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err != nil || c == ',' || c == ':' || c == '}' || c == ']' {
		return nil, cr.syntax("a value")
	}
	var st scanState
	for {
		b := cr.buf[cr.pos:]
		i, end := st.scan(b)
		dst = append(dst, b[:i]...)
		cr.advance(i)
		if end {
			return dst, nil
		}
		if err := cr.fill(); err != nil {
			if errors.Is(err, io.EOF) && st.depth == 0 && !st.inString {
				return dst, nil // a literal at the end of the file
			}
			if errors.Is(err, io.EOF) {
				// what was read of the value goes with the error, for
				// checkedValue
				return dst, cr.syntax("the rest of the value")
			}
			return nil, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
		}
	}
}

// scanState is where a value's scan stands between reads.
type scanState struct {
	depth             int
	inString, escaped bool
}

// scan reads b as the next bytes of a value: how many belong to it, and
// whether the value ends there. Within an object or array it reads eight
// bytes at a time where it can (words); else a byte, or a string to its
// next quote or backslash (quoteOrBackslash), at a time (bytes).
func (st *scanState) scan(b []byte) (int, bool) {
	for i := 0; i < len(b); {
		lim := i + 1
		if st.depth > 0 && !st.escaped && i+8 <= len(b) {
			if i = st.words(b, i); i+8 > len(b) {
				continue
			}
			lim = i + 8
		} else if st.inString && !st.escaped {
			lim = len(b)
		}
		n, end := st.bytes(b[:lim], i)
		if end {
			return n, true
		}
		i = n
	}
	return len(b), false
}

// words reads b from i, within an object or array and not after a
// backslash, eight bytes at a time while they hold no backslash and no
// bracket outside a string that could close the value: such bytes change
// only inString and depth, by the quotes and brackets they hold. It
// returns where it stopped: the bytes from there are to be read one at a
// time.
func (st *scanState) words(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	const lows = 0x7f7f7f7f7f7f7f7f
	depth, in := st.depth, st.inString
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// each byte's high bit set where it is zero, exactly (no borrow
		// from one byte into the next)
		e := x ^ (ones * '\\')
		if ^((e&lows+lows)|e)&highs != 0 {
			break
		}
		q := x ^ (ones * '"')
		q = ^((q&lows + lows) | q) & highs
		// The high bit of each byte of p: whether a string is open after
		// that byte (its quotes up to it counted modulo 2, a prefix XOR,
		// from in before the first).
		p := q ^ q<<8
		p ^= p << 16
		p ^= p << 32
		if in {
			p ^= highs
		}
		l := x | ones*0x20 // '[' is '{' and ']' is '}' with bit 0x20 set
		o, c := l^(ones*'{'), l^(ones*'}')
		o = ^((o&lows + lows) | o) & highs &^ p
		c = ^((c&lows + lows) | c) & highs &^ p
		if o|c != 0 {
			closes := bits.OnesCount64(c)
			if closes >= depth {
				break
			}
			depth += bits.OnesCount64(o) - closes
		}
		in = p>>63 != 0
	}
	st.depth, st.inString = depth, in
	return i
}

// bytes reads b from i as scan does, a byte at a time but for a string
// crossed to its next quote or backslash at once: where it stopped, and
// whether the value ends there.
func (st *scanState) bytes(b []byte, i int) (int, bool) {
	for i < len(b) {
		if st.inString {
			if st.escaped {
				st.escaped = false
				i++
				continue
			}
			k := quoteOrBackslash(b[i:])
			if k < 0 {
				return len(b), false
			}
			i += k
			if b[i] == '\\' {
				st.escaped = true
				i++
				continue
			}
			st.inString = false
			i++
			if st.depth == 0 {
				return i, true
			}
			continue
		}
		switch b[i] {
		case '"':
			st.inString = true
		case '{', '[':
			st.depth++
		case '}', ']':
			if st.depth == 0 { // a literal ends here
				return i, true
			}
			st.depth--
			if st.depth == 0 {
				return i + 1, true
			}
		case ' ', '\t', '\r', '\n', ',', ':':
			if st.depth == 0 {
				return i, true
			}
		}
		i++
	}
	return len(b), false
}

// key reads a member name and its colon.
func (cr *CaseReader) key() (string, error) {
	c, err := cr.nonSpace()
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if err != nil || c != '"' {
		return "", cr.syntax("a member name")
	}
	col := cr.at()
	raw, err := cr.value(nil)
	if err != nil {
		return "", err
	}
	var key string
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) && !rawControl(raw) {
		key = string(raw[1 : len(raw)-1])
	} else if err := json.Unmarshal(raw, &key); err != nil {
		return "", fmt.Errorf("%s:%s: not a run envelope: member name: %w", cr.name, col, err)
	}
	if _, err := cr.expect(":", "':' after a member name"); err != nil {
		return "", err
	}
	return key, nil
}

// rawControl reports a byte a JSON string may not hold raw.
func rawControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// members reads the object's members into the head until the cases array
// opens (inCases) or the object closes (done). first is set when no member
// was read yet.
func (cr *CaseReader) members(first bool) error {
	for {
		if first {
			c, err := cr.nonSpace()
			if err == nil && c == '}' {
				cr.advance(1)
				return cr.end()
			}
		} else {
			c, err := cr.expect(",}", "',' or '}' after a member")
			if err != nil {
				return err
			}
			if c == '}' {
				return cr.end()
			}
		}
		first = false
		key, err := cr.key()
		if err != nil {
			return err
		}
		if strings.EqualFold(key, "cases") {
			if cr.sawCases && !cr.checkJSON { // Locate reads on, for JSON
				return fmt.Errorf("%s: not a run envelope: cases is given twice", cr.name)
			}
			cr.sawCases = true
			c, err := cr.nonSpace()
			if err == nil && c == '[' {
				cr.advance(1)
				cr.inCases, cr.first = true, true
				return nil
			}
			raw, err := cr.value(nil)
			if err != nil {
				return err
			}
			if !json.Valid(raw) {
				var v any
				return fmt.Errorf("%s: not a run envelope: cases: %w", cr.name, json.Unmarshal(raw, &v))
			}
			if string(raw) == "null" { // "cases": null holds no case
				continue
			}
			// Not an array: an envelope of this schema_version is refused
			// for it (Envelope); a baseline of another one is read for its
			// head alone, as baseline.ReadBaseline reads it.
			cr.badCases = fmt.Errorf("%s: not a run envelope: cases: want an array, got %.40s", cr.name, raw)
			continue
		}
		if cr.head.Len() > 0 {
			cr.head.WriteByte(',')
		}
		if cr.seen == nil {
			cr.seen = map[string]bool{}
		}
		cr.seen[strings.ToLower(key)] = true
		k, _ := json.Marshal(key)
		cr.head.Write(k)
		cr.head.WriteByte(':')
		cr.nonSpace() // where the value starts: value meets an error itself
		line, col := cr.lineCol()
		raw, err := cr.value(cr.head.AvailableBuffer())
		if err != nil {
			return err
		}
		if err := cr.checkBudget(-1, raw, line, col); err != nil {
			return err
		}
		cr.head.Write(raw)
	}
}

// end checks that nothing but white space follows the closing brace.
func (cr *CaseReader) end() error {
	cr.done = true
	if _, err := cr.nonSpace(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		line, col := cr.lineCol()
		return &syntaxError{name: cr.name, line: line, col: col, off: cr.Offset(), what: "data after the envelope's closing brace"}
	}
	return nil
}

// NextRaw returns the next case's JSON, undecoded and unchecked (Decode
// checks it), and io.EOF after the last one; the head is then read
// (Envelope).
func (cr *CaseReader) NextRaw() (json.RawMessage, error) {
	return cr.AppendRaw(nil)
}

// AppendRaw is NextRaw appending the next case's JSON to dst: it returns
// dst with the case after it (a reader of many cases reuses one buffer),
// or nil and the error (io.EOF after the last case).
func (cr *CaseReader) AppendRaw(dst []byte) ([]byte, error) {
	raw, err := cr.appendRaw(dst)
	if err != nil && err != io.EOF {
		return nil, cr.Place(err)
	}
	return raw, err
}

func (cr *CaseReader) appendRaw(dst []byte) ([]byte, error) {
	if !cr.inCases {
		return nil, io.EOF
	}
	want, what := ",]", "',' or ']' after a case"
	if cr.first {
		want, what = "{[\"-0123456789tfn]", "a case or ']'"
	}
	c, err := cr.nonSpace()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err != nil || strings.IndexByte(want, c) < 0 {
		return nil, cr.syntax(what)
	}
	if c == ']' {
		cr.advance(1)
		cr.inCases = false
		if cr.part {
			return nil, io.EOF
		}
		if err := cr.members(false); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	if !cr.first {
		cr.advance(1) // the comma
	}
	cr.first = false
	raw, _, err := cr.nextCase(dst, nil)
	return raw, err
}

// nextCase reads the case that starts where the scan stands (past its
// separator) onto dst: the bytes of want when it is given and the text
// starts with them, else the value scanned. Every case the reader hands
// out comes through here and is held to the decode budget, taken or
// scanned: a text the budget refuses is refused whichever way it was
// read (a case of --compare's current run once was not, when the
// baseline's case was offered and the text was another). It reports
// whether want was taken.
func (cr *CaseReader) nextCase(dst, want []byte) (raw []byte, taken bool, err error) {
	cr.nonSpace() // where the case starts: value meets an error itself
	line, col := cr.lineCol()
	if taken = want != nil && cr.startsWith(want); taken {
		raw = append(dst, want...)
		cr.advance(len(want))
	} else if raw, err = cr.value(dst); err != nil {
		return nil, false, err
	}
	if err := cr.checkBudget(cr.n, raw[len(dst):], line, col); err != nil {
		return nil, false, err
	}
	cr.n++
	return raw, taken, nil
}

// CasesFrom reads the cases of an envelope from the middle of its cases
// array: r holds the envelope's bytes from offset off on, where a comma
// after a case stands. It reads the cases from there as AppendRaw reads
// them past a case (so, from a comma that does stand after a case, the
// ones the reader of the whole envelope would read next), and stops at
// their closing bracket: AppendRaw then returns io.EOF and the rest of the
// document is left to the reader of the whole envelope (Resume). Its
// errors place lines from off, not from the file's start (a reader of
// the whole envelope, which places them as every reader does, meets
// them again and names them).
func CasesFrom(r io.Reader, name string, off int64) *CaseReader {
	return &CaseReader{name: name, src: io.LimitReader(r, MaxStreamBytes-off), buf: make([]byte, 0, chunk),
		off: off, lineAt: off, inCases: true, part: true}
}

// Resume goes on reading past the cases that part (CasesFrom) read to
// their end, from the offset where cr has read up to (the end of a case):
// cr counts part's cases as its own, places its lines past them as it
// would have, and reads the rest of the document from part's source, as
// AppendRaw reads it past the cases. It returns io.EOF, as AppendRaw past
// the last case, or the error of that read; it refuses a part that did
// not start where cr stands or did not read to the cases' end.
func (cr *CaseReader) Resume(part *CaseReader, from int64) error {
	if !part.part || part.inCases || !cr.inCases || cr.first || cr.Offset() != from {
		return fmt.Errorf("%s: resume the cases' read at offset %d: the read stands at %d", cr.name, from, cr.Offset())
	}
	cr.n += part.n
	cr.line += part.line
	if part.line > 0 {
		cr.lineAt = part.lineAt
	}
	cr.src, cr.buf, cr.pos, cr.off, cr.rerr = part.src, part.buf, part.pos, part.off, part.rerr
	cr.inCases = false
	if err := cr.members(false); err != nil {
		return cr.Place(err)
	}
	return io.EOF
}

// Next returns the next case, decoded and checked (CaseResult.Check), and
// io.EOF after the last one.
func (cr *CaseReader) Next() (*CaseResult, error) {
	raw, err := cr.NextRaw()
	if err != nil {
		return nil, err
	}
	return cr.Decode(cr.n-1, raw)
}

// Decode decodes and checks the i-th case of the envelope from its JSON
// (NextRaw, which held it to the decode budget), as Next does: it may run
// on other goroutines than the reader.
func (cr *CaseReader) Decode(i int, raw json.RawMessage) (*CaseResult, error) {
	at := "cases[" + strconv.Itoa(i) + "]"
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("%s: not a run envelope: %s is null: every case is an object", cr.name, at)
	}
	unmarshal := cr.Unmarshal
	if unmarshal == nil {
		unmarshal = func(data []byte, c *CaseResult) error { return json.Unmarshal(data, c) }
	}
	c := new(CaseResult)
	if err := unmarshal(raw, c); err != nil {
		return nil, cr.Place(fmt.Errorf("%s: not a run envelope: %s: %w", cr.name, at, err))
	}
	if err := c.Check(at); err != nil {
		return nil, cr.Place(fmt.Errorf("%s: not a run envelope: %w", cr.name, err))
	}
	return c, nil
}

// quoteOrBackslash is the index of the first '"' or '\\' of b, -1 for
// none.
func quoteOrBackslash(b []byte) int {
	// The first bytes eight at a time (most strings of an envelope, its
	// names and keys, are short: two calls of IndexByte cost more than
	// they do), a longer string by IndexByte.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b) && i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^('"'*ones), x^('\\'*ones)
		// a byte of q or s that is zero: the lowest flagged is exact
		if t := ((q-ones)&^q | (s-ones)&^s) & highs; t != 0 {
			return i + bits.TrailingZeros64(t)>>3
		}
	}
	if i+8 > len(b) {
		for ; i < len(b); i++ {
			if b[i] == '"' || b[i] == '\\' {
				return i
			}
		}
		return -1
	}
	rest := b[i:]
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		q = len(rest)
	}
	if e := bytes.IndexByte(rest[:q], '\\'); e >= 0 {
		return i + e
	}
	if q == len(rest) {
		return -1
	}
	return i + q
}

// Seen reports whether the head's members read so far include key
// (matched without regard to case, as the decoder matches it): before the
// cases, whether the document puts it ahead of them.
func (cr *CaseReader) Seen(key string) bool { return cr.seen[strings.ToLower(key)] }

// Offset is where the reader stands in the envelope: just past the last
// case NextRaw returned, whose bytes end there in the file.
func (cr *CaseReader) Offset() int64 { return cr.off + int64(cr.pos) }

// Name is the name the reader gives the envelope in errors.
func (cr *CaseReader) Name() string { return cr.name }

// Cases counts the cases read so far.
func (cr *CaseReader) Cases() int { return cr.n }

// Envelope returns the head of the envelope, its Cases nil, once every
// case was read (Next returned io.EOF): decoded, checked, of this
// package's schema_version.
func (cr *CaseReader) Envelope() (*Envelope, error) {
	env, err := cr.envelope()
	if err != nil {
		return nil, cr.Place(err)
	}
	return env, nil
}

func (cr *CaseReader) envelope() (*Envelope, error) {
	if cr.env != nil {
		return cr.env, nil
	}
	if !cr.done {
		return nil, fmt.Errorf("%s: the envelope's head is asked for before its cases were read", cr.name)
	}
	env, err := cr.Head()
	if err != nil {
		return nil, err
	}
	if env.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: run envelope schema_version %d, this mcptest reads %d", cr.name, env.SchemaVersion, SchemaVersion)
	}
	if cr.badCases != nil {
		return nil, cr.badCases
	}
	if err := env.checkHead(); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
	}
	cr.env = env
	return env, nil
}

// EarlyHead is, once the reader stands at the cases (NewCaseReader
// returned), the head as Envelope will return it once they are read,
// where it can be told before them: the document gave every member of a
// run's identity (schema_version, tool, run, suite, verdict, totals)
// before its cases and they pass Envelope's checks. It reports false
// otherwise. A member given again after the cases changes the head
// Envelope returns: a caller that used EarlyHead compares the two.
func (cr *CaseReader) EarlyHead() (*Envelope, bool) {
	if (!cr.inCases && !cr.done) || cr.badCases != nil {
		return nil, false
	}
	for _, k := range []string{"schema_version", "tool", "run", "suite", "verdict", "totals"} {
		if !cr.seen[k] {
			return nil, false
		}
	}
	env, err := cr.Head()
	if err != nil || env.SchemaVersion != SchemaVersion || env.checkHead() != nil {
		return nil, false
	}
	return env, true
}

// Head decodes the head's members read so far, unchecked: before the
// cases, what the document puts first (an envelope this package writes
// puts schema_version, tool, run, source, suite, verdict and totals
// there).
func (cr *CaseReader) Head() (*Envelope, error) {
	var env Envelope
	doc := make([]byte, 0, cr.head.Len()+2)
	doc = append(append(append(doc, '{'), cr.head.Bytes()...), '}')
	if err := json.Unmarshal(doc, &env); err != nil {
		return nil, cr.Place(fmt.Errorf("%s: not a run envelope: %w", cr.name, err))
	}
	env.Cases = nil
	return &env, nil
}

// AppendExpected is AppendRaw told the bytes the next case is expected to
// hold: where they stand next in the envelope (past the separator and
// white space) they are taken after one comparison, without scanning
// them, and it reports true; else the case is scanned as AppendRaw scans
// it. want must be an object's bytes as AppendRaw returned them from an
// envelope (it opens with '{' and its scan ended at its last byte, '}'):
// such bytes are a value whose end the scan finds from them alone, so
// the case taken is the one the scan would find, its end where the
// scan's is. Anything else (nil included) is not taken.
func (cr *CaseReader) AppendExpected(dst, want []byte) ([]byte, bool, error) {
	raw, taken, err := cr.appendExpected(dst, want)
	if err != nil && err != io.EOF {
		return nil, false, cr.Place(err)
	}
	return raw, taken, err
}

func (cr *CaseReader) appendExpected(dst, want []byte) ([]byte, bool, error) {
	if len(want) < 2 || want[0] != '{' || want[len(want)-1] != '}' || !cr.inCases {
		raw, err := cr.appendRaw(dst)
		return raw, false, err
	}
	c, err := cr.nonSpace()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	if err == nil && (c == ',' && !cr.first || c == '{' && cr.first) {
		if !cr.first {
			cr.advance(1) // the comma
		}
		cr.first = false
		return cr.nextCase(dst, want)
	}
	raw, err := cr.appendRaw(dst)
	return raw, false, err
}

// startsWith reads the source until buf holds len(want) bytes past pos,
// or it ends: whether buf[pos:] starts with want.
// It reads on only while what it holds is a prefix of want, so buf grows
// past a chunk only for a case that long.
func (cr *CaseReader) startsWith(want []byte) bool {
	n := len(want)
	for len(cr.buf)-cr.pos < n {
		if !bytes.HasPrefix(want, cr.buf[cr.pos:]) {
			return false
		}
		if cap(cr.buf) < n {
			// fill moves what is left to the front of buf and grows it
			// by a chunk where less than half a chunk is free: grow it
			// to hold n at once.
			grown := make([]byte, len(cr.buf)-cr.pos, n+chunk)
			copy(grown, cr.buf[cr.pos:])
			cr.off += int64(cr.pos)
			cr.buf, cr.pos = grown, 0
		}
		if cr.fill() != nil {
			break
		}
	}
	return bytes.HasPrefix(cr.buf[cr.pos:], want)
}
