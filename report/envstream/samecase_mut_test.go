package envstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// indexEnv writes env to dir as name and indexes it as a baseline; it
// returns the index and each case's bytes as the reader gives them.
func indexEnv(t *testing.T, dir, name string, env *report.Envelope) (*indexed, [][]byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	writeEnv(t, path, env)
	idx, _ := indexFile(t, path)
	return idx, rawCases(t, path)
}

// indexFile indexes the envelope at path as a baseline and returns the
// index and its file, which is closed when the test ends if the caller
// has not closed it before.
func indexFile(t *testing.T, path string) (*indexed, *os.File) {
	t.Helper()
	f, rd, err := openEnvelope(path, "", report.MaxStreamBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cr, err := newCaseReader(rd, path)
	if err != nil {
		t.Fatal(err)
	}
	idx, _, err := indexBaseline(f, cr)
	if err != nil {
		t.Fatal(err)
	}
	return idx, f
}

// rawCases is each case's bytes of the envelope at path, as the reader
// gives them.
func rawCases(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr, err := newCaseReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var raws [][]byte
	for {
		raw, err := cr.NextRaw()
		if errors.Is(err, io.EOF) {
			return raws
		}
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)
	}
}

// TestCachedIsRaw holds cached, a comparison worker's copy of a block of
// the baseline, to reading each case alone (raw) over drawn baselines of
// one to four blocks and a drawn rest, the cases asked for in drawn
// orders: in turn (each block's first case after the last of the block
// before it), backwards, by drawn jumps, and within one block.
func TestCachedIsRaw(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(40, 46))
	for round := range 6 {
		n := blockCases*(1+r.IntN(4)) + r.IntN(3)*r.IntN(blockCases)
		idx, _ := indexEnv(t, dir, fmt.Sprintf("base-%d.json", round), genEnvelope(r, n, "cached"))
		want := make([][]byte, n)
		for i := range want {
			var err error
			if want[i], err = idx.raw(int32(i)); err != nil {
				t.Fatal(err)
			}
		}
		orders := map[string]func(k int) int{
			"in turn":   func(k int) int { return k },
			"backwards": func(k int) int { return n - 1 - k },
			"jumps":     func(int) int { return r.IntN(n) },
			"one block": func(k int) int { return min(n-1, blockCases+k%blockCases) },
		}
		for _, name := range []string{"in turn", "backwards", "jumps", "one block"} {
			var sc scratch
			for k := range n {
				i := orders[name](k)
				got, err := idx.cached(int32(i), &sc)
				if err != nil || !bytes.Equal(got, want[i]) {
					t.Fatalf("round %d (%d cases), %s: case %d (the %d-th asked): %v\n%.200s\nwant %.200s", round, n, name, i, k, err, got, want[i])
				}
			}
		}
	}
}

// TestGuesserFollowsTheBaseline holds the guesser to its rule over drawn
// runs made from a drawn baseline of hundreds of cases (several blocks)
// in its order, some cases run again with other figures (another
// case's bytes under the same name) and new cases put in between: every
// case whose bytes are the baseline's is guessed (after a case taken, the
// one after it; after a case not taken, the one after the first case of
// its name, or the same guess again for a name the baseline does not
// hold), so the reader takes each after one comparison. And a run of
// another schema_version (the guesser off) is offered nothing.
func TestGuesserFollowsTheBaseline(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(40, 47))
	for round := range 8 {
		n := 100 + r.IntN(3*blockCases)
		base := genEnvelope(r, n, "g")
		idx, baseRaws := indexEnv(t, dir, fmt.Sprintf("base-%d.json", round), base)
		cur := *base
		cur.Cases = nil
		for k, c := range base.Cases {
			switch op := r.IntN(10); {
			case op == 0: // run again: the same name, other bytes
				cur.Cases = append(cur.Cases, genCase(r, k+n, c.Name))
			case op == 1: // a new case before it
				cur.Cases = append(cur.Cases, genCase(r, k, fmt.Sprintf("new case %d", k)), c)
			default:
				cur.Cases = append(cur.Cases, c)
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("cur-%d.json", round))
		writeEnv(t, path, &cur)
		raws := rawCases(t, path)
		same := map[string]bool{}
		for _, raw := range baseRaws {
			same[string(raw)] = true
		}
		g := guesser{idx: idx, on: true}
		off := guesser{idx: idx, on: false}
		guessed, unchanged := 0, 0
		for k, raw := range raws {
			want, at := g.want()
			took := want != nil && bytes.Equal(want, raw)
			if took && !bytes.Equal(want, baseRaws[at]) {
				t.Fatalf("round %d: case %d guessed as the baseline's %d, whose bytes differ", round, k, at)
			}
			if same[string(raw)] {
				unchanged++
				if !took {
					t.Fatalf("round %d: case %d is the baseline's, byte for byte, and the guess was the baseline's %d", round, k, at)
				}
			}
			if took {
				guessed++
			}
			g.next(took, raw)
			if w, _ := off.want(); w != nil {
				t.Fatalf("round %d: the guesser, off, offered a case", round)
			}
			off.next(false, raw)
		}
		if unchanged < n/2 || guessed != unchanged {
			t.Fatalf("round %d: %d cases unchanged of %d, %d guessed", round, unchanged, len(raws), guessed)
		}
	}
}

// TestSameDeltaLeavesEscapesToTheDecoder: sameDelta leaves a case to the
// decoder where a string it reads as written holds an escape: the
// definition digest, an assertion's block or target, a floor's name (two
// spellings of one key would be two keys to it, and a key given twice is
// the decoder's to judge). Each such string is drawn with a byte that
// encoding/json writes escaped (<, >, &, a quote, a backslash, a control
// character) among plain ones; the case without it is taken.
func TestSameDeltaLeavesEscapesToTheDecoder(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 49))
	specials := []string{"<", ">", "&", `"`, `\`, "\n", "\u2028"}
	fields := []string{"digest", "block", "target", "floor"}
	for round := range 200 {
		c := genCase(r, round, fmt.Sprintf("case %d", round))
		c.Verdict, c.Evidence = report.Pass, nil
		c.Floors = []report.Floor{{Name: "f1", Passed: true}}
		c.Assertions[0].Block = "expect"
		plain, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sameDelta(plain, true); !ok {
			t.Fatalf("round %d: a case with no escape left to the decoder:\n%s", round, plain)
		}
		s := "a" + specials[r.IntN(len(specials))] + "b"
		field := fields[round%len(fields)]
		switch field {
		case "digest":
			c.DefinitionSHA256 = s
		case "block":
			c.Assertions[0].Block = s
		case "target":
			c.Assertions[0].Target = s
		case "floor":
			c.Floors[0].Name = s
		}
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, figures := range []bool{true, false} {
			if _, ok := sameDelta(raw, figures); ok {
				t.Fatalf("round %d: the %s %q, written escaped, taken as written (figures %v):\n%s", round, field, s, figures, raw)
			}
		}
	}
}
