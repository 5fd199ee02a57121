package annotate

import (
	"bytes"
	"os"
	"testing"

	"github.com/mcptest/mcptest/baseline"
)

// FuzzCompare feeds arbitrary bytes as a baseline envelope: reading,
// comparing, rendering every format and merging never panic.
func FuzzCompare(f *testing.F) {
	if data, err := os.ReadFile("../examples/baseline/baseline.json"); err == nil {
		f.Add(data)
	}
	if data, err := os.ReadFile("testdata/compare.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version": 1, "cases": [{"name": "<b>x</b>", "verdict": "fail", "runs": 1, "assertions": [{"index": 0, "target": "t", "passed": false}], "floors": [{"name": "f"}]}]}`))
	f.Add([]byte(`{"schema_version": 2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		base, err := baseline.ReadBaseline(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		c := baseline.Compare(base, sample(), baseline.Options{})
		for _, format := range CompareFormats {
			var buf bytes.Buffer
			if err := RenderComparison(&buf, format, c, Options{}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
		}
		_, _ = baseline.Merge([]baseline.Input{{Name: "a", Envelope: base}, {Name: "b", Envelope: base}})
	})
}
