package redact

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// drawURLRuns is a drawn stream for a Writer's hold: long runs of text
// without a URL break after a "://" or an end that may begin one
// ("http:", ":/"), the "://" itself cut anywhere by the writes, breaks
// now and then, and the known secrets.
func drawURLRuns(r *rand.Rand, secrets []string) string {
	pieces := []string{"http://", "a", "zz", ":", "/", "//", "://", "http:", ":/", "u:pw123456@h", "?token=abcdefgh1", "é",
		" ", "\n", "\"", "<", "`"}
	var b strings.Builder
	for range r.IntN(60) {
		switch n := r.IntN(12); {
		case n == 0 && len(secrets) > 0:
			b.WriteString(secrets[r.IntN(len(secrets))])
		case n == 1:
			b.WriteString(strings.Repeat("a", r.IntN(3*MaxHold/2)))
		default:
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
	}
	return b.String()
}

// TestHoldRunGenerated is a generator test over drawn streams written in
// small pieces (one byte to 64) through NewKnownWriter: after each write
// what the writer knows of the run of text it holds (urlRun) is what
// reading all it holds anew gives, the bytes it read for it stay within
// twice those written and a few per write (each byte is read once, not
// once per write while it is held: 50 KB after a "://" in one-byte writes
// read 64 KiB per byte, 3.4 s). So the writer holds and passes what it
// did when it read all it held at each write (holdFrom): the same cuts,
// masked alike (TestKnownWriterIsWriter).
func TestHoldRunGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 6))
	for i := range 120 {
		k := &Known{}
		var secrets []string
		for j := range r.IntN(3) {
			secrets = append(secrets, fmt.Sprintf("sec%d-%x", j, r.Uint64()))
		}
		k.Add(secrets...)
		text := drawURLRuns(r, secrets)
		var out countWriter
		w := NewKnownWriter(&out, k)
		writes, forced := 0, false
		for rest := text; len(rest) > 0; writes++ {
			n := min(len(rest), 1+r.IntN(64))
			if r.IntN(4) == 0 {
				n = min(len(rest), 1)
			}
			w.Write([]byte(rest[:n]))
			rest = rest[n:]
			if len(w.held) > 4096 && writes%31 != 0 {
				continue // reading all that is held anew is the test's cost, not the writer's
			}
			forced = forced || len(w.held) >= MaxHold // a pass past MaxHold reads no byte again
			var fresh urlRun
			brk, sep, par := fresh.scan(w.held)
			if gotBrk, gotSep := w.run.brk, w.run.sep >= 0; w.run.read != len(w.held) || gotBrk != brk || gotSep != sep {
				t.Fatalf("stream %d, write %d: run read %d of %d held, break %d, sep %v; read anew: break %d, sep %v",
					i, writes, w.run.read, len(w.held), gotBrk, gotSep, brk, sep)
			}
			if w.run.par != par && !forced {
				t.Fatalf("stream %d, write %d: the run's first parameter at %d; read anew: %d", i, writes, w.run.par, par)
			}
		}
		if max := 3*len(text) + 8*writes; w.run.scanned > max || w.run.scanned < len(text) {
			t.Fatalf("stream %d: %d bytes in %d writes: the run read %d bytes, want from %d to %d", i, len(text), writes, w.run.scanned, len(text), max)
		}
		w.Flush()
		if len(w.held) != 0 || w.run.read != 0 || out.Len() == 0 && len(text) > 0 {
			t.Fatalf("stream %d: after Flush %d bytes held (run read %d), %d passed", i, len(w.held), w.run.read, out.Len())
		}
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
func (c *countWriter) Len() int                    { return c.n }

// BenchmarkKnownWriterSmallWrites: a URL's run of 50 KB written a byte at
// a time (before urlRun, each write read all that was held again).
func BenchmarkKnownWriterSmallWrites(b *testing.B) {
	run := []byte(strings.Repeat("a", 50_000))
	b.SetBytes(int64(len(run)))
	for b.Loop() {
		w := NewKnownWriter(io.Discard, &Known{})
		w.Write([]byte("see http://"))
		for i := range run {
			w.Write(run[i : i+1])
		}
		w.Flush()
	}
}

// TestURLRunScan states scan's rules on texts read whole: the run starts
// after the last URL break, and its "://" and its first byte that may
// begin a parameter are looked for in it alone.
func TestURLRunScan(t *testing.T) {
	for _, c := range []struct {
		text     string
		brk, par int
		sep      bool
	}{
		{"", -1, -1, false},
		{"abc", -1, -1, false},
		{"a?b", -1, 1, false},
		{"a? b", 2, -1, false},   // the "?" is before the break
		{"x?y z&w", 3, 5, false}, // the run's first, not the text's
		{"https://h/p?t=1 a", 15, -1, false},
		{"a https://h/p?t=1&u=2", 1, 13, true},
		{"a ://", 1, -1, true},
		{"a\u0026b", -1, 1, false},
		{"a#b;c", -1, 1, false},
	} {
		var r urlRun
		brk, sep, par := r.scan([]byte(c.text))
		if brk != c.brk || sep != c.sep || par != c.par {
			t.Errorf("scan(%q) = break %d, sep %v, parameter %d; want %d, %v, %d", c.text, brk, sep, par, c.brk, c.sep, c.par)
		}
	}
}
