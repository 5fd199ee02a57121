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
	f.Add([]byte(`{"schema_version": 1, "floors": [{"index": 0, "target": "summary.pass_hat_99999999999999999999", "matcher": {"regex": "("}}, {"index": 1, "target": "summary.pass_hat_2", "matcher": {">=": 1e308}, "passed": true}],
		"summary": {"pass_hat": [{"k": -1}]}, "cases": [{"name": "a", "verdict": "fail", "runs": 4, "labels": {"reliability.class": "flaky", "token_efficiency.grade": "<b>"},
		"counts": {"reliability.runs": 9223372036854775807, "reliability.passed_runs": -5}, "reliability": {"runs": -3, "passed_runs": 9, "class": "x", "rows": [{"run": 1, "failed": ["<i>"]}]},
		"assertions": [{"index": 0, "target": "t", "passed": false, "failed_runs": 2}]}]}`))
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
