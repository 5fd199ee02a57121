package envstream

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/mcptest/mcptest/baseline"
)

// appendSame appends the comparison's line of an unchanged case (one of
// a definition digest whose bytes are the baseline's) to b: byte for
// byte what appendDelta writes of the delta sameDeltaKeys makes with its
// figures, written from d, that delta made without them, and the
// figures' members as the read left them in ss (their text, not parsed
// into a delta first). An integer written as an encoder writes one (most
// figures) is copied as it is; any other number is parsed as
// targetDeltas and countDeltas parse it and written as appendDelta
// writes it. It reports false, leaving b as it was, where the delta with
// figures is not made (a figure that does not parse, a label not a
// string): the case is then decoded, as it would have been.
// TestAppendSameIsAppendDelta holds it to appendDelta over drawn cases.
func appendSame(b []byte, d *baseline.CaseDelta, ss *sameScratch) ([]byte, bool) {
	start := len(b)
	w := deltaWriter{b: b}
	w.b = append(w.b, `{"name":`...)
	plainStr(&w, d.Name)
	w.b = append(w.b, `,"kind":`...)
	plainStr(&w, string(d.Kind))
	w.b = append(w.b, `,"status":"same","baseline":`...)
	at := len(w.b)
	w.b = append(w.b, `{"verdict":`...)
	plainStr(&w, string(d.Baseline.Verdict))
	w.b = append(w.b, `,"runs":`...)
	w.b = strconv.AppendInt(w.b, int64(d.Baseline.Runs), 10)
	w.b = append(w.b, `,"position":`...)
	w.pos(d.Baseline.Position)
	w.b = append(w.b, '}')
	end := len(w.b)
	w.b = append(w.b, `,"current":`...)
	w.b = append(w.b, w.b[at:end]...)
	ok := w.sameFigures(`,"targets":[`, lastOfEach(ss.targets), (*deltaWriter).target, `,"delta":0}`) &&
		w.sameFigures(`,"counts":[`, lastOfEach(ss.counts), (*deltaWriter).count, `,"delta":0}`)
	if labels := lastOfEach(ss.labels); ok && len(labels) > 0 {
		ok = w.sameFigures(`,"labels":[`, labels, (*deltaWriter).label, `}`)
	}
	if !ok {
		return w.b[:start], false
	}
	w.b = append(w.b, `,"flips":[]}`...)
	return w.b, true
}

// sameFigures writes key and the list of figures ms: each its name, its
// value by one as the baseline's and again as the current's, then tail;
// and the list's closing bracket. False where one is false.
func (w *deltaWriter) sameFigures(key string, ms []member, one func(*deltaWriter, member) bool, tail string) bool {
	w.b = append(w.b, key...)
	for i, m := range ms {
		w.elem(i)
		w.b = append(w.b, `{"name":`...)
		plainStr(w, m.key)
		w.b = append(w.b, `,"baseline":`...)
		at := len(w.b)
		if !one(w, m) {
			return false
		}
		end := len(w.b)
		w.b = append(w.b, `,"current":`...)
		w.b = append(w.b, w.b[at:end]...)
		w.b = append(w.b, tail...)
	}
	w.b = append(w.b, ']')
	return true
}

// target writes a target's value as appendDelta writes the one
// targetDeltas makes.
func (w *deltaWriter) target(m member) bool {
	if plainInt(m.val, 15) {
		w.b = append(w.b, m.val...)
	} else {
		v, err := strconv.ParseFloat(string(m.val), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
		w.float(&v)
	}
	return true
}

// count writes a count's value as appendDelta writes the one countDeltas
// makes.
func (w *deltaWriter) count(m member) bool {
	if plainInt(m.val, 18) {
		w.b = append(w.b, m.val...)
	} else {
		v, err := strconv.ParseInt(string(m.val), 10, 64)
		if err != nil {
			return false
		}
		w.b = strconv.AppendInt(w.b, v, 10)
	}
	return true
}

// label writes a label's value as appendDelta writes the one labelDeltas
// makes.
func (w *deltaWriter) label(m member) bool {
	if m.val[0] != '"' {
		return false
	}
	plainStr(w, m.val[1:len(m.val)-1])
	return true
}

// plainInt reports whether text is an integer of at most digits digits
// written as strconv.AppendInt writes it (an optional minus, no leading
// zero, not -0): parsed and written again, it is the same bytes.
func plainInt(text []byte, digits int) bool {
	d := text
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if len(d) > 0 && d[0] == '0' {
			return false
		}
	}
	if len(d) == 0 || len(d) > digits || len(d) > 1 && d[0] == '0' {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// plainStr writes s as w.str writes it: where every byte of s is printable
// ASCII but a quote or backslash (most names and labels), which w.str
// writes as they are, s between quotes without looking at each byte.
func plainStr[T string | []byte](w *deltaWriter, s T) {
	if !plainASCII(s) {
		w.str(string(s))
		return
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// plainASCII reports whether every byte of s is printable ASCII but '"'
// and '\\': none special8 marks (which marks every byte of a word where
// it marks none falsely: a false mark follows a true one).
func plainASCII[T string | []byte](s T) bool {
	n := len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	var word [8]byte
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8 // the last eight, read again in part
		}
		copy(word[:], s[i:i+8])
		if special8(binary.LittleEndian.Uint64(word[:])) != 0 {
			return false
		}
		if i+8 == n {
			return true
		}
	}
}
