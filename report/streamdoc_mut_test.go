package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report/casedraw"
)

// drawKey draws a member name of a document's top level: the names the
// reader looks for (cases in other cases, spelt with an escape, and the
// head's), and names with escapes, raw bytes that are not UTF-8, or a
// raw control character (which JSON refuses).
func drawKey(r *rand.Rand) string {
	switch r.IntN(14) {
	case 0, 1:
		return `"cases"`
	case 2:
		return []string{`"Cases"`, `"CASES"`, `"ca\u0073es"`, `"\u0043ases"`, `"cases "`, `"case"`}[r.IntN(6)]
	case 3:
		return "\"na\xffme\""
	case 4:
		return "\"a\x01b\""
	case 5:
		return `"\u00e9t\"\\\/\n"`
	case 6:
		return `""`
	}
	return []string{`"schema_version"`, `"tool"`, `"run"`, `"suite"`, `"verdict"`, `"totals"`, `"x"`, `"é"`}[r.IntN(8)]
}

// drawDocument draws the text of a JSON document as a run envelope's
// reader meets it: mostly an object whose members (drawn names, the
// cases array among them, now and then twice, or as another value) are
// drawn values, with drawn white space between every token, before the
// document and after it; now and then an empty object, or a document
// that is not an object.
func drawDocument(r *rand.Rand) []byte {
	ws := func() string {
		return []string{"", "", " ", "\n", "\t\r\n  ", "\n\n    "}[r.IntN(6)]
	}
	var b strings.Builder
	b.WriteString(ws())
	switch r.IntN(20) {
	case 0:
		b.WriteString(drawValue(r, 1))
		b.WriteString(ws())
		return []byte(b.String())
	case 1:
		b.WriteString("{" + ws() + "}" + ws())
		return []byte(b.String())
	}
	b.WriteString("{")
	for i := range r.IntN(7) {
		if i > 0 {
			b.WriteString(ws() + ",")
		}
		key := drawKey(r)
		b.WriteString(ws() + key + ws() + ":" + ws())
		switch {
		case strings.EqualFold(strings.ReplaceAll(key, `\u0073`, "s"), `"cases"`) && r.IntN(5) > 0:
			b.WriteString("[")
			for k := range r.IntN(5) {
				if k > 0 {
					b.WriteString(ws() + ",")
				}
				b.WriteString(ws() + drawValue(r, 1))
			}
			b.WriteString(ws() + "]")
		case r.IntN(12) == 0:
			b.WriteString("null")
		default:
			b.WriteString(drawValue(r, 1))
		}
	}
	b.WriteString(ws() + "}" + ws())
	return []byte(b.String())
}

// member is a member of a document's top level: its name, decoded, and
// its value's bytes as the document holds them.
type member struct {
	key string
	raw []byte
}

// jsonMembers reads a JSON document with encoding/json: its top-level
// members when it is an object, ok false when it is not, or not JSON.
func jsonMembers(doc []byte) (members []member, ok bool) {
	if !json.Valid(doc) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			panic(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			panic(err)
		}
		members = append(members, member{t.(string), raw})
	}
	return members, true
}

// docRead is what the case reader read from a document: each case's
// bytes, the head's members as it keeps them, and the first error.
type docRead struct {
	cases [][]byte
	head  string
	done  bool
	err   error
	// env and headErr are what Head decoded once the cases were read.
	env     *Envelope
	headErr error
}

func (d docRead) String() string {
	return fmt.Sprintf("%q head %q done %v error %v", d.cases, d.head, d.done, d.err)
}

// readDocument reads the document src holds with NextRaw.
func readDocument(src io.Reader) docRead {
	var d docRead
	cr, err := NewCaseReader(src, "e.json")
	if err != nil {
		d.err = err
		return d
	}
	for {
		raw, err := cr.NextRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			d.err = err
			return d
		}
		d.cases = append(d.cases, bytes.Clone(raw))
	}
	d.head, d.done = cr.head.String(), cr.done
	d.env, d.headErr = cr.Head()
	return d
}

// TestCaseReaderReadsDocumentsAsJSON holds the case reader's scan of a
// document's structure to encoding/json, over drawn documents (objects
// of drawn members, the cases array among them or not, or given twice,
// or as another value; names with escapes, bytes that are not UTF-8 or
// raw control characters; drawn white space around every token; an empty
// object; other values), a third of them mutated (a byte dropped, added
// or replaced, the text cut), each read whole and from a source of drawn
// pieces:
//   - a JSON object with one cases member or none is read: its cases
//     array's elements, each as the document's bytes, and every other
//     member, its name decoded and its value's bytes, in the head, in
//     order, which Head decodes as encoding/json decodes those members;
//     cases given twice is refused for it;
//   - what encoding/json refuses, or a document that is not an object,
//     the reader refuses, or reads to values that encoding/json refuses
//     (a case or the head, which Decode and Envelope decode);
//   - an error that names a place names the byte it got there;
//   - the read in pieces is the read of the whole text.
func TestCaseReaderReadsDocumentsAsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 46))
	rounds := 6000
	if testing.Short() {
		rounds = 2500
	}
	var outcomes [4]int // read, cases twice, refused, read to values encoding/json refuses
	for round := range rounds {
		data := drawDocument(r)
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		got := readDocument(scanOnly{bytes.NewReader(data)})
		src := &pieces{r: r, data: data, max: 1 + r.IntN(96), withEOF: r.IntN(2) == 0}
		if inPieces := readDocument(src); inPieces.String() != got.String() {
			t.Fatalf("round %d: read in pieces:\n%v\nwhole:\n%v\nfrom %q", round, inPieces, got, data)
		}
		if got.err != nil {
			checkPlace(t, round, data, got.err)
		}
		outcomes[checkDocRead(t, round, data, got)]++
	}
	t.Logf("%d documents read alike, %d with cases twice, %d refused, %d read to values encoding/json refuses", outcomes[0], outcomes[1], outcomes[2], outcomes[3])
	if outcomes[0] < rounds/3 || outcomes[1] < rounds/100 || outcomes[2] < rounds/10 || outcomes[3] < rounds/100 {
		t.Fatalf("the draw is lopsided: %v", outcomes)
	}
}

// checkDocRead holds the read of data (got) to encoding/json's reading of
// it (see TestCaseReaderReadsDocumentsAsJSON), and says what it was: 0
// an object read, 1 one refused for cases given twice, 2 a document that
// is not a JSON object refused, 3 one read to values encoding/json
// refuses.
func checkDocRead(t *testing.T, round int, data []byte, got docRead) int {
	t.Helper()
	members, ok := jsonMembers(data)
	switch {
	case !ok && got.err == nil && valuesValid(got):
		t.Fatalf("round %d: the reader read what encoding/json refuses: %q", round, data)
	case !ok && got.err == nil:
		return 3
	case !ok:
		return 2
	}
	head, cases, given := docWant(t, members)
	if given > 1 {
		if got.err == nil || !strings.Contains(got.err.Error(), "cases is given twice") {
			t.Fatalf("round %d: cases given twice: %v\n%q", round, got.err, data)
		}
		return 1
	}
	if got.err != nil || !got.done {
		t.Fatalf("round %d: the reader refused a JSON object (done %v): %v\n%q", round, got.done, got.err, data)
	}
	if got.head != head {
		t.Fatalf("round %d: head\n%s\nwant\n%s\nfrom %q", round, got.head, head, data)
	}
	var env Envelope
	if err := json.Unmarshal([]byte("{"+head+"}"), &env); (err == nil) != (got.headErr == nil) || err == nil && !reflect.DeepEqual(got.env, &env) {
		t.Fatalf("round %d: Head %+v %v, encoding/json %+v %v\nfrom %q", round, got.env, got.headErr, env, err, data)
	}
	if fmt.Sprintf("%q", got.cases) != fmt.Sprintf("%q", cases) {
		t.Fatalf("round %d: cases %q, want %q", round, got.cases, cases)
	}
	return 0
}

// docWant is what the case reader is to read from a JSON object's
// members: the head's members (every member but cases, its name as
// encoding/json writes it, its value's bytes), the elements of the cases
// array (the first member named cases, in any case, when it is an
// array), and how many members are named cases.
func docWant(t *testing.T, members []member) (head string, cases [][]byte, given int) {
	t.Helper()
	var kept []string
	for _, m := range members {
		if !strings.EqualFold(m.key, "cases") {
			k, _ := json.Marshal(m.key)
			kept = append(kept, string(k)+":"+string(m.raw))
			continue
		}
		given++
		var elems []json.RawMessage
		if given == 1 && m.raw[0] == '[' {
			if err := json.Unmarshal(m.raw, &elems); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range elems {
			cases = append(cases, e)
		}
	}
	return strings.Join(kept, ","), cases, given
}

// valuesValid reports whether the values a read left unchecked are JSON:
// each case and the head's members as an object.
func valuesValid(d docRead) bool {
	for _, c := range d.cases {
		if !json.Valid(c) {
			return false
		}
	}
	return json.Valid([]byte("{" + d.head + "}"))
}

// headMember draws a member of a run's identity (schema_version, tool,
// run, suite, verdict, totals): mostly as an envelope of this package
// holds it, its name now and then in other cases, and now and then a
// value Envelope refuses (another schema_version, a name of two lines,
// a verdict or mode it does not know, a value of another type).
func headMember(r *rand.Rand, key string) string {
	values := map[string][]string{
		"schema_version": {`1`, `2`, `"1"`},
		"tool":           {`{"name": "mcptest", "version": "t"}`, `{"name": "a\nb", "version": "t"}`, `5`},
		"run":            {`{"id": "r", "mode": "replay", "started_at": "x"}`, `{"id": "r", "mode": "sideways"}`, `[]`},
		"suite":          {`{"path": "suite.yml", "sha256": "abc"}`, `{"path": "a\rb"}`, `"s"`},
		"verdict":        {`"pass"`, `"maybe"`, `{}`},
		"totals":         {`{"total": 1}`, `{"total": 2, "passed": 2}`, `"t"`},
	}[key]
	v := values[0]
	if r.IntN(12) == 0 {
		v = values[1+r.IntN(2)]
	}
	if r.IntN(6) == 0 {
		key = strings.ToUpper(key[:1]) + key[1:]
	}
	return fmt.Sprintf("%q: %s", key, v)
}

// TestEarlyHeadRules holds EarlyHead to its rule over drawn envelopes
// whose head members (a run's identity, now and then one left out,
// refused, named in other cases, or given again) stand before or after
// the cases, with the cases an array, null, left out or another value,
// and now and then a head cut short after the cases. Where the reader
// stands at the cases, EarlyHead tells the head exactly when the members
// before the cases name each of the six and an envelope of those members
// and no case reads (Read), and then tells Read's head; it is the head
// Envelope returns where no member follows the cases. Once every case is
// read, it tells the head Envelope returns exactly when the document
// names each of the six and an envelope of its members reads, and never
// after a read that failed in the head.
func TestEarlyHeadRules(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 47))
	var early, notEarly, late, broken int
	for round := range 3000 {
		h := drawHeadDoc(r)
		cr, err := NewCaseReader(strings.NewReader(h.doc), "e.json")
		if err != nil {
			if !h.atCases && h.cut {
				continue // the cut head is read before NewCaseReader returns
			}
			t.Fatalf("round %d: %v\n%s", round, err, h.doc)
		}
		seen := h.before
		if !h.atCases {
			seen = append(append([]string{}, h.before...), h.after...)
		}
		want := earlyWant(seen, h.badCases)
		got, ok := cr.EarlyHead()
		if ok != (want != nil) || ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: EarlyHead %v %+v, want %+v\n%s", round, ok, got, want, h.doc)
		}
		if ok {
			early++
		} else {
			notEarly++
		}
		told, failed := checkHeadOnceRead(t, round, h, cr, want)
		late += told
		broken += failed
	}
	t.Logf("%d told early, %d not, %d told once read, %d cut short", early, notEarly, late, broken)
	if early < 600 || notEarly < 600 || late < 600 || broken < 100 {
		t.Fatalf("the draw is lopsided: %d early, %d not, %d late, %d broken", early, notEarly, late, broken)
	}
}

// headDoc is a drawn envelope of TestEarlyHeadRules: its text, the head
// members before and after its cases, whether the reader stands at the
// cases once NewCaseReader returns (they are an array), whether they are
// another value than an array or null, and whether the head is cut short
// after them.
type headDoc struct {
	doc               string
	before, after     []string
	atCases, badCases bool
	cut               bool
}

func drawHeadDoc(r *rand.Rand) headDoc {
	var h headDoc
	for _, k := range []string{"schema_version", "tool", "run", "suite", "verdict", "totals"} {
		if r.IntN(25) == 0 {
			continue
		}
		m := headMember(r, k)
		if r.IntN(12) == 0 {
			h.after = append(h.after, m)
		} else {
			h.before = append(h.before, m)
		}
		if r.IntN(15) == 0 {
			h.after = append(h.after, headMember(r, k))
		}
	}
	r.Shuffle(len(h.before), func(i, j int) { h.before[i], h.before[j] = h.before[j], h.before[i] })
	cases := []string{`"cases": [` + strings.Repeat(`{"name": "c"},`, r.IntN(3)) + `{"name": "d"}]`}
	h.atCases = true
	switch r.IntN(8) {
	case 0:
		cases, h.atCases = []string{`"cases": null`}, false
	case 1:
		cases, h.atCases = nil, false
	case 2:
		cases, h.atCases, h.badCases = []string{`"cases": 5`}, false, true
	}
	members := append(append(append([]string{}, h.before...), cases...), h.after...)
	tail := "}"
	if h.cut = r.IntN(10) == 0; h.cut {
		tail = ", x}"
	}
	h.doc = "{" + strings.Join(members, ",") + tail
	return h
}

// checkHeadOnceRead reads the rest of h's envelope from cr and holds
// EarlyHead, asked again, to its rule (see TestEarlyHeadRules); early is
// what it told at the cases. It returns 1 for a head told, and 1 for a
// read that failed.
func checkHeadOnceRead(t *testing.T, round int, h headDoc, cr *CaseReader, early *Envelope) (told, failed int) {
	t.Helper()
	var rerr error
	for rerr == nil {
		_, rerr = cr.NextRaw()
	}
	env, eerr := cr.Envelope()
	got, ok := cr.EarlyHead()
	want := earlyWant(append(append([]string{}, h.before...), h.after...), h.badCases)
	switch {
	case !errors.Is(rerr, io.EOF):
		if ok {
			t.Fatalf("round %d: EarlyHead told a head after a read that failed (%v)\n%s", round, rerr, h.doc)
		}
		failed = 1
	case ok != (want != nil) || ok && (eerr != nil || !reflect.DeepEqual(got, env) || !reflect.DeepEqual(got, want)):
		t.Fatalf("round %d: once read, EarlyHead %v %+v, Envelope %+v %v\n%s", round, ok, got, env, eerr, h.doc)
	case ok:
		told = 1
	}
	if early != nil && len(h.after) == 0 && eerr == nil && !reflect.DeepEqual(early, env) {
		t.Fatalf("round %d: the early head is not Envelope's\n%s", round, h.doc)
	}
	return told, failed
}

// earlyWant is the head EarlyHead tells for the head members given
// before the cases, nil for none: the six named, the cases not another
// value, and an envelope of those members and no case read (Read), its
// cases nil.
func earlyWant(members []string, badCases bool) *Envelope {
	if badCases {
		return nil
	}
	for _, k := range []string{"schema_version", "tool", "run", "suite", "verdict", "totals"} {
		named := false
		for _, m := range members {
			named = named || strings.HasPrefix(strings.ToLower(m), `"`+k+`"`)
		}
		if !named {
			return nil
		}
	}
	env, err := Read(strings.NewReader("{"+strings.Join(append(members, `"cases": []`), ",")+"}"), "e.json")
	if err != nil {
		return nil
	}
	env.Cases = nil
	return env
}

// TestNextNamesTheCase: over drawn envelopes, a third of them mutated,
// wherever Read refuses one for a case it holds (a case that is null or
// fails its checks, named by its index), the stream refuses it with the
// same words: Next decodes and checks the case it read, under its own
// index.
func TestNextNamesTheCase(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 48))
	named := 0
	for round := range 3000 {
		data := drawEnvelope(r)
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		_, werr := Read(bytes.NewReader(data), "e.json")
		if werr == nil || !strings.HasPrefix(werr.Error(), "e.json: not a run envelope: cases[") {
			continue
		}
		_, gerr := readStream(data)
		if gerr == nil || gerr.Error() != werr.Error() {
			t.Fatalf("round %d: the stream: %v\nRead: %v\n%s", round, gerr, werr, data)
		}
		named++
	}
	t.Logf("%d envelopes refused for a case, alike", named)
	if named < 300 {
		t.Fatalf("the draw is lopsided: %d refused for a case", named)
	}
}
