package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// FuzzParseSuite feeds arbitrary bytes to the suite loader: it must never
// panic, and every error it returns must be a positioned diag.List.
func FuzzParseSuite(f *testing.F) {
	addCorpus(f, "testdata/err/*.yml", "testdata/ok/*.yml", "../examples/*/suite.yml")
	f.Add([]byte("a: &a [*a, *a]\nb: *a\n"))
	f.Add([]byte("agents:\n  - name: x\n    expect:\n      - \"a[\": {\">=\": .inf}\n"))
	f.Add([]byte("agents:\n  - {name: x, expect: [{target: 'tool[\"a\"].b', matcher: {not: {not: {regex: '(?i)x'}}}}]}\n"))
	f.Add([]byte("\xef\xbb\xbfagents: [a, b\n"))
	f.Add([]byte("agents: b: c\n"))
	f.Add([]byte("agents:\n  - name: a\x7fb\n"))
	f.Add([]byte("agents:\n  - name: x\n    runs: 1e300\n"))
	f.Add([]byte("reliability: {confidence: 99.95, min_pass_rate: 75, min_pass_hat: {k: 2, min: 50}}\nagents:\n  - {name: x, runs: 1, reliability: {min_pass_hat: {k: 3, min: 1e308}, allow_flaky: false}, expect: [{reliability.pass_hat_99999999999999999999: {'>=': 1}}]}\n"))
	f.Add([]byte("x-a: &a [q, q, q, q, q, q, q, q]\nx-b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nx-c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nagents:\n  - {name: x, prompt: *c}\n"))
	dir := f.TempDir()
	for _, name := range []string{"c.json", "cat.yml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Add([]byte("servers:\n  s: {command: [x]}\nagents:\n  - name: a\n    cassette: c.json\nscenarios:\n  - name: b\n    cassette: \"*.json\"\ntool_quality:\n  - name: q\n    catalog: cat.yml\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		s, err := ParseSuite(filepath.Join(dir, "suite.yml"), data)
		// A blow-up (an alias bomb, a quadratic locator) takes seconds: the
		// slowest seed, the 20 KB yaml-depth corpus file, takes 0.2 s alone
		// and ten times that on a loaded two-core runner, hence the margin.
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("ParseSuite took %v on %d bytes", d, len(data))
		}
		if err == nil {
			checkParsedSuite(t, s, data)
			return
		}
		checkSuiteErrors(t, err, data)
	})
}

// addCorpus seeds f with the files the patterns match.
func addCorpus(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// checkParsedSuite: every assertion of a loaded suite has a matcher, and
// SuiteFiles lists every file the loader resolved, so the front door can
// check them all before a suite is loaded.
func checkParsedSuite(t *testing.T, s *Suite, data []byte) {
	t.Helper()
	if s == nil {
		t.Fatal("nil suite without error")
	}
	listed := map[string]bool{}
	for _, ref := range SuiteFiles("suite.yml", data) {
		listed[ref.Key+" "+ref.Path] = true
	}
	for _, c := range s.Cases {
		for _, a := range c.Expect {
			if a.Matcher == nil {
				t.Fatalf("case %q: assertion without a matcher", c.Name)
			}
		}
		if c.Cassette != "" && !listed["cassette "+c.Cassette] {
			t.Fatalf("case %q: cassette %q is not in SuiteFiles", c.Name, c.Cassette)
		}
		if c.Quality != nil && c.Quality.Catalog != "" && !listed["catalog "+c.Quality.Catalog] {
			t.Fatalf("case %q: catalog %q is not in SuiteFiles", c.Name, c.Quality.Catalog)
		}
	}
}

// checkSuiteErrors: a refused suite's errors are a diag.List, each with a
// file and a message, a syntax error with a line and column, and any
// source an error carries is the suite's own bytes.
func checkSuiteErrors(t *testing.T, err error, data []byte) {
	t.Helper()
	var l diag.List
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error is not a diag.List: %v", err)
	}
	for _, e := range l {
		if e.Pos.File == "" || e.Message == "" {
			t.Fatalf("error without a file or a message: %+v", e)
		}
		if e.Kind == "syntax" && (e.Pos.Line < 1 || e.Pos.Col < 1) {
			t.Fatalf("a syntax error without a line and column: %v", e)
		}
		if e.Source != nil && strings.HasSuffix(e.Pos.File, "suite.yml") && !bytes.Equal(e.Source, data) {
			t.Fatalf("an error carries bytes that are not the suite's: %v", e)
		}
	}
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

// FuzzCacheEntry feeds the cache entry reader (decodeEntry, then
// checkCached against the case it would be served for) any bytes. Seeds are
// a real entry of a failing case and the lies the regression tests plant.
// An accepted entry must be bound to its case, keep the verdict its own
// results give, and never pass a case whose assertions or floors failed.
func FuzzCacheEntry(f *testing.F) {
	s := failingCacheSuite(f)
	cache := DirCache{Dir: f.TempDir()}
	if _, err := Run(s, Options{Version: "fuzz", Cache: cache}); err != nil {
		f.Fatal(err)
	}
	plans, _, errs := plan(s, s.refs()[:1], Options{})
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	key, set, ok := cacheKey(s, plans[0], "fuzz", 0)
	if !ok {
		f.Fatal("the agent case has no cache key")
	}
	entry, err := os.ReadFile(cache.path(key))
	if err != nil {
		f.Fatal(err)
	}
	if res, err := decodeEntry(key, entry); err != nil || checkCached(res, s.Cases[0], set) != nil {
		f.Fatalf("a fresh entry is refused: %v", err)
	}
	f.Add(entry)
	f.Add(bytes.Replace(entry, []byte(`"verdict":"fail"`), []byte(`"verdict":"pass"`), 1))
	f.Add(bytes.Replace(entry, []byte(`"passed":false`), []byte(`"passed":true`), 1))
	f.Add(bytes.Replace(entry, []byte(`"kind":"agent"`), []byte(`"kind":"scenario"`), 1))
	f.Add(bytes.Replace(entry, []byte(`"line":`), []byte(`"line":1`), 1))
	f.Add(bytes.Replace(entry, []byte(key), []byte(strings.Repeat("0", 64)), 1))
	f.Add([]byte(`{"name": "x"}`))
	f.Add([]byte(`{"format": 4, "key": "` + key + `", "case": {"name": "weather selection"}}`))
	f.Add([]byte(`{"format": 4, "key": "` + key + `", "case": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := decodeEntry(key, data)
		if err != nil {
			return
		}
		if err := checkCached(res, s.Cases[0], set); err != nil {
			return
		}
		if res.Name != s.Cases[0].Name || res.Kind != s.Cases[0].Kind || res.Position != s.Cases[0].Pos {
			t.Fatalf("accepted an entry of another case: %s %s %v", res.Name, res.Kind, res.Position)
		}
		if res.Verdict != caseVerdict(res, false) {
			t.Fatalf("accepted verdict %q, its results give %q", res.Verdict, caseVerdict(res, false))
		}
		for _, a := range res.Assertions {
			if !a.Passed && res.Verdict != report.Fail {
				t.Fatalf("accepted a %s case with a failed assertion", res.Verdict)
			}
		}
		env := &report.Envelope{Cases: []*report.CaseResult{res}}
		env.Tally()
		if err := env.Check(); err != nil {
			t.Fatalf("accepted an entry the reporters refuse: %v", err)
		}
		if _, err := json.Marshal(env); err != nil {
			t.Fatalf("accepted an entry that does not marshal: %v", err)
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
		var env report.Envelope
		if json.Unmarshal(data, &env) != nil {
			return
		}
		start := time.Now()
		env.Summarize(expr.JudgeFloor)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Summarize took %v", d)
		}
		if s := env.Summary; s != nil {
			for _, p := range append([]report.PassHatFigure{{SummaryFigure: s.PassRate}}, s.PassHat...) {
				if p.Value < 0 || p.Value > 100 || p.K > report.MaxSummaryK {
					t.Fatalf("figure %+v", p)
				}
			}
		}
		for _, c := range env.Cases {
			if c == nil {
				return // Tally needs the cases report.Envelope.Check lets through
			}
		}
		env.Tally()
	})
}
