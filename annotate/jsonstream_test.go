package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// encodeWhole is the envelope encoded by encoding/json, the head indented
// by two spaces and each case and each catalog one line of compact JSON at
// four: the reference the streamed output must equal byte for byte.
func encodeWhole(t *testing.T, env *report.Envelope) []byte {
	t.Helper()
	encode := func(v any, indent string) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", indent)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	lines := func(data []byte) []byte {
		// The catalogs, one line each.
		if len(env.Catalogs) == 0 {
			return data
		}
		start := bytes.Index(data, []byte("\n  \"catalogs\": ["))
		end := start + bytes.Index(data[start:], []byte("\n  ]"))
		var b bytes.Buffer
		for i := range env.Catalogs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			b.Write(bytes.TrimSuffix(encode(&env.Catalogs[i], ""), []byte("\n")))
		}
		return slices.Concat(data[:start], []byte("\n  \"catalogs\": ["), b.Bytes(), data[end:])
	}
	if env.Cases == nil {
		return lines(encode(env, "  "))
	}
	head := *env
	head.Cases = []*report.CaseResult{}
	data := lines(encode(&head, "  "))
	key := []byte("\n  \"cases\": []")
	at := bytes.Index(data, key)
	if at < 0 || bytes.Count(data, key) != 1 {
		t.Fatalf("no one empty cases array in %s", data)
	}
	var cases bytes.Buffer
	for i, c := range env.Cases {
		if i > 0 {
			cases.WriteByte(',')
		}
		cases.WriteString("\n    ")
		cases.Write(bytes.TrimSuffix(encode(c, ""), []byte("\n")))
	}
	if len(env.Cases) > 0 {
		cases.WriteString("\n  ")
	}
	at += len(key) - 1
	return slices.Concat(data[:at], cases.Bytes(), data[at:])
}

// streamEnvelopes are envelopes of every shape the writer meets: the
// golden envelopes of the examples, the sample, no case, one case, cases
// whose text holds what JSON escapes or does not (<, >, &, line
// separators, quotes, a `"cases": []` of their own), and no field after
// the cases.
func streamEnvelopes(t *testing.T) map[string]*report.Envelope {
	t.Helper()
	envs := map[string]*report.Envelope{"sample": sample()}
	files, _ := filepath.Glob("../cmd/mcptest/testdata/golden/examples/*.json")
	files = append(files, "testdata/sample.json", "testdata/compare.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var env report.Envelope
		if err := json.Unmarshal(data, &env); err != nil || env.SchemaVersion == 0 {
			continue // not an envelope
		}
		envs[f] = &env
	}
	hostile := &report.CaseResult{
		Name: "a <b> & \"c\" \u2028 \n  \"cases\": []", Kind: report.KindAgent, Verdict: report.Fail,
		Position: diag.Pos{File: "suite.yml", Line: 3, Col: 5},
		Targets:  map[string]float64{"tool_selection.f1": 50}, Counts: map[string]int64{"tool_selection.tp": 1},
		Assertions: []report.AssertionResult{{Target: "final_response", Matcher: map[string]any{"regex": "<\\w+>"},
			Actual: "</script>\u2029", Message: "x"}},
		Floors: []report.Floor{}, Findings: []report.Finding{{Level: "error", Message: "&amp;"}},
	}
	envs["none"] = &report.Envelope{SchemaVersion: 1, Cases: []*report.CaseResult{}}
	cat := report.NewCatalog([]report.ToolUse{{Server: "a <b>", Tool: "x & y"}, {Tool: "\u2028"}})
	envs["catalogs, no cases"] = &report.Envelope{SchemaVersion: 1, Catalogs: []report.Catalog{*cat}, Cases: []*report.CaseResult{}}
	envs["catalogs"] = &report.Envelope{SchemaVersion: 1, Catalogs: []report.Catalog{*cat, *cat}, Cases: []*report.CaseResult{hostile}}
	envs["hostile"] = &report.Envelope{SchemaVersion: 1, Verdict: report.Fail, Cases: []*report.CaseResult{hostile, hostile}}
	withTail := *sample()
	withTail.Summary = &report.Summary{Cases: 1, PassHat: []report.PassHatFigure{}}
	withTail.Floors = []report.SuiteFloor{{Target: "summary.cases", Matcher: map[string]any{">=": 1}}}
	envs["tail"] = &withTail
	// More rows than streamRows: Add writes them one at a time.
	many := *hostile
	many.Reliability = &report.ReliabilityDetail{Runs: streamRows + 7, Class: "flaky", Confidence: 95}
	for i := range streamRows + 7 {
		row := report.RunVerdict{Run: i + 1, Passed: i%3 != 0}
		if !row.Passed {
			row.Failed = []string{"assertion #0 (`final_response`) <b> & \u2028", "\"rows\": [{\"run\": -9223372036854775808,"}
		}
		many.Reliability.Rows = append(many.Reliability.Rows, row)
	}
	envs["many rows"] = &report.Envelope{SchemaVersion: 1, Verdict: report.Fail, Cases: []*report.CaseResult{&many, hostile, &many}}
	return envs
}

// TestJSONStreamsByteIdentical: the JSON reporter, which writes one case at
// a time, and a CaseSpool given the same cases both write exactly what
// encoding the whole envelope gives, the spool read back in blocks of
// drawn sizes (copyAhead).
func TestJSONStreamsByteIdentical(t *testing.T) {
	defer func(b int) { spoolBlock = b }(spoolBlock)
	blocks := []int{1, 7, 100, 4096, 256 << 10}
	i := 0
	for name, env := range streamEnvelopes(t) {
		spoolBlock = blocks[i%len(blocks)]
		i++
		want := encodeWhole(t, env)
		var got bytes.Buffer
		if err := (JSON{}).Report(&got, env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: JSON reporter differs from the whole encoding:\n%s\nwant:\n%s", name, got.Bytes(), want)
		}
		spool, err := NewCaseSpool()
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range env.Cases {
			if i%2 == 1 { // half the cases encoded beforehand, as a run's workers do
				if err := spool.Prepare(c); err != nil {
					t.Fatal(err)
				}
			}
			if err := spool.Add(c); err != nil {
				t.Fatal(err)
			}
		}
		head := *env
		head.Cases = []*report.CaseResult{}
		for _, together := range []bool{true, false} { // the store and --output at once (as a run writes them, the spool not yet flushed), then one after the other
			var outs [2]bytes.Buffer
			errs := make(chan error, len(outs))
			for k := range outs {
				if together {
					go func() { errs <- spool.WriteEnvelope(&outs[k], &head) }()
				} else {
					errs <- spool.WriteEnvelope(&outs[k], &head)
				}
			}
			for range outs {
				if err := <-errs; err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			for k := range outs {
				if !bytes.Equal(outs[k].Bytes(), want) {
					t.Errorf("%s (at once %v): spooled envelope differs from the whole encoding:\n%s\nwant:\n%s", name, together, outs[k].Bytes(), want)
				}
			}
		}
		file := spool.f.Name()
		if err := spool.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("%s: the spool file %s is still there after Close", name, file)
		}
	}
}

// TestPrepareManyRowsEncodesNothing: Prepare leaves a case of more than
// streamRows verdict rows to Add, which writes its rows one at a time,
// without encoding it: a case over a directory of 32,000 cassettes carries
// 50,000 rows, and encoding it whole (8 MB, compact then indented) was the
// peak of the run's memory.
func TestPrepareManyRowsEncodesNothing(t *testing.T) {
	c := &report.CaseResult{Name: "many", Kind: report.KindAgent, Verdict: report.Pass,
		Reliability: &report.ReliabilityDetail{Runs: 50_000, Class: "flaky"}}
	for i := range 50_000 {
		row := report.RunVerdict{Run: i + 1, Passed: i%2 == 0}
		if !row.Passed {
			row.Failed = []string{"assertion #0 (`tool_selection.f1`) in equal_function_sets"}
		}
		c.Reliability.Rows = append(c.Reliability.Rows, row)
	}
	spool, err := NewCaseSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := spool.Prepare(c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("Prepare of a case of 50,000 rows allocated %d bytes: it encoded the case, which Add writes row by row", got)
	}
}

// TestJSONNullCases: an envelope decoded with "cases": null is written back
// as it was, its catalogs one line each.
func TestJSONNullCases(t *testing.T) {
	cat := report.NewCatalog([]report.ToolUse{{Server: "s", Tool: "t"}})
	env := &report.Envelope{SchemaVersion: 1, Catalogs: []report.Catalog{*cat}}
	var got bytes.Buffer
	if err := (JSON{}).Report(&got, env); err != nil {
		t.Fatal(err)
	}
	if want := encodeWhole(t, env); !bytes.Equal(got.Bytes(), want) || !bytes.Contains(want, []byte(`"cases": null`)) ||
		!bytes.Contains(want, []byte("\n    {\"sha256\":\""+cat.SHA256+"\",\"servers\":[{\"server\":\"s\",\"tools\":[\"t\"]}]}\n")) {
		t.Errorf("got\n%s\nwant\n%s", got.Bytes(), want)
	}
}
