package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// drawnTargets, drawnCounts and drawnOthers are the texts a figure's
// value is drawn from: numbers a target's float takes (integers as an
// encoder writes them, fractions, exponents, -0, past 2^53), integers a
// count's int64 takes (to its limits), and what the decoder refuses for
// either (out of range, strings, null).
var (
	drawnTargets = []string{"0", "7", "-3", "100", "67", "123456789012345", "1234567890123456", "9007199254740993",
		"-0", "-0.0", "0.5", "33.333333333333336", "1e-7", "1E-7", "1e21", "1.5e300", "-1e-400", "2.50", "0.000001", "1e2", "-12"}
	drawnCounts = []string{"0", "7", "-3", "100", "123456789012345", "999999999999999999", "1000000000000000000",
		"9223372036854775807", "-9223372036854775808", "-0", "-10"}
	drawnOthers = []string{"1e400", "9223372036854775808", "1.5", "1e2", `"5"`, "null", `"x"`}
)

// drawnTexts are the texts a figure's name or a label's value is drawn
// from: printable ASCII, and what w.str writes otherwise (non-ASCII,
// U+2028, DEL, an escape, invalid UTF-8).
var drawnTexts = []string{"a", "tool_selection.f1", "reliability.class", "x y", "café", "line\u2028sep", "del\x7f", `q\"uote`, `\u0041`, "bad\xffutf", "exactly8", "seventeen bytes!!", "<&>"}

// drawFigureEdits edits the targets, counts and labels of a case's JSON
// with drawn names and values.
func drawFigureEdits(r *rand.Rand, raw []byte) []byte {
	for _, key := range []string{`"targets":{`, `"counts":{`, `"labels":{`} {
		if !bytes.Contains(raw, []byte(key)) || r.IntN(2) == 0 {
			continue
		}
		var add strings.Builder
		for range 1 + r.IntN(3) {
			name := drawnTexts[r.IntN(len(drawnTexts))]
			if r.IntN(3) > 0 {
				name = drawnTexts[r.IntN(3)]
			}
			var val string
			switch {
			case r.IntN(10) == 0:
				val = drawnOthers[r.IntN(len(drawnOthers))]
			case key == `"targets":{`:
				val = drawnTargets[r.IntN(len(drawnTargets))]
			case key == `"counts":{`:
				val = drawnCounts[r.IntN(len(drawnCounts))]
			default:
				val = fmt.Sprintf("%q", drawnTexts[r.IntN(len(drawnTexts))])
			}
			if r.IntN(3) == 0 { // raw bytes, not Go's quoting of them
				fmt.Fprintf(&add, `"%s":%s,`, name, val)
			} else {
				fmt.Fprintf(&add, "%q:%s,", name, val)
			}
		}
		raw = bytes.Replace(raw, []byte(key), []byte(key+add.String()), 1)
		raw = bytes.ReplaceAll(raw, []byte(",}"), []byte("}"))
	}
	return raw
}

// checkAppendSame holds appendSame, written from the delta made without
// figures, to appendDelta of the delta made with them, for the case raw:
// the same line where the delta with figures is made and is unchanged,
// false (and the buffer as it was) where it is not made; it reports
// whether appendSame wrote the line.
func checkAppendSame(t *testing.T, raw []byte) bool {
	t.Helper()
	var spans caseSpans
	var keys sameKeys
	if !passThroughKeys(raw, &leanCase{}, &spans, &keys) {
		return false
	}
	var withFigures, without sameScratch
	full, okFull := sameDeltaKeys(raw, &spans, &keys, true, &withFigures)
	d, ok := sameDeltaKeys(raw, &spans, &keys, false, &without)
	if !ok || d.Status != baseline.Same {
		if ok != okFull {
			t.Fatalf("case %s: made without figures %v, with them %v", raw, ok, okFull)
		}
		return false
	}
	var want []byte
	if okFull {
		var encoded bool
		if want, encoded = appendDelta(nil, &full); !encoded {
			okFull = false
		}
	}
	prefix := []byte("kept before ")
	got, wrote := appendSame(bytes.Clone(prefix), &d, &without)
	switch {
	case wrote != okFull:
		t.Fatalf("case %s\nappendSame wrote %v, appendDelta of the delta with figures %v:\n%s\n%s", raw, wrote, okFull, got, want)
	case !wrote && !bytes.Equal(got, prefix):
		t.Fatalf("case %s: appendSame wrote nothing and left %q", raw, got)
	case wrote && !bytes.Equal(got[len(prefix):], want):
		t.Fatalf("case %s\nappendSame  %s\nappendDelta %s", raw, got[len(prefix):], want)
	}
	if wrote {
		// The line is the comparison's JSON of the decoded case compared
		// with itself.
		var c report.CaseResult
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("case %s: %v", raw, err)
		}
		want := baseline.CaseOf(&c, &c, "")
		enc, err := baseline.AppendCaseJSON(nil, &want)
		if err != nil || !bytes.Equal(enc, got[len(prefix):]) {
			t.Fatalf("case %s\nappendSame %s\nencoder    %s (%v)", raw, got[len(prefix):], enc, err)
		}
	}
	return wrote
}

// TestAppendSameIsAppendDelta draws cases' JSON (by CaseResult's type,
// re-encoded as an encoder writes a case, mutated, and the million-case
// test's cases) with drawn figures (every way to write a number, strings,
// null, names and labels that need escaping or are not UTF-8) and holds
// the unchanged case's line written from its members to the one
// appendDelta writes of its delta.
func TestAppendSameIsAppendDelta(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	wrote, declined := 0, 0
	count := func(ok bool) {
		if ok {
			wrote++
		} else {
			declined++
		}
	}
	for range 3000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, true)
		raw := b.Bytes()
		var c report.CaseResult
		if r.IntN(4) > 0 && json.Unmarshal(raw, &c) == nil {
			c.Verdict = []report.Verdict{report.Pass, report.Fail}[r.IntN(2)]
			c.Kind = report.KindAgent
			c.Reliability, c.Tools, c.Findings, c.UnpricedModels, c.Assertions, c.Floors = nil, nil, nil, nil, nil, nil
			c.Name, c.DefinitionSHA256 = drawnTexts[r.IntN(len(drawnTexts))], "abc"
			c.Position.File = drawnTexts[r.IntN(len(drawnTexts))]
			if c.Cassettes != nil {
				c.Cassettes.SHA256, c.Cassettes.Paths = "abc", nil
			}
			if c.Targets == nil {
				c.Targets = map[string]float64{}
			}
			if c.Counts == nil {
				c.Counts = map[string]int64{}
			}
			if c.Labels == nil {
				c.Labels = map[string]string{}
			}
			var enc bytes.Buffer
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			if e.Encode(&c) == nil {
				raw = bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
			}
		}
		raw = drawFigureEdits(r, raw)
		if r.IntN(5) == 0 {
			raw = casedraw.Mutate(r, raw)
		}
		if passThroughKeys(raw, &leanCase{}, &caseSpans{}, &sameKeys{}) {
			count(checkAppendSame(t, raw))
		}
	}
	for k := range 300 {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k, prCase(k))
		w.Flush()
		if !checkAppendSame(t, b.Bytes()) {
			t.Fatalf("the million-case test's case %d: no line written:\n%s", k, b.Bytes())
		}
		count(true)
		for range 4 {
			count(checkAppendSame(t, drawFigureEdits(r, b.Bytes())))
		}
	}
	if wrote < 500 || declined < 100 {
		t.Fatalf("lines written %d, declined %d: the drawing misses one way", wrote, declined)
	}
	t.Logf("%d drawn unchanged cases written from their members, %d declined", wrote, declined)
}

func FuzzAppendSame(f *testing.F) {
	r := rand.New(rand.NewPCG(40, 42))
	for k := range 20 {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k, prCase(k))
		w.Flush()
		f.Add(drawFigureEdits(r, b.Bytes()))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkAppendSame(t, raw) })
}

// TestPlainStrIsStr holds plainStr to w.str over drawn strings: every
// byte value, at every length around the eight bytes read at once.
func TestPlainStrIsStr(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 43))
	plain := 0
	for range 20000 {
		s := make([]byte, r.IntN(40))
		for i := range s {
			s[i] = byte(0x20 + r.IntN(0x5f))
			if r.IntN(60) == 0 {
				s[i] = byte(r.IntN(256))
			}
		}
		var want, got, gotBytes deltaWriter
		want.str(string(s))
		plainStr(&got, string(s))
		plainStr(&gotBytes, s)
		if !bytes.Equal(got.b, want.b) || !bytes.Equal(gotBytes.b, want.b) {
			t.Fatalf("%q: plainStr %s and %s, str %s", s, got.b, gotBytes.b, want.b)
		}
		if plainASCII(s) {
			plain++
		}
	}
	if plain < 5000 || plain > 15000 {
		t.Fatalf("%d of 20000 drawn strings plain: the drawing misses one way", plain)
	}
}

// TestCompareSameLineProcess runs the built binary's `report --compare`
// on drawn runs whose cases are the baseline's bytes (so written from
// their members, appendSame) with figures written every way JSON writes
// a number and names and labels that need escaping, and holds its json
// to the comparison of every case decoded (the same run with a space
// after each case's brace, which no baseline case matches), and to
// baseline.Compare's over the decoded envelopes.
func TestCompareSameLineProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	r := rand.New(rand.NewPCG(40, 44))
	figure := regexp.MustCompile(`"(tool_selection\.f1|reliability\.pass_rate|tool_selection\.tp)":[0-9]+`)
	for draw := range 4 {
		env := genEnvelope(r, 40+r.IntN(40), "s")
		for _, c := range env.Cases {
			if r.IntN(3) == 0 {
				// Texts Check passes in a label: no control character.
				texts := []string{"café", "x y", "<&>", `q"uote`, "exactly8", "seventeen bytes!!"}
				c.Labels[texts[r.IntN(len(texts))]] = texts[r.IntN(len(texts))]
			}
		}
		writeEnv(t, filepath.Join(dir, "base.json"), env)
		data, err := os.ReadFile(filepath.Join(dir, "base.json"))
		if err != nil {
			t.Fatal(err)
		}
		data = figure.ReplaceAllFunc(data, func(m []byte) []byte {
			if r.IntN(2) == 0 {
				return m
			}
			key := m[:bytes.IndexByte(m, ':')+1]
			vals := drawnTargets
			if bytes.Contains(key, []byte("tp")) {
				vals = drawnCounts
			}
			return append(bytes.Clone(key), vals[r.IntN(len(vals))]...)
		})
		spaced := bytes.ReplaceAll(data, []byte("\n    {\"name\""), []byte("\n    { \"name\""))
		for name, b := range map[string][]byte{"base.json": data, "cur.json": data, "spaced.json": spaced} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		same, stderr, c1 := runBin(t, dir, bin, "report", "cur.json", "--compare", "base.json", "--format", "json", "--fail-on", "none")
		decoded, _, c2 := runBin(t, dir, bin, "report", "spaced.json", "--compare", "base.json", "--format", "json", "--fail-on", "none")
		if c1 != 0 {
			t.Fatalf("draw %d: exit %d: %s", draw, c1, stderr)
		}
		if c1 != c2 || same == "" || same != decoded {
			t.Fatalf("draw %d: the unchanged cases' lines (exit %d) differ from every case decoded (exit %d):\n%.3000s\nwant:\n%.3000s", draw, c1, c2, same, decoded)
		}
		policy, err := baseline.ParsePolicy("none")
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := compareInMemory(filepath.Join(dir, "base.json"), "--compare", filepath.Join(dir, "cur.json"), policy)
		if err != nil {
			t.Fatal(err)
		}
		var whole bytes.Buffer
		if err := cmp.WriteJSON(&whole); err != nil {
			t.Fatal(err)
		}
		if same != whole.String() {
			t.Fatalf("draw %d: the unchanged cases' lines differ from baseline.Compare's:\n%.3000s\nwant:\n%.3000s", draw, same, whole.String())
		}
	}
}
