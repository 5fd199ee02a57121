package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine/diag"
)

// FuzzParseSuite feeds arbitrary bytes to the suite loader: it must never
// panic, and every error it returns must be a positioned diag.List.
func FuzzParseSuite(f *testing.F) {
	for _, pattern := range []string{"../cmd/mcptest/testdata/err/*.yml", "../cmd/mcptest/testdata/ok/*.yml", "../examples/*/suite.yml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Add([]byte("agents:\n  - name: x\n    expect:\n      - \"a[\": {\">=\": .inf}\n"))
	f.Add([]byte("agents:\n  - {name: x, expect: [{target: 'tool[\"a\"].b', matcher: {not: {not: {regex: '(?i)x'}}}}]}\n"))
	f.Add([]byte("reliability: {confidence: 99.95, min_pass_rate: 75, min_pass_hat: {k: 2, min: 50}}\nagents:\n  - {name: x, runs: 1, reliability: {min_pass_hat: {k: 3, min: 1e308}, allow_flaky: false}, expect: [{reliability.pass_hat_99999999999999999999: {'>=': 1}}]}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		s, err := ParseSuite(filepath.Join(dir, "suite.yml"), data)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("ParseSuite took %v on %d bytes", d, len(data))
		}
		if err == nil {
			if s == nil {
				t.Fatal("nil suite without error")
			}
			for _, c := range s.Cases {
				for _, a := range c.Expect {
					if a.Matcher == nil {
						t.Fatalf("case %q: assertion without a matcher", c.Name)
					}
				}
			}
			return
		}
		var l diag.List
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("error is not a diag.List: %v", err)
		}
		for _, e := range l {
			if e.Pos.File == "" || e.Message == "" {
				t.Fatalf("error without a file or a message: %+v", e)
			}
		}
	})
}

// FuzzComplianceRules: the conformance rules read whatever a server
// answers; no answer panics them.
func FuzzComplianceRules(f *testing.F) {
	f.Add([]byte(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"x","version":"1"},"capabilities":{"tools":{}}}`))
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"a"},{"name":7,"outputSchema":[]}]}`))
	f.Add([]byte(`{"prompts":[{"name":"p","arguments":[{"name":""},{"required":"yes"}, 3]}],"resources":[{"uri":"x"}, null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil {
			return
		}
		initializeRules(doc, "2025-11-25", func(string, []string, string) bool { return true })
		for _, key := range []string{"tools", "resources", "prompts"} {
			items, _ := doc[key].([]any)
			itemRules(key, items)
		}
	})
}

// FuzzSummary feeds arbitrary bytes as a run envelope, as `mcptest report
// merge` and a baseline artifact give them: recounting the reliability
// summary and deciding the suite floors never panics, stays quick whatever
// counts and floors the envelope claims, and gives figures within 0..100.
func FuzzSummary(f *testing.F) {
	f.Add([]byte(`{"cases": [{"counts": {"reliability.runs": 4, "reliability.passed_runs": 3}}, {"counts": {"reliability.runs": 2, "reliability.passed_runs": 2}}],
		"floors": [{"index": 0, "target": "summary.pass_hat_2", "matcher": {">=": 40}}, {"index": 1, "target": "summary.flaky", "matcher": {"<=": 0}}]}`))
	f.Add([]byte(`{"cases": [{"counts": {"reliability.runs": 9223372036854775807, "reliability.passed_runs": 9223372036854775806}}],
		"floors": [{"target": "summary.pass_hat_20", "matcher": {"schema": {"minimum": 1}}}, {"target": "summary.pass_hat_999999999", "matcher": {"regex": "("}}]}`))
	f.Add([]byte(`{"cases": [null, {"counts": {"reliability.runs": -1, "reliability.passed_runs": 5}}], "run": {"shard": "1/2"}, "floors": [{"target": "summary.pass_rate", "matcher": 7}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var env Envelope
		if json.Unmarshal(data, &env) != nil {
			return
		}
		start := time.Now()
		env.Summarize()
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Summarize took %v", d)
		}
		if s := env.Summary; s != nil {
			for _, p := range append([]PassHatFigure{{SummaryFigure: s.PassRate}}, s.PassHat...) {
				if p.Value < 0 || p.Value > 100 || p.K > maxSummaryK {
					t.Fatalf("figure %+v", p)
				}
			}
		}
		for _, c := range env.Cases {
			if c == nil {
				return // Tally needs the cases Envelope.Check lets through
			}
		}
		env.Tally()
	})
}
