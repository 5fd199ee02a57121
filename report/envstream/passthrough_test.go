package envstream

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// passThroughHolds checks passThrough's promise on one text: when it
// passes the case through, encoding/json decodes it without an error,
// Check passes it, it is not inconclusive, and what the scan read is what
// decoding gives. It returns whether the case was passed through, and
// counts it in the two counters (one from the decoded case, one from the
// scan) when it was.
func passThroughHolds(t *testing.T, data []byte, byCase, byScan *report.Counter) bool {
	t.Helper()
	var lc leanCase
	if !passThrough(data, &lc) {
		return false
	}
	var c report.CaseResult
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("passed through what Unmarshal refuses (%v): %q", err, data)
	}
	if err := c.Check("cases[0]"); err != nil {
		t.Fatalf("passed through what Check refuses (%v): %q", err, data)
	}
	if c.Verdict == report.Inconclusive {
		t.Fatalf("passed through an inconclusive case: %q", data)
	}
	got := []any{string(lc.name), string(lc.file), lc.line, lc.col, lc.verdict, lc.runs, lc.passed}
	want := []any{c.Name, c.Position.File, c.Position.Line, c.Position.Col, c.Verdict, c.Counts["reliability.runs"], c.Counts["reliability.passed_runs"]}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the scan read %v, decoding gives %v, from %q", got, want, data)
	}
	sh, err := report.ParseShard("3/7")
	if err != nil {
		t.Fatal(err)
	}
	if sh.HoldsName(lc.name) != sh.Holds(c.Name) {
		t.Fatalf("HoldsName and Holds disagree on %q", c.Name)
	}
	if nameHashOf(lc.name) != nameHash(c.Name) {
		t.Fatalf("nameHashOf and nameHash disagree on %q", c.Name)
	}
	byCase.Add(&c)
	byScan.AddFigures(lc.verdict, false, lc.runs, lc.passed)
	return true
}

// FuzzPassThrough holds passThrough to decoding and checking the case
// (passThroughHolds) on any text.
func FuzzPassThrough(f *testing.F) {
	r := rand.New(rand.NewPCG(40, 40))
	for range 40 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, true)
		f.Add(b.Bytes())
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeCaseJSON(w, 997, prCase(997))
	w.Flush()
	f.Add(b.Bytes())
	f.Add([]byte(`{"name":"a","tools":[{"tool":"t","calls":-1}]}`))
	f.Add([]byte(`{"name":"a","labels":{"reliability.class":"x"}}`))
	f.Add([]byte(`{"name":"a","counts":{"reliability.runs":2,"reliability.runs":3}}`))
	f.Add([]byte(`{"name":"a\u2028","runs":1e2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b report.Counter
		passThroughHolds(t, data, &a, &b)
	})
}

// TestPassThroughIsDecode draws cases (report/casedraw: every field of
// CaseResult by its type, names in other cases and given twice, strings
// with escapes, control characters and invalid UTF-8, numbers out of
// range), their mutations, the same cases as the reporter encodes them
// and cases of the generator corpus as the JSON reporter writes them:
// every case the scan passes through is one decoding accepts, Check
// passes and that counts the same (the totals and summary of the two
// counters equal); every case of the generator corpus is passed through,
// and so are half the drawn ones as the encoder writes them which Check
// passes and which are not inconclusive (the others hold a control
// character in a string, 19-digit numbers, a verdict or kind Check
// refuses).
func TestPassThroughIsDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	var byCase, byScan report.Counter
	drawn, through := 0, 0
	for round := range 12000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, round%3 == 0)
		data := b.Bytes()
		switch round % 6 {
		case 1:
			data = casedraw.Mutate(r, data)
		case 2, 3, 4:
			var c report.CaseResult
			if json.Unmarshal(data, &c) != nil {
				continue
			}
			var out bytes.Buffer
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(&c); err != nil {
				t.Fatal(err)
			}
			data = bytes.TrimSpace(out.Bytes())
			if round%6 == 4 {
				data = casedraw.Mutate(r, data)
			} else if round%6 == 3 {
				// The same case made one Check passes: its text one line
				// each, its verdict, kind and classes of their sets.
				clean(reflect.ValueOf(&c).Elem())
				c.Verdict = []report.Verdict{report.Pass, report.Fail}[r.IntN(2)]
				c.Kind = report.KindAgent
				if c.Reliability != nil {
					c.Reliability.Class = "flaky"
				}
				if _, ok := c.Labels["reliability.class"]; ok {
					c.Labels["reliability.class"] = "stable_pass"
				}
				for i := range c.Tools {
					c.Tools[i].Tool, c.Tools[i].Calls = "t", max(c.Tools[i].Calls, 0)
				}
				out.Reset()
				if err := enc.Encode(&c); err != nil {
					t.Fatal(err)
				}
				data = bytes.TrimSpace(out.Bytes())
			}
			if round%6 != 4 && c.Check("cases[0]") == nil && c.Verdict != report.Inconclusive {
				drawn++
			}
		}
		if passThroughHolds(t, data, &byCase, &byScan) && (round%6 == 2 || round%6 == 3) {
			through++
		}
	}
	for k := range 3000 {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k*331, []caseSide{prCase(k * 331), baseCase(k * 331)}[k%2])
		w.Flush()
		if !passThroughHolds(t, b.Bytes(), &byCase, &byScan) {
			t.Fatalf("a case of the generator corpus is not passed through: %s", b.Bytes())
		}
	}
	var a, b report.Envelope
	a.Finish(&byCase, expr.JudgeFloor)
	b.Finish(&byScan, expr.JudgeFloor)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("counted from the cases: %+v %+v\nfrom the scan: %+v %+v", a.Totals, a.Summary, b.Totals, b.Summary)
	}
	t.Logf("%d of %d drawn cases as encoded, checked and not inconclusive passed through; %d cases counted", through, drawn, a.Totals.Total)
	if through < drawn/2 {
		t.Fatalf("only %d of %d drawn cases as the encoder writes them, which Check passes, passed through", through, drawn)
	}
}

// clean drops every control character (as Check sees them) from the
// strings of v, map keys included.
func clean(v reflect.Value) {
	drop := func(s string) string {
		return strings.Map(func(r rune) rune {
			if isControl(r) {
				return -1
			}
			return r
		}, s)
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(drop(v.String()))
	case reflect.Pointer:
		if !v.IsNil() {
			clean(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		clean(e)
		v.Set(e)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				clean(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			clean(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMap(v.Type())
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			clean(e)
			m.SetMapIndex(reflect.ValueOf(drop(k.String())).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	}
}

// TestPlain8 holds the eight-byte test of passThrough's string scan to a
// byte-by-byte one over drawn words, each byte's every value in turn.
func TestPlain8(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	plain := func(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }
	for range 2000 {
		var b [8]byte
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x5f))
		}
		for i := range b {
			keep := b[i]
			for v := range 256 {
				b[i] = byte(v)
				want := true
				for _, c := range b {
					want = want && plain(c)
				}
				if got := plain8(binary.LittleEndian.Uint64(b[:])); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", b, got, want)
				}
			}
			b[i] = keep
		}
	}
}

func BenchmarkPassThrough(b *testing.B) {
	raw := benchCase(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var lc leanCase
		if !passThrough(raw, &lc) {
			b.Fatal("not passed through")
		}
	}
}

// TestPassThroughMergesAsDecode merges drawn shards with the
// pass-through on and off (every case decoded and checked, as before it):
// the same error, word for word, or the same envelope, byte for byte,
// over shards whose cases were forged where the scan reads them (a kind,
// verdict or reliability class outside its set, a tools entry with no
// tool or negative calls, a control character, an escape, a number with
// an exponent, a member name in another case or given twice, an
// inconclusive verdict) or mutated at a drawn byte (report/casedraw).
func TestPassThroughMergesAsDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 77))
	edits := [][2]string{
		{`"kind":"agent"`, `"kind":"agents"`},
		{`"verdict":"pass"`, `"verdict":"inconclusive"`},
		{`"verdict":"pass"`, `"verdict":"Pass"`},
		{`"verdict":"fail"`, `"Verdict":"fail"`},
		{`"name":"`, `"name":"\u2028`},
		{`"name":"`, `"name":"\"q\" `},
		{`"name":"`, "\"name\":\"\x7f"},
		{`"file":"suite.yml"`, `"file":"suite.yml\n"`},
		{`"file":"suite.yml"`, `"file":"suite\u002eyml"`},
		{`"runs":`, `"runs":1e0,"x":`},
		{`"runs":`, `"runs":99999999999999999999,"x":`},
		{`"counts":{`, `"counts":{"reliability.runs":3,`},
		{`"counts":{`, `"counts":{"reliability\u002eruns":3,`},
		{`"labels":{`, `"labels":{"reliability.class":"shaky",`},
		{`"labels":{`, `"labels":{"x\ty":"a",`},
		{`"findings":[`, `"tools":[{"tool":"","calls":1}],"findings":[`},
		{`"findings":[`, `"tools":[{"tool":"t","calls":-1}],"findings":[`},
		{`"findings":[`, `"tools":[null],"findings":[`},
		{`"findings":[`, `"reliability":{"class":"never"},"findings":[`},
		{`"findings":[`, `"tools":[{"tool":"t","calls":2}],"findings":[`},
	}
	dir := t.TempDir()
	same, refused := 0, 0
	for round := range 120 {
		env := genEnvelope(r, 6+r.IntN(20), fmt.Sprint("pt", round))
		var paths []string
		for i, sh := range shardsOf(env, 2) {
			p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
			writeEnv(t, p, sh)
			paths = append(paths, p)
		}
		data, err := os.ReadFile(paths[1])
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var cases []int
		for i, l := range lines {
			if strings.HasPrefix(l, `    {"name":`) {
				cases = append(cases, i)
			}
		}
		if len(cases) == 0 {
			continue
		}
		at := cases[r.IntN(len(cases))]
		if round%4 == 3 {
			lines[at] = string(casedraw.Mutate(r, []byte(lines[at])))
		} else {
			e := edits[r.IntN(len(edits))]
			lines[at] = strings.Replace(lines[at], e[0], e[1], 1)
		}
		if err := os.WriteFile(paths[1], []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		on, onErr := mergeBytes(paths)
		decodeAll = true
		off, offErr := mergeBytes(paths)
		decodeAll = false
		if fmt.Sprint(onErr) != fmt.Sprint(offErr) || !bytes.Equal(on, off) {
			t.Fatalf("round %d, line %q:\npassed through: %v\n%.300s\ndecoded: %v\n%.300s", round, lines[at], onErr, on, offErr, off)
		}
		if onErr != nil {
			refused++
		} else {
			same++
		}
	}
	t.Logf("%d merges refused alike, %d merged alike", refused, same)
	if refused < 20 || same < 20 {
		t.Fatalf("%d refused, %d merged: the draw is lopsided", refused, same)
	}
}

// mergeBytes merges the shards at paths and writes the envelope.
func mergeBytes(paths []string) ([]byte, error) {
	m, err := MergeFiles(paths)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// TestSpecial8First holds special8's first mark to the first byte a
// byte-by-byte test finds (a quote, a backslash, a control character, DEL
// or a byte past ASCII), over drawn words with any number of such bytes
// at drawn places (borrows from one special byte into the next are what
// could mislead it) and every byte value at each place.
func TestSpecial8First(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 88))
	plain := func(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }
	specials := []byte{'"', '\\', 0, 0x1f, 0x7f, 0x80, 0xff, '\n', 0x20 - 1, 0xc3}
	first := func(b [8]byte) int {
		for i, c := range b {
			if !plain(c) {
				return i
			}
		}
		return 8
	}
	check := func(b [8]byte) {
		t.Helper()
		m := special8(binary.LittleEndian.Uint64(b[:]))
		got := bits.TrailingZeros64(m) >> 3
		if want := first(b); got != want {
			t.Fatalf("special8(%q): first mark at byte %d, want %d (mask %#x)", b, got, want, m)
		}
		if plain8(binary.LittleEndian.Uint64(b[:])) != (first(b) == 8) {
			t.Fatalf("plain8(%q) disagrees with special8", b)
		}
	}
	for range 5000 {
		var b [8]byte
		for i := range b {
			switch r.IntN(3) {
			case 0:
				b[i] = specials[r.IntN(len(specials))]
			case 1:
				b[i] = byte(r.IntN(256))
			default:
				b[i] = byte(0x20 + r.IntN(0x5f))
			}
		}
		check(b)
		i := r.IntN(8)
		for v := range 256 {
			b[i] = byte(v)
			check(b)
		}
	}
}
