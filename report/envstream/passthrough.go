package envstream

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/mcptest/mcptest/report"
)

// A case's bytes are passed through a merge without being decoded when a
// scan of them proves three things at once: encoding/json's Unmarshal
// decodes them into a report.CaseResult without an error (every value of
// the syntax and of the type its field has, each number in its field's
// range), CaseResult.Check finds nothing to refuse (no string holds a
// control character, the verdict, kind and reliability class are of their
// sets, every tools entry names a tool and counts no negative calls), and
// what the merge reads of the case (its name, position, verdict and the
// two reliability counts) is what decoding it gives. The scan allocates
// nothing and builds nothing; where it cannot prove all three (a member
// name spelt in another case, given twice or escaped, a number with an
// exponent, an inconclusive case, a string with a control character in
// it, a field of a type it does not know), it says so and the case is
// decoded and checked as before (CaseReader.Decode), whose error, if any,
// is the one given. So a forged or malformed case is refused with the
// words it always was, by the decoder. TestPassThroughIsDecode holds the
// scan to the decoder over drawn cases and their mutations.

// leanCase is what a merge reads of a case it passes through.
type leanCase struct {
	// name and file are the raw bytes of the case's name and
	// position.file, with no escape in them: their decoded text.
	name, file []byte
	line, col  int
	verdict    report.Verdict
	// runs and passed are counts["reliability.runs"] and
	// counts["reliability.passed_runs"], 0 when absent.
	runs, passed int64
}

// shapeKind is how a value of a Go type is decoded from JSON.
type shapeKind uint8

const (
	shapeUnknown shapeKind = iota // a type the scan does not check: the case is decoded
	shapeString
	shapeBool
	shapeInt
	shapeUint
	shapeFloat
	shapeAny
	shapeStruct
	shapeSlice
	shapeMap
	shapePtr
)

// shape is what encoding/json accepts for a Go type.
type shape struct {
	kind   shapeKind
	bits   int
	fields []shapeField
	elem   *shape
}

type shapeField struct {
	name  string
	shape *shape
}

var (
	caseShapeOnce sync.Once
	caseShape     *shape
)

// shapeOf builds the shape of t, encoding/json's rules for the kinds the
// scan checks: a struct's exported fields by their JSON names (none
// embedded, none with ",string"), maps with string keys, slices other than
// []byte, pointers; a type with a decoding method of its own is unknown.
func shapeOf(t reflect.Type, seen map[reflect.Type]*shape) *shape {
	if s, ok := seen[t]; ok {
		return s
	}
	s := &shape{}
	seen[t] = s
	um := reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	tm := reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
	if t.Implements(um) || reflect.PointerTo(t).Implements(um) || t.Implements(tm) || reflect.PointerTo(t).Implements(tm) {
		return s
	}
	switch t.Kind() {
	case reflect.String:
		s.kind = shapeString
	case reflect.Bool:
		s.kind = shapeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.kind, s.bits = shapeInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s.kind, s.bits = shapeUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		s.kind, s.bits = shapeFloat, t.Bits()
	case reflect.Interface:
		if t.NumMethod() == 0 {
			s.kind = shapeAny
		}
	case reflect.Pointer:
		s.kind, s.elem = shapePtr, shapeOf(t.Elem(), seen)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			s.kind, s.elem = shapeSlice, shapeOf(t.Elem(), seen)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Key() == reflect.TypeFor[string]() {
			s.kind, s.elem = shapeMap, shapeOf(t.Elem(), seen)
		}
	case reflect.Struct:
		structShape(s, t, seen)
	}
	return s
}

// structShape fills s with the fields of struct type t, or leaves it
// unknown.
func structShape(s *shape, t reflect.Type, seen map[reflect.Type]*shape) {
	var fields []shapeField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := bytes.Cut([]byte(tag), []byte(","))
		for _, o := range bytes.Split(opts, []byte(",")) {
			if string(o) == "string" {
				return
			}
		}
		if len(name) == 0 {
			name = []byte(f.Name)
		}
		for _, c := range name {
			if c >= utf8.RuneSelf || c == '\\' || c == '"' {
				return
			}
		}
		for _, g := range fields {
			if bytes.EqualFold([]byte(g.name), name) {
				return
			}
		}
		fields = append(fields, shapeField{name: string(name), shape: shapeOf(f.Type, seen)})
	}
	if len(fields) > 64 {
		return
	}
	s.kind, s.fields = shapeStruct, fields
}

// maxScanDepth bounds the nesting the scan follows; a deeper case is
// decoded.
const maxScanDepth = 200

// what a struct's or map's members are read for: the case itself, its
// position, reliability, counts, labels, or a tools entry.
type scanRole uint8

const (
	roleNone scanRole = iota
	roleCase
	rolePosition
	roleReliability
	roleCounts
	roleLabels
	roleTool
	// the case's assertions and floors, and each of their entries: read
	// only where the scan keeps their keys (caseScan.keys).
	roleAssertions
	roleAssertion
	roleFloors
	roleFloor
	// the case's targets: read only where the scan keeps its figures.
	roleTargets
)

// caseScan is one scan of a case's bytes.
type caseScan struct {
	b     []byte
	i     int
	depth int
	// escaped is set by str when the string it read held an escape,
	// wide when it held a byte past ASCII.
	escaped, wide bool
	lc            *leanCase
	// what the roles read: each member read once.
	seenRuns, seenPassed, seenClass bool
	tool                            []byte
	calls                           int64
	kind, class                     []byte
	// spans, when set, takes where the value of each field of the case
	// itself lies (by its index in caseShape's fields).
	spans *caseSpans
	// keys, when set, takes what tells the case's assertions and floors
	// apart, for sameDeltaKeys not to read them again.
	keys *sameKeys
}

// sameKeys are the keys of a case's assertions (block, index, target)
// and floors (name), in their order, as the scan read them; ok is false
// where the scan could not note them as the comparison's second reading
// of them would (an entry not an object, a key with an escape): that
// reading is then done (sameDeltaKeys).
type sameKeys struct {
	asserts []assertionKey
	floors  [][]byte
	ok      bool
	// the entry being read
	assert assertionKey
	floor  []byte
	// The case's other members sameDeltaKeys reads, noted where ok: its
	// name, kind, verdict and position (as the scan's leanCase holds
	// them), its runs, its definition digest, and its targets', counts'
	// and labels' members (each name and its value's text, in their
	// order), where each is a number or a string with no escape.
	name, kind, file        []byte
	verdict                 report.Verdict
	line, col, runs         int
	digest                  []byte
	targets, counts, labels []member
}

// passThrough scans a case's JSON: true when Unmarshal decodes it without
// an error, Check passes it and lc holds what the merge reads of it, as
// decoding gives; false when the case is to be decoded.
func passThrough(raw []byte, lc *leanCase) bool {
	return passThroughSpans(raw, lc, nil)
}

// passThroughSpans is passThrough noting in spans, when it is not nil,
// where the value of each field of the case lies (caseSpans), for a
// comparison to read the fields it needs without a second scan of the
// case.
func passThroughSpans(raw []byte, lc *leanCase, spans *caseSpans) bool {
	return passThroughKeys(raw, lc, spans, nil)
}

// passThroughKeys is passThroughSpans noting in keys, when it is not nil,
// the keys of the case's assertions and floors (sameKeys). What it
// reports does not depend on keys: it reads the same members with the
// same rules, keeping more of them.
func passThroughKeys(raw []byte, lc *leanCase, spans *caseSpans, keys *sameKeys) bool {
	caseShapeOnce.Do(func() {
		caseShape = shapeOf(reflect.TypeFor[report.CaseResult](), map[reflect.Type]*shape{})
	})
	*lc = leanCase{}
	if spans != nil {
		*spans = caseSpans{}
	}
	if keys != nil {
		*keys = sameKeys{asserts: keys.asserts[:0], floors: keys.floors[:0], ok: true,
			targets: keys.targets[:0], counts: keys.counts[:0], labels: keys.labels[:0]}
	}
	s := caseScan{b: raw, lc: lc, spans: spans, keys: keys}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' || !s.object(caseShape, roleCase) {
		return false
	}
	s.space()
	if s.i != len(s.b) {
		return false
	}
	if keys != nil {
		keys.name, keys.kind, keys.verdict = lc.name, s.kind, lc.verdict
		keys.file, keys.line, keys.col = lc.file, lc.line, lc.col
	}
	switch lc.verdict {
	case report.Pass, report.Fail, "":
	default: // inconclusive (its no-calls finding is read by decoding it), or refused
		return false
	}
	switch report.Kind(s.kind) {
	case report.KindAgent, report.KindScenario, report.KindToolQuality, report.KindTool,
		report.KindCompliance, report.KindRedteam, report.KindEval, "":
	default:
		return false
	}
	return true
}

// reliabilityClass reports v is a class Check accepts ("" for none).
func reliabilityClass(v []byte) bool {
	switch string(v) {
	case "", "stable_pass", "flaky", "stable_fail":
		return true
	}
	return false
}

func (s *caseScan) space() {
	// Compact JSON has none: one test of the byte at s.i (every byte of
	// white space is at most ' ').
	for s.i < len(s.b) && s.b[s.i] <= ' ' {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value of shape sh.
func (s *caseScan) value(sh *shape, role scanRole) bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	c := s.b[s.i]
	if sh.kind == shapeUnknown {
		return false
	}
	if c == 'n' {
		return s.literal("null")
	}
	switch sh.kind {
	case shapeString:
		if c != '"' {
			return false
		}
		_, ok := s.str()
		return ok
	case shapeBool:
		if c == 't' {
			return s.literal("true")
		}
		return c == 'f' && s.literal("false")
	case shapeInt, shapeUint:
		_, ok := s.integer(sh)
		return ok
	case shapeFloat:
		return s.float(sh.bits)
	case shapeAny:
		return s.anyValue()
	case shapeStruct:
		return c == '{' && s.object(sh, role)
	case shapeMap:
		return c == '{' && s.mapObject(sh, role)
	case shapeSlice:
		return c == '[' && s.array(sh, role)
	case shapePtr:
		return s.value(sh.elem, role)
	}
	return false
}

func (s *caseScan) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// str reads a string at s.b[s.i] == '"' and returns its text between the
// quotes; false for a string JSON refuses or one holding a character
// Check refuses in a one-line field (a control character: the case is
// then decoded, and refused or not there), or invalid UTF-8. It sets
// s.escaped when the string holds an escape and s.wide when it holds a
// byte past ASCII.
func (s *caseScan) str() ([]byte, bool) {
	b := s.b
	start := s.i + 1
	s.escaped, s.wide = false, false
	for j := start; j < len(b); {
		// Eight bytes at a time: special8 marks the bytes that need a
		// look, and the first of them is where the scan goes next.
		if j+8 <= len(b) {
			m := special8(binary.LittleEndian.Uint64(b[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		}
		c := b[j]
		switch {
		case c == '"':
			s.i = j + 1
			return b[start:j], true
		case c == '\\':
			s.escaped = true
			if j+1 >= len(b) {
				return nil, false
			}
			switch b[j+1] {
			case '"', '\\', '/':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return nil, false
				}
				var r rune
				for _, h := range b[j+2 : j+6] {
					switch {
					case h >= '0' && h <= '9':
						r = r<<4 | rune(h-'0')
					case h >= 'a' && h <= 'f':
						r = r<<4 | rune(h-'a'+10)
					case h >= 'A' && h <= 'F':
						r = r<<4 | rune(h-'A'+10)
					default:
						return nil, false
					}
				}
				if isControl(r) {
					return nil, false
				}
				j += 6
			default: // \b \f \n \r \t are control characters; anything else is no escape
				return nil, false
			}
		case c < 0x20 || c == 0x7f:
			return nil, false
		case c >= utf8.RuneSelf:
			s.wide = true
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n == 1 || isControl(r) {
				return nil, false
			}
			j += n
		default:
			j++
		}
	}
	return nil, false
}

// plain8 reports whether none of the eight bytes of x is a '"', a '\\',
// below 0x20 or 0x7f and above.
func plain8(x uint64) bool {
	return special8(x) == 0
}

// special8 marks (its high bit set) each byte of x, read little-endian,
// that is a '"', a '\\', below 0x20, or 0x7f and above. A mark above the
// first may be wrong (a borrow carried into the next byte), never the
// first: bits.TrailingZeros64(special8(x))/8 is the first such byte.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	del := x ^ (ones * 0x7f)
	return ((x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs | (del-ones)&^del | x) & highs
}

// isControl is report's isControl: a character Check refuses in a
// one-line field.
func isControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// number reads a JSON number: its bytes, and whether it has a fraction or
// an exponent.
func (s *caseScan) number() (num []byte, frac, exp bool, ok bool) {
	start, j := s.i, s.i
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	switch {
	case j < len(s.b) && s.b[j] == '0':
		j++
	case j < len(s.b) && s.b[j] >= '1' && s.b[j] <= '9':
		j = s.digits(j)
	default:
		return nil, false, false, false
	}
	if j < len(s.b) && s.b[j] == '.' {
		frac = true
		k := s.digits(j + 1)
		if k == j+1 {
			return nil, false, false, false
		}
		j = k
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		exp = true
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		k := s.digits(j)
		if k == j {
			return nil, false, false, false
		}
		j = k
	}
	s.i = j
	return s.b[start:j], frac, exp, true
}

// digits is where the run of decimal digits from j ends.
func (s *caseScan) digits(j int) int {
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	return j
}

// integer reads a number into an integer of sh's kind and size, as
// strconv.ParseInt or ParseUint and the overflow check of encoding/json
// accept it, and returns its value (as an int64: a uint64 over int64's
// range is returned wrapped, and is read by no role).
func (s *caseScan) integer(sh *shape) (int64, bool) {
	num, frac, exp, ok := s.number()
	if !ok || frac || exp {
		return 0, false
	}
	neg := num[0] == '-'
	if neg {
		if sh.kind == shapeUint {
			return 0, false
		}
		num = num[1:]
	}
	if len(num) > 20 {
		return 0, false
	}
	var v uint64
	for _, d := range num {
		if v > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(d-'0')
	}
	var limit uint64
	switch {
	case sh.kind == shapeUint:
		limit = math.MaxUint64 >> (64 - sh.bits)
	case neg:
		limit = 1 << (sh.bits - 1)
	default:
		limit = 1<<(sh.bits-1) - 1
	}
	if v > limit {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

// float reads a number into a float of bits bits: one with no exponent
// and at most 38 digits before its point is within float32's range, and
// float64's.
func (s *caseScan) float(bits int) bool {
	num, _, exp, ok := s.number()
	if !ok || exp {
		return false
	}
	if num[0] == '-' {
		num = num[1:]
	}
	if k := bytes.IndexByte(num, '.'); k >= 0 {
		num = num[:k]
	}
	return len(num) <= 38 || bits == 64 && len(num) <= 308
}

// anyValue reads a value of any JSON type into an interface, as
// encoding/json decodes it (numbers as float64).
func (s *caseScan) anyValue() bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == 'n':
		return s.literal("null")
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == '{' || c == '[':
		if s.depth++; s.depth > maxScanDepth {
			return false
		}
		ok := s.anyContainer(c)
		s.depth--
		return ok
	default:
		return s.float(64)
	}
}

// anyContainer reads an object or array (c its opening bracket) of any
// values.
func (s *caseScan) anyContainer(c byte) bool {
	{
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		s.i++
		s.space()
		if s.i < len(s.b) && s.b[s.i] == close {
			s.i++
			return true
		}
		for {
			if c == '{' {
				s.space()
				if s.i >= len(s.b) || s.b[s.i] != '"' {
					return false
				}
				if _, ok := s.str(); !ok || !s.colon() {
					return false
				}
			}
			if !s.anyValue() {
				return false
			}
			more, ok := s.next(close)
			if !ok {
				return false
			}
			if !more {
				return true
			}
		}
	}
}

func (s *caseScan) colon() bool {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		return false
	}
	s.i++
	return true
}

// next reads the ',' before another member or element (true) or the
// closing bracket (false).
func (s *caseScan) next(close byte) (more, ok bool) {
	s.space()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case close:
		s.i++
		return false, true
	}
	return false, false
}

// key reads a member name of a struct: plain ASCII with no escape, else
// false (encoding/json matches a name without regard to case, and after
// unescaping it).
func (s *caseScan) key() ([]byte, bool) {
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	k, ok := s.str()
	if !ok || s.escaped || s.wide {
		return nil, false
	}
	return k, s.colon()
}

// object reads a struct of shape sh: each member a field read once and
// spelt as its field is, or a name no field has (read as any value).
func (s *caseScan) object(sh *shape, role scanRole) bool {
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	ok := s.members(sh, role)
	s.depth--
	return ok
}

// members reads a struct's members, past its opening brace.
func (s *caseScan) members(sh *shape, role scanRole) bool {
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.closeStruct(role, 0)
	}
	var seen uint64
	last := -1
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		// An encoder writes the fields in their order: look from the
		// one after the last.
		f := -1
		for n, j := 0, last+1; n < len(sh.fields); n, j = n+1, j+1 {
			if j == len(sh.fields) {
				j = 0
			}
			if sh.fields[j].name == string(k) {
				f = j
				break
			}
		}
		last = f
		if f < 0 {
			for j := range sh.fields {
				if bytes.EqualFold([]byte(sh.fields[j].name), k) {
					return false
				}
			}
			if !s.anyValue() {
				return false
			}
		} else {
			if seen&(1<<f) != 0 {
				return false
			}
			seen |= 1 << f
			start := s.i
			if !s.member(sh.fields[f], role) {
				return false
			}
			if role == roleCase && s.spans != nil {
				s.spans[f] = span{start, s.i}
			}
		}
		more, ok := s.next('}')
		if !ok {
			return false
		}
		if !more {
			return s.closeStruct(role, seen)
		}
	}
}

// closeStruct checks what a role read once its object is read.
func (s *caseScan) closeStruct(role scanRole, _ uint64) bool {
	switch role {
	case roleTool:
		// Check: a tools entry names its tool and counts no negative
		// calls.
		ok := len(s.tool) > 0 && s.calls >= 0
		s.tool, s.calls = nil, 0
		return ok
	case roleAssertion:
		s.keys.asserts = append(s.keys.asserts, s.keys.assert)
		s.keys.assert = assertionKey{}
	case roleFloor:
		s.keys.floors = append(s.keys.floors, s.keys.floor)
		s.keys.floor = nil
	}
	return true
}

// member reads the value of struct field f, keeping what role reads of
// it.
func (s *caseScan) member(f shapeField, role scanRole) bool {
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	var ok, read bool
	switch role {
	case roleCase:
		ok, read = s.caseMember(f)
	case rolePosition:
		ok, read = s.positionMember(f)
	case roleReliability:
		if f.name == "class" {
			v, ok := s.plainString()
			return ok && reliabilityClass(v)
		}
	case roleAssertion:
		switch f.name {
		case "block":
			return s.keyString(f.shape, &s.keys.assert.block)
		case "target":
			return s.keyString(f.shape, &s.keys.assert.target)
		case "index":
			if f.shape.kind == shapeInt {
				v, ok := s.nullableInt(f.shape)
				s.keys.assert.index = int(v)
				return ok
			}
		}
	case roleFloor:
		if f.name == "name" {
			return s.keyString(f.shape, &s.keys.floor)
		}
	case roleTool:
		switch f.name {
		case "tool":
			v, ok := s.plainString()
			s.tool = v
			return ok
		case "calls":
			v, ok := s.nullableInt(f.shape)
			s.calls = v
			return ok
		}
	}
	if read {
		return ok
	}
	return s.value(f.shape, roleNone)
}

// caseMember reads the fields of the case itself the merge or Check
// reads (read), or none.
func (s *caseScan) caseMember(f shapeField) (ok, read bool) {
	switch f.name {
	case "name", "verdict", "kind":
		v, ok := s.plainString()
		switch f.name {
		case "name":
			s.lc.name = v
		case "verdict":
			s.lc.verdict = report.Verdict(v)
		default:
			s.kind = v
		}
		return ok, true
	case "position":
		return s.value(f.shape, rolePosition), true
	case "reliability":
		return s.value(f.shape, roleReliability), true
	case "counts":
		return s.value(f.shape, roleCounts), true
	case "labels":
		return s.value(f.shape, roleLabels), true
	case "tools":
		return s.value(f.shape, roleTool), true
	case "targets":
		if s.keys != nil {
			return s.value(f.shape, roleTargets), true
		}
	case "runs":
		if s.keys != nil && f.shape.kind == shapeInt {
			v, ok := s.nullableInt(f.shape)
			s.keys.runs = int(v)
			return ok, true
		}
	case "definition_sha256":
		if s.keys != nil {
			return s.keyString(f.shape, &s.keys.digest), true
		}
	case "assertions", "floors":
		if s.keys != nil {
			role := roleAssertions
			if f.name == "floors" {
				role = roleFloors
			}
			return s.value(f.shape, role), true
		}
	}
	return false, false
}

// positionMember reads the case's position.
func (s *caseScan) positionMember(f shapeField) (ok, read bool) {
	switch f.name {
	case "file":
		v, ok := s.plainString()
		s.lc.file = v
		return ok, true
	case "line", "col":
		v, ok := s.nullableInt(f.shape)
		if f.name == "line" {
			s.lc.line = int(v)
		} else {
			s.lc.col = int(v)
		}
		return ok, true
	}
	return false, false
}

// keyString reads the value of a string field of shape sh, a string or
// null, noting its text in v (nil for null); a string with an escape is
// read as any other, and leaves the keys to be read again.
func (s *caseScan) keyString(sh *shape, v *[]byte) bool {
	switch {
	case sh.kind != shapeString:
		return s.value(sh, roleNone)
	case s.b[s.i] == 'n':
		*v = nil
		return s.literal("null")
	case s.b[s.i] != '"':
		return false
	}
	t, ok := s.str()
	*v = t
	if s.escaped {
		s.keys.ok = false
	}
	return ok
}

// plainString reads a string with no escape in it, or null (nil).
func (s *caseScan) plainString() ([]byte, bool) {
	switch s.b[s.i] {
	case 'n':
		return nil, s.literal("null")
	case '"':
		v, ok := s.str()
		return v, ok && !s.escaped
	}
	return nil, false
}

// nullableInt reads an integer of sh's kind and size, or null (0).
func (s *caseScan) nullableInt(sh *shape) (int64, bool) {
	if s.b[s.i] == 'n' {
		return 0, s.literal("null")
	}
	return s.integer(sh)
}

// mapObject reads a map with string keys; counts and labels keep the keys
// the merge and Check read (each once, spelt with no escape).
func (s *caseScan) mapObject(sh *shape, role scanRole) bool {
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	ok := s.mapMembers(sh, role)
	s.depth--
	return ok
}

// mapMembers reads a map's members, past its opening brace.
func (s *caseScan) mapMembers(sh *shape, role scanRole) bool {
	s.i++ // {
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
		k, ok := s.str()
		if !ok || !s.colon() {
			return false
		}
		if (role == roleCounts || role == roleLabels) && s.escaped {
			return false
		}
		escapedKey := s.escaped
		s.space()
		start := s.i
		if !s.mapValue(sh, role, k) {
			return false
		}
		if s.keys != nil && (role == roleTargets || role == roleCounts || role == roleLabels) {
			s.noteFigure(role, k, escapedKey, s.b[start:s.i])
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

// noteFigure notes member k of the case's targets, counts or labels,
// its value's text v, as sameReader.figures reads it: a name with no
// escape, its value a number or a string with no escape (s.escaped, as
// mapValue's read of v left it); else the keys are left to be read again.
func (s *caseScan) noteFigure(role scanRole, k []byte, escapedKey bool, v []byte) {
	if escapedKey || len(v) == 0 || v[0] == 'n' || v[0] == '"' && s.escaped {
		s.keys.ok = false
		return
	}
	m := member{k, v}
	switch role {
	case roleTargets:
		s.keys.targets = append(s.keys.targets, m)
	case roleCounts:
		s.keys.counts = append(s.keys.counts, m)
	default:
		s.keys.labels = append(s.keys.labels, m)
	}
}

// mapValue reads the value of map member k.
func (s *caseScan) mapValue(sh *shape, role scanRole, k []byte) bool {
	switch {
	case role == roleCounts && (string(k) == "reliability.runs" || string(k) == "reliability.passed_runs"):
		s.space()
		var v int64
		if s.i < len(s.b) && s.b[s.i] == 'n' {
			if !s.literal("null") {
				return false
			}
		} else {
			var ok bool
			if v, ok = s.integer(sh.elem); !ok {
				return false
			}
		}
		if string(k) == "reliability.runs" {
			if s.seenRuns {
				return false
			}
			s.seenRuns, s.lc.runs = true, v
		} else {
			if s.seenPassed {
				return false
			}
			s.seenPassed, s.lc.passed = true, v
		}
		return true
	case role == roleLabels && string(k) == "reliability.class":
		if s.seenClass {
			return false
		}
		s.seenClass = true
		s.space()
		if s.i < len(s.b) && s.b[s.i] == 'n' {
			return s.literal("null")
		}
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		v, ok := s.str()
		s.class = v
		return ok && !s.escaped && reliabilityClass(v)
	}
	return s.value(sh.elem, roleNone)
}

// array reads a slice; the tools entries are each read as a tool.
func (s *caseScan) array(sh *shape, role scanRole) bool {
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	ok := s.elements(sh, role)
	s.depth--
	return ok
}

// elements reads a slice's elements, past its opening bracket.
func (s *caseScan) elements(sh *shape, role scanRole) bool {
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	elem := roleNone
	switch role {
	case roleTool:
		elem = roleTool
	case roleAssertions:
		elem = roleAssertion
	case roleFloors:
		elem = roleFloor
	}
	for {
		s.space()
		if (elem == roleAssertion || elem == roleFloor) && (s.i >= len(s.b) || s.b[s.i] != '{') {
			s.keys.ok = false // a null entry: its keys are read again
		}
		if elem == roleTool && (s.i >= len(s.b) || s.b[s.i] != '{') {
			return false // a null entry is a tools entry with no tool name
		}
		if !s.value(sh.elem, elem) {
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
