package cassette

import (
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// decoder reads a JSON document that json.Valid has accepted, value by
// value, straight into generic values (for arguments, results and tools)
// or into the model (see v1.go), without a tree of the whole document. It
// knows the byte offset of everything it reads, so a problem is placed
// where it is found. Objects are checked for repeated keys as they are
// read.
//
// The document being valid, the decoder does not check its syntax: it
// only finds where each value ends.
type decoder struct {
	data []byte
	w    *walker
	// strs interns object keys and the names calls repeat (server, tool,
	// agent), so a million calls share one copy of each; nil interns
	// nothing.
	strs map[string]string
	// rangeOff is the offset of the first number out of the float64 range,
	// -1 while there is none; rangeLit is its literal.
	rangeOff int
	rangeLit string
	// sets holds a key set per nesting depth, reused from object to object.
	sets  []*keySet
	depth int
	// generic turns readChat off (see recording).
	generic bool
	// counting reads for a caller that counts what the runs hold (Tally):
	// a call's arguments are checked for their problems, as ever, and not
	// kept.
	counting bool
	// toolBuf is where a catalog tool's text is written, by canon;
	// toolBlock is the block the texts are kept in, toolLeft about the
	// bytes of the tools still to be read (catalog.go).
	toolBuf   []byte
	toolBlock []byte
	toolLeft  int
	canon     jsonpos.Canonical
	// spent is the memory the values value built from the document take,
	// estimated (see jsonpos.DecodeCost), against budget (DecodeBudget of the
	// document's size); overOff is the offset of the first value left
	// undecoded because spent had passed budget, -1 while none is.
	spent, budget int64
	overOff       int
}

// maxInterned bounds the interned strings of one document; longer strings
// than maxInternLen are not interned.
const (
	maxInterned  = 4096
	maxInternLen = 64
)

// internFrom is the size of the smallest document whose names are
// interned: in a smaller one they repeat too little to repay the map
// (a fifth of the time spent reading a transcript of a few calls; the
// 45 KB files of BenchmarkReadFormats still intern).
const internFrom = 16 << 10

func newDecoder(data []byte, w *walker) *decoder {
	d := &decoder{data: data, w: w, rangeOff: -1, overOff: -1, budget: decodeBudgetOf(len(data))}
	if sets, _ := keySets.Get().(*[]*keySet); sets != nil {
		d.sets = *sets
	}
	if len(data) >= internFrom {
		d.strs = map[string]string{}
	}
	return d
}

// clean reports whether no problem has been found so far.
func (d *decoder) clean() bool {
	return len(d.w.probs) == 0 && len(d.w.dups) == 0 && d.w.dropped == 0 && d.rangeOff < 0 && d.overOff < 0
}

// space returns the offset of the first byte at or after i that is not
// JSON white space.
func (d *decoder) space(i int) int { return jsonpos.Space(d.data, i) }

// strEnd returns the offset just after the string starting at i.
func (d *decoder) strEnd(i int) int { return jsonpos.StringEnd(d.data, i) }

// str decodes the string starting at i and returns it with the offset just
// after it. A string without escapes and of valid UTF-8 is copied as it
// is; any other is decoded by encoding/json, so both read the same.
func (d *decoder) str(i int, intern bool) (string, int) {
	end := d.strEnd(i)
	raw := d.data[i+1 : end-1]
	plain := true
	ascii := true
	for _, c := range raw {
		if c == '\\' {
			plain = false
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if plain && (ascii || utf8.Valid(raw)) {
		if intern && d.strs != nil && len(raw) <= maxInternLen {
			if s, ok := d.strs[string(raw)]; ok {
				return s, end
			}
			s := string(raw)
			if len(d.strs) < maxInterned {
				d.strs[s] = s
			}
			return s, end
		}
		return string(raw), end
	}
	return jsonpos.Unquote(raw), end
}

// numEnd returns the offset just after the number starting at i, and
// whether its literal has a fraction or an exponent.
func (d *decoder) numEnd(i int) (int, bool) {
	frac := false
	for ; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c >= '0' && c <= '9', c == '-':
		case c == '.', c == 'e', c == 'E', c == '+':
			frac = true
		default:
			return i, frac
		}
	}
	return i, frac
}

// number decodes the number starting at i. A number beyond the float64
// range is recorded (the first one is the document's error, as it is for
// encoding/json) and read as 0.
func (d *decoder) number(i int) (float64, int) {
	end, frac := d.numEnd(i)
	lit := d.data[i:end]
	digits := lit
	if lit[0] == '-' {
		digits = lit[1:]
	}
	if !frac && len(digits) <= 15 {
		// An integer of at most 15 digits is exact in a float64.
		n := int64(0)
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if len(digits) < len(lit) {
			return -float64(n), end
		}
		return float64(n), end
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		d.outOfRange(i, lit)
		return 0, end
	}
	return f, end
}

// outOfRange records a number beyond the float64 range at i, keeping the
// first of the document.
func (d *decoder) outOfRange(i int, lit []byte) {
	if d.rangeOff < 0 || i < d.rangeOff {
		d.rangeOff, d.rangeLit = i, string(lit)
	}
}

// skip returns the offset just after the value starting at i. With check,
// the numbers it passes are checked against the float64 range, for a
// value nothing else decodes.
func (d *decoder) skip(i int, check bool) int {
	data := d.data
	switch data[i] {
	case '"':
		return d.strEnd(i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch c := data[i]; {
			case c == '"':
				i = d.strEnd(i)
				continue
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case check && (c == '-' || c >= '0' && c <= '9'):
				end, frac := d.numEnd(i)
				if frac || end-i > 300 {
					d.number(i)
				}
				i = end
				continue
			}
			i++
		}
		return i
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	}
	if check {
		_, end := d.number(i)
		return end
	}
	end, _ := d.numEnd(i)
	return end
}

// discard reads the value starting at i for its problems only (a repeated
// key, a number out of range) and returns the offset just after it.
func (d *decoder) discard(i int) int {
	_, end := d.piece(i)
	return end
}

// piece decodes the value at i as value does, for a reader that lets it
// go before it decodes the next: the budget is spent on that value alone,
// and given back after it unless it ran out there.
func (d *decoder) piece(i int) (any, int) {
	before := d.spent
	v, end := d.value(i)
	if d.overOff < 0 {
		d.spent = before
	}
	return v, end
}

// value decodes the value starting at i as encoding/json decodes into any
// (map[string]any, []any, string, float64, bool or nil) and returns it with
// the offset just after it. A repeated key keeps its first value. What it
// builds is counted against the document's decode budget as it is built;
// once the budget is spent, value decodes nothing more (it returns nil
// and the offset after the value, the first such offset kept in overOff,
// the document's error).
func (d *decoder) value(i int) (any, int) {
	if d.spent > d.budget && d.budget > 0 {
		if d.overOff < 0 {
			d.overOff = i
		}
		return nil, d.skip(i, false)
	}
	switch d.data[i] {
	case '{':
		m := map[string]any{}
		d.spent += jsonpos.MapCost
		end := d.object(i, func(key string, _, v int) int {
			d.spent += jsonpos.MemberCost(len(m), len(key))
			val, end := d.value(v)
			m[key] = val
			return end
		})
		return m, end
	case '[':
		a := []any{}
		d.spent += jsonpos.SliceCost
		end := d.array(i, func(_, v int) int {
			d.spent += jsonpos.ElemCost
			val, end := d.value(v)
			a = append(a, val)
			return end
		})
		return a, end
	case '"':
		s, end := d.str(i, false)
		d.spent += jsonpos.StringCost(len(s))
		return s, end
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	d.spent += jsonpos.NumberCost
	return d.number(i)
}

// object calls member for each member of the object starting at i, in
// order, with its key and the offsets of the key and of the value; member
// returns the offset just after the value. The walker's path names the
// member while member runs. A key the object already holds is recorded as
// a duplicate and its value skipped. object returns the offset just after
// the object.
func (d *decoder) object(i int, member func(key string, keyOff, valOff int) int) int {
	set := d.keySet()
	d.depth++
	defer func() { d.depth-- }()
	i = d.space(i + 1)
	if d.data[i] == '}' {
		return i + 1
	}
	w := d.w
	for {
		keyOff := i
		key, end := d.str(i, true)
		v := d.space(d.space(end) + 1) // past the ':'
		if first := set.add(key, keyOff); first < 0 {
			w.push(key)
			end = member(key, keyOff, v)
			w.pop()
		} else {
			d.duplicate(key, first, keyOff)
			end = d.skip(v, true)
		}
		i = d.space(end)
		if d.data[i] != ',' {
			return i + 1 // the '}'
		}
		i = d.space(i + 1)
	}
}

// duplicate records key, repeated at offset again in the object the
// walker's path names, first found at offset first.
func (d *decoder) duplicate(key string, first, again int) {
	if d.w.full() {
		d.w.dropped++
		return
	}
	d.w.dups = append(d.w.dups, dupProblem{path: append([]seg(nil), d.w.path...), key: key, first: first, again: again})
}

// array calls elem for each element of the array starting at i, in order,
// with its index and offset; elem returns the offset just after the
// element. The walker's path names the element while elem runs. array
// returns the offset just after the array.
func (d *decoder) array(i int, elem func(n, off int) int) int {
	i = d.space(i + 1)
	if d.data[i] == ']' {
		return i + 1
	}
	w := d.w
	for n := 0; ; n++ {
		w.pushIdx(n)
		end := elem(n, i)
		w.pop()
		i = d.space(end)
		if d.data[i] != ',' {
			return i + 1 // the ']'
		}
		i = d.space(i + 1)
	}
}

// keySets holds the key sets of decoders done with their document,
// emptied, for the next decoder: a reader of many small recordings
// (validate's) built them anew for each, a twentieth of what it
// allocated.
var keySets sync.Pool

// done gives the decoder's key sets back, emptied (holding no key of the
// document); the decoder is not used after it.
func (d *decoder) done() {
	for _, s := range d.sets {
		clear(s.small[:cap(s.small)])
		s.small, s.big = s.small[:0], nil
	}
	sets := d.sets
	d.sets = nil
	keySets.Put(&sets)
}

// keySet returns the emptied key set of the current depth.
func (d *decoder) keySet() *keySet {
	for len(d.sets) <= d.depth {
		d.sets = append(d.sets, &keySet{})
	}
	s := d.sets[d.depth]
	s.small, s.big = s.small[:0], nil
	return s
}

// keySet is the keys of one object with the offset of each: a short list,
// or a map once the object has more keys than a list searches quickly.
type keySet struct {
	small []keyAt
	big   map[string]int
}

type keyAt struct {
	key string
	off int
}

// add adds k, found at offset off, and returns -1 when it is new, else the
// offset of its first occurrence.
func (s *keySet) add(k string, off int) int {
	if s.big != nil {
		if first, ok := s.big[k]; ok {
			return first
		}
		s.big[k] = off
		return -1
	}
	for _, x := range s.small {
		if x.key == k {
			return x.off
		}
	}
	if len(s.small) < 16 {
		s.small = append(s.small, keyAt{k, off})
		return -1
	}
	s.big = make(map[string]int, 64)
	for _, x := range s.small {
		s.big[x.key] = x.off
	}
	s.big[k] = off
	return -1
}

// members calls f with the key, the value offset and the offset after the
// value of each member of the object at i, until f returns false. It reads
// every member, repeated keys included, and records nothing.
func (d *decoder) members(i int, f func(key string, v, end int) bool) {
	i = d.space(i + 1)
	for d.data[i] == '"' {
		key, end := d.str(i, false)
		v := d.space(d.space(end) + 1)
		end = d.skip(v, false)
		if !f(key, v, end) {
			return
		}
		i = d.space(end)
		if d.data[i] != ',' {
			return
		}
		i = d.space(i + 1)
	}
}

// forget drops what was recorded, for the document to be read again
// generically from a clean slate.
func (d *decoder) forget() {
	*d.w = walker{path: d.w.path[:0]}
	d.rangeOff, d.rangeLit = -1, ""
	d.spent, d.overOff = 0, -1
}
