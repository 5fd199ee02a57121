package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
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
