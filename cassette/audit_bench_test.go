package cassette

import (
	"bytes"
	"encoding/json"
	"testing"
)

// BenchmarkAudit sets the cost of the read-or-refused audit beside the
// read it follows, on the generated runs of BenchmarkReadFormats in each
// format read from its generic value: read is Read, audit the audit of
// the same documents alone (their calls counted, every document walked,
// nothing lost). Run in one process, the two are measured under the same
// load, so their ratio holds where the machine is shared.
func BenchmarkAudit(b *testing.B) {
	_, files := recordingFormats(b)
	for _, f := range []Format{FormatOpenAI, FormatResponses, FormatOTel, FormatClaudeCode} {
		data := files[f]
		c, err := Read("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		var docs []any
		for _, line := range bytes.Split(data, []byte("\n")) {
			var v any
			if json.Unmarshal(line, &v) == nil {
				docs = append(docs, v)
			}
		}
		b.Run(string(f)+"/read", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read("bench", data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(f)+"/audit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := &audit{}
				a.read(c.Runs)
				for _, v := range docs {
					a.walk(v)
				}
				if lost := a.lost(c, len(c.Runs)); len(lost) > 0 {
					b.Fatalf("%s: %d lost", f, len(lost))
				}
			}
		})
	}
}
