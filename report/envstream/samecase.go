package envstream

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// sameBytes compares a case of the current run whose bytes are the
// baseline's case of its name to the byte (the most cases of a run
// compared with the run before it) without decoding it: passThrough
// proves that decoding and checking it succeed, leanOf reads what its
// delta is made of, and baseline.SameOf makes the delta. It reports
// false, for the case to be decoded and compared as before, when any of
// them cannot, or when no baseline case of its name holds the same bytes.
// TestLeanOfIsDecode holds leanOf's case to the decoded one.
func (b *baseIndex) sameBytes(raw []byte, every bool, sc *scratch) (int32, baseline.CaseDelta, bool) {
	name, ok := plainName(raw)
	if !ok {
		return -1, baseline.CaseDelta{}, false
	}
	h := uint64(hash32(name))
	at, _ := slices.BinarySearch(b.keys, h<<32)
	for ; at < len(b.keys) && b.keys[at]>>32 == h; at++ {
		i := int32(b.keys[at])
		if b.dropped.get(i) || int(b.lens[i]) != len(raw) {
			continue
		}
		data, err := b.rawTo(sc.read, i)
		sc.read = data
		if err != nil || !bytes.Equal(data, raw) {
			continue
		}
		var lc leanCase
		if !passThrough(raw, &lc) {
			return -1, baseline.CaseDelta{}, false
		}
		// Without every case's delta (CompareListed), an unchanged
		// case's figures are not read: a case of the same bytes has
		// none that moved; one not comparable (no definition digest) is
		// listed, with its figures.
		c, ok := leanOf(raw, every)
		if ok && !every && c.DefinitionSHA256 == "" {
			c, ok = leanOf(raw, true)
		}
		if !ok || c.Name != name {
			return -1, baseline.CaseDelta{}, false
		}
		d, ok := baseline.SameOf(c)
		if !ok {
			return -1, baseline.CaseDelta{}, false
		}
		return i, d, true
	}
	return -1, baseline.CaseDelta{}, false
}

// leanOf reads, from a case's JSON that passThrough passed (every member
// of the case and of its structs given once and spelt as its field is,
// every value of its field's type), what a delta of the case compared
// with itself is made of: its name, kind, verdict, runs, position,
// definition digest, targets, counts and labels (unless !figures), and
// its assertions' keys (block, index, target) and floors' names. It
// reports false for
// what it leaves to the decoder: a string with an escape, a null where a
// value is read, an element of a list that is null.
func leanOf(raw []byte, figures bool) (*report.CaseResult, bool) {
	s := caseScan{b: raw}
	c := &report.CaseResult{}
	ok := s.members(func(k []byte) bool {
		switch string(k) {
		case "name":
			return s.text(&c.Name)
		case "kind":
			return s.text((*string)(&c.Kind))
		case "verdict":
			return s.text((*string)(&c.Verdict))
		case "definition_sha256":
			return s.text(&c.DefinitionSHA256)
		case "runs":
			return s.int(&c.Runs)
		case "position":
			return s.members(func(k []byte) bool {
				switch string(k) {
				case "file":
					return s.text(&c.Position.File)
				case "line":
					return s.int(&c.Position.Line)
				case "col":
					return s.int(&c.Position.Col)
				}
				return s.skip()
			})
		case "targets", "counts", "labels":
			if !figures {
				return s.skip()
			}
		}
		switch string(k) {
		case "targets":
			if s.null() {
				return true
			}
			c.Targets = map[string]float64{}
			return s.members(func(k []byte) bool {
				num, _, _, ok := s.number()
				if !ok {
					return false
				}
				v, err := strconv.ParseFloat(string(num), 64)
				c.Targets[intern(k)] = v
				return err == nil
			})
		case "counts":
			if s.null() {
				return true
			}
			c.Counts = map[string]int64{}
			return s.members(func(k []byte) bool {
				var v int
				if !s.int(&v) {
					return false
				}
				c.Counts[intern(k)] = int64(v)
				return true
			})
		case "labels":
			if s.null() {
				return true
			}
			c.Labels = map[string]string{}
			return s.members(func(k []byte) bool {
				var v string
				if !s.text(&v) {
					return false
				}
				c.Labels[intern(k)] = v
				return true
			})
		case "assertions":
			c.Assertions = []report.AssertionResult{}
			return s.elements(func() bool {
				var a report.AssertionResult
				ok := s.members(func(k []byte) bool {
					switch string(k) {
					case "block":
						return s.text(&a.Block)
					case "index":
						return s.int(&a.Index)
					case "target":
						return s.text(&a.Target)
					}
					return s.skip()
				})
				c.Assertions = append(c.Assertions, a)
				return ok
			})
		case "floors":
			c.Floors = []report.Floor{}
			return s.elements(func() bool {
				var f report.Floor
				ok := s.members(func(k []byte) bool {
					if string(k) == "name" {
						return s.text(&f.Name)
					}
					return s.skip()
				})
				c.Floors = append(c.Floors, f)
				return ok
			})
		}
		return s.skip()
	})
	s.space()
	return c, ok && s.i == len(s.b)
}

// members reads an object at s.i, calling member with each name, the
// scan at the value; null is an object of no member.
func (s *caseScan) members(member func(k []byte) bool) bool {
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

// elements reads an array of objects at s.i, calling element at each;
// null is an array of none.
func (s *caseScan) elements(element func() bool) bool {
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
	start := s.i + 1
	for j := start; j < len(s.b); {
		q := bytes.IndexByte(s.b[j:], '"')
		if q < 0 {
			return nil, false, false
		}
		e := bytes.IndexByte(s.b[j:j+q], '\\')
		if e < 0 {
			s.i = j + q + 1
			return s.b[start : j+q], escaped, true
		}
		escaped = true
		j += e + 2 // the backslash and the character it escapes
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
