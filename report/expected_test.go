package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report/casedraw"
)

// drawValue draws a JSON value rich in what the case reader's scan looks
// at: strings holding escaped quotes and backslashes and brackets,
// nested objects and arrays, numbers and literals; now and then a long
// string, past the reader's chunk.
func drawValue(r *rand.Rand, depth int) string {
	switch k := r.IntN(8); {
	case k < 2 && depth < 4:
		var b strings.Builder
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString([]string{",", ", ", ",\n  "}[r.IntN(3)])
			}
			fmt.Fprintf(&b, "%s:%s", drawString(r), drawValue(r, depth+1))
		}
		b.WriteByte('}')
		return b.String()
	case k < 3 && depth < 4:
		var b strings.Builder
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(drawValue(r, depth+1))
		}
		b.WriteByte(']')
		return b.String()
	case k < 6:
		return drawString(r)
	case k < 7:
		return []string{"true", "false", "null"}[r.IntN(3)]
	}
	return fmt.Sprint(r.IntN(100000) - 500)
}

func drawString(r *rand.Rand) string {
	parts := []string{`\"`, `\\`, "{", "}", "[", "]", ",", "a", "é", `\u005d`, " ", ":"}
	var b strings.Builder
	b.WriteByte('"')
	if r.IntN(500) == 0 {
		b.WriteString(strings.Repeat("z", chunk+r.IntN(3*chunk)))
	}
	for range r.IntN(12) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	b.WriteByte('"')
	return b.String()
}

// drawCase is a case: mostly an object, now and then another value
// (which a baseline may hold, and AppendExpected does not take) or the
// shortest object, {}.
func drawCase(r *rand.Rand) string {
	switch r.IntN(30) {
	case 0, 1:
		return drawValue(r, 4)
	case 2:
		return "{}"
	}
	return fmt.Sprintf(`{"name":"c%d","x":%s}`, r.IntN(1000), drawValue(r, 1))
}

// envelopeOf writes cases as an envelope's cases array, with drawn white
// space around their separators.
func envelopeOf(r *rand.Rand, cases []string) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"schema_version\": 1,\n  \"cases\": [")
	for i, c := range cases {
		if i > 0 {
			b.WriteString([]string{",", ",\n    ", " , ", "\n,"}[r.IntN(4)])
		}
		b.WriteString([]string{"", "\n    ", " "}[r.IntN(3)])
		b.WriteString(c)
	}
	b.WriteString("\n  ],\n  \"tool\": {\"name\": \"mcptest\"}\n}\n")
	return b.Bytes()
}

// chunked is a source read in drawn sizes, as a file or a pipe gives
// it, so a case crosses the reader's buffer at every place.
type chunked struct {
	r   *rand.Rand
	b   []byte
	max int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.r.IntN(c.max))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// TestAppendExpectedIsAppendRaw draws a baseline's cases and a current
// run's made from them (the same case, one byte changed at a drawn place,
// cut short at a drawn place, another case, a case of its own), read
// through sources of drawn read sizes, and reads the current run twice:
// by AppendRaw, and by AppendExpected told a drawn case of the baseline
// as AppendRaw read it (mostly the one the current case was made from,
// now and then cut short), and once more past the end. Now and then a
// case holds a flood over the decode budget (casedraw.Floods), told the
// case it was made from: AppendExpected refused it only where AppendRaw
// read it, and handed it on where the expected case was not taken.
// Every step gives the same bytes or the same error, at the same offset
// and count; a case is taken exactly when it is the expected bytes of an
// object; the head after the cases is the same. A wrong
// AppendExpected (one that took a prefix, or skipped the separator's
// checks, or a case across a buffer's end) fails it.
func TestAppendExpectedIsAppendRaw(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 29))
	var floods []string
	for _, f := range casedraw.Floods(1.5, 40, DecodeCost) {
		floods = append(floods, f)
	}
	slices.Sort(floods)
	var took, offered, flooded int
	for n := range 1500 {
		base := make([]string, 1+r.IntN(8))
		for i := range base {
			base[i] = drawCase(r)
		}
		wants := readCases(t, &chunked{r, envelopeOf(r, base), 1 + r.IntN(300)})
		cur, from := drawCurrent(r, base)
		if n%50 == 7 && plantFlood(r, cur, floods) {
			flooded++
		}
		doc := envelopeOf(r, cur)
		if r.IntN(6) == 0 { // cut short anywhere
			doc = doc[:r.IntN(len(doc))]
		}
		plain, err1 := NewCaseReader(&chunked{r, doc, 1 + r.IntN(200)}, "cur.json")
		told, err2 := NewCaseReader(&chunked{r, doc, 1 + r.IntN(200)}, "cur.json")
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("draw %d: %v, %v", n, err1, err2)
		}
		if err1 != nil {
			continue
		}
		for k := 0; ; k++ {
			var want []byte
			switch j := r.IntN(10); {
			case j < 6 && k < len(from):
				want = wants[from[k]]
			case j < 7 && k < len(from): // cut short: no object's bytes
				want = cutShort(r, wants[from[k]])
			case j < 9:
				want = wants[r.IntN(len(wants))]
			}
			ok, done := stepBoth(t, plain, told, want, fmt.Sprintf("draw %d, case %d", n, k))
			if len(want) > 0 && want[0] == '{' {
				offered++
			}
			if ok {
				took++
			}
			if done {
				break
			}
		}
		// Past the cases (or an error), told the case it last read.
		stepBoth(t, plain, told, wants[0], fmt.Sprintf("draw %d, past the end", n))
		h1, e1 := plain.Head()
		h2, e2 := told.Head()
		if fmt.Sprint(e1) != fmt.Sprint(e2) || fmt.Sprint(h1) != fmt.Sprint(h2) {
			t.Fatalf("draw %d: heads %v %v, %v %v", n, h1, e1, h2, e2)
		}
	}
	if flooded < 10 {
		t.Fatalf("%d draws hold a flood", flooded)
	}
	if took < offered/4 || took == offered {
		t.Fatalf("%d of %d offered cases taken: the draws do not exercise both ways", took, offered)
	}
	t.Logf("%d of %d offered cases taken", took, offered)
}

// plantFlood puts a drawn flood into a drawn case of cur (its first
// member), when that case is an object: the case told for it is still
// the one it was made from, not the flood.
func plantFlood(r *rand.Rand, cur, floods []string) bool {
	i := r.IntN(len(cur))
	c := cur[i]
	if !strings.HasPrefix(c, "{") || !strings.HasSuffix(c, "}") {
		return false
	}
	sep := ","
	if strings.TrimSpace(c[1:len(c)-1]) == "" {
		sep = ""
	}
	cur[i] = `{"x_flood":` + floods[r.IntN(len(floods))] + sep + c[1:]
	return true
}

// cutShort cuts want at a drawn place where what is left does not end
// in '}'. (A prefix that does is no value either, but AppendExpected,
// which looks at the first and last bytes alone, is not told such bytes:
// a caller tells it what AppendRaw read.)
func cutShort(r *rand.Rand, want []byte) []byte {
	p := r.IntN(len(want))
	for p > 0 && want[p-1] == '}' {
		p--
	}
	return want[:p]
}

// readCases reads an envelope's cases by AppendRaw.
func readCases(t *testing.T, src io.Reader) [][]byte {
	t.Helper()
	cr, err := NewCaseReader(src, "base.json")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		raw, err := cr.NextRaw()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("the baseline: %v", err)
		}
		out = append(out, raw)
	}
}

// drawCurrent makes a current run's cases from the baseline's: each
// kept, changed at a drawn byte, cut short, drawn again or given twice;
// from says which baseline case each was made from.
func drawCurrent(r *rand.Rand, base []string) (cur []string, from []int) {
	for i, c := range base {
		switch k := r.IntN(10); {
		case k < 5:
		case k < 7: // one byte changed
			p := r.IntN(len(c))
			c = c[:p] + string("{}[]\"\\,: xa"[r.IntN(11)]) + c[p+1:]
		case k < 8: // cut short
			c = c[:r.IntN(len(c))]
		case k < 9:
			c = drawCase(r)
		default: // given twice
			cur = append(cur, c)
			from = append(from, i)
		}
		cur = append(cur, c)
		from = append(from, i)
	}
	return cur, from
}

// stepBoth reads the next case by AppendRaw from plain and by
// AppendExpected, told want, from told, and fails unless both give the
// same bytes or error at the same offset and count, the case taken
// exactly when it is want, an object. It returns whether it was taken
// and whether the read ended (an error, io.EOF included).
func stepBoth(t *testing.T, plain, told *CaseReader, want []byte, where string) (took, done bool) {
	t.Helper()
	prefix := []byte("kept")
	a, errA := plain.AppendRaw(prefix)
	b, ok, errB := told.AppendExpected(prefix, want)
	if fmt.Sprint(errA) != fmt.Sprint(errB) || !bytes.Equal(a, b) || plain.Offset() != told.Offset() || plain.Cases() != told.Cases() {
		t.Fatalf("%s, told %.80q:\nAppendRaw      %.200q, %v at %d\nAppendExpected %.200q, %v at %d", where, want, a, errA, plain.Offset(), b, errB, told.Offset())
	}
	object := len(want) > 0 && want[0] == '{'
	if wantOK := errA == nil && object && bytes.Equal(a[len(prefix):], want); ok != wantOK {
		t.Fatalf("%s: taken %v, want %v (told %.80q, read %.80q)", where, ok, wantOK, want, a)
	}
	return ok, errA != nil
}

// gated is a source that gives its bytes in drawn pieces up to gate and
// no further: a read at the gate is one past what the reader needed,
// which it records and answers with an error.
type gated struct {
	r          *rand.Rand
	b          []byte
	at, gate   int
	readFarPos int
}

func (g *gated) Read(p []byte) (int, error) {
	if g.at == len(g.b) {
		return 0, io.EOF
	}
	if g.at >= g.gate {
		g.readFarPos = g.at
		return 0, errors.New("read past the gate")
	}
	n := min(len(p), g.gate-g.at, 1+g.r.IntN(3*chunk))
	copy(p, g.b[g.at:g.at+n])
	g.at += n
	return n, nil
}

// TestAppendExpectedReadsNoFurther draws envelopes of short cases and
// long ones (up to three chunks) and reads each told its own case, from
// a source that gives nothing past the end of the case being read (a
// pipe whose writer has written no more yet): every case is taken
// without a read past its last byte, and the reader's buffer stays a
// chunk while only cases under half a chunk have been read, growing
// past it only for a case that long.
func TestAppendExpectedReadsNoFurther(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 31))
	for n := range 60 {
		cases := make([]string, 1+r.IntN(10))
		for i := range cases {
			if cases[i] = drawCase(r); r.IntN(4) == 0 || cases[i][0] != '{' {
				cases[i] = fmt.Sprintf(`{"name":"c%d","x":"%s"}`, i, strings.Repeat("z", r.IntN(3*chunk)))
			}
		}
		doc := envelopeOf(r, cases)
		ends := make([]int, len(cases))
		for i, c := range cases {
			from := 0
			if i > 0 {
				from = ends[i-1]
			}
			ends[i] = from + bytes.Index(doc[from:], []byte(c)) + len(c)
		}
		src := &gated{r: r, b: doc, gate: ends[0], readFarPos: -1}
		cr, err := NewCaseReader(src, "cur.json")
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for i, c := range cases {
			src.gate = ends[i]
			got, ok, err := cr.AppendExpected(nil, []byte(c))
			if err != nil || !ok || string(got) != c || src.readFarPos >= 0 {
				t.Fatalf("draw %d, case %d (%d bytes): taken %v, %d bytes, error %v; read past its end at %d", n, i, len(c), ok, len(got), err, src.readFarPos)
			}
			longest = max(longest, len(c))
			if longest < chunk/2 && cap(cr.buf) != chunk || cap(cr.buf) > longest+2*chunk {
				t.Fatalf("draw %d, case %d: buffer of %d bytes, the longest case %d", n, i, cap(cr.buf), longest)
			}
		}
		src.gate = len(doc)
		if _, _, err := cr.AppendExpected(nil, []byte(cases[0])); !errors.Is(err, io.EOF) {
			t.Fatalf("draw %d: past the cases: %v", n, err)
		}
	}
}
