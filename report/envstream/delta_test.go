package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// checkAppendDelta holds appendDelta to encoding/json's encoder
// (encodeDeltaJSON): the same bytes, or, for what it leaves to the
// encoder, the encoder's answer.
func checkAppendDelta(t *testing.T, d *baseline.CaseDelta) {
	t.Helper()
	want, werr := encodeDeltaJSON(d)
	got, ok := appendDelta([]byte("x"), d)
	if !ok {
		if !bytes.Equal(got, []byte("x")) {
			t.Fatalf("appendDelta left %q after refusing", got)
		}
		if werr == nil {
			t.Fatalf("appendDelta refused a delta the encoder writes:\n%s", want)
		}
		return
	}
	if werr != nil {
		t.Fatalf("appendDelta wrote a delta the encoder refuses (%v):\n%s", werr, got)
	}
	if got = got[1:]; !bytes.Equal(got, want) {
		t.Fatalf("appendDelta:\n%s\nencoding/json:\n%s", got, want)
	}
}

// TestAppendDeltaIsEncoder draws deltas three ways (drawn by CaseDelta's
// type, so a field added to it is drawn too; baseline.CaseOf and RemovedOf
// of drawn cases, compared with drawn cases, with themselves and with
// none; figures at encoding/json's edges) and holds appendDelta to the
// encoder's bytes for each.
func TestAppendDeltaIsEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	decoded := 0
	for range 6000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[baseline.CaseDelta](), 0, r.IntN(2) == 0)
		var d baseline.CaseDelta
		if json.Unmarshal(b.Bytes(), &d) != nil {
			continue
		}
		decoded++
		checkAppendDelta(t, &d)
	}
	var cases []*report.CaseResult
	for len(cases) < 400 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, true)
		var c report.CaseResult
		if json.Unmarshal(b.Bytes(), &c) == nil {
			cases = append(cases, &c)
		}
	}
	for _, c := range cases {
		other := cases[r.IntN(len(cases))]
		for _, d := range []baseline.CaseDelta{
			baseline.CaseOf(other, c, ""), baseline.CaseOf(c, c, ""), baseline.CaseOf(nil, c, ""),
			baseline.CaseOf(other, c, "not comparable"), baseline.RemovedOf(c),
		} {
			checkAppendDelta(t, &d)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e21, 999999999999999999999, -1e-9, 1e-10, 2.5e-100, 1e+100, 1.5e300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0.1, 1.0 / 3, math.Inf(1), math.NaN(),
		// integers on both sides of 2^53 and of int64's range (the
		// integer fast path of deltaWriter.float)
		1, -1, 50, -50, 100, 67, 1 << 53, -(1 << 53), 1<<53 + 2, -(1<<53 + 2), 1<<53 - 1, 1 << 62, 1 << 63, -(1 << 63), 1 << 64, 1e15, 1e20} {
		v := f
		for _, d := range []baseline.CaseDelta{
			{Name: "f", Targets: []baseline.TargetDelta{{Name: "x", Baseline: &v}}},
			{Name: "f", Targets: []baseline.TargetDelta{{Name: "x", Current: &v, Delta: &v}}, Flips: []baseline.Flip{}},
		} {
			checkAppendDelta(t, &d)
		}
	}
	// Every byte alone and in text, and the runes encoding/json escapes.
	for c := range 256 {
		// (after 7 to 17 plain bytes too: where the writer's eight-byte
		// steps end)
		long := strings.Repeat("abcdefgh", 3)[:7+c%11] + string([]byte{byte(c)}) + "12345678\u2028"
		for _, name := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "\u2028\u2029é\xed\xa0\x80z", long} {
			d := baseline.CaseDelta{Name: name, Reasons: []string{name}, Flips: []baseline.Flip{{Message: name}}}
			checkAppendDelta(t, &d)
		}
	}
	if decoded < 1000 {
		t.Fatalf("%d drawn deltas decoded: the drawing misses appendDelta", decoded)
	}
}

// FuzzAppendDelta: a delta decoded from any text encodes alike both ways.
func FuzzAppendDelta(f *testing.F) {
	r := rand.New(rand.NewPCG(40, 3))
	for range 30 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[baseline.CaseDelta](), 0, true)
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d baseline.CaseDelta
		if json.Unmarshal(data, &d) == nil {
			checkAppendDelta(t, &d)
		}
	})
}

func BenchmarkEncodeDelta(b *testing.B) {
	cr, err := report.NewCaseReader(bytes.NewReader(append(append([]byte(`{"schema_version":1,"cases":[`), benchCase(b)...), "]}"...)), "e.json")
	if err != nil {
		b.Fatal(err)
	}
	c, err := cr.Next()
	if err != nil {
		b.Fatal(err)
	}
	d := baseline.CaseOf(c, c, "")
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			encodeDeltaJSON(&d)
		}
	})
	b.Run("appendDelta", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		for b.Loop() {
			buf, _ = appendDelta(buf[:0], &d)
		}
	})
}

func BenchmarkSameCaseDecode(b *testing.B) {
	raw := benchCase(b)
	b.Run("decodeCase", func(b *testing.B) {
		for b.Loop() {
			var c report.CaseResult
			decodeCase(raw, &c)
		}
	})
	b.Run("passThrough", func(b *testing.B) {
		var lc leanCase
		for b.Loop() {
			passThrough(raw, &lc)
		}
	})
	b.Run("plainMembers", func(b *testing.B) {
		for b.Loop() {
			plainMembers(raw)
		}
	})
}

// TestListSpoolRendersAlike: a listed case spooled and read back
// (listSpool) renders in text and markdown as it did, over deltas drawn
// by CaseDelta's type (their strings of every kind: escapes, control
// characters, invalid UTF-8, kept in memory) and CaseOf of drawn cases.
func TestListSpoolRendersAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 21))
	var ds []baseline.CaseDelta
	for len(ds) < 600 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[baseline.CaseDelta](), 0, r.IntN(2) == 0)
		var d baseline.CaseDelta
		if json.Unmarshal(b.Bytes(), &d) == nil {
			ds = append(ds, d)
		}
	}
	ds = append(ds, baseline.CaseDelta{Name: "a\xffb", Flips: []baseline.Flip{{Message: "\xed\xa0\x80"}}})
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ls listSpool
	w := bufio.NewWriter(f)
	for _, d := range ds {
		ls.add(w, d)
	}
	if err := w.Flush(); err != nil || ls.err != nil {
		t.Fatal(err, ls.err)
	}
	back, err := ls.read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(ds) || len(ls.kept) == 0 {
		t.Fatalf("%d read back of %d, %d kept in memory", len(back), len(ds), len(ls.kept))
	}
	for i := range ds {
		for _, format := range []string{"text", "markdown"} {
			var want, got bytes.Buffer
			annotate.RenderComparison(&want, format, &baseline.Comparison{Cases: ds[i : i+1]}, annotate.Options{})
			annotate.RenderComparison(&got, format, &baseline.Comparison{Cases: back[i : i+1]}, annotate.Options{})
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("case %d (%s) read back renders otherwise:\n%s\nwant:\n%s", i, format, got.String(), want.String())
			}
		}
	}
}

// TestDeltaFloatIsEncoder draws figures around deltaWriter.float's integer
// fast path (integers of every magnitude up to and past 2^53 and int64's
// range, each side of zero, and their neighbours a bit away) and holds
// appendDelta to the encoder's bytes for each.
func TestDeltaFloatIsEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	for range 20000 {
		f := float64(int64(r.Uint64() >> r.IntN(64)))
		switch r.IntN(4) {
		case 0:
			f = -f
		case 1:
			f = math.Nextafter(f, math.Inf(1-2*r.IntN(2)))
		case 2:
			f = math.Ldexp(f, r.IntN(40)-20)
		}
		v, w := f, -f
		d := baseline.CaseDelta{Name: "f", Targets: []baseline.TargetDelta{{Name: "x", Baseline: &v, Current: &w, Delta: &v}}}
		checkAppendDelta(t, &d)
	}
}
