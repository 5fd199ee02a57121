package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzLocate reads any text with Locate's scan: it never panics, passes
// no text that is not JSON, and never places the trouble after the byte
// encoding/json refuses first (the scan asks more of a text than JSON
// does, an envelope's shape, so it may stop sooner; within a value it
// finds the decoder's byte).
func FuzzLocate(f *testing.F) {
	for _, seed := range []string{
		`{"schema_version":1,"cases":[{"name":"a","verdict":"pass"}],"tool":{"name":"mcptest"}}`,
		"{\n  \"cases\": [\n    {\"name\": \"Größe\", \"x\": tru}\n  ]\n}",
		`{"cases":[{"a":1}}],"b":"c`, `{"a":[1,2}`, `[1]`, ``, `{"cases":null,"cases":[{}]} x`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		se := locate(bytes.NewReader(text), "e.json")
		var je *json.SyntaxError
		jerr := json.Unmarshal(text, new(anyJSON))
		if !errors.As(jerr, &je) {
			return // JSON: Locate may still refuse its shape
		}
		if se == nil {
			t.Fatalf("%q is not JSON (%v) and Locate passes it", text, jerr)
		}
		if se.off > je.Offset {
			t.Fatalf("%q: Locate places it at %d (%s), after encoding/json's offset %d (%v)", text, se.off, se.what, je.Offset, jerr)
		}
	})
}
