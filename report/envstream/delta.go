package envstream

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
)

// appendDelta appends one case of the comparison's JSON to b, byte for
// byte what encodeDeltaJSON writes (encoding/json's encoder, HTML not
// escaped, compact: one line of the comparison's cases,
// baseline.AppendCaseJSON), without reflection: a third of a
// comparison's CPU went there. It reports false, leaving b as it was, for a figure
// encoding/json refuses (not finite), whose error encodeDeltaJSON gives.
// TestAppendDeltaIsEncoder holds the two to the same bytes over drawn
// deltas.
func appendDelta(b []byte, d *baseline.CaseDelta) ([]byte, bool) {
	for _, t := range d.Targets {
		for _, v := range []*float64{t.Baseline, t.Current, t.Delta} {
			if v != nil && (math.IsInf(*v, 0) || math.IsNaN(*v)) {
				return b, false
			}
		}
	}
	w := deltaWriter{b: b}
	w.b = append(w.b, '{')
	w.b = append(w.b, `"name":`...)
	w.str(d.Name)
	w.b = append(w.b, `,"kind":`...)
	w.str(string(d.Kind))
	w.b = append(w.b, `,"status":`...)
	w.str(string(d.Status))
	if len(d.Reasons) > 0 {
		w.b = append(w.b, `,"reasons":`...)
		w.b = append(w.b, '[')
		for i, r := range d.Reasons {
			w.elem(i)
			w.str(r)
		}
		w.close(']')
	}
	// sideAt and sideEnd are where the baseline's side was written (sideAt
	// 0 until it is: the case's name comes before it): a current side
	// equal to it (most cases of a run compared with the run before it) is
	// those bytes again.
	sideAt, sideEnd := 0, 0
	for _, s := range []struct {
		key  string
		side *baseline.CaseSide
	}{{`,"baseline":`, d.Baseline}, {`,"current":`, d.Current}} {
		if s.side == nil {
			continue
		}
		w.b = append(w.b, s.key...)
		if sideAt > 0 && *d.Current == *d.Baseline {
			w.b = append(w.b, w.b[sideAt:sideEnd]...)
			continue
		}
		sideAt = len(w.b)
		w.b = append(w.b, '{')
		w.b = append(w.b, `"verdict":`...)
		w.str(string(s.side.Verdict))
		w.b = append(w.b, `,"runs":`...)
		w.b = strconv.AppendInt(w.b, int64(s.side.Runs), 10)
		w.b = append(w.b, `,"position":`...)
		w.pos(s.side.Position)
		w.close('}')
		sideEnd = len(w.b)
	}
	if d.CassettesChanged {
		w.b = append(w.b, `,"cassettes_changed":`...)
		w.b = append(w.b, "true"...)
	}
	w.b = append(w.b, `,"targets":`...)
	if d.Targets == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i, t := range d.Targets {
			w.elem(i)
			w.b = append(w.b, '{')
			w.b = append(w.b, `"name":`...)
			w.str(t.Name)
			w.b = append(w.b, `,"baseline":`...)
			at := len(w.b)
			w.float(t.Baseline)
			w.b = append(w.b, `,"current":`...)
			w.same(t.Current == t.Baseline, at, func() { w.float(t.Current) })
			w.b = append(w.b, `,"delta":`...)
			w.float(t.Delta)
			w.close('}')
		}
		w.close(']')
	}
	w.b = append(w.b, `,"counts":`...)
	if d.Counts == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i, c := range d.Counts {
			w.elem(i)
			w.b = append(w.b, '{')
			w.b = append(w.b, `"name":`...)
			w.str(c.Name)
			w.b = append(w.b, `,"baseline":`...)
			at := len(w.b)
			w.int(c.Baseline)
			w.b = append(w.b, `,"current":`...)
			w.same(c.Current == c.Baseline, at, func() { w.int(c.Current) })
			w.b = append(w.b, `,"delta":`...)
			w.int(c.Delta)
			w.close('}')
		}
		w.close(']')
	}
	if len(d.Labels) > 0 {
		w.b = append(w.b, `,"labels":`...)
		w.b = append(w.b, '[')
		for i, l := range d.Labels {
			w.elem(i)
			w.b = append(w.b, '{')
			w.b = append(w.b, `"name":`...)
			w.str(l.Name)
			w.b = append(w.b, `,"baseline":`...)
			at := len(w.b)
			w.strPtr(l.Baseline)
			w.b = append(w.b, `,"current":`...)
			w.same(l.Current == l.Baseline, at, func() { w.strPtr(l.Current) })
			w.close('}')
		}
		w.close(']')
	}
	w.b = append(w.b, `,"flips":`...)
	if d.Flips == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i, f := range d.Flips {
			w.elem(i)
			w.flip(&f)
			w.close('}')
		}
		w.close(']')
	}
	w.close('}')
	return w.b, true
}

// deltaWriter appends compact JSON.
type deltaWriter struct{ b []byte }

// same writes a value: where eq (the value is the one that was written
// at at, up to the key written since: a delta's two sides given as one
// pointer, as a case compared with its own bytes gives them) those bytes
// again, else by write.
func (w *deltaWriter) same(eq bool, at int, write func()) {
	if !eq {
		write()
		return
	}
	end := len(w.b) - len(`,"current":`)
	w.b = append(w.b, w.b[at:end]...)
}

// elem starts the i-th element of an array.
func (w *deltaWriter) elem(i int) {
	if i > 0 {
		w.b = append(w.b, ',')
	}
}

// close ends an object or array.
func (w *deltaWriter) close(c byte) {
	w.b = append(w.b, c)
}

func (w *deltaWriter) pos(p diag.Pos) {
	w.b = append(w.b, '{')
	w.b = append(w.b, `"file":`...)
	w.str(p.File)
	if p.Line != 0 {
		w.b = append(w.b, `,"line":`...)
		w.b = strconv.AppendInt(w.b, int64(p.Line), 10)
	}
	if p.Col != 0 {
		w.b = append(w.b, `,"col":`...)
		w.b = strconv.AppendInt(w.b, int64(p.Col), 10)
	}
	w.close('}')
}

// flip writes a flip's object but its closing brace.
func (w *deltaWriter) flip(f *baseline.Flip) {
	w.b = append(w.b, '{')
	w.b = append(w.b, `"subject":`...)
	w.str(f.Subject)
	if f.Name != "" {
		w.b = append(w.b, `,"name":`...)
		w.str(f.Name)
	}
	if f.Block != "" {
		w.b = append(w.b, `,"block":`...)
		w.str(f.Block)
	}
	if f.Index != nil {
		w.b = append(w.b, `,"index":`...)
		w.b = strconv.AppendInt(w.b, int64(*f.Index), 10)
	}
	w.b = append(w.b, `,"from":`...)
	w.str(string(f.From))
	w.b = append(w.b, `,"to":`...)
	w.str(string(f.To))
	w.b = append(w.b, `,"change":`...)
	w.str(string(f.Change))
	if f.Message != "" {
		w.b = append(w.b, `,"message":`...)
		w.str(f.Message)
	}
	if f.Position != nil {
		w.b = append(w.b, `,"position":`...)
		w.pos(*f.Position)
	}
}

func (w *deltaWriter) strPtr(s *string) {
	if s == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.str(*s)
}

func (w *deltaWriter) int(v *int64) {
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = strconv.AppendInt(w.b, *v, 10)
}

// float writes a finite number as encoding/json does: as ES6 converts a
// number to a string.
func (w *deltaWriter) float(v *float64) {
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	f := *v
	// An integer of at most 2^53 in magnitude (most figures: a rate of
	// 100, a delta of -50) is written as its digits, which is what 'f'
	// with the shortest precision writes for it, at a tenth of the cost;
	// -0 is left to AppendFloat, which writes its sign.
	if i := int64(f); float64(i) == f && i >= -maxExactInt && i <= maxExactInt && (i != 0 || !math.Signbit(f)) {
		w.b = strconv.AppendInt(w.b, i, 10)
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9. The format ends in e, a sign and two or
		// three digits: a sign third from the end is the exponent's, of
		// two digits.
		if n := len(w.b); w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// maxExactInt is 2^53: every integer up to it in magnitude is a float64.
const maxExactInt = 1 << 53

const hexDigits = "0123456789abcdef"

// str writes s as encoding/json writes a string with HTML not escaped:
// '"', '\\' and control characters escaped, invalid UTF-8 as U+FFFD,
// U+2028 and U+2029 escaped.
func (w *deltaWriter) str(s string) {
	b := append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time to the first that needs a look
		// (special8: a quote, backslash, control character, DEL or byte
		// past ASCII).
		if i+8 <= len(s) {
			m := special8(load8(s[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	w.b = append(b, '"')
}

// load8 is the first eight bytes of s, little-endian.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
