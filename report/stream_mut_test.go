package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report/casedraw"
)

// pieces is a source that gives data in drawn pieces, at most max bytes a
// read and now and then none, then io.EOF (with the last piece when
// withEOF is set), or fail in its place: the document cut where it
// failed. A read into an empty buffer would be the reader's bug (it
// learns nothing, and may ask again for ever): it panics. It counts the
// reads asked of it after it returned an error (again), and the fewest
// bytes a read asked for (least).
type pieces struct {
	r       *rand.Rand
	data    []byte
	max     int
	withEOF bool
	fail    error
	ended   bool
	again   int
	least   int
}

func (p *pieces) Read(b []byte) (n int, err error) {
	if len(b) == 0 {
		panic("the reader asked its source for no bytes")
	}
	if p.ended {
		p.again++
	}
	if p.least == 0 || len(b) < p.least {
		p.least = len(b)
	}
	defer func() { p.ended = p.ended || err != nil }()
	end := io.EOF
	if p.fail != nil {
		end = p.fail
	}
	if len(p.data) == 0 {
		return 0, end
	}
	if p.r.IntN(8) == 0 {
		return 0, nil
	}
	n = copy(b, p.data[:min(len(p.data), 1+p.r.IntN(p.max))])
	p.data = p.data[n:]
	if len(p.data) == 0 && p.withEOF {
		return n, end
	}
	return n, nil
}

// spacedEnvelope is the text of an envelope of n drawn cases with drawn
// white space (spaces, tabs, carriage returns and newlines) between its
// members and cases and after each case's opening brace; when long is
// set, some runs of it are longer than the reader's chunk, in a case or
// between two, so that cases and spaces cross many reads, and the
// reader's buffer grows to hold a case longer than it taken as expected
// (AppendExpected).
func spacedEnvelope(r *rand.Rand, n int, long bool) []byte {
	space := func() string {
		switch r.IntN(7) {
		case 0:
			return ""
		case 1:
			return strings.Repeat("\n", 1+r.IntN(4))
		case 2:
			return strings.Repeat(" \t\r\n"[r.IntN(4):], 1+r.IntN(3))
		case 3:
			if long && r.IntN(6) == 0 {
				return strings.Repeat(" ", chunk/2+r.IntN(2*chunk)) + "\n"
			}
		}
		return "\n    "
	}
	var b bytes.Buffer
	b.WriteString("{" + space() + `"schema_version": 1,` + space() + `"tool": {"name": "mcptest", "version": "t"},` + space() +
		`"run": {"id": "r", "mode": "replay", "started_at": "x"},` + space() + `"suite": {"path": "suite.yml", "sha256": "abc"},`)
	b.WriteString(space() + `"cases":` + space() + "[")
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(space())
		var c bytes.Buffer
		casedraw.JSON(r, &c, reflect.TypeFor[CaseResult](), 0, true)
		b.WriteString("{" + space())
		b.Write(c.Bytes()[1:])
	}
	b.WriteString(space() + "]," + space() + `"verdict": "pass",` + space() + `"totals": {"total": 1}` + space() + "}" + space())
	return b.Bytes()
}

// streamRead is what reading an envelope as a stream gave: each case's
// bytes and the file's offset each began at (Offset), whether each was
// taken as the bytes expected (AppendExpected), the head once the cases
// are read, and the first error (io.EOF not counted).
type streamRead struct {
	raws [][]byte
	at   []int64
	took []bool
	// offered is what AppendExpected was told for each case.
	offered [][]byte
	head    *Envelope
	err     error
	grown   bool // the reader's buffer outgrew its first size
}

// readRaws reads the envelope src holds case by case: with NextRaw when
// guess is nil, else with AppendExpected told guess(k) for the k-th case.
func readRaws(src io.Reader, guess func(k int) []byte) streamRead {
	var s streamRead
	cr, err := NewCaseReader(src, "e.json")
	if err != nil {
		s.err = err
		return s
	}
	first := cap(cr.buf)
	for {
		var raw []byte
		took := false
		if guess == nil {
			raw, err = cr.NextRaw()
		} else {
			want := guess(len(s.raws))
			s.offered = append(s.offered, want)
			raw, took, err = cr.AppendExpected(nil, want)
		}
		s.grown = s.grown || cap(cr.buf) > first
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.err = err
			return s
		}
		s.raws = append(s.raws, bytes.Clone(raw))
		s.at = append(s.at, cr.Offset()-int64(len(raw)))
		s.took = append(s.took, took)
	}
	s.head, s.err = cr.Envelope()
	return s
}

// placed matches an error that names a place: the file, line and column.
var placed = regexp.MustCompile(`^e\.json:(\d+):(\d+): not a run envelope: (.*)$`)

// checkPlace holds an error that names its place to the text: the byte it
// says it got stands at that line and column (1-based, the column in
// bytes), the end of the file is the end of data, and data after the
// envelope's closing brace begins there. It reports whether err named a
// place.
func checkPlace(t *testing.T, round int, data []byte, err error) bool {
	t.Helper()
	m := placed.FindStringSubmatch(err.Error())
	if m == nil {
		return false
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	off := 0
	for range line - 1 {
		k := bytes.IndexByte(data[off:], '\n')
		if k < 0 {
			t.Fatalf("round %d: %v: the text has fewer lines", round, err)
		}
		off += k + 1
	}
	off += col - 1
	if k := bytes.IndexByte(data[min(off-col+1, len(data)):], '\n'); off > len(data) || k >= 0 && off > off-col+1+k {
		t.Fatalf("round %d: %v: no such column on that line", round, err)
	}
	msg := m[3]
	switch _, got, _ := strings.Cut(msg, ", got "); {
	case got == "the end of the file":
		if off != len(data) {
			t.Fatalf("round %d: %v: the end of the file is at offset %d, not %d", round, err, len(data), off)
		}
	case strings.HasPrefix(got, "'"):
		c, uerr := strconv.Unquote(got)
		if uerr != nil || off >= len(data) || string(data[off]) != c && fmt.Sprintf("%q", data[off]) != got {
			t.Fatalf("round %d: %v: the byte there is %q", round, err, data[min(off, len(data)-1)])
		}
	case strings.HasPrefix(msg, "data after"):
		if off >= len(data) || bytes.IndexByte([]byte(" \t\r\n"), data[off]) >= 0 {
			t.Fatalf("round %d: %v: at offset %d of %d", round, err, off, len(data))
		}
	}
	return true
}

// TestCaseReaderReadsInPieces holds the streamed read of an envelope to
// reading it whole, over drawn envelopes of up to a few hundred drawn
// cases with drawn white space between and in them (some runs longer than
// the reader's chunk of 64 KiB), a third of them mutated (casedraw), read
// from a source that gives drawn pieces of 1 byte to three chunks, now and
// then nothing, and its end with the last bytes or after them:
//   - the same cases' bytes, each found at the offset Offset gives, the
//     same head, and the same error (the same words, line and column);
//   - what encoding/json's Read reads, the reader reads to the same cases
//     and head, and what Read refuses it refuses;
//   - an error that names a place names the byte it got there (line and
//     column counted across reads), or the end of the file;
//   - the reader's buffer keeps its first size where no case nears a
//     quarter of it (it is compacted, not grown);
//   - a source that fails before the end fails the read with its error;
//   - the source is never asked again once it failed or ended, nor asked
//     for less than half a chunk.
func TestCaseReaderReadsInPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 45))
	rounds := 240
	if testing.Short() {
		rounds = 150
	}
	var placedErrs, grown, failed, taken int
	for round := range rounds {
		n := r.IntN(40)
		if round%5 == 0 {
			n = 100 + r.IntN(300)
		}
		big := round%4 == 1
		data := spacedEnvelope(r, n, big)
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		// a reader, not a file: the scan's own errors (Locate's are
		// TestNotJSONPlacedAlike's)
		want := readRaws(scanOnly{bytes.NewReader(data)}, nil)
		guess := func(k int) []byte { // mostly the case itself, as the comparison's guesser
			switch d := r.IntN(8); {
			case k >= len(want.raws) || d == 0:
				return nil
			case d == 1:
				return want.raws[r.IntN(len(want.raws))]
			}
			return want.raws[k]
		}
		for pass, g := range []func(int) []byte{nil, guess} {
			p, k, gr := readInPieces(t, r, round, data, want, g)
			placedErrs += p * (1 - pass)
			taken += k
			grown += gr
		}
		checkIsRead(t, round, data, &pieces{r: r, data: data, max: 1 + r.IntN(3*chunk), withEOF: r.IntN(2) == 0})
		failed += readFailing(t, r, round, data, want)
	}
	t.Logf("%d errors placed, %d reads that grew the buffer, %d cases taken as expected, %d failing sources", placedErrs, grown, taken, failed)
	if placedErrs < rounds/10 || grown == 0 || taken < rounds || failed < rounds/3 {
		t.Fatalf("the draw is lopsided: %d errors placed, %d grown, %d taken, %d failing", placedErrs, grown, taken, failed)
	}
}

// readInPieces reads data from a source of drawn pieces, with NextRaw
// when guess is nil, else with AppendExpected told guess(k) for the k-th
// case, and holds the read to want, the read of the whole text (see
// TestCaseReaderReadsInPieces). It returns 1 for an error that names its
// place (0 else), the cases taken as expected, and 1 when the reader's
// buffer grew.
func readInPieces(t *testing.T, r *rand.Rand, round int, data []byte, want streamRead, guess func(int) []byte) (placedErr, taken, grown int) {
	t.Helper()
	src := &pieces{r: r, data: data, max: 1 + r.IntN(3*chunk), withEOF: r.IntN(2) == 0}
	if r.IntN(4) == 0 {
		src.max = 1 + r.IntN(64)
	}
	got := readRaws(src, guess)
	checkSameRead(t, round, data, want, got)
	checkAsked(t, round, src)
	if got.err != nil && checkPlace(t, round, data, got.err) {
		placedErr = 1
	}
	longest := 0
	for k, raw := range got.raws {
		longest = max(longest, len(raw))
		if guess == nil {
			continue
		}
		if got.took[k] {
			taken++
		} else if bytes.Equal(got.offered[k], raw) && len(raw) >= 2 && raw[0] == '{' && raw[len(raw)-1] == '}' {
			t.Fatalf("round %d: case %d, told its own bytes, was not taken: %q", round, k, raw[max(0, len(raw)-40):])
		}
	}
	if got.grown && longest < chunk/4 {
		t.Fatalf("round %d: the reader's buffer grew though no case is longer than %d bytes", round, longest)
	}
	if got.grown {
		grown = 1
	}
	return placedErr, taken, grown
}

// errBoom is the error of a source that fails.
var errBoom = errors.New("boom")

// readFailing reads data from sources that fail, and holds the reads to
// want, the read of the whole text. A source that gives the text cut
// before its end, then fails, fails the read of a text read whole with
// its error. A source that gives the whole text and fails with its last
// piece fails the read with the whole read's error where that names a
// byte of the text (the reader read it before the failure) or is the
// head's, else with its own error. It returns the reads of a cut text.
func readFailing(t *testing.T, r *rand.Rand, round int, data []byte, want streamRead) (cut int) {
	t.Helper()
	src := &pieces{r: r, data: data, max: 1 + r.IntN(chunk), withEOF: true, fail: errBoom}
	got := readRaws(src, nil)
	checkAsked(t, round, src)
	switch {
	case want.err != nil && got.err != nil && got.err.Error() == want.err.Error():
	case errors.Is(got.err, errBoom) && (want.err == nil || !strings.Contains(want.err.Error(), ", got '") && !strings.Contains(want.err.Error(), "data after")):
	default:
		t.Fatalf("round %d: the whole text, the source failing with its last piece: %v; read whole: %v", round, got.err, want.err)
	}
	if want.err != nil {
		return 0
	}
	at := r.IntN(len(data))
	src = &pieces{r: r, data: data[:at], max: 1 + r.IntN(chunk), fail: errBoom}
	got = readRaws(src, nil)
	checkAsked(t, round, src)
	if !errors.Is(got.err, errBoom) {
		t.Fatalf("round %d: a source failing after %d of %d bytes: %v", round, at, len(data), got.err)
	}
	return 1
}

// checkAsked holds a reader to what it asked of its source src: never a
// read once the source returned an error (io.EOF included: a source that
// failed or ended is not asked again), and never fewer than half a chunk
// (the buffer is compacted, and grown by a chunk where less than half a
// chunk is free, so that a read is never a small one).
func checkAsked(t *testing.T, round int, src *pieces) {
	t.Helper()
	if src.again > 0 {
		t.Fatalf("round %d: the source was asked %d more times after it returned an error", round, src.again)
	}
	if src.least < chunk/2 {
		t.Fatalf("round %d: the source was asked for %d bytes, less than half a chunk", round, src.least)
	}
}

// checkSameRead holds a read in pieces (got) to the read of the whole
// text (want): the same cases, each at its offset, head and error.
func checkSameRead(t *testing.T, round int, data []byte, want, got streamRead) {
	t.Helper()
	if fmt.Sprint(got.err) != fmt.Sprint(want.err) || len(got.raws) != len(want.raws) {
		t.Fatalf("round %d: read in pieces: %d cases then %v; whole: %d cases then %v", round, len(got.raws), got.err, len(want.raws), want.err)
	}
	for k, raw := range got.raws {
		if !bytes.Equal(raw, want.raws[k]) || got.at[k] != want.at[k] {
			t.Fatalf("round %d: case %d read in pieces at %d, whole at %d:\n%q\n%q", round, k, got.at[k], want.at[k], raw, want.raws[k])
		}
		if got.took[k] && !bytes.Equal(raw, want.raws[k]) {
			t.Fatalf("round %d: case %d taken as expected, and not the case", round, k)
		}
		if at := got.at[k]; at < 0 || int(at)+len(raw) > len(data) || !bytes.Equal(data[at:int(at)+len(raw)], raw) {
			t.Fatalf("round %d: case %d is not the text's bytes at its offset %d", round, k, at)
		}
	}
	if !reflect.DeepEqual(got.head, want.head) {
		t.Fatalf("round %d: the head read in pieces differs:\n%+v\n%+v", round, got.head, want.head)
	}
}

// checkIsRead holds a read in pieces from src, decoding each case
// (Next), to encoding/json's Read of data: what Read reads it reads to the
// same cases and head, or refuses for cases given twice or data after the
// envelope (as TestCaseReaderIsRead); what Read refuses it refuses.
func checkIsRead(t *testing.T, round int, data []byte, src io.Reader) {
	t.Helper()
	want, werr := Read(bytes.NewReader(data), "e.json")
	got, gerr := readStreamFrom(src)
	switch {
	case werr != nil && gerr == nil:
		t.Fatalf("round %d: the stream read what Read refuses (%v)", round, werr)
	case werr == nil && gerr != nil && !strings.Contains(gerr.Error(), "cases is given twice") && !strings.Contains(gerr.Error(), "data after the envelope's closing brace"):
		t.Fatalf("round %d: the stream refused what Read reads: %v", round, gerr)
	case werr == nil && gerr == nil:
		if len(want.Cases) == 0 {
			want.Cases = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: read in pieces, the stream read other cases or another head than Read", round)
		}
	}
}

// readStreamFrom is readStream from the source src.
func readStreamFrom(src io.Reader) (*Envelope, error) {
	cr, err := NewCaseReader(src, "e.json")
	if err != nil {
		return nil, err
	}
	var cases []*CaseResult
	for {
		c, err := cr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	env, err := cr.Envelope()
	if err != nil {
		return nil, err
	}
	out := *env
	out.Cases = cases
	return &out, nil
}

// scanOnly is a source that is not a file (no ReadAt): the case stream
// cannot read it again, and its errors are its scan's own.
type scanOnly struct{ io.Reader }
