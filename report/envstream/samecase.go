package envstream

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// sameBytes compares a case of the current run whose bytes are the
// baseline's case of its name to the byte (the most cases of a run
// compared with the run before it) without decoding it: one scan,
// passThroughSpans, proves that decoding and checking it succeed and
// notes where its fields lie, and sameDeltaSpans makes its delta from
// those fields. It reports false (and place 0), for the case to be
// decoded and compared as before, when either cannot, or when no baseline
// case of its name holds the same bytes.
func (b *baseIndex) sameBytes(raw []byte, every bool, sc *scratch) (int32, baseline.CaseDelta, bool) {
	name, _, ok := plainNameText(raw)
	if !ok {
		return 0, baseline.CaseDelta{}, false
	}
	h := uint64(hash32(name))
	for at := b.firstOf(h); at < len(b.keys) && b.keys[at]>>32 == h; at++ {
		// A case the index dropped (a name given twice) is not the
		// case of its name, though its bytes be the same: the first of
		// its name may hold others (its name given again within it).
		i := int32(b.keys[at])
		if int(b.lens[i]) != len(raw) || b.dropped.get(i) {
			continue
		}
		// The case is read alone, not with its block (cached): such
		// cases, ones the current run's reader did not take, are few and
		// far apart (about one in a hundred in a run compared with the
		// one before it), and a block read for one of them was mostly
		// read for nothing (at a million cases, about 1.6 GB copied from
		// the page cache for 10,000 cases).
		data, err := b.rawTo(sc.read, i)
		sc.read = data
		if err != nil || !bytes.Equal(data, raw) {
			continue
		}
		d, ok := sameOf(raw, name, every, sc)
		return i, d, ok
	}
	return 0, baseline.CaseDelta{}, false
}

// sameAs is sameBytes for a case the current run's reader took as the
// bytes of the baseline's i-th case (guesser): that case is the one
// sameBytes finds for it, the first of its name (no other case of the
// baseline holds the same bytes and is not dropped, the guesser offers no
// dropped case), so it is not looked up.
func (b *baseIndex) sameAs(i int32, raw []byte, every bool, sc *scratch) (baseline.CaseDelta, bool) {
	name, _, ok := plainNameText(raw)
	if !ok {
		return baseline.CaseDelta{}, false
	}
	return sameOf(raw, name, every, sc)
}

// sameOf is the delta of the case raw, of name as plainNameText reads
// it, compared with a baseline case of the same bytes: false where the
// case is to be decoded.
func sameOf(raw, name []byte, every bool, sc *scratch) (baseline.CaseDelta, bool) {
	if !passThroughKeys(raw, &sc.lc, &sc.spans, &sc.keys) {
		return baseline.CaseDelta{}, false
	}
	d, ok := sameDeltaKeys(raw, &sc.spans, &sc.keys, every, &sc.same)
	if !ok || d.Name != string(name) {
		return baseline.CaseDelta{}, false
	}
	return d, true
}

// guesser offers the current run's reader the baseline case the next
// case is likely to be byte for byte (report.CaseReader.AppendExpected):
// the one after the baseline case the last case was (most cases of a run
// are the baseline's, in its order); after a case not taken, the one
// after the first case of its name's hash in the baseline, or the same
// guess again where the baseline holds no such name. A wrong guess costs
// one comparison of bytes; a case taken is the guessed case's bytes
// whatever led to the guess.
type guesser struct {
	idx *indexed
	// on is false where the cases are not compared (the baseline is of
	// another schema_version): nothing is guessed.
	on bool
	g  int32
	sc scratch
}

// want is the guessed case's bytes and its place; nil where there is no
// guess (past the baseline's last case, a case dropped, a read failed).
func (gs *guesser) want() ([]byte, int32) {
	b := gs.idx
	if !gs.on || int(gs.g) >= b.n || b.dropped.get(gs.g) {
		return nil, -1
	}
	data, err := b.cached(gs.g, &gs.sc)
	if err != nil {
		return nil, -1
	}
	return data, gs.g
}

// next moves the guess past the case raw, taken (the guess's bytes) or
// not.
func (gs *guesser) next(took bool, raw []byte) {
	if !gs.on {
		return
	}
	if took {
		gs.g++
		return
	}
	name, _, ok := plainNameText(raw)
	if !ok {
		return
	}
	b := gs.idx
	h := uint64(hash32(name))
	if at := b.firstOf(h); at < len(b.keys) && b.keys[at]>>32 == h {
		gs.g = int32(b.keys[at]) + 1
	}
}

// maxCachedBlock is the most bytes of a block of the baseline's cases a
// comparison worker reads at once.
const maxCachedBlock = 512 << 10

// cached is the i-th case's bytes, from the copy of its block of the
// baseline sc holds (read whole, one read for its 256 cases, where it
// spans at most maxCachedBlock bytes): the guesser's, which offers the
// baseline's cases in its order, as the current run mostly follows it.
func (b *baseIndex) cached(i int32, sc *scratch) ([]byte, error) {
	k := sc.block
	if sc.blockData == nil || i < b.blockFirst[k] || k+1 < len(b.blockFirst) && i >= b.blockFirst[k+1] {
		var found bool
		if k, found = slices.BinarySearch(b.blockFirst, i); !found {
			k--
		}
	}
	if sc.block != k || sc.blockData == nil {
		last := int32(b.n) - 1
		if k+1 < len(b.blockFirst) {
			last = b.blockFirst[k+1] - 1
		}
		span := int64(b.rel[last]) + int64(b.lens[last])
		if span > maxCachedBlock {
			data, err := b.rawTo(sc.read, i)
			sc.read = data
			return data, err
		}
		sc.blockData = slices.Grow(sc.blockData[:0], int(span))[:span]
		if _, err := b.f.ReadAt(sc.blockData, b.blockAt[k]); err != nil {
			sc.blockData = nil
			return nil, err
		}
		sc.block = k
	}
	at := int64(b.rel[i])
	return sc.blockData[at : at+int64(b.lens[i])], nil
}

// member is a name and its value's text in a case's JSON.
type member struct {
	key, val []byte
}

// span is where a value lies in a case's JSON: [start, end), end 0 for
// none.
type span struct{ start, end int }

// caseSpans are the spans of the values of a case's fields, by their
// index in caseShape's fields (at most 64).
type caseSpans [64]span

// sameField is a field of the case sameDelta reads, and its index in
// caseShape's fields.
type sameField struct {
	key   []byte
	index int
}

// sameFields are the fields sameDelta reads, found in caseShape once
// passThrough has built it.
var sameFields = sync.OnceValue(func() []sameField {
	caseShapeOnce.Do(func() {
		caseShape = shapeOf(reflect.TypeFor[report.CaseResult](), map[reflect.Type]*shape{})
	})
	var out []sameField
	for i, f := range caseShape.fields {
		switch f.name {
		case "name", "kind", "verdict", "definition_sha256", "runs", "position", "targets", "counts", "labels", "assertions", "floors":
			out = append(out, sameField{[]byte(f.name), i})
		}
	}
	return out
})

// sameDeltaSpans is baseline.CaseOf(c, c, "") for the case c whose JSON
// raw passThroughSpans passed: the delta of a case compared with itself,
// made from its name, kind, verdict, runs, position, definition digest,
// targets, counts and labels (sorted, the last of a name given twice
// kept, as decoding into a map keeps it), each read where spans says it
// lies: the case is scanned once, by passThroughSpans, and its other
// members (its runs' evidence, its cassettes, its findings) are not read
// again. A member's order does not change the delta (each is given once:
// passThrough refuses a field given twice). Without figures
// (CompareListed), the targets, counts and labels of a case with a
// definition digest are left out (such a case is unchanged, and counts
// alike without them). It reports false for what it leaves to the
// decoder: a string with an escape, a null element of a list, an
// assertion (by block, index and target) or floor (by name) given twice.
// TestSameDeltaIsCaseOf holds it to CaseOf, and to the tests' sameDelta
// (the whole case read again), over drawn cases.
//
// With ss, what it reads and the figures of a comparable case (one with a
// definition digest) lie in ss, reused from case to case: such a delta's
// Targets, Counts and Labels hold until the next call with ss (the
// comparison encodes the delta at once and then drops them: compareOne).
func sameDeltaSpans(raw []byte, spans *caseSpans, figures bool, ss *sameScratch) (baseline.CaseDelta, bool) {
	return sameDeltaKeys(raw, spans, nil, figures, ss)
}

// sameDeltaKeys is sameDeltaSpans taking the keys of the case's
// assertions and floors from keys, where passThroughKeys noted them all
// (keys.ok), rather than reading those members again.
func sameDeltaKeys(raw []byte, spans *caseSpans, keys *sameKeys, figures bool, ss *sameScratch) (baseline.CaseDelta, bool) {
	r := sameReader{s: caseScan{b: raw}, ss: ss}
	if ss != nil {
		r.targets, r.counts, r.labels = ss.targets[:0], ss.counts[:0], ss.labels[:0]
		r.asserts, r.floors = ss.asserts[:0], ss.floors[:0]
		defer func() {
			ss.targets, ss.counts, ss.labels = r.targets, r.counts, r.labels
			ss.asserts, ss.floors = r.asserts, r.floors
		}()
	}
	noted := keys != nil && keys.ok
	if noted {
		for _, a := range keys.asserts {
			if !r.addAssertion(a) {
				return r.d, false
			}
		}
		for _, f := range keys.floors {
			if !r.addFloor(f) {
				return r.d, false
			}
		}
		// Every member it reads was noted by the scan: none is read
		// again.
		r.d.Name, r.d.Kind, r.side.Verdict = intern(keys.name), report.Kind(intern(keys.kind)), keys.verdict
		r.side.Position = diag.Pos{File: intern(keys.file), Line: keys.line, Col: keys.col}
		r.side.Runs, r.digest = keys.runs, len(keys.digest) > 0
		r.targets = append(r.targets, keys.targets...)
		r.counts = append(r.counts, keys.counts...)
		r.labels = append(r.labels, keys.labels...)
		return r.delta(figures)
	}
	for _, f := range sameFields() {
		sp := spans[f.index]
		if sp.end == 0 || noted && (string(f.key) == "assertions" || string(f.key) == "floors") {
			continue
		}
		r.s.i = sp.start
		r.s.space()
		if !r.member(f.key) {
			return r.d, false
		}
	}
	return r.delta(figures)
}

// sameScratch is a comparison worker's storage for sameDeltaSpans.
type sameScratch struct {
	targets, counts, labels []member
	asserts                 []assertionKey
	floors                  [][]byte
	tds                     []baseline.TargetDelta
	cds                     []baseline.CountDelta
	lds                     []baseline.LabelDelta
	fs                      []float64
	ns                      []int64
	ls                      []string
	// sides, where the comparison's worker sets it, holds the sides of
	// the unchanged cases of its batch (delta), until the fold is done
	// with the batch.
	sides []baseline.CaseSide
}

// delta is the delta of the case r has read.
func (r *sameReader) delta(figures bool) (baseline.CaseDelta, bool) {
	var ok bool
	d := r.d
	d.Status, d.Flips = baseline.Same, []baseline.Flip{}
	if !r.digest {
		d.Status = baseline.NotComparable
		d.Reasons = []string{baseline.NoDefinitionDigest}
	}
	if ss := r.ss; ss != nil && d.Status == baseline.Same && cap(ss.sides)-len(ss.sides) >= 2 {
		// An unchanged case's sides, only counted by the fold, lie in
		// its batch's storage, reused once the fold is done with them.
		n := len(ss.sides)
		ss.sides = append(ss.sides, r.side, r.side)
		d.Baseline, d.Current = &ss.sides[n], &ss.sides[n+1]
	} else {
		bs, cs := r.side, r.side
		d.Baseline, d.Current = &bs, &cs
	}
	d.Targets, d.Counts = []baseline.TargetDelta{}, []baseline.CountDelta{}
	if !figures && r.digest {
		return d, true
	}
	comparable := d.Status == baseline.Same
	var ss sameScratch
	if r.ss != nil && comparable {
		ss = *r.ss
		defer func() { *r.ss = ss }()
	}
	if d.Targets, ok = targetDeltas(lastOfEach(r.targets), comparable, &ss); !ok {
		return d, false
	}
	if d.Counts, ok = countDeltas(lastOfEach(r.counts), comparable, &ss); !ok {
		return d, false
	}
	d.Labels, ok = labelDeltas(lastOfEach(r.labels), &ss)
	return d, ok
}

// sameReader reads what sameDelta makes a delta of, member by member.
type sameReader struct {
	s                       caseScan
	d                       baseline.CaseDelta
	side                    baseline.CaseSide
	digest                  bool
	targets, counts, labels []member
	asserts                 []assertionKey
	floors                  [][]byte
	// ss, when set, is storage reused from case to case.
	ss *sameScratch
}

// assertionKey is what tells a case's assertions apart.
type assertionKey struct {
	block, target []byte
	index         int
}

// member reads the case's member k.
func (r *sameReader) member(k []byte) bool {
	s := &r.s
	switch string(k) {
	case "name":
		return s.text(&r.d.Name)
	case "kind":
		return s.text((*string)(&r.d.Kind))
	case "verdict":
		return s.text((*string)(&r.side.Verdict))
	case "definition_sha256":
		var v []byte
		ok := s.raw(&v)
		r.digest = len(v) > 0
		return ok
	case "runs":
		return s.int(&r.side.Runs)
	case "position":
		return s.eachMember(r.position)
	case "targets":
		return r.figures(&r.targets)
	case "counts":
		return r.figures(&r.counts)
	case "labels":
		return r.figures(&r.labels)
	case "assertions":
		return s.eachElement(r.assertion)
	case "floors":
		return s.eachElement(r.floor)
	}
	return s.skip()
}

func (r *sameReader) position(k []byte) bool {
	s, p := &r.s, &r.side.Position
	switch string(k) {
	case "file":
		return s.text(&p.File)
	case "line":
		return s.int(&p.Line)
	case "col":
		return s.int(&p.Col)
	}
	return s.skip()
}

// figures reads an object of targets, counts or labels: each member's
// name and its value's text, a number or a string with no escape.
func (r *sameReader) figures(list *[]member) bool {
	s := &r.s
	return s.eachMember(func(k []byte) bool {
		start := s.i
		var ok bool
		if s.i < len(s.b) && s.b[s.i] == '"' {
			_, escaped, q := s.quoted()
			ok = q && !escaped
		} else {
			_, _, _, ok = s.number()
		}
		*list = append(*list, member{k, s.b[start:s.i]})
		return ok
	})
}

// assertion reads an assertion's key; false for one given twice.
func (r *sameReader) assertion() bool {
	var a assertionKey
	ok := r.s.eachMember(func(k []byte) bool {
		switch string(k) {
		case "block":
			return r.s.raw(&a.block)
		case "index":
			return r.s.int(&a.index)
		case "target":
			return r.s.raw(&a.target)
		}
		return r.s.skip()
	})
	return r.addAssertion(a) && ok
}

// addAssertion notes an assertion's key; false for one given twice.
func (r *sameReader) addAssertion(a assertionKey) bool {
	for _, b := range r.asserts {
		if b.index == a.index && bytes.Equal(b.block, a.block) && bytes.Equal(b.target, a.target) {
			return false
		}
	}
	r.asserts = append(r.asserts, a)
	return true
}

// floor reads a floor's name; false for one given twice.
func (r *sameReader) floor() bool {
	var name []byte
	ok := r.s.eachMember(func(k []byte) bool {
		if string(k) == "name" {
			return r.s.raw(&name)
		}
		return r.s.skip()
	})
	return r.addFloor(name) && ok
}

// addFloor notes a floor's name; false for one given twice.
func (r *sameReader) addFloor(name []byte) bool {
	for _, f := range r.floors {
		if bytes.Equal(f, name) {
			return false
		}
	}
	r.floors = append(r.floors, name)
	return true
}

// targetDeltas are the targets of a case compared with itself, each
// figure a delta of 0 where the case is comparable.
func targetDeltas(targets []member, comparable bool, ss *sameScratch) ([]baseline.TargetDelta, bool) {
	out := slices.Grow(ss.tds[:0], len(targets))[:len(targets)]
	if out == nil {
		out = []baseline.TargetDelta{} // an empty list, not null
	}
	fs := slices.Grow(ss.fs[:0], 2*len(targets))
	ss.tds, ss.fs = out, fs
	for i, m := range targets {
		// A string (its quotes included) does not parse: the decoder
		// refuses it for a float.
		v, err := strconv.ParseFloat(string(m.val), 64)
		if err != nil {
			return nil, false
		}
		fs = append(fs, v, 0)
		t := baseline.TargetDelta{Name: intern(m.key), Baseline: &fs[2*i], Current: &fs[2*i]}
		if comparable {
			t.Delta = &fs[2*i+1]
		}
		out[i] = t
	}
	return out, true
}

// countDeltas are targetDeltas for the counts.
func countDeltas(counts []member, comparable bool, ss *sameScratch) ([]baseline.CountDelta, bool) {
	out := slices.Grow(ss.cds[:0], len(counts))[:len(counts)]
	if out == nil {
		out = []baseline.CountDelta{} // an empty list, not null
	}
	ns := slices.Grow(ss.ns[:0], 2*len(counts))
	ss.cds, ss.ns = out, ns
	for i, m := range counts {
		v, err := strconv.ParseInt(string(m.val), 10, 64)
		if err != nil {
			return nil, false
		}
		ns = append(ns, v, 0)
		c := baseline.CountDelta{Name: intern(m.key), Baseline: &ns[2*i], Current: &ns[2*i]}
		if comparable {
			c.Delta = &ns[2*i+1]
		}
		out[i] = c
	}
	return out, true
}

// labelDeltas are the labels of a case compared with itself; nil for
// none.
func labelDeltas(labels []member, ss *sameScratch) ([]baseline.LabelDelta, bool) {
	if len(labels) == 0 {
		return nil, true
	}
	out := slices.Grow(ss.lds[:0], len(labels))[:len(labels)]
	vs := slices.Grow(ss.ls[:0], len(labels))[:len(labels)]
	ss.lds, ss.ls = out, vs
	for i, m := range labels {
		if m.val[0] != '"' {
			return nil, false
		}
		vs[i] = intern(m.val[1 : len(m.val)-1])
		out[i] = baseline.LabelDelta{Name: intern(m.key), Baseline: &vs[i], Current: &vs[i]}
	}
	return out, true
}

// lastOfEach sorts an object's members by name, keeping of a name given
// twice the last one (as decoding it into a map keeps it).
func lastOfEach(ms []member) []member {
	// An encoder writes a map's members sorted, each once: nothing to do.
	sorted := true
	for i := 1; i < len(ms) && sorted; i++ {
		sorted = bytes.Compare(ms[i-1].key, ms[i].key) < 0
	}
	if sorted {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(ms[i+1].key, m.key) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// eachMember reads an object at s.i, calling member with each name, the
// scan at the value; null is an object of no member.
func (s *caseScan) eachMember(member func(k []byte) bool) bool {
	s.space()
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		k, escaped, ok := s.quoted()
		if !ok || escaped || !s.colon() {
			return false
		}
		s.space()
		if !member(k) {
			return false
		}
		more, ok := s.next('}')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// eachElement reads an array of objects at s.i, calling element at each;
// null is an array of none.
func (s *caseScan) eachElement(element func() bool) bool {
	s.space()
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return false
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != '{' || !element() {
			return false
		}
		more, ok := s.next(']')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// null reads a null, which leaves the value it is decoded into as it was.
func (s *caseScan) null() bool {
	return s.i < len(s.b) && s.b[s.i] == 'n' && s.literal("null")
}

// raw reads a string with no escape, or null, as its text into v.
func (s *caseScan) raw(v *[]byte) bool {
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	t, escaped, ok := s.quoted()
	*v = t
	return ok && !escaped
}

// text reads a string with no escape, or null, into v.
func (s *caseScan) text(v *string) bool {
	if s.null() {
		return true
	}
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false
	}
	t, escaped, ok := s.quoted()
	if !ok || escaped {
		return false
	}
	*v = intern(t)
	return true
}

// intern is string(b), without a copy for the words most cases repeat.
func intern(b []byte) string {
	switch string(b) {
	case "agent":
		return "agent"
	case "pass":
		return "pass"
	case "fail":
		return "fail"
	case "suite.yml":
		return "suite.yml"
	case "stable_pass":
		return "stable_pass"
	case "flaky":
		return "flaky"
	case "stable_fail":
		return "stable_fail"
	case "reliability.class":
		return "reliability.class"
	case "reliability.pass_rate":
		return "reliability.pass_rate"
	case "reliability.runs":
		return "reliability.runs"
	case "reliability.passed_runs":
		return "reliability.passed_runs"
	case "tool_selection.f1":
		return "tool_selection.f1"
	case "tool_selection.tp":
		return "tool_selection.tp"
	case "tool_selection.fp":
		return "tool_selection.fp"
	case "tool_selection.fn":
		return "tool_selection.fn"
	}
	return string(b)
}

// quoted reads a string at s.i of a text passThrough passed (so a valid
// JSON string): its text between the quotes, whether it holds an
// escape, false for no closing quote.
func (s *caseScan) quoted() (text []byte, escaped, ok bool) {
	b := s.b
	start := s.i + 1
	for j := start; j < len(b); {
		// Eight bytes at a time to the first that needs a look
		// (special8); of those only a quote or a backslash matters
		// here.
		if j+8 <= len(b) {
			m := special8(binary.LittleEndian.Uint64(b[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		}
		switch b[j] {
		case '"':
			s.i = j + 1
			return b[start:j], escaped, true
		case '\\':
			escaped = true
			j += 2 // the backslash and the character it escapes
		default:
			j++
		}
	}
	return nil, false, false
}

// int reads an integer with no fraction or exponent, or null, into v.
func (s *caseScan) int(v *int) bool {
	if s.null() {
		return true
	}
	num, frac, exp, ok := s.number()
	if !ok || frac || exp {
		return false
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	*v = int(n)
	return err == nil
}

// skip reads past one value that passThrough passed.
func (s *caseScan) skip() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, _, ok := s.quoted()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, _, ok := s.quoted(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, _, _, ok := s.number()
	return ok
}
