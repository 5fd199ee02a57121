package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// checkSameDelta holds the delta sameBytes makes of a case's JSON without
// decoding it to the delta of the decoded case compared with itself; it
// reports whether the case took that way.
func checkSameDelta(t *testing.T, raw []byte) bool {
	t.Helper()
	name, ok := plainName(raw)
	if !ok {
		return false
	}
	var lc leanCase
	if !passThrough(raw, &lc) {
		return false
	}
	// The one scan (passThroughSpans, then sameDeltaSpans) reads what the
	// two scans read, with and without figures.
	var spans caseSpans
	var lcs leanCase
	if !passThroughSpans(raw, &lcs, &spans) || !reflect.DeepEqual(lcs, lc) {
		t.Fatalf("passThroughSpans: not passThrough's %+v:\n%s", lc, raw)
	}
	for _, figures := range []bool{true, false} {
		ds, oks := sameDeltaSpans(raw, &spans, figures, nil)
		// Storage reused from the cases checked before.
		dr, okr := sameDeltaSpans(raw, &spans, figures, &testSameScratch)
		if okr != oks || oks && !reflect.DeepEqual(dr, ds) {
			t.Fatalf("case %s (figures %v)\nin reused storage %v %+v\nin its own        %v %+v", raw, figures, okr, dr, oks, ds)
		}
		dw, okw := sameDelta(raw, figures)
		if oks != okw || oks && !reflect.DeepEqual(ds, dw) {
			t.Fatalf("case %s (figures %v)\nfrom its spans %v %+v\nscanned again  %v %+v", raw, figures, oks, ds, okw, dw)
		}
	}
	d, ok := sameDelta(raw, true)
	if !ok {
		return false
	}
	var c report.CaseResult
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("passed through, and Unmarshal refuses it (%v):\n%s", err, raw)
	}
	if err := c.Check("cases[0]"); err != nil {
		t.Fatalf("passed through, and Check refuses it (%v):\n%s", err, raw)
	}
	if want := baseline.CaseOf(&c, &c, ""); !reflect.DeepEqual(d, want) {
		t.Fatalf("case %s\nlean delta %+v\ndecoded    %+v", raw, d, want)
	}
	if name != c.Name {
		t.Fatalf("plainName %q; decoded %q", name, c.Name)
	}
	// Without its figures (CompareListed), a case of a definition digest
	// is unchanged and counted alike.
	if c.DefinitionSHA256 != "" {
		db, ok := sameDelta(raw, false)
		var got, want baseline.Summary
		got.Add(db)
		want.Add(d)
		if !ok || db.Changed() || d.Changed() || got != want {
			t.Fatalf("case %s\nwithout its figures %+v (changed %v)\nwith them %+v (changed %v)", raw, got, db.Changed(), want, d.Changed())
		}
	}
	return true
}

// testSameScratch is the storage checkSameDelta's reused calls share.
var testSameScratch sameScratch

// TestSameDeltaIsCaseOf draws cases' JSON (by CaseResult's type, so a field
// added is drawn too; their mutations; the cases the million-case test
// and the stream tests generate) and holds the delta made without a
// decode to the decoded case's.
func TestSameDeltaIsCaseOf(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 11))
	lean := 0
	for range 3000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, r.IntN(4) > 0)
		raw := b.Bytes()
		// Mostly as an encoder writes a case: its name first, one line,
		// its verdict, kind and reliability what Check passes.
		var c report.CaseResult
		if r.IntN(5) > 0 && json.Unmarshal(raw, &c) == nil {
			c.Verdict = []report.Verdict{report.Pass, report.Fail}[r.IntN(2)]
			c.Kind = report.KindAgent
			c.Reliability, c.Tools, c.Findings, c.UnpricedModels = nil, nil, nil, nil
			for _, p := range []*string{&c.Name, &c.DefinitionSHA256, &c.Model, &c.Position.File, &c.Catalog} {
				if r.IntN(4) > 0 {
					*p = strings.Map(func(r rune) rune {
						if r < 0x20 || r >= 0x7f {
							return 'x'
						}
						return r
					}, *p)
				}
			}
			if c.Labels != nil && r.IntN(2) == 0 {
				c.Labels["reliability.class"] = "flaky"
			}
			if c.Cassettes != nil {
				c.Cassettes.SHA256, c.Cassettes.Paths = "abc", nil
			}
			for i := range c.Assertions {
				c.Assertions[i].Position.File = "suite.yml"
			}
			var enc bytes.Buffer
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			if e.Encode(&c) == nil {
				raw = bytes.TrimSuffix(enc.Bytes(), []byte("\n"))
			}
		}
		if r.IntN(3) == 0 {
			raw = casedraw.Mutate(r, raw)
		}
		if checkSameDelta(t, raw) {
			lean++
		}
	}
	for k := range 300 {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		writeCaseJSON(w, k, prCase(k))
		w.Flush()
		if !checkSameDelta(t, b.Bytes()) {
			t.Fatalf("the million-case test's case %d is decoded:\n%s", k, b.Bytes())
		}
		data, err := json.Marshal(genCase(r, k, "c"))
		if err != nil {
			t.Fatal(err)
		}
		if checkSameDelta(t, data) {
			lean++
		}
		// Raw edits an encoder does not make: a target or label given
		// twice, nulls, spaces, other number forms.
		for _, e := range [][2]string{{`"targets":{`, `"targets":{"tool_selection.f1":3,`}, {`"targets":{`, `"targets": { "x" : -0.0e0 , "y":1E-7,`},
			{`"labels":{`, `"labels":{"a":"1","a":"2",`}, {`"counts":{`, `"counts":{"x":null,`}, {`"floors":[]`, `"floors":null`},
			{`"floors":[]`, `"floors":[{"name":"f","passed":true},{"name":"f","passed":false}]`}, {`"position":{`, `"position":{"x":[1,{"a":"\n"}],`},
			{`"name":"c`, `"name":"\u0063`}, {`"assertions":[`, `"assertions":[null,`}, {`"definition_sha256":"`, `"definition_sha256":"\/`}} {
			if bytes.Contains(data, []byte(e[0])) {
				if checkSameDelta(t, bytes.Replace(data, []byte(e[0]), []byte(e[1]), 1)) {
					lean++
				}
			}
		}
	}
	if lean < 1000 {
		t.Fatalf("%d drawn cases took the way without a decode: the drawing misses it", lean)
	}
	t.Logf("%d drawn cases compared without a decode", lean)
}

func FuzzSameDelta(f *testing.F) {
	r := rand.New(rand.NewPCG(40, 12))
	for range 30 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, true)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkSameDelta(t, raw) })
}

// BenchmarkSameBytes: the parts of comparing a case whose bytes are the
// baseline's, on a case of the million-case test.
func BenchmarkSameBytes(b *testing.B) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeCaseJSON(w, 12345, prCase(12345))
	w.Flush()
	raw := buf.Bytes()
	var lc leanCase
	b.Run("passThrough", func(b *testing.B) {
		for b.Loop() {
			passThrough(raw, &lc)
		}
	})
	b.Run("sameDelta", func(b *testing.B) {
		for b.Loop() {
			sameDelta(raw, true)
		}
	})
	var spans caseSpans
	var ss sameScratch
	if !passThroughSpans(raw, &lc, &spans) {
		b.Fatal("the case is not passed through")
	}
	b.Run("passThroughSpans", func(b *testing.B) {
		for b.Loop() {
			passThroughSpans(raw, &lc, &spans)
		}
	})
	b.Run("sameDeltaSpans", func(b *testing.B) {
		for b.Loop() {
			sameDeltaSpans(raw, &spans, true, &ss)
		}
	})
	d, _ := sameDelta(raw, true)
	b.Run("appendDelta", func(b *testing.B) {
		out := make([]byte, 0, 4096)
		for b.Loop() {
			out, _ = appendDelta(out[:0], &d)
		}
	})
	b.Run("decodeCase", func(b *testing.B) {
		for b.Loop() {
			var c report.CaseResult
			decodeCase(raw, &c)
		}
	})
}
