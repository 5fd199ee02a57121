package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	segjson "github.com/segmentio/encoding/json"

	"github.com/mcptest/mcptest/report"
)

// indentSeeds are JSON documents whose compact form the indenter is
// checked on: empty and nested containers, escapes, quotes and brackets
// inside strings, numbers, and a saved envelope.
var indentSeeds = []string{
	`{}`, `[]`, `{"a":[]}`, `[{},{}]`, `"x"`, `1`, `null`, `true`,
	`{"a":{"b":[1,2,{"c":"d"}]},"e":""}`,
	`{"q":"a \"quoted\" [text] {with} brackets, colons: and \\ slashes\\","u":"\u2028<&>"}`,
	`[[[[]]],[[{}]],-1.5e+10,"\\\""]`,
}

// FuzzAppendIndented: appendIndented indents the encoder's compact output
// byte for byte as json.Indent does.
func FuzzAppendIndented(f *testing.F) {
	for _, s := range indentSeeds {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/sample.json"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		compact.WriteByte('\n') // as an Encoder ends a value
		for _, p := range [][2]string{{"", "  "}, {casePrefix, jsonIndent}, {">", "\t"}} {
			var want bytes.Buffer
			if err := json.Indent(&want, compact.Bytes(), p[0], p[1]); err != nil {
				t.Fatal(err)
			}
			got := appendIndented([]byte("x"), compact.Bytes(), p[0], p[1])
			if !bytes.Equal(got[1:], want.Bytes()) || got[0] != 'x' {
				t.Fatalf("appendIndented(%q, %q, %q):\n%q\njson.Indent:\n%q", compact.Bytes(), p[0], p[1], got, want.Bytes())
			}
		}
	})
}

// TestCaseEncoderIndents: a case encoded for the envelope is what an
// Encoder with SetIndent(casePrefix, jsonIndent) writes, less its final
// newline.
func TestCaseEncoderIndents(t *testing.T) {
	e := newCaseEncoder()
	for _, c := range sample().Cases {
		got, err := e.encode(c)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent(casePrefix, jsonIndent)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("case %q:\n%s\nwant\n%s", c.Name, got, want.Bytes())
		}
	}
}

// goldenCases are the cases of the example runs' golden envelopes, the
// cases a run encodes.
func goldenCases(tb testing.TB) []*report.CaseResult {
	tb.Helper()
	files, err := filepath.Glob("../cmd/mcptest/testdata/golden/examples/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no golden envelopes: %v", err)
	}
	var cases []*report.CaseResult
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			tb.Fatal(err)
		}
		env, err := report.Read(f, file)
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		cases = append(cases, env.Cases...)
	}
	return cases
}

// encodingWays are the ways BenchmarkCaseEncoding encodes a case for the
// envelope: the caseEncoder (encoding/json, compact, then appendIndented),
// encoding/json indenting, and segmentio/encoding/json (which indents with
// encoding/json's json.Indent) indenting or compact then appendIndented.
func encodingWays() []func(c *report.CaseResult) []byte {
	mine := newCaseEncoder()
	var std, seg bytes.Buffer
	stdEnc := json.NewEncoder(&std)
	stdEnc.SetEscapeHTML(false)
	stdEnc.SetIndent(casePrefix, jsonIndent)
	segEnc := segjson.NewEncoder(&seg)
	segEnc.SetEscapeHTML(false)
	segEnc.SetIndent(casePrefix, jsonIndent)
	var segCompact bytes.Buffer
	segC := segjson.NewEncoder(&segCompact)
	segC.SetEscapeHTML(false)
	var out []byte
	return []func(c *report.CaseResult) []byte{
		func(c *report.CaseResult) []byte { b, _ := mine.encode(c); return b },
		func(c *report.CaseResult) []byte {
			std.Reset()
			stdEnc.Encode(c)
			return bytes.TrimSuffix(std.Bytes(), []byte("\n"))
		},
		func(c *report.CaseResult) []byte {
			seg.Reset()
			segEnc.Encode(c)
			return bytes.TrimSuffix(seg.Bytes(), []byte("\n"))
		},
		func(c *report.CaseResult) []byte {
			segCompact.Reset()
			segC.Encode(c)
			out = appendIndented(out[:0], segCompact.Bytes(), casePrefix, jsonIndent)
			return bytes.TrimSuffix(out, []byte("\n"))
		},
	}
}

// TestCaseEncodersAgree: the four ways of BenchmarkCaseEncoding write the
// same bytes for every golden case.
func TestCaseEncodersAgree(t *testing.T) {
	enc := encodingWays()
	for _, c := range goldenCases(t) {
		want := bytes.Clone(enc[0](c))
		for i, e := range enc[1:] {
			if got := e(c); !bytes.Equal(got, want) {
				t.Fatalf("case %q, encoder %d:\n%s\nwant\n%s", c.Name, i+1, got, want)
			}
		}
	}
}

// BenchmarkCaseEncoding encodes every case of the golden envelopes as the
// envelope holds it, the four ways of encodingWays in turn within each
// iteration, the order rotating, so all see the same machine load. ns/op
// is the caseEncoder's time; x-stdlib-indent, x-segmentio-indent and
// x-segmentio-compact are the others' times over it.
//
//	go test ./annotate -run '^$' -bench BenchmarkCaseEncoding -benchtime 200x -count 5
func BenchmarkCaseEncoding(b *testing.B) {
	cases := goldenCases(b)
	enc := encodingWays()
	var spent [4]time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range enc {
			e := (i + k) % len(enc)
			start := time.Now()
			for _, c := range cases {
				enc[e](c)
			}
			spent[e] += time.Since(start)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "ns/op")
	for i, name := range []string{"x-stdlib-indent", "x-segmentio-indent", "x-segmentio-compact"} {
		b.ReportMetric(float64(spent[i+1])/float64(spent[0]), name)
	}
}
