package redact

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// passModel is the Writer's rule for what a Write passes on, written
// apart: a write under StreamChunk bytes passes all that is held; a
// larger one passes up to its last line break (nothing without one), and
// when more than MaxHold bytes would then be held, up to the last space,
// tab, comma, quote or angle bracket held, else all.
type passModel struct{ held string }

func (m *passModel) write(p string) (passed string) {
	m.held += p
	cut := len(m.held)
	if len(p) >= StreamChunk {
		cut = strings.LastIndexAny(m.held, "\n\r") + 1
		if len(m.held)-cut > MaxHold {
			cut = len(m.held)
			if i := strings.LastIndexAny(m.held, " \t,\"'<>"); i >= 0 {
				cut = i + 1
			}
		}
	}
	passed, m.held = m.held[:cut], m.held[cut:]
	return passed
}

// drawWrites is a drawn stream of writes: small ones, ones of exactly
// StreamChunk bytes and one less and one more, and long ones, of words,
// line breaks (sparse, now and then first), the bytes a long line is cut
// at and, with urls, the ends a known writer holds ("http:", ":/").
func drawWrites(r *rand.Rand, urls bool) []string {
	pieces := []string{"case", "passed", "z", "zz", " ", ",", "\t", "\"", "'", "<", ">", "é"}
	if urls {
		pieces = append(pieces, "http:", ":/", "://", "h")
	}
	var writes []string
	for range 1 + r.IntN(12) {
		var n int
		switch r.IntN(6) {
		case 0:
			n = StreamChunk
		case 1:
			n = StreamChunk - 1 + 2*r.IntN(2)
		case 2:
			n = StreamChunk + r.IntN(MaxHold+2*StreamChunk)
		default:
			n = 1 + r.IntN(64)
		}
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteString([]string{"\n", "\r", " ", ","}[r.IntN(4)])
		}
		long := r.IntN(3) == 0 // a run without a line break
		for b.Len() < n {
			switch k := r.IntN(400); {
			case k < 2 && !long:
				b.WriteString([]string{"\n", "\r", "\r\n"}[r.IntN(3)])
			default:
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		writes = append(writes, b.String()[:n])
	}
	return writes
}

// TestWriterPassesGenerated is a generator test: over drawn streams of
// writes, after each Write the writer underneath holds exactly what the
// rule (passModel) passes, each Write reports its length, and Flush passes
// the rest. NewWriter is held to it with a mask that changes nothing, and
// NewKnownWriter of no secret over text without a URL (a small write then
// holds nothing back), through both its paths.
func TestWriterPassesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 13))
	for i := range 600 {
		known := i%2 == 1
		writes := drawWrites(r, !known)
		var out bytes.Buffer
		w := NewWriter(&out, func(s string) string { return s })
		if known {
			w = NewKnownWriter(&out, &Known{})
		}
		var m passModel
		want := ""
		for j, p := range writes {
			if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("stream %d, write %d of %d bytes: Write = %d, %v", i, j, len(p), n, err)
			}
			want += m.write(p)
			if out.String() != want {
				t.Fatalf("stream %d (known %v), write %d of %d bytes: passed on %d bytes, the rule %d (%q after %q)", i, known, j, len(p), out.Len(), len(want), tail(out.String()), tail(want))
			}
		}
		if err := w.Flush(); err != nil || out.String() != strings.Join(writes, "") {
			t.Fatalf("stream %d: Flush: %v, %d bytes of %d", i, err, out.Len(), len(strings.Join(writes, "")))
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-40):] }

// TestWriterHoldEdges: a line of exactly MaxHold bytes after a large
// write's last line break is held, one byte more is passed on up to its
// last space (both paths of NewKnownWriter); a cut byte first in what is
// held is cut after.
func TestWriterHoldEdges(t *testing.T) {
	line := func(n int) string { return strings.Repeat("z", n-10) + " zzzzzzzzz" }
	for _, c := range []struct {
		writes []string
		passed string
	}{
		{[]string{"a\n" + line(MaxHold)}, "a\n"},
		{[]string{"a\n" + line(MaxHold+1)}, "a\n" + strings.Repeat("z", MaxHold+1-10) + " "},
		{[]string{"\n" + strings.Repeat("z", StreamChunk)}, "\n"},
		{[]string{" " + strings.Repeat("z", MaxHold+StreamChunk)}, " "},
		{[]string{strings.Repeat("z", StreamChunk)}, ""},
		{[]string{strings.Repeat("z", StreamChunk-1)}, strings.Repeat("z", StreamChunk-1)},
	} {
		for _, known := range []bool{false, true} {
			var out bytes.Buffer
			w := NewWriter(&out, func(s string) string { return s })
			if known {
				w = NewKnownWriter(&out, &Known{})
			}
			for _, p := range c.writes {
				w.Write([]byte(p))
			}
			if out.String() != c.passed {
				t.Errorf("known %v, writes of %d bytes: passed on %d bytes (%q), want %d (%q)", known, len(c.writes[0]), out.Len(), tail(out.String()), len(c.passed), tail(c.passed))
			}
		}
	}
}

// aliasWriter records whether a write it got is a slice of the bytes of
// p (no copy).
type aliasWriter struct {
	p       []byte
	aliased bool
}

func (a *aliasWriter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(a.p)))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		a.aliased = a.aliased || at >= start && at < start+uintptr(len(a.p))
	}
	return len(b), nil
}

// TestKnownWriterNoCopy: from StreamChunk bytes on, the clean lines of a
// write to NewKnownWriter are passed on from the caller's bytes, no copy;
// a write one byte shorter is copied, as NewWriter copies every write.
func TestKnownWriterNoCopy(t *testing.T) {
	for _, c := range []struct {
		n       int
		aliased bool
	}{{StreamChunk, true}, {StreamChunk - 1, false}, {4 * StreamChunk, true}} {
		p := []byte("first\n" + strings.Repeat("line of text\n", (c.n-20)/13))
		p = append(p, strings.Repeat("y", c.n-len(p))...)
		a := &aliasWriter{p: p}
		w := NewKnownWriter(a, &Known{})
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write of %d bytes = %d, %v", len(p), n, err)
		}
		if a.aliased != c.aliased {
			t.Errorf("a write of %d bytes: passed on from the caller's bytes %v, want %v", len(p), a.aliased, c.aliased)
		}
	}
}

// failWriter fails every write.
type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestWriterErrors: an error of the writer underneath is Write's, with
// nothing reported written, on each path: a small write, a large one, a
// large one through NewKnownWriter's lines, and Flush.
func TestWriterErrors(t *testing.T) {
	large := []byte("a\n" + strings.Repeat("line\n", StreamChunk/5) + "end")
	for _, c := range []struct {
		name string
		w    *Writer
		p    []byte
	}{
		{"small", NewWriter(failWriter{}, func(s string) string { return s }), []byte("hello")},
		{"large", NewWriter(failWriter{}, func(s string) string { return s }), large},
		{"known large", NewKnownWriter(failWriter{}, &Known{}), large},
		{"known small", NewKnownWriter(failWriter{}, &Known{}), []byte("hello")},
	} {
		if n, err := c.w.Write(c.p); n != 0 || !errors.Is(err, errWrite) {
			t.Errorf("%s: Write = %d, %v, want 0 and the writer's error", c.name, n, err)
		}
	}
	w := NewWriter(failWriter{}, func(s string) string { return s })
	w.Write([]byte(strings.Repeat("z", StreamChunk)))
	if err := w.Flush(); !errors.Is(err, errWrite) {
		t.Errorf("Flush: %v, want the writer's error", err)
	}
}

// TestMaskValueQuotes: a masked value keeps its opening quote, and its
// closing one only when that quote is not escaped (an odd number of
// backslashes before it); a lone quote at the end of the text is an
// opening one.
func TestMaskValueQuotes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"token": "`, `{"token": "[REDACTED]`},
		{`{"token": "abc\"`, `{"token": "[REDACTED]`},
		{`{"token": "abc\\"`, `{"token": "[REDACTED]"`},
		{`{"token": "abc\\\"`, `{"token": "[REDACTED]`},
		{`{"token": 'a'}`, `{"token": '[REDACTED]'}`},
	} {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriterSchemeKept: the scheme a pass ends with (letters, digits,
// + . -, at most 32 bytes, run on across passes that are all scheme) is
// masked again in front of the next pass when that starts with "://", and
// only then: the mask sees the URL whole, never text joined to another
// write's.
func TestWriterSchemeKept(t *testing.T) {
	s32 := strings.Repeat("s", 32)
	for _, c := range []struct {
		writes, masked []string
	}{
		{[]string{"see http", "://h/x"}, []string{"see http", "http://h/x"}},
		{[]string{"see abc", "def"}, []string{"see abc", "def"}},
		{[]string{"ht", "tp", "://h"}, []string{"ht", "tp", "http://h"}},
		{[]string{"a b", "c d", "://h"}, []string{"a b", "c d", "d://h"}},
		{[]string{s32, "://h"}, []string{s32, s32 + "://h"}},
		{[]string{s32 + "s", "://h"}, []string{s32 + "s", "://h"}},
		{[]string{"x ", "://h"}, []string{"x ", "://h"}},
	} {
		var got []string
		w := NewWriter(&bytes.Buffer{}, func(s string) string { got = append(got, s); return s })
		for _, p := range c.writes {
			w.Write([]byte(p))
		}
		if !slices.Equal(got, c.masked) {
			t.Errorf("writes %q: masked %q, want %q", c.writes, got, c.masked)
		}
	}
}

// TestKnownWriterMasksLineAlone: a large write whose clean lines surround
// drawn lines the mask changes (a URL with credentials, at drawn places)
// is passed on with the clean lines from the caller's bytes and each such
// line masked alone: what is allocated is bounded by the masked lines,
// not by the write (a chunk of an envelope with one URL in it was copied
// whole, twice), and the output is the whole text's mask.
func TestKnownWriterMasksLineAlone(t *testing.T) {
	// no collection while measuring: it empties the regular expressions'
	// pools, whose machines are then allocated again
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	r := rand.New(rand.NewPCG(40, 7))
	for i := range 50 {
		var b strings.Builder
		dirty := 0
		for range 200 + r.IntN(400) {
			if r.IntN(50) == 0 {
				line := fmt.Sprintf(`{"url":"https://u:pw%d@example.com/x?token=abcdefgh%d"}`, r.IntN(1000), i)
				dirty += len(line)
				b.WriteString(line)
			} else {
				b.WriteString(strings.Repeat(`{"case":"passed"} `, 1+r.IntN(8)))
			}
			b.WriteString([]string{"\n", "\r\n", "\r"}[r.IntN(3)])
		}
		text := b.String()
		p := []byte(text)
		var out bytes.Buffer
		out.Grow(2 * len(p))
		k := &Known{}
		w := NewKnownWriter(&out, k)
		w.Write(p) // once, for the regular expressions' machines
		w.Flush()
		// the least of three measures: another test's goroutine still
		// winding down allocates too
		alloc := ^uint64(0)
		for range 3 {
			out.Reset()
			w = NewKnownWriter(&out, k)
			w.Write(p[:10]) // hold a little, as a stream does
			w.buf = append(make([]byte, 0, 2*len(p)), w.held...)
			w.held = w.buf
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			w.Write(p[10:])
			runtime.ReadMemStats(&after)
			w.Flush()
			alloc = min(alloc, after.TotalAlloc-before.TotalAlloc)
		}
		if got, want := out.String(), k.Mask(text); got != want {
			j := 0
			for j < min(len(got), len(want)) && got[j] == want[j] {
				j++
			}
			t.Fatalf("text %d: the writer's output and the whole text's mask differ from byte %d: %q against %q", i, j, got[j:min(j+80, len(got))], want[j:min(j+80, len(want))])
		}
		if alloc > uint64(48*dirty+len(p)/2) {
			t.Errorf("text %d: %d bytes allocated to mask %d bytes of %d lines written as one", i, alloc, dirty, len(p))
		}
	}
}
