package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// checkSameDelta holds the delta sameBytes makes of a case's JSON without
// decoding it to the delta of the decoded case compared with itself; it
// reports whether the case took that way.
func checkSameDelta(t *testing.T, raw []byte) bool {
	t.Helper()
	name, ok := plainName(raw)
	if !ok {
		return false
	}
	var lc leanCase
	var keyedSpans caseSpans
	keyed := passThroughKeys(raw, &leanCase{}, &keyedSpans, &testSameKeys)
	if !passThrough(raw, &lc) {
		if keyed {
			t.Fatalf("passThroughKeys passes a case passThrough does not:\n%s", raw)
		}
		return false
	}
	if !keyed {
		t.Fatalf("passThroughKeys does not pass a case passThrough passes:\n%s", raw)
	}
	// The one scan (passThroughSpans, then sameDeltaSpans) reads what the
	// two scans read, with and without figures.
	var spans caseSpans
	var lcs leanCase
	if !passThroughSpans(raw, &lcs, &spans) || !reflect.DeepEqual(lcs, lc) {
		t.Fatalf("passThroughSpans: not passThrough's %+v:\n%s", lc, raw)
	}
	for _, figures := range []bool{true, false} {
		ds, oks := sameDeltaSpans(raw, &spans, figures, nil)
		// Storage reused from the cases checked before.
		dr, okr := sameDeltaSpans(raw, &spans, figures, &testSameScratch)
		if okr != oks || oks && !reflect.DeepEqual(dr, ds) {
			t.Fatalf("case %s (figures %v)\nin reused storage %v %+v\nin its own        %v %+v", raw, figures, okr, dr, oks, ds)
		}
		dw, okw := sameDelta(raw, figures)
		if oks != okw || oks && !reflect.DeepEqual(ds, dw) {
			t.Fatalf("case %s (figures %v)\nfrom its spans %v %+v\nscanned again  %v %+v", raw, figures, oks, ds, okw, dw)
		}
		checkSameDeltaKeys(t, raw, lc, &spans, figures, ds, oks)
	}
	d, ok := sameDelta(raw, true)
	if !ok {
		return false
	}
	var c report.CaseResult
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("passed through, and Unmarshal refuses it (%v):\n%s", err, raw)
	}
	if err := c.Check("cases[0]"); err != nil {
		t.Fatalf("passed through, and Check refuses it (%v):\n%s", err, raw)
	}
	if want := baseline.CaseOf(&c, &c, ""); !reflect.DeepEqual(d, want) {
		t.Fatalf("case %s\nlean delta %+v\ndecoded    %+v", raw, d, want)
	}
	if name != c.Name {
		t.Fatalf("plainName %q; decoded %q", name, c.Name)
	}
	// Without its figures (CompareListed), a case of a definition digest
	// is unchanged and counted alike.
	if c.DefinitionSHA256 != "" {
		db, ok := sameDelta(raw, false)
		var got, want baseline.Summary
		got.Add(db)
		want.Add(d)
		if !ok || db.Changed() || d.Changed() || got != want {
			t.Fatalf("case %s\nwithout its figures %+v (changed %v)\nwith them %+v (changed %v)", raw, got, db.Changed(), want, d.Changed())
		}
	}
	return true
}

// checkSameDeltaKeys: the scan that notes the assertions' and floors'
// keys passes what it passes without (lc, spans), and the delta made from
// those keys is the one made reading them again (ds, ok).
func checkSameDeltaKeys(t *testing.T, raw []byte, lc leanCase, spans *caseSpans, figures bool, ds baseline.CaseDelta, ok bool) {
	t.Helper()
	var lck leanCase
	var spansK caseSpans
	if !passThroughKeys(raw, &lck, &spansK, &testSameKeys) || !reflect.DeepEqual(lck, lc) || spansK != *spans {
		t.Fatalf("passThroughKeys: not passThroughSpans' %+v:\n%s", lc, raw)
	}
	dk, okk := sameDeltaKeys(raw, &spansK, &testSameKeys, figures, &testSameScratch)
	if okk != ok || ok && !reflect.DeepEqual(dk, ds) {
		t.Fatalf("case %s (figures %v, keys noted %v %+v)\nfrom the noted keys %v %+v\nread again          %v %+v", raw, figures, testSameKeys.ok, testSameKeys, okk, dk, ok, ds)
	}
	sameKeysNoted[testSameKeys.ok]++
}

// testSameScratch is the storage checkSameDelta's reused calls share;
// testSameKeys likewise for the keys passThroughKeys notes.
var (
	testSameScratch sameScratch
	testSameKeys    sameKeys
	// sameKeysNoted counts the cases passed through whose assertions' and
	// floors' keys passThroughKeys noted (true) or left to be read again
	// (false: an entry null, a key with an escape).
	sameKeysNoted = map[bool]int{}
)

// TestSameDeltaIsCaseOf draws cases' JSON (by CaseResult's type, so a field
// added is drawn too; their mutations; the cases the million-case test
// and the stream tests generate) and holds the delta made without a
// decode to the decoded case's.
func TestSameDeltaIsCaseOf(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 11))
	lean := 0
	for range 3000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, r.IntN(4) > 0)
		raw := b.Bytes()
		// Mostly as an encoder writes a case: its name first, one line,
		// its verdict, kind and reliability what Check passes.
		var c report.CaseResult
		if r.IntN(5) > 0 && json.Unmarshal(raw, &c) == nil {
			c.Verdict = []report.Verdict{report.Pass, report.Fail}[r.IntN(2)]
			c.Kind = report.KindAgent
			c.Reliability, c.Tools, c.Findings, c.UnpricedModels = nil, nil, nil, nil
			for _, p := range []*string{&c.Name, &c.DefinitionSHA256, &c.Model, &c.Position.File, &c.Catalog} {
				if r.IntN(4) > 0 {
					*p = strings.Map(func(r rune) rune {
						if r < 0x20 || r >= 0x7f {
							return 'x'
						}
						return r
					}, *p)
				}
			}
			if c.Labels != nil && r.IntN(2) == 0 {
				c.Labels["reliability.class"] = "flaky"
			}
			if c.Cassettes != nil {
				c.Cassettes.SHA256, c.Cassettes.Paths = "abc", nil
			}
			for i := range c.Assertions {
				c.Assertions[i].Position.File = "suite.yml"
			}
			var enc bytes.Buffer
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			if e.Encode(&c) == nil {
				raw = bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
			}
		}
		if r.IntN(3) == 0 {
			raw = casedraw.Mutate(r, raw)
		}
		if checkSameDelta(t, raw) {
			lean++
		}
	}
	for k := range 300 {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k, prCase(k))
		w.Flush()
		if !checkSameDelta(t, b.Bytes()) {
			t.Fatalf("the million-case test's case %d is decoded:\n%s", k, b.Bytes())
		}
		data, err := json.Marshal(genCase(r, k, "c"))
		if err != nil {
			t.Fatal(err)
		}
		if checkSameDelta(t, data) {
			lean++
		}
		// Raw edits an encoder does not make: a target or label given
		// twice, nulls, spaces, other number forms.
		for _, e := range [][2]string{{`"targets":{`, `"targets":{"tool_selection.f1":3,`}, {`"targets":{`, `"targets": { "x" : -0.0e0 , "y":1E-7,`},
			{`"labels":{`, `"labels":{"a":"1","a":"2",`}, {`"counts":{`, `"counts":{"x":null,`}, {`"floors":[]`, `"floors":null`},
			{`"floors":[]`, `"floors":[{"name":"f","passed":true},{"name":"f","passed":false}]`}, {`"position":{`, `"position":{"x":[1,{"a":"\n"}],`},
			{`"name":"c`, `"name":"\u0063`}, {`"assertions":[`, `"assertions":[null,`}, {`"definition_sha256":"`, `"definition_sha256":"\/`},
			// The keys of assertions and floors: given twice, null,
			// escaped, left out, an entry null.
			{`"assertions":[`, `"assertions":[{"index":0,"target":"tool_selection.f1","matcher":null,"passed":true,"message":""},`},
			{`"assertions":[`, `"assertions":[{"index":null,"block":null,"target":"x","matcher":null,"passed":true,"message":""},{"target":"x","index":0,"passed":true,"message":""},`},
			{`"assertions":[`, `"assertions":[{"index":7,"block":"b1","target":"t","matcher":null,"passed":true,"message":""},{"index":7,"target":"t","matcher":{"a":[1]},"passed":true,"message":""},`},
			{`"assertions":[`, `"assertions":[{"index":7,"block":"b\u0031","target":"t","matcher":null,"passed":true,"message":""},`},
			{`"assertions":[`, `"assertions":[{"index":7,"block":"b","target":"t\u0031","passed":true,"message":""},{"index":7,"block":"b","target":"t1","passed":true,"message":""},`},
			{`"assertions":[`, `"assertions":[{},`}, {`"assertions":[`, `"assertions":[{},{},`}, {`"assertions":[{`, `"assertions":null,"x":[{`},
			{`"floors":[]`, `"floors":[{"name":"f\u0031","passed":true}]`}, {`"floors":[]`, `"floors":[null]`}, {`"floors":[]`, `"floors":[{}]`},
			{`"floors":[]`, `"floors":[{"name":null,"passed":true},{"passed":false}]`}, {`"floors":[]`, `"floors":[{"name":"a","passed":true},{"name":"b","lines":["x"]}]`}} {
			if bytes.Contains(data, []byte(e[0])) {
				if checkSameDelta(t, bytes.Replace(data, []byte(e[0]), []byte(e[1]), 1)) {
					lean++
				}
			}
		}
	}
	if lean < 1000 {
		t.Fatalf("%d drawn cases took the way without a decode: the drawing misses it", lean)
	}
	if sameKeysNoted[true] < 1000 || sameKeysNoted[false] < 10 {
		t.Fatalf("cases whose keys the scan noted %d, left to be read again %d: the drawing misses one way", sameKeysNoted[true], sameKeysNoted[false])
	}
	t.Logf("%d drawn cases compared without a decode; keys noted by the scan in %d, read again in %d", lean, sameKeysNoted[true], sameKeysNoted[false])
}

func FuzzSameDelta(f *testing.F) {
	r := rand.New(rand.NewPCG(40, 12))
	for range 30 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, true)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkSameDelta(t, raw) })
}

// BenchmarkSameBytes: the parts of comparing a case whose bytes are the
// baseline's, on a case of the million-case test.
func BenchmarkSameBytes(b *testing.B) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeCaseJSON(w, 12345, prCase(12345))
	w.Flush()
	raw := buf.Bytes()
	var lc leanCase
	b.Run("passThrough", func(b *testing.B) {
		for b.Loop() {
			passThrough(raw, &lc)
		}
	})
	b.Run("sameDelta", func(b *testing.B) {
		for b.Loop() {
			sameDelta(raw, true)
		}
	})
	var spans caseSpans
	var ss sameScratch
	if !passThroughSpans(raw, &lc, &spans) {
		b.Fatal("the case is not passed through")
	}
	b.Run("passThroughSpans", func(b *testing.B) {
		for b.Loop() {
			passThroughSpans(raw, &lc, &spans)
		}
	})
	b.Run("sameDeltaSpans", func(b *testing.B) {
		for b.Loop() {
			sameDeltaSpans(raw, &spans, true, &ss)
		}
	})
	d, _ := sameDelta(raw, true)
	b.Run("appendDelta", func(b *testing.B) {
		out := make([]byte, 0, 4096)
		for b.Loop() {
			out, _ = appendDelta(out[:0], &d)
		}
	})
	b.Run("decodeCase", func(b *testing.B) {
		for b.Loop() {
			var c report.CaseResult
			decodeCase(raw, &c)
		}
	})
}

// TestSameBytesTakesItsCase holds sameBytes to taking the way without a
// decode exactly where it may, over a generated baseline indexed as a
// comparison indexes it: each case read back as its own bytes is found at
// its place with CaseOf's delta (with figures, and without them the same
// but for them); the first of a name given twice is found for the second
// (which the index drops); a case with a byte more, a name the baseline
// does not hold, and a case passThrough passes but whose figures sameDelta
// leaves to the decoder (an escape in a label's value) are declined.
func TestSameBytesTakesItsCase(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 21))
	env := genEnvelope(r, 150, "same")
	env.Cases[7].Labels = map[string]string{"reliability.class": "flaky", "note": "caf\u00e9 \"x\""}
	// Floors and assertions of distinct names are read whole.
	env.Cases[9].Verdict, env.Cases[9].Evidence = report.Pass, nil
	env.Cases[9].Floors = []report.Floor{{Name: "f1", Passed: true}, {Name: "f2", Passed: true}}
	env.Cases[9].Assertions = append(env.Cases[9].Assertions, report.AssertionResult{Index: 1, Target: "tool_selection.f1", Passed: true})
	env.Cases = append(env.Cases, env.Cases[3])
	path := filepath.Join(t.TempDir(), "base.json")
	writeEnv(t, path, env)
	idx, _ := indexFile(t, path)
	f2, rd2, err := openEnvelope(path, "", report.MaxStreamBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	cr2, err := newCaseReader(rd2, path)
	if err != nil {
		t.Fatal(err)
	}
	var sc scratch
	first := map[string]int{}
	taken := 0
	for k := 0; ; k++ {
		raw, err := cr2.AppendRaw(nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if checkSameBytes(t, idx, &sc, k, raw, first) {
			taken++
		}
	}
	if taken < len(env.Cases)/2 {
		t.Fatalf("%d of %d cases taken without a decode: the drawing misses the way", taken, len(env.Cases))
	}
	t.Logf("%d of %d cases taken without a decode", taken, len(env.Cases))
}

// checkSameBytes is TestSameBytesTakesItsCase's check of case k, raw, of
// the baseline idx indexes (first: the place of the first case of each
// name seen); it reports whether the case took the way without a decode.
func checkSameBytes(t *testing.T, idx *indexed, sc *scratch, k int, raw []byte, first map[string]int) bool {
	t.Helper()
	var c report.CaseResult
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if _, ok := first[c.Name]; !ok {
		first[c.Name] = k
	}
	want := baseline.CaseOf(&c, &c, "")
	// The way without a decode is for a case passThrough passes
	// (not an inconclusive one, say) and sameDelta reads whole.
	var lc leanCase
	_, whole := sameDelta(raw, true)
	passed := passThrough(raw, &lc)
	if k == 7 && (!passed || whole) {
		t.Fatalf("case 7 (an escaped label value): passed through %v, read whole by sameDelta %v; want true, false", passed, whole)
	}
	if k == 9 && !(passed && whole) {
		t.Fatalf("case 9 (two floors, two assertions, each of its own name): passed through %v, read whole by sameDelta %v", passed, whole)
	}
	may := passed && whole
	i, d, ok := idx.sameBytes(raw, true, sc)
	if !may {
		if ok {
			t.Fatalf("case %d taken without a decode: %+v\n%s", k, d, raw)
		}
		return false
	} else if !ok || int(i) != first[c.Name] || !reflect.DeepEqual(d, want) {
		t.Fatalf("case %d: sameBytes gives %d %v %+v; want %d true %+v", k, i, ok, d, first[c.Name], want)
	}
	// Without figures: the same case, its figures left out.
	i, d, ok = idx.sameBytes(raw, false, sc)
	want.Targets, want.Counts, want.Labels = []baseline.TargetDelta{}, []baseline.CountDelta{}, nil
	if !ok || int(i) != first[c.Name] || !reflect.DeepEqual(d, want) {
		t.Fatalf("case %d without figures: sameBytes gives %d %v %+v; want %d true %+v", k, i, ok, d, first[c.Name], want)
	}
	spaced := append(append([]byte{}, raw[:len(raw)-1]...), ' ', '}')
	if _, _, ok := idx.sameBytes(spaced, true, sc); ok {
		t.Fatalf("case %d with a space more taken as the baseline's", k)
	}
	other := bytes.Replace(raw, []byte("same case"), []byte("gone case"), 1)
	if _, _, ok := idx.sameBytes(other, true, sc); ok || bytes.Equal(other, raw) {
		t.Fatalf("case %d renamed (%v) taken as the baseline's", k, !bytes.Equal(other, raw))
	}
	return true
}

// TestHash32IsFNV holds hash32 to hash/fnv's 32-bit FNV-1a over drawn
// names: every byte, empty, long, not UTF-8.
func TestHash32IsFNV(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 32))
	for n := range 2000 {
		b := make([]byte, n%300)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		h := fnv.New32a()
		h.Write(b)
		if got, want := hash32(string(b)), h.Sum32(); got != want {
			t.Fatalf("hash32(%q) = %#x; fnv %#x", b, got, want)
		}
	}
}

// sameDelta is sameDeltaSpans reading the whole case again, the way the
// comparison took before passThroughSpans noted where each field lies: the
// tests hold sameDeltaSpans to it. It is baseline.CaseOf(c, c, "") for the case c whose JSON raw
// passThrough passed (every member of the case and of its structs given
// once and spelt as its field is, every value of its field's type): the
// delta of a case compared with itself, made from its name, kind,
// verdict, runs, position, definition digest, targets, counts and labels
// without decoding it. Without figures (CompareListed, which lists
// changed cases only), the targets, counts and labels of a case with a
// definition digest are left out: such a case is unchanged, and counts
// alike without them. It reports false for what it leaves to the decoder:
// a string with an escape, a null element of a list, an assertion (by
// block, index and target) or floor (by name) given twice.
// TestSameDeltaIsCaseOf holds it to CaseOf over drawn cases.
func sameDelta(raw []byte, figures bool) (baseline.CaseDelta, bool) {
	r := sameReader{s: caseScan{b: raw}}
	ok := r.s.eachMember(r.member)
	r.s.space()
	if !ok || r.s.i != len(r.s.b) {
		return r.d, false
	}
	return r.delta(figures)
}

// TestCachedServesItsBlock: a worker reads a block of the baseline's
// cases once and serves every case of it from its copy: with the file
// closed after a block's first case, each other case of that block is
// still given, its bytes the ones ReadAt gives; a case of another block
// then needs the file (its read fails).
func TestCachedServesItsBlock(t *testing.T) {
	env := genEnvelope(rand.New(rand.NewPCG(40, 33)), 2*blockCases+10, "cached")
	path := filepath.Join(t.TempDir(), "base.json")
	writeEnv(t, path, env)
	idx, f := indexFile(t, path)
	want := make([][]byte, idx.n)
	for i := range int32(idx.n) {
		var err error
		if want[i], err = idx.raw(i); err != nil {
			t.Fatal(err)
		}
	}
	var sc scratch
	first := int32(blockCases) // the second block
	if got, err := idx.cached(first, &sc); err != nil || !bytes.Equal(got, want[first]) {
		t.Fatalf("case %d: %v\n%s\nwant %s", first, err, got, want[first])
	}
	f.Close()
	for i := first; i < 2*blockCases; i++ {
		if got, err := idx.cached(i, &sc); err != nil || !bytes.Equal(got, want[i]) {
			t.Fatalf("case %d of the cached block, the file closed: %v\n%s\nwant %s", i, err, got, want[i])
		}
	}
	if _, err := idx.cached(0, &sc); err == nil {
		t.Fatal("case 0, of another block, given with the file closed")
	}
}

// TestLastOfEachGenerated holds lastOfEach to what decoding an object into
// a map keeps (the last value of each name, the names in order), over
// drawn member lists: sorted and each name once (as an encoder writes
// them, returned as they are), sorted with a name given twice, unsorted.
func TestLastOfEachGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 13))
	for n := range 5000 {
		var ms []member
		for k := range r.IntN(8) {
			key := []byte{byte('a' + r.IntN(5))}
			if n%3 == 0 { // as an encoder writes them: sorted, each once
				key = []byte{byte('a' + k)}
			}
			ms = append(ms, member{key, []byte{byte('0' + k)}})
		}
		if n%3 == 1 {
			slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		}
		last := map[string]string{}
		for _, m := range ms {
			last[string(m.key)] = string(m.val)
		}
		var want []string
		for k, v := range last {
			want = append(want, k+"="+v)
		}
		slices.Sort(want)
		var got []string
		for _, m := range lastOfEach(slices.Clone(ms)) {
			got = append(got, string(m.key)+"="+string(m.val))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("lastOfEach(%q) = %q, want %q", ms, got, want)
		}
	}
}

// TestFirstOfIsBinarySearch holds the index's lookup by its hash's top
// bits (firstOf, after sortTop) to a binary search over every key, over
// drawn indexes: hashes crowded in a few top-bit buckets, given twice, at
// both ends of the range, none at all, and hashes looked up that are
// there, next to them and absent.
func TestFirstOfIsBinarySearch(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 14))
	for n := range 300 {
		var b baseIndex
		size := r.IntN(2000)
		if n%10 == 0 {
			size = 0
		}
		draw := func() uint64 {
			switch r.IntN(4) {
			case 0:
				return uint64(r.Uint32())
			case 1: // a few buckets of top bits
				return uint64(r.IntN(3))<<16 | uint64(r.IntN(1<<16))
			case 2: // the ends
				return []uint64{0, 1, 0xffff, 0x10000, 0xffff0000, 0xfffffffe, 0xffffffff}[r.IntN(7)]
			}
			return 0x12340000 | uint64(r.IntN(4))
		}
		for i := range size {
			b.keys = append(b.keys, draw()<<32|uint64(i))
		}
		slices.Sort(b.keys)
		b.sortTop()
		for range 200 {
			h := draw()
			if size > 0 && r.IntN(2) == 0 {
				h = b.keys[r.IntN(size)]>>32 + uint64(r.IntN(3)) - 1
				h &= 0xffffffff
			}
			want, _ := slices.BinarySearch(b.keys, h<<32)
			if got := b.firstOf(h); got != want {
				t.Fatalf("index of %d keys: firstOf(%#x) = %d, a binary search %d", size, h, got, want)
			}
		}
	}
}

// TestHash32BytesIsString: the index hashes a name where it lies in the
// case (bytes) and where it was decoded (a string) alike, over drawn
// names.
func TestHash32BytesIsString(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 15))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		if hash32(b) != hash32(string(b)) {
			t.Fatalf("hash32(%q): bytes %#x, string %#x", b, hash32(b), hash32(string(b)))
		}
		if text, _, ok := plainNameText([]byte(`{"name":"` + string(b) + `"}`)); ok {
			if name, ok2 := plainName([]byte(`{"name":"` + string(b) + `"}`)); !ok2 || name != string(text) {
				t.Fatalf("plainNameText %q, plainName %q %v", text, name, ok2)
			}
		}
	}
}
