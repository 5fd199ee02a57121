package prices

import (
	"encoding/json"
	"math/big"
	"slices"
)

// parseFast reads a table in one pass over its bytes, without a decoder
// per entry (decoding LiteLLM's 1.5 MB table entry by entry, three times
// each, cost about 60 ms of CPU in every run that priced a recording). It
// gives up (ok false) on anything parseChecked refuses, and on keys it
// would have to unescape, so that Parse then reads the table with
// parseChecked for its error: where ok is true, its rates and date are
// parseChecked's (TestParseFastSameAsChecked).
func parseFast(data []byte) (rates map[string]rate, updated string, ok bool) {
	if !json.Valid(data) {
		return nil, "", false
	}
	s := scan{data: data}
	if s.space() != '{' {
		return nil, "", false
	}
	s.i++
	rates = map[string]rate{}
	seen := map[string]struct{}{}
	var keys []string // one entry's keys, reused
	for {
		c := s.space()
		if c == '}' {
			s.i++
			break
		}
		if c == ',' {
			s.i++
			s.space()
		}
		model, plain := s.key()
		if !plain {
			return nil, "", false
		}
		if _, twice := seen[model]; twice {
			return nil, "", false
		}
		seen[model] = struct{}{}
		switch s.space() {
		case '"':
			if model != "last_updated" {
				return nil, "", false // an entry that is not an object
			}
			start := s.i
			s.skip()
			var t Table
			if !t.readUpdated(data[start:s.i]) {
				return nil, "", false
			}
			updated = t.Updated
			continue
		case '{':
		default:
			return nil, "", false
		}
		s.i++
		r, ok := s.entry(&keys)
		if !ok {
			return nil, "", false
		}
		if r[0] != nil && r[1] != nil && model != "sample_spec" {
			rates[model] = rate{in: r[0], out: r[1], cached: r[2]}
		}
	}
	if s.space() != 0 {
		return nil, "", false
	}
	return rates, updated, true
}

// entry reads the entry object whose '{' s has just passed: its three
// rates, each nil when absent or null. ok is false for what parseChecked
// refuses (a key given twice, a rate that is not a number or out of
// bounds) or reads decoded (an escaped key). keys is scratch space.
func (s *scan) entry(keys *[]string) (r [3]*big.Rat, ok bool) {
	*keys = (*keys)[:0]
	var text [3][]byte // input, output, cached-input rates as written
	for {
		c := s.space()
		if c == '}' {
			s.i++
			break
		}
		if c == ',' {
			s.i++
			s.space()
		}
		key, plain := s.key()
		if !plain || slices.Contains(*keys, key) {
			return r, false
		}
		*keys = append(*keys, key)
		vc := s.space()
		vs := s.i
		s.skip()
		slot := slices.Index(rateKeys[:], key)
		switch {
		case slot < 0:
		case vc == 'n': // null: no rate
			text[slot] = nil
		case vc == '-' || vc >= '0' && vc <= '9':
			text[slot] = s.data[vs:s.i]
		default:
			return r, false // a rate that is not a number
		}
	}
	for k, t := range text {
		if t == nil {
			continue
		}
		v, seen := s.rats[string(t)]
		if !seen {
			var ok bool
			if v, ok = rateValue(string(t)); !ok {
				return r, false
			}
			if s.rats == nil {
				s.rats = map[string]*big.Rat{}
			}
			s.rats[string(t)] = v
		}
		r[k] = v
	}
	return r, true
}

// rateKeys are the keys of an entry's rates, in the order entry returns
// them.
var rateKeys = [3]string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost"}

// scan walks JSON text json.Valid accepted. rats holds the rates read so
// far by their text: the table writes a few hundred distinct rates over
// thousands of entries, and each is parsed (and bounds-checked, which
// allocates) once, the entries sharing the value; a rate is never
// changed once read (Lookup hands out the same pointers of the one
// embedded table).
type scan struct {
	data []byte
	i    int
	rats map[string]*big.Rat
}

// space skips whitespace and the colon after a key, returning the byte it
// stops at (0 at the end).
func (s *scan) space() byte {
	for s.i < len(s.data) {
		switch c := s.data[s.i]; c {
		case ' ', '\t', '\r', '\n', ':':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// key reads the string at s.i; plain is false for one with an escape or a
// byte past ASCII, which the decoder would rewrite.
func (s *scan) key() (string, bool) {
	start := s.i + 1
	s.skip()
	b := s.data[start : s.i-1]
	for _, c := range b {
		if c == '\\' || c >= 0x80 {
			return "", false
		}
	}
	return string(b), true
}

// skip moves past the value at s.i.
func (s *scan) skip() {
	d := s.data
	switch d[s.i] {
	case '"':
		s.i++
		for d[s.i] != '"' {
			if d[s.i] == '\\' {
				s.i++
			}
			s.i++
		}
		s.i++
	case '{', '[':
		depth := 0
		for {
			switch d[s.i] {
			case '"':
				s.skip()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default:
		for s.i < len(d) {
			switch d[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			s.i++
		}
	}
}
