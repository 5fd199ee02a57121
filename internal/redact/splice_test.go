package redact

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// writePieces writes text to w in drawn pieces (small writes and chunks
// of StreamChunk bytes or more), with no Flush.
func writePieces(r *rand.Rand, w interface{ Write([]byte) (int, error) }, text string) {
	for len(text) > 0 {
		n := 1 + r.IntN(64)
		if r.IntN(2) == 0 {
			n = StreamChunk + r.IntN(4*StreamChunk)
		}
		n = min(n, len(text))
		w.Write([]byte(text[:n]))
		text = text[n:]
	}
}

// TestSpliceIsWriteThrough: over drawn sets of secrets (none, several,
// one spanning lines, a nil Known) and drawn texts (a head, a body
// spooled through a CleanRecorder in drawn pieces, starting and ending
// at a line break or not, holding secrets and URLs or not, and a tail),
// a Writer that passes the body on from the spool with SpliceFrom where
// it may, and writes it through where it declines, writes byte for byte
// what the same Writer writes with the body written through in the same
// pieces; no secret comes out of a spliced text; and it declines only
// where the body is not proven clean (so the splice is taken wherever it
// may be).
func TestSpliceIsWriteThrough(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	spliced := 0
	for i := range 3000 {
		var k *Known
		var secrets []string
		if i%7 != 0 {
			k = &Known{}
			for j := range r.IntN(4) {
				s := fmt.Sprintf("sec%d-%x", j, r.Uint64())
				if i%11 == 0 {
					s += "\nline"
				}
				secrets = append(secrets, s)
			}
			k.Add(secrets...)
		}
		head := drawText(r, secrets, orEmpty(k))
		body := drawText(r, secrets[:r.IntN(len(secrets)+1)], orEmpty(k))
		if r.IntN(3) == 0 { // words only: a body that may be clean
			body = strings.NewReplacer("/", "|", "\r", "\n").Replace(drawText(r, nil, &Known{}))
		}
		if r.IntN(5) != 0 {
			body = "\n" + body
		}
		if r.IntN(5) != 0 {
			body += "\n"
		}
		tail := drawText(r, secrets, orEmpty(k))

		if err := spool.Truncate(0); err != nil {
			t.Fatal(err)
		}
		if _, err := spool.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		rec := NewCleanRecorder(spool, k)
		writePieces(r, rec, body)
		// the same Writer, the same pieces, the body written through
		sh, sb, st := r.Uint64(), r.Uint64(), r.Uint64()
		var want, got bytes.Buffer
		ref := NewKnownWriter(&want, k)
		writePieces(rand.New(rand.NewPCG(sh, 1)), ref, head)
		writePieces(rand.New(rand.NewPCG(sb, 1)), ref, body)
		writePieces(rand.New(rand.NewPCG(st, 1)), ref, tail)
		ref.Flush()
		x := NewKnownWriter(&got, k)
		writePieces(rand.New(rand.NewPCG(sh, 1)), x, head)
		ok, err := x.SpliceFrom(rec, spool, int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			spliced++
		} else {
			writePieces(rand.New(rand.NewPCG(sb, 1)), x, body)
		}
		writePieces(rand.New(rand.NewPCG(st, 1)), x, tail)
		x.Flush()
		if got.String() != want.String() {
			t.Fatalf("text %d (spliced %v): gave\n%q\nwritten through\n%q", i, ok, got.String(), want.String())
		}
		for _, s := range secrets {
			if ok && strings.Contains(got.String(), s) {
				t.Fatalf("text %d: spliced, the secret %q came out", i, s)
			}
		}
		provable := len(body) > 0 && body[0] == '\n' && strings.HasSuffix(body, "\n") && !k.multiline() &&
			k.Clean([]byte(body)) && !strings.Contains(body, "\r")
		if provable && !ok {
			t.Fatalf("text %d: a clean body not spliced: %q", i, body)
		}
	}
	if spliced < 300 {
		t.Fatalf("%d of 3,000 bodies spliced: the draw proves little", spliced)
	}
	t.Logf("%d of 3,000 bodies spliced", spliced)
}

// TestSpliceDeclines: SpliceFrom passes nothing on for a recorder of
// another Known, a secret added after the spool was written, a Writer
// of NewWriter, or another length than the recorder saw.
func TestSpliceDeclines(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k, other := &Known{}, &Known{}
	k.Add("sec-0123456789")
	rec := NewCleanRecorder(f, k)
	body := "\n  clean text\n"
	rec.Write([]byte(body))
	n := int64(len(body))
	var b bytes.Buffer
	for name, try := range map[string]func() (bool, error){
		"another Known": func() (bool, error) { return NewKnownWriter(&b, other).SpliceFrom(rec, f, n) },
		"NewWriter":     func() (bool, error) { return NewWriter(&b, k.Mask).SpliceFrom(rec, f, n) },
		"other length":  func() (bool, error) { return NewKnownWriter(&b, k).SpliceFrom(rec, f, n-1) },
		"no recorder":   func() (bool, error) { return NewKnownWriter(&b, k).SpliceFrom(nil, f, n) },
	} {
		if ok, err := try(); ok || err != nil || b.Len() != 0 {
			t.Errorf("%s: spliced %v, %v, wrote %q", name, ok, err, b.String())
		}
	}
	if ok, err := NewKnownWriter(&b, k).SpliceFrom(rec, f, n); !ok || err != nil || b.String() != body {
		t.Fatalf("the same Known: spliced %v, %v, wrote %q", ok, err, b.String())
	}
	b.Reset()
	k.Add("clean text") // a secret added since: the proof is stale
	if ok, err := NewKnownWriter(&b, k).SpliceFrom(rec, f, n); ok || err != nil || b.Len() != 0 {
		t.Errorf("a secret added since: spliced %v, %v, wrote %q", ok, err, b.String())
	}
}

// TestSpliceCutSecrets: a secret or a URL's credentials cut where the
// proof is hardest (written to the spool in two writes cut inside it, or
// begun at the end of the text written before the spliced one and ended
// in it) is masked as written through: spliced or not, the Writer writes
// what it writes with the text written through, and the secret never
// comes out.
func TestSpliceCutSecrets(t *testing.T) {
	spool, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	k := &Known{}
	secret := "sec-0123456789abcdef"
	k.Add(secret)
	for _, s := range []string{secret, "http://u:pw123456@h/x"} {
		for cut := 1; cut < len(s); cut++ {
			for _, split := range []struct{ head, pieces []string }{
				// cut between the spool's two writes
				{[]string{"head \"cases\": ["}, []string{"\n  case " + s[:cut], s[cut:] + " case\n"}},
				// begun before the spliced text, ended in it
				{[]string{"head " + s[:cut]}, []string{s[cut:] + " case\n"}},
			} {
				spool.Truncate(0)
				spool.Seek(0, 0)
				rec := NewCleanRecorder(spool, k)
				body := ""
				for _, p := range split.pieces {
					rec.Write([]byte(p))
					body += p
				}
				var want, got bytes.Buffer
				ref, x := NewKnownWriter(&want, k), NewKnownWriter(&got, k)
				for _, h := range split.head {
					ref.Write([]byte(h))
					x.Write([]byte(h))
				}
				ref.Write([]byte(body))
				ref.Write([]byte("  ]\n"))
				ref.Flush()
				ok, err := x.SpliceFrom(rec, spool, int64(len(body)))
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					x.Write([]byte(body))
				}
				x.Write([]byte("  ]\n"))
				x.Flush()
				if got.String() != want.String() || strings.Contains(got.String(), s) || strings.Contains(got.String(), "pw123456") {
					t.Fatalf("%q cut at %d (spliced %v): gave %q, written through %q", s, cut, ok, got.String(), want.String())
				}
			}
		}
	}
}
