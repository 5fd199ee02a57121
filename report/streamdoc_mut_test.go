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
	var read, twice, refused, invalidValues int
	for round := range rounds {
		data := drawDocument(r)
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		got := readDocument(bytes.NewReader(data))
		src := &pieces{r: r, data: data, max: 1 + r.IntN(96), withEOF: r.IntN(2) == 0}
		if inPieces := readDocument(src); inPieces.String() != got.String() {
			t.Fatalf("round %d: read in pieces:\n%v\nwhole:\n%v\nfrom %q", round, inPieces, got, data)
		}
		if got.err != nil {
			checkPlace(t, round, data, got.err)
		}
		members, ok := jsonMembers(data)
		if !ok {
			if got.err == nil && valuesValid(got) {
				t.Fatalf("round %d: the reader read what encoding/json refuses: %q", round, data)
			}
			if got.err == nil {
				invalidValues++
			} else {
				refused++
			}
			continue
		}
		var head []string
		var cases [][]byte
		given := 0
		for _, m := range members {
			if !strings.EqualFold(m.key, "cases") {
				k, _ := json.Marshal(m.key)
				head = append(head, string(k)+":"+string(m.raw))
				continue
			}
			given++
			var elems []json.RawMessage
			if given == 1 && m.raw[0] == '[' {
				if err := json.Unmarshal(m.raw, &elems); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			for _, e := range elems {
				cases = append(cases, e)
			}
		}
		if given > 1 {
			if got.err == nil || !strings.Contains(got.err.Error(), "cases is given twice") {
				t.Fatalf("round %d: cases given twice: %v\n%q", round, got.err, data)
			}
			twice++
			continue
		}
		if got.err != nil || !got.done {
			t.Fatalf("round %d: the reader refused a JSON object (done %v): %v\n%q", round, got.done, got.err, data)
		}
		want := strings.Join(head, ",")
		if got.head != want {
			t.Fatalf("round %d: head\n%s\nwant\n%s\nfrom %q", round, got.head, want, data)
		}
		var env Envelope
		if err := json.Unmarshal([]byte("{"+want+"}"), &env); (err == nil) != (got.headErr == nil) || err == nil && !reflect.DeepEqual(got.env, &env) {
			t.Fatalf("round %d: Head %+v %v, encoding/json %+v %v\nfrom %q", round, got.env, got.headErr, env, err, data)
		}
		if len(got.cases) != len(cases) {
			t.Fatalf("round %d: %d cases, want %d\n%q", round, len(got.cases), len(cases), data)
		}
		for k := range cases {
			if !bytes.Equal(got.cases[k], cases[k]) {
				t.Fatalf("round %d: case %d: %q, want %q", round, k, got.cases[k], cases[k])
			}
		}
		read++
	}
	t.Logf("%d documents read alike, %d with cases twice, %d refused, %d read to values encoding/json refuses", read, twice, refused, invalidValues)
	if read < rounds/3 || twice < rounds/100 || refused < rounds/10 || invalidValues < rounds/100 {
		t.Fatalf("the draw is lopsided: %d read, %d twice, %d refused, %d invalid values", read, twice, refused, invalidValues)
	}
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
	keys := []string{"schema_version", "tool", "run", "suite", "verdict", "totals"}
	var early, late, notEarly, broken int
	for round := range 3000 {
		var before, after []string
		for _, k := range keys {
			if r.IntN(25) == 0 {
				continue
			}
			m := headMember(r, k)
			if r.IntN(12) == 0 {
				after = append(after, m)
			} else {
				before = append(before, m)
			}
			if r.IntN(15) == 0 {
				after = append(after, headMember(r, k))
			}
		}
		r.Shuffle(len(before), func(i, j int) { before[i], before[j] = before[j], before[i] })
		cases := `"cases": [` + strings.Repeat(`{"name": "c"},`, r.IntN(3)) + `{"name": "d"}]`
		standsAtCases := true
		switch r.IntN(8) {
		case 0:
			cases = `"cases": null`
			standsAtCases = false
		case 1:
			cases = ""
			standsAtCases = false
		case 2:
			cases = `"cases": 5`
			standsAtCases = false
		}
		members := append(append(append([]string{}, before...), cases), after...)
		if cases == "" {
			members = append(before, after...)
		}
		tail := "}"
		if r.IntN(10) == 0 {
			tail = ", x}"
		}
		doc := "{" + strings.Join(members, ",") + tail
		cr, err := NewCaseReader(strings.NewReader(doc), "e.json")
		if err != nil {
			if !standsAtCases && tail != "}" {
				continue // the cut head is read before NewCaseReader returns
			}
			t.Fatalf("round %d: %v\n%s", round, err, doc)
		}
		seen := before
		if !standsAtCases {
			seen = append(append([]string{}, before...), after...)
		}
		want := earlyWant(seen, cases == `"cases": 5`)
		got, ok := cr.EarlyHead()
		if ok != (want != nil) || ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: EarlyHead %v %+v, want %+v\n%s", round, ok, got, want, doc)
		}
		if ok {
			early++
		} else {
			notEarly++
		}
		var rerr error
		for rerr == nil {
			_, rerr = cr.NextRaw()
		}
		env, eerr := cr.Envelope()
		got, ok = cr.EarlyHead()
		wantLate := earlyWant(append(append([]string{}, before...), after...), cases == `"cases": 5`)
		switch {
		case !errors.Is(rerr, io.EOF):
			broken++
			if ok {
				t.Fatalf("round %d: EarlyHead told a head after a read that failed (%v)\n%s", round, rerr, doc)
			}
		case ok != (wantLate != nil) || ok && (eerr != nil || !reflect.DeepEqual(got, env) || !reflect.DeepEqual(got, wantLate)):
			t.Fatalf("round %d: once read, EarlyHead %v %+v, Envelope %+v %v\n%s", round, ok, got, env, eerr, doc)
		case ok:
			late++
		}
		if want != nil && len(after) == 0 && eerr == nil && !reflect.DeepEqual(want, env) {
			t.Fatalf("round %d: the early head is not Envelope's\n%s", round, doc)
		}
	}
	t.Logf("%d told early, %d not, %d told once read, %d cut short", early, notEarly, late, broken)
	if early < 600 || notEarly < 600 || late < 600 || broken < 100 {
		t.Fatalf("the draw is lopsided: %d early, %d not, %d late, %d broken", early, notEarly, late, broken)
	}
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
